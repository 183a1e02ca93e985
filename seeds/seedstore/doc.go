// Package seedstore is the SMS store of seed 000 (SMSRepo): a dao.Repo of
// seeds.SMS with the seed's queries (a mobile's messages in a window, the
// latest ones, an account's messages of a day, counts per day from the
// index alone) as calls of their own, built on package dao's public API
// only.
//
// # Who should use it
//
// The SMS demo (examples/sms), benchmarks and tests that load messages.
//
// # Who should not
//
// Code with its own tables: use dao.New with your schema.
package seedstore
