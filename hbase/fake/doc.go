// Package fake is an in-memory stand-in for an HBase cluster, implementing
// hbase.DataClient and hbase.AdminClient with HBase's semantics: rows
// sorted in unsigned byte order, versioned cells, server-assigned
// timestamps, delete markers that hide older or equal versions (row,
// family, column and single-version deletes, including puts written later
// with older timestamps), per-family VERSIONS and TTL, MaxVersions and
// time ranges, the filters of package hbase, forward and reversed scans,
// check-and-mutate, atomic row mutations, Increment, Append, batches with
// per-action results, namespaces, table states, region boundaries, and
// HBase's default cell size limit (hbase.ErrCellTooLarge over
// hbase.DefaultMaxCellSize, as hbase.CellSize counts a cell).
//
// # Who should use it
//
// Unit tests and examples of code that depends on the hbase interfaces:
// create a Client with New, create tables with CreateTable, and pass it
// where an hbase.DataClient or hbase.AdminClient is expected. The
// conformance suite (package hbase/conformance) runs against this fake and
// against a real HBase, so behaviour that tests rely on here holds there.
//
// # Who should not
//
// It is not a database: everything lives in one process's memory behind
// one mutex, scans copy their whole range when opened, and nothing is
// persisted. Known simplifications: versions beyond a family's VERSIONS are
// dropped at once (as after a major compaction); server-assigned
// timestamps never repeat (HBase may hand two writes of one millisecond the
// same timestamp); PageFilter limits the whole scan, not each region; and
// filters inside a MustPassOne list are combined row by row, not cell by
// cell.
package fake
