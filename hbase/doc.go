// Package hbase is hbkit's native client for Apache HBase 2.x.
//
// Its public types and the narrow interfaces that the rest of hbkit
// builds on are defined in package hbase/hbapi, which links no wire code;
// this package declares each of them again under the same name (aliases,
// thin wrappers: vocab.go, generated), so either import works.
//
// # Who should use it
//
// Code that reads or writes HBase rows depends on [DataClient]; code that
// manages tables depends on [AdminClient]. Both are small interfaces in the
// database/sql/driver style, so that tests can use the in-memory fake in
// package hbase/fake (or a mock) instead of a cluster. The concrete client
// struct of this package implements both.
//
// This package knows nothing about schemas or key encodings: rows,
// families, qualifiers and values are plain bytes, and table attributes
// use HBase's own names ("VERSIONS", "TTL", "COMPRESSION", ...). Packages
// schema, admin, index and dao add those layers on top. Code that only
// needs to encode keys should use package keys, not this one.
//
// # Secured clusters
//
// [WithKerberos] authenticates with Kerberos (SASL GSSAPI) from a keytab
// or a credentials cache, with the quality of protection of HBase's
// hbase.rpc.protection; SIMPLE authentication stays the default. A failed
// handshake is an [*AuthError] wrapping one of the ErrKerberos* errors,
// and is not retried. [WithTLS] (with [NewTLSConfig] for PEM files)
// speaks HBase 2.6's native RPC TLS, SASL running inside it; a failed
// TLS handshake wraps one of the ErrTLS* errors (in a [*TLSError]), and a
// client without TLS against a TLS-only server gets [ErrTLSRequired].
// See docs/security.md.
//
// # Requests
//
// Every call takes a context first and a request struct ([Get], [Put],
// [Delete], [Increment], [Append], [CheckAndMutate], [RowMutations],
// [Scan]). Requests are validated before anything is sent (empty or too
// long rows and families, nil values, negative timestamps, bad table
// names, ...); a rejected request returns an [*InvalidRequestError]
// wrapping a sentinel such as [ErrEmptyRow], so callers use errors.Is and
// errors.As, never strings. Each request type has a Validate method.
//
// Scans return a [Scanner] (Next/Result/Err/Close, like sql.Rows); [All]
// and [ScanAll] turn one into a range-over-func iterator. A Result's cells
// point into the response they came in; a scan that keeps nothing of its
// rows can set [Scan].ReuseMemory, and each response is then read into
// the memory of the one before (a Result valid until the next row).
// [DataClient.Batch]
// returns one result per action and a [*BatchError] naming the failed
// ones. [IsRetryable] tells whether a failed call may be sent again.
//
// # Semantics
//
// The semantics are HBase's: cells are versioned by timestamp, deletes
// write markers that hide older data, a Get or Scan returns the newest
// version unless MaxVersions says otherwise. The conformance suite in
// package hbase/conformance checks the client and the fake against the
// same expectations.
package hbase

//go:generate go run ./internal/aliasgen
