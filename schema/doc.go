// Package schema declares HBase tables as typed Go values: the table name,
// its column families with the options HBase knows, the row-key layout
// (built from package keys), the split keys that pre-split the table, the
// mapping between a Go record type and its cells, and the secondary index
// tables kept next to it. One declaration answers every question the rest
// of hbkit asks about a table: admin creates the table and checks it for
// drift from Family.Attributes, dao turns records into row keys and cells
// and back, index builds index keys from the same record.
//
// # Shape
//
// A Spec[T] declares a table; New validates it once and returns an
// immutable *Table[T]:
//
//   - TableName (hbapi.TableName), Family: names and column-family options as HBase spells
//     them (Family.Attributes, ParseFamily, Family.Diff, DiffFamilies);
//   - Spec.Key: a keys.Layout[T], the row key built from the record;
//   - Splits: explicit split keys or a region count cut from the key's
//     leading segment (keys.SegmentSplits);
//   - Column[T]: one field to one cell, with Append/Set functions
//     (StringColumn, Int64Column, TimeColumn, … build the common ones);
//   - IndexSpec[T]: an index table keyed by its own layout over the same
//     record, checked against the table's fields; one row per record, or,
//     with a Qualifier layout, inverted: one cell per record in the row of
//     its value (seed 001's province_age index).
//
// A WideSpec[T] declares a wide table instead ("rows as columns", seed
// 004's LOG_DATA on steroids): each record is one cell, its row key from
// one layout and its column qualifier from another, typically with a
// timestamp split by keys.TimeBase and keys.TimeOffset. NewWide checks
// that the two layouts together give back every key field and returns an
// immutable *WideTable[T], a Definition like the others; EncodeCell and
// DecodeCell map a record to its cell and back.
//
// Table.EncodeRow and Index.EncodeEntry write a record into a reusable Row
// (row key and cells) without allocating once the Row has grown;
// Table.DecodeRow and Index.DecodeEntry read it back. Definition is the
// record-independent view that admin and the CLI use; ShellCreate prints
// it as an HBase shell create command. Viewer (Table and Index implement
// it; AsViewer) goes further without the record type: it decodes a row
// into named segment values and typed cells (Column.Type), and builds row
// keys and key ranges from field values given as text, computing hashes
// and buckets from the fields they come from (Spec.From, IndexSpec.From);
// hbkit get and scan are built on it.
//
// A Document is the schema as data: a versioned JSON description of a
// table and its indexes, every segment kind with its parameters, that a
// Go declaration exports (Table.Document) and that FromDocument turns back
// into a table over any record type with Fields, or Open over Values, a
// record by field name. The two encode the same bytes; admin stores the
// document with the table.
//
// # Who should use it
//
// Code that owns a table design and wants it written down once, checked
// early and shared: application code declaring its tables, the admin and
// dao layers, tests that need the exact bytes of a key. The built-in
// schemas (Builtin, BuiltinNames) are the designs of the seed documents,
// ready for the CLI and for examples.
//
// # Who should not
//
// Code that only needs to encode a key segment should use package keys
// directly. Code that talks to HBase uses package hbase; this package does
// no I/O, knows nothing about connections, and never imports the client (only
// its vocabulary, hbase/hbapi, for the one TableName). It is
// not an ORM either: a record is mapped by explicit functions in the
// style of pgx's RowToFunc, so the hot path (record to row key and cells)
// is a few appends into a reused buffer. StructFields derives those
// functions from a struct's fields and tags once, with reflection at
// declaration time only, and Bind builds a table from a Document over a
// struct through them.
//
// # Errors
//
// Every validation error is a *Error naming the table, family and field
// and saying why; its Kind is one of the Err* sentinels, so callers use
// errors.Is and errors.As and never match strings. Key errors from package
// keys stay reachable through errors.As with a *keys.Error target.
//
// # Compatibility
//
// Changing a row-key layout, a hash, a bucket count or a segment width in a
// schema is a data migration: every existing key changes. The golden files
// in testdata pin the bytes of every built-in schema's keys so such a change
// cannot go unnoticed.
package schema
