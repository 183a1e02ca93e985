// Package hbapi is the vocabulary of hbkit's HBase client: the request and
// result types ([Get], [Put], [Scan], [Result], [Cell], [Action],
// [BatchResult], [TableName], [TableDescriptor], [RegionInfo], the
// filters), the narrow interfaces [DataClient], [AdminClient] and
// [Scanner], the Err* sentinels with the typed errors that wrap them, and
// the predicates and checks that go with them ([IsRetryable],
// [CheckWriteSize], the Validate methods).
//
// # Who should use it
//
// Code that only talks to a client through its interfaces: packages that
// store data (dao, index), manage tables (admin), fake a client
// (hbase/fake) or test one (hbase/conformance). It imports only the
// standard library, so depending on it links neither protobuf, nor
// ZooKeeper, nor Kerberos.
//
// # Who should not
//
// Code that connects to a cluster uses package hbase, whose [hbase.New]
// returns the native client. Package hbase declares every name of this
// package again, as aliases and thin wrappers (hbase.Put is hbapi.Put,
// hbase.ErrTableNotFound is hbapi.ErrTableNotFound), so either spelling
// works and errors.Is matches across both.
//
// The name says what it is: the API of HBase as hbkit speaks it, without
// an implementation; it is short, and does not clash with package hbase
// when a file needs both.
package hbapi
