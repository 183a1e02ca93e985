// Package admin creates and checks the HBase tables that package schema
// declares: pre-split at the split keys the key design defines, with the
// column-family options the declaration spells out, and safe to run again.
// It is the library behind "hbkit table", the admin job an operator runs
// once per environment.
//
// # Shape
//
// New wraps a Client, the DDL calls of hbase.AdminClient that admin uses
// (the real client and the in-memory fake of package hbase/fake both
// implement it). Then:
//
//   - EnsureTable creates a missing table, or compares an existing one with
//     its declaration: families, every family option (HBase's defaults
//     spelled out on both sides) and the region boundaries read from
//     hbase:meta against the split keys. Differences are a *DriftError
//     naming each one (errors.Is(err, ErrDrift)); a drifted table is never
//     altered. A second run is a no-op. EnsureTables does the same for a
//     table and its index tables (WithIndexes) or for the tables of a
//     schema file, validating them all before the first RPC.
//   - A data table is created with its schema document (schema.Document,
//     in the table attribute schema.DocumentAttribute), so that tools read
//     the schema from the table; a stored document that differs from the
//     declared one is drift (SchemaDocument), and ReadDocument reads it.
//     A schema file may be such a document.
//   - Create, Drop (disable and delete), Truncate (keeping the splits) and
//     Describe (families with all their attributes, regions with start and
//     end keys, servers, and the per-region load HBase reports when a
//     RegionLoader is available; CountRows counts rows with a key-only
//     scan, because HBase reports requests and sizes, not rows).
//   - PlanTable validates a declaration and returns what Create sends,
//     without I/O: the CLI's --dry-run prints it. Check compares without
//     changing anything.
//
// # Validation and crash safety
//
// Every declaration is validated before any RPC (ErrInvalidSchema): table
// name, family names and options, duplicate families, split keys that are
// empty, unsorted, duplicated or longer than a row key.
//
// A table is created by one CreateTable call carrying every split key; the
// master's create procedure either creates all regions or rolls back, so
// no half-split table is left behind by hbkit. What can be left behind is
// handled by the next run of EnsureTable:
//
//   - a create whose answer was lost, or whose context ended while the
//     master finished it: the table exists and is checked like any other;
//   - a table another run created in between: the create's "exists" answer
//     leads to the same check;
//   - a table left disabled by an interrupted Drop or Truncate: enabled if
//     it is otherwise as declared (Outcome Enabled), reported with the
//     drift otherwise;
//   - a table another procedure is still enabling: waited for up to
//     WithEnableWait, then ErrNotEnabled;
//   - a data table created but its index table not: the index is created
//     on the next EnsureTables and the data table is left alone.
//
// A table created by other means with other splits or options is drift,
// reported and left untouched: re-splitting or altering a live table is a
// decision for an operator, not for a job that runs on every deploy.
//
// # Schema files
//
// LoadSchemaFile and ParseSchemaFile read tables declared in JSON, for
// designs that are not built in. Unknown fields and options are errors.
// Family options are keyed by HBase's attribute names; split keys are
// explicit ("keys", or "hex_keys" for binary keys), cut from the leading
// key segment ("regions" alone, as schema.Splits.Regions does), or
// computed by an algorithm (HexStringSplit, DecimalStringSplit,
// UniformSplit, BucketSplit with "buckets", DecimalPrefixSplit with
// "width"). Optional "columns" declare cells with their types ("string",
// "int64", "float64", "bool", "time", "bytes"), which hbkit get and scan
// decode. Seed 001's table:
//
//	{
//	  "tables": [{
//	    "name": "seed001",
//	    "families": [{"name": "CF1", "options": {
//	      "BLOOMFILTER": "ROW", "BLOCKSIZE": 65536, "VERSIONS": 3,
//	      "COMPRESSION": "SNAPPY", "BLOCKCACHE": true, "IN_MEMORY": false,
//	      "TTL": 3600}}],
//	    "key": [
//	      {"name": "uid_md5", "kind": "md5hex", "width": 6, "from": "uid"},
//	      {"name": "uid", "kind": "string"}],
//	    "splits": {"regions": 16},
//	    "columns": [{"name": "name", "family": "CF1", "qualifier": "n", "type": "string"}]
//	  }]
//	}
//
// See FileSegment for the key segment kinds and testdata/ for more.
//
// # Who should use it
//
// Deployment jobs, the CLI and integration tests that need tables to exist
// as designed. Application code reading and writing rows uses package dao
// and expects its tables to be there.
//
// # Who should not
//
// Code that needs arbitrary DDL (altering families, merging regions,
// snapshots) should call hbase.AdminClient directly: admin deliberately
// only creates, checks, truncates and drops whole tables, and never
// modifies a live table to match a declaration.
package admin
