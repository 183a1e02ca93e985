// Package conformance is one test suite for implementations of
// hbase.DataClient and hbase.AdminClient. It runs in unit tests against
// the in-memory fake (package hbase/fake) and, under the integration build
// tag, against a real HBase through the native client, so that the fake
// cannot drift from HBase.
//
// Implementers call Run from a test with a Harness. The suite creates a
// handful of tables (named by the harness), keeps the data of each test
// small, uses explicit timestamps wherever it depends on them, and drops
// its tables at the end.
//
// # Who should use it
//
// Implementations of the hbase interfaces, from their tests: the fake in
// hbase/fake (TestConformance there) and the native client under the
// integration build tag, pointed at the local HBase. Application code
// should not import this package; it imports testing.
package conformance
