// Package gohbase lets hbkit run over a gohbase client
// (github.com/tsuna/gohbase): its Client implements hbase.DataClient and,
// as far as gohbase offers the calls, hbase.AdminClient, so that dao (the
// store, the SMS store, every write mode of the index protocol), index and
// admin use a team's existing, tuned and monitored gohbase.Client instead
// of hbkit's native client.
//
//	c, err := hbgohbase.New(client, hbgohbase.WithAdminClient(adminClient))
//	sms, err := dao.NewSMS(c)
//
// # Who should use it
//
// Programs that already run gohbase and want hbkit's schemas, store and
// index without a second HBase client. Programs without gohbase should use
// hbkit's native client (package hbase): it offers every call, and adds
// bounded retries, nonces and hbkit's telemetry.
//
// # What it does not do
//
// Where gohbase lacks a call, or a form of one, the adapter fails before
// sending anything with an *UnsupportedError (errors.Is ErrUnsupported):
// Scan.Batch, namespaces, TruncateTable, ModifyTable, DescribeTable,
// SplitRegion, and table DDL outside the default namespace. Several
// mutations applied atomically (MutateRow, CheckAndMutate) go as one
// atomic region action through gohbase's SendRPC, which gohbase's own
// client has but a wrapper implementing only gohbase.Client may not.
// README.md has the full table; Client.Unsupported names the calls
// refused whatever their arguments, so that a job can fail before it
// starts. Calls gohbase answers with an error return an *Error, which
// errors.Is matches against hbase's sentinels where HBase names the
// failure (hbase.ErrTableNotFound, hbase.ErrNoSuchFamily, ...).
//
// cmd/hbkit-gohbase runs hbkit's commands (table, index, regions, bench,
// ...) over the adapter.
//
// What stays gohbase's: it retries transient failures until the call's
// context ends (there is no other bound, so give every call a deadline), a
// data call on a disabled table waits until then instead of failing with
// hbase.ErrTableDisabled, Increment and Append carry no nonce, and tracing
// and metrics are gohbase's own.
//
// In this repository the module builds through contrib/go.work (hbkit from
// the checkout, gohbase from the source beside it); README.md
// says how to point it at your own checkout (GOHBASE_SRC).
package gohbase
