// Package seedsim generates the seeds' workloads for package sim:
// deterministic records of the SMS store (SMSWorkload), TestTable's users,
// LOG_DATA events, CUSTOMER++ rows and orders, the naive timestamp-first
// SMS key the demo compares with (NaiveSMSTable), and Builtin, the source
// of writes to any seed table by name (hbkit simulate --schema NAME).
// It uses sim's public API only (Config, Generator, FromTable, FromIndex).
//
// # Who should use it
//
// The hbkit binary, the SMS demo, benchmarks and tests that want
// realistic records.
//
// # Who should not
//
// A team simulating its own tables: write a sim.Generator of your records
// and use sim.FromTable.
package seedsim
