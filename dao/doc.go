// Package dao reads and writes typed records in HBase tables declared with
// package schema: a generic repository, Repo[T], over one table.
//
// A Repo turns a record into its row key and cells with the schema's
// explicit mapping functions (no reflection, no struct tags) and back:
//
//   - Put, Get (by the key fields of a record) and Delete;
//   - PutBatch and DeleteBatch, with one result per record and a
//     *BatchError naming the records that failed, in chunks of
//     WithBatchSize;
//   - Scan of a Query — a key prefix, a range between two records' key
//     fields, or explicit row ranges — as an iterator of decoded records,
//     with a limit and either direction;
//   - Page, which returns a page and an opaque resume Token; a token
//     handed to another query is refused with ErrTokenMismatch;
//   - merged scans over bucketed or salted keys: a query with several
//     ranges (one per bucket, see BucketRanges, or one per salt value of a
//     keys.Salt layout) runs one scanner per range concurrently
//     (WithScanConcurrency bounds the fetching), merges them in key order
//     with a heap, or in the order of the key behind the bucket
//     (Query.MergeSkip), stops early at the limit, and leaves no goroutine
//     behind when the loop ends or ctx is cancelled.
//
// SMSRepo gives the seed SMS table's queries their own calls: the messages
// of a mobile in a time window, newest first (SMSRepo.Messages, one range
// scan thanks to the reversed-mobile + reversed-timestamp key), and a
// mobile's latest messages (SMSRepo.Latest).
//
// # Validation
//
// Every record is encoded whole — validators (WithValidator), row key,
// cells — before anything is written. A record that
// fails is rejected with a *ValidationError (errors.Is ErrInvalidRecord)
// naming the field and the reason and wrapping the *schema.Error or
// *keys.Error behind it. Batches validate all-or-nothing: one invalid
// record rejects the batch and nothing is written; once validated, writes
// are per record and the results say which ones failed.
//
// # Secondary indexes
//
// dao does not import an index package, and index never imports dao. A
// table kept with a client-managed index (hbkit's package index writes a
// data row and its entries by its own protocol) plugs in through the small
// Writer interface: WithWriter routes the Repo's writes through it after
// dao's validation, while reads stay dao's. The index package's tables are
// Writers (see Writer and ExampleWithWriter):
//
//	ix, err := index.NewSMS(client)
//	repo, err := dao.NewSMS(client, dao.WithWriter[schema.SMS](ix))
//	repo.PutBatch(ctx, msgs)                  // validated here, written with index entries there
//	repo.Messages(ctx, mobile, from, to, 0)   // data-table range scan
//	ix.MessagesOfAccountOnDate(ctx, account, day) // index query
//
// # Who should use it
//
// Application code that stores records in a table whose design lives in a
// schema.Table, and wants typed reads and writes without writing key
// encoders, scans and batch bookkeeping by hand. Tests use it with the
// in-memory hbase/fake.
//
// # Who should not
//
// Code that moves raw rows (copy tools, the CLI's scan) should use the
// hbase client directly: a Repo decodes every row into a T. Atomic
// read-modify-write (check-and-mutate, increments) is not part of a Repo;
// use the hbase client for those. dao depends only on the Client
// interface (the data calls of hbase.DataClient), never on the concrete
// client.
//
// # Errors
//
// Errors wrap the sentinels of this package (ErrInvalidRecord,
// ErrInvalidQuery, ErrInvalidToken, ErrTokenMismatch, ErrNotAttempted,
// ErrDecode) or the error of the hbase call, so callers use
// errors.Is and errors.As. Messages name tables, fields and reasons, never
// row keys or values: keys hold phone numbers.
package dao
