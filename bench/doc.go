// Package bench runs hbkit's benchmark workloads against an HBase cluster
// and reports rows per second and latency percentiles, in the form HBase's
// own client benchmark, PerformanceEvaluation ("hbase pe"), reports them,
// so the two can be compared side by side against the same server.
//
// # Workloads
//
// The PE workloads mirror PerformanceEvaluation of HBase 2.6 run with
// --nomapred and its defaults:
//
//   - table TestTable with one family, info0, and one column, info0:0;
//     values of 1,000 bytes (PE's generateData: runs of eight equal random
//     capital letters); keys are the row number as 26 zero-padded decimal
//     digits (PE's format);
//   - each of the Threads clients handles Rows rows: client t owns rows
//     [t*Rows, (t+1)*Rows), and random keys are drawn uniformly from all
//     Threads*Rows rows;
//   - sequentialWrite and randomWrite put through a buffered writer that
//     behaves like the Java client's BufferedMutator with PE's 2 MB write
//     buffer: puts collect until their estimated heap size passes the
//     buffer, then go out in one Batch, and the caller waits for it; the
//     last buffer is flushed before the clock stops. Puts use SYNC_WAL, as
//     PE's do;
//   - randomRead is one Get of info0:0 per row;
//   - scan opens one scanner per client at its first row (caching 30) and
//     reads Rows rows from it, timing each Next;
//   - scanRange100 runs Rows scans of [k, k+100) from random keys k.
//
// Latency is the time of each operation in microseconds (a buffered put
// takes nearly nothing until it triggers a flush), kept in an
// HdrHistogram per client. Like PE, rows per second is the sum over the
// clients of rows divided by that client's elapsed time.
//
// The table is prepared the way PE's checkTable does it: created when
// missing (pre-split when asked), recreated by a write workload when its
// region count or families differ, required to exist by the read
// workloads. DropTables removes it.
//
// Four more workloads measure hbkit's own layers on the SMS table of the
// seeds (seeds.SMSTable, served under names starting with the table
// option's): plainWrite sends the encoded rows as plain puts in one Batch
// per BatchSize records, daoWrite writes the same records with dao.Repo
// PutBatch over the data table alone (a schema without the index), and
// indexedWrite with dao.Repo PutBatch over the SMS schema, whose index
// protocol keeps the index table in step. dualWrite sends each record's data row and index
// entry as plain puts in one Batch, with no protocol: what writing the
// entries costs by itself, the bound indexedWrite stays under. Comparing
// each with plainWrite gives the cost of the layer.
//
// # Who should use it
//
// The hbkit bench command and make bench-compare, which runs PE and this
// package on the same cluster and prints their ratios. Workloads take the
// narrow hbase.DataClient and hbase.AdminClient, so tests run them on the
// in-memory fake.
//
// # Who should not
//
// Speed goals live here and in benchmarks, never in unit tests; code that
// needs a load generator with other key or value shapes should use the
// hbase client directly.
package bench
