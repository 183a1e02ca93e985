// Package dao is the store of hbkit: it reads and writes typed records in
// the tables a schema (package schema) declares, the data table and its
// secondary indexes together. It is the one path an application writes
// through.
//
//	users, err := dao.New(client, tbl)              // tbl: a *schema.Table[User] with an index
//	err = users.Insert(ctx, &User{UID: "u1", …})     // ErrExists if the key is taken
//	err = users.Put(ctx, &u)                         // upsert; the index entry follows
//	err = users.Delete(ctx, &User{UID: "u1"})
//	byRegion, err := users.Index("users_by_region")
//	for u, err := range byRegion.Find(ctx, dao.Eq(&User{Province: "辽宁省", Age: 20}, "province", "age")) { … }
//
// # Writes
//
// A record is checked (the schema's Spec.Validate, its key, the values its
// index keys are computed from) and encoded once, data row and index
// entries, before anything is written; an invalid record is a
// *ValidationError naming the field and never quoting the value. When the
// schema declares indexes, every write goes through package index's
// protocol, so an entry is never missing or wrong for a reader, whatever
// fails in between. WithUnindexedWrites is the explicit escape hatch for
// bulk loads, to be followed by Check in index.ModeRebuild.
//
//   - Put and PutBatch are upserts; Insert and InsertBatch fail with
//     ErrExists when a live record holds the key, as HBase's conditional
//     write decides (no read-then-write race).
//   - Delete and DeleteBatch remove records; a delete is a delete for
//     every reader: Get, Scan, merged scans, index reads and counts.
//   - Batches return one result per record and a *BatchError listing each
//     failed record once.
//
// # Reads
//
//   - Get by the key fields of a record.
//   - Scan and Page of a Query over the data table: a prefix or range of
//     key fields (Prefix, Between, or by name: Eq, Range), or explicit row
//     ranges; leading buckets (hash, salt, ts % N) are read one range per
//     value and merged in key order (MergeSkip: in the order of the key
//     behind the bucket), with a limit, a resume Token, and no goroutine
//     left behind when the loop ends or ctx is cancelled.
//   - Index(name) reads through an index: Find, Page and Count of the same
//     typed queries. Every record returned is the data row's, checked
//     against its entry. Keys lists the records' key fields from the index
//     alone, as Count counts them. An inverted index (seed 001's
//     province_age, one cell per record) is read the same way.
//
// A store of one's own adds its queries as calls over a Repo, as the
// seeds' store (package seeds/seedstore) does.
//
// # UID tables
//
// NewUIDs opens a UID table (seed 004's LOG_TYPES): names of each kind
// mapped to fixed-width ids, assigned on first use by an Increment and two
// conditional writes, so two writers never get two ids for one name, and
// cached both ways. A schema whose key holds ids (schema.Spec.UIDs) is
// stored with WithUIDs: writes set the ids from
// the names, reads set the names from the ids. docs/uids.md has the
// protocol, what a lost race leaves (UIDs.Check reports it) and numbers.
//
// # Wide tables
//
// NewWide opens the store of a wide table (schema.WideTable, seed 004's
// LOG_DATA on steroids): a record is one cell. Put and PutBatch add or
// replace cells (one hbase Put per row of a batch), Delete and DeleteBatch
// remove them, Get reads one, Scan reads a WideQuery's key range in key
// order (time order within a series), trimmed to its bounds, and Counts
// and CountRow count a row's columns from its keys alone. UID fields work
// as for New (WithUIDs). docs/wide-rows.md has the guarantees.
//
// # Options
//
// One set of options serves the data and index tables: names
// (WithTableNames, WithNamespace), batch and scan sizes, telemetry, and
// the index protocol's settings. A nil, invalid or conflicting option is
// an error from New wrapping ErrInvalidOption.
//
// # Who should use it
//
// Application code that stores records in tables designed with package
// schema; tests, with the in-memory hbase/fake.
//
// # Who should not
//
// Code that moves raw rows (the CLI's scans) uses the hbase client
// directly; copies between tables of two schema documents go through
// Copier, which the copy jobs of package jobs and WithMirror (a store
// writing to the old and the new table of a migration, see
// docs/migration.md) share. Package index is the protocol engine behind the store,
// not a second way to write.
//
// # Errors
//
// Errors wrap this package's sentinels (ErrInvalidRecord, ErrExists,
// ErrInvalidQuery, ErrInvalidToken, ErrTokenMismatch, ErrNotAttempted,
// ErrDecode, ErrInvalidOption, ErrUnknownIndex, ErrNoIndex, and for UID tables
// ErrInvalidUID, ErrUIDExhausted, ErrUIDNotFound, ErrUIDConflict) or the error
// of the hbase call or of the index protocol (*StepError), so
// callers use errors.Is and errors.As. Messages name tables, fields and
// reasons, never row keys or values: keys hold phone numbers.
package dao
