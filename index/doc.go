// Package index is the secondary-index protocol engine behind package dao.
// Applications call dao, never this package: dao's store is the one way to
// write and read records, and dao re-exports what a user needs of the
// engine (Check and its modes, reports and options, the hook's Step and
// Phase, the errors). Nothing here is a second user-facing API; its
// exported names exist for dao and may change with it.
//
// The engine keeps client-managed secondary index tables in step with
// their data table, and reads through them without ever returning a row
// the data table disagrees with. dao.New over a schema with indexes
// creates a Table (New, configured by a Config), hands it every write as
// records encoded once (Table.Write: puts, inserts, deletes), and reads
// through it (Table.Find, Table.Count); Check verifies, repairs or
// rebuilds.
//
// # Protocol
//
// What follows is the Strict mode, the default: the schema chooses its
// mode (schema.Spec.Writes), and Modes below describes the three cheaper
// ones.
//
// HBase writes one row atomically and nothing more, so a data row and its
// index entry are two writes, and a client can die between them. The
// protocol is Phoenix's (unverified → data → verified), with the row
// locks Phoenix takes on the region server replaced by a version column
// and cell timestamps, because this package runs in the client.
//
// Every data row holds, besides its columns, a version (qualifier "_v":
// the milliseconds of the write that produced it, strictly increasing per
// row) and the key of its entry in each index ("_ix:<index>"); a row an
// insert wrote also holds the insert's token ("_t"), by which the writer
// settles a write whose answer the network hid and Check finds a record
// stored twice (docs/timeouts.md, "Outcomes"). Every entry
// holds the data row key, the carried columns and a status ("_s": 'u' or
// 'v' plus the version that set it). Every cell and delete marker a write
// produces, in both tables, carries its version as timestamp. A write of
// a record reads the data row (version v0, entry keys k0), works with a
// version v > v0 not below the clock (see Cost for how a put saves the
// read or its round trip), and then:
//
//  1. writes the new entry k with status unverified, and marks k0
//     unverified if the key moves (or if the record is being deleted);
//  2. writes the data row, with version v and entry key k, as a
//     CheckAndMutate on "_v" == v0 (or absent); if another writer got
//     there first, the write starts over from the read;
//  3. rewrites k verified and deletes k0 (a row delete at timestamp v).
//
// The invariant is: a verified entry agrees with its data row. Step 1
// unverifies an entry before step 2 moves the data away from it, and step
// 3 verifies only after step 2 made the data agree. Because each write
// stamps its cells with its version, and versions of one row increase in
// the order the CheckAndMutates succeed, a slow writer whose step 3
// arrives late cannot re-verify or resurrect an entry a newer writer has
// unverified or deleted: its cells are older than the newer writer's
// status cell or delete marker, whatever the arrival order. Entries are
// therefore trustworthy when verified, and checkable when not.
//
// # Failure between any two writes
//
//   - Dies after step 1 of an insert or a key move: the new entry is
//     unverified and no data row derives it, so it is an orphan.
//   - Dies after step 1 of an update in place or of a delete: the old
//     entry is unverified but still agrees with the data, so it is valid.
//   - Dies after step 2: the new entry is unverified and valid; the old
//     one (moved or deleted) is unverified and an orphan.
//   - A batch fails half-way inside a step: each entry's cells are one
//     Put (atomic per row), so the same cases apply entry by entry.
//
// Readers scan the index range, batch-Get the data rows the entries point
// to, and return an entry only if its data row exists and deriving the
// index key from it gives exactly the entry's key; the record returned is
// the data row's. So no state above makes a reader return a wrong row. An
// unverified entry that checks out is read-repaired: rewritten verified at
// the data row's version (which a newer writer's cells outrank). An
// orphan is deleted, conditionally on its status cell being the one read
// and with a delete marker at its own version (never hiding a newer
// write), when it cannot belong to a write in flight: it is verified
// (which the protocol never leaves behind), or the data row's version has
// passed the entry's, or the entry is older than the grace period
// (Config.GracePeriod), and when a second read of the entry and its data
// row, in another round trip, judges the same: HBase's RPC has no
// checksum, and one flipped bit in a value read can make a live record's
// entry look like an orphan. Check finds the same states across whole tables:
// missing (a data row whose entry is absent or unverified), orphaned and
// stale (carried cells that disagree), and repairs them through the same
// protocol, conditioned on the data row's version so it never undoes a
// live write. CheckRange does the same over one key range of one table
// (a unit of package jobs), and writes a rebuild's entries of versioned
// rows as read repair does, without the protocol (docs/index-jobs.md).
//
// A writer that loses the race of step 2 starts over; what its step 1
// wrote stays behind unverified (its new entry, or an unverified mark on
// a key the winner had already removed), skipped by readers and removed
// by read repair or Check after the grace period.
//
// Concurrent writers of one record are serialised by the CheckAndMutate of
// step 2; last-writer-wins would not do, because a verified entry of the
// losing value could then survive next to the winning data row, and
// Count reads verified entries without checking them. A delete racing an
// update is a writer like any other: whichever CheckAndMutate succeeds
// second rereads the row and goes on from its state.
//
// # Cost
//
// A put costs three round trips: one Batch that writes the new entries
// unverified, one Batch of the data rows' CheckAndMutates, and one Batch
// of verifications and deletions. The new entries do not depend on the
// data row, so the read goes with them or is skipped:
//
//   - Blind (the first attempt, by default; Config.NoBlindPuts): the rows are
//     assumed absent, as they are when records are written once, and the
//     CheckAndMutate tests that "_v" is absent. A row that exists fails
//     it, like a concurrent writer would, and its record starts over
//     reading first (the blind attempt does not count against
//     WithMaxAttempts); when more than a quarter of a batch's rows
//     existed, the next 16 batches read first. An abandoned blind attempt
//     over an existing row leaves the row's entry rewritten unverified,
//     which readers check and Check repairs.
//   - Reading first: the Gets of the data rows share the first round trip
//     with the new entries, written at a version taken from the clock
//     before the read; if a row turns out to be ahead of it, the attempt
//     is redone above the row.
//
// A put that moves an entry, and a delete, add one Batch marking the old
// entries unverified. Phase 3's writes do not wait for the WAL sync
// (AsyncWAL): losing them leaves the state a writer dying before phase 3
// leaves. By default phase 3 is not waited for either (Config.SyncVerify):
// a call returns once its data rows are written, and a background sender
// sends the phase-3 writes of all calls of the Table in shared Batches;
// Flush waits for them, and Check flushes the queue of its own Table
// first. Until they land the entries are unverified, which every reader
// checks, so this changes what a read costs, never what it returns; a
// Check in another process counts them as missing, as it does the entries
// of any write in flight. PutBatch and DeleteBatch
// share each round trip between all their records: the real client's
// Batch sends the actions bound for one region server in Multi RPCs, its
// regions (the data table's and the index's) spread over a few parallel
// ones when a Batch has few servers, since a server runs the regions of
// one Multi one after the other, and the CheckAndMutates as HBase 2.4's conditional RegionActions (atomic
// and conditional per row), spread over a few parallel Multis per server.
// Phoenix also needs three phases and reads the data row too (on the
// server).
//
// An index costs writes whatever the protocol. BenchmarkIntegrationPut
// measures, in the same run, plain Batches of the data rows, the protocol,
// and a floor: each data row and its entry as unconditional Puts in one
// Batch, which no protocol can beat (rounds of ten calls per variant, the
// indexed round ending with Flush; ratios move with the machine's load much
// less than rates). On the local single-server HBase, in twelve runs in
// two sessions, the floor ran at 0.52 to 0.66 times plain for 100 records per
// call, and the protocol at 0.25 to 0.42 (0.21 before blind puts and
// background verification). For one record per call the floor ran at 0.53
// to 1.03 (one round trip either way; single calls are noisy), and the
// protocol at 0.32 to 0.45, as it pays two dependent round trips where a
// plain put pays one.
//
// The rest of the gap is the data rows' CheckAndMutates. HBase runs them
// one at a time per Multi, each with its own row lock, read and WAL sync:
// in six runs of BenchmarkIntegrationBatchOf100 (package hbase) a Batch of
// 100 cost 3.1 to 7.2 times a Batch of 100 Puts, and still 1.5 to 3.5 times
// with AsyncWAL, which saves the sync. A cheaper data-row write would have
// to be unconditional, and an unconditional write cannot keep the
// invariant: a writer that learns of a concurrent writer's entry only after
// its own data row landed leaves that entry verified while the row
// disagrees, until it repairs it.
//
// Readers pay one scan per group of ranges, the groups scanned in
// parallel (the ten buckets of a bucketed query are ten regions), and one
// Batch of Gets. Count reads only the index: verified entries are counted
// as they are and only unverified ones, which exist only while a write is
// in flight or after a failure, cost a Get.
//
// # Deletes
//
// A delete does not remove the data row: it deletes the record's cells and
// leaves the version cell with a tombstone flag, so a writer (this one or
// another, whatever its version counter) that writes the record again
// reads the deleted version and goes above it; neither the new data row
// nor its entry can be hidden by the delete's markers. Readers treat a
// tombstone as no record. Check in ModeRepair or ModeRebuild removes
// tombstones older than the grace period. Code that scans the data table
// by other means sees a tombstone as a row holding only "_v".
//
// # Modes
//
// Insert-only (schema.InsertOnly) is for records whose key is never
// written again with other values: messages, log events, order lines.
// Data rows carry no bookkeeping cells.
//
//   - A put is one Batch, as an insert is (below): the data row's
//     conditional write (its first cell absent) and its entries, verified.
//     No read. A put that finds its key taken reads the row: the same
//     record again succeeds (putting again is idempotent); other values,
//     a rewrite or a move, fail with ErrInsertOnly, and the put withdraws
//     what it wrote as a lost insert does. So the mode never leaves an
//     old value's entry behind, and index-only counts stay exact. A
//     record is moved by deleting it and putting it again.
//   - A writer dying inside that Batch (its Multis are separate, even to
//     one server) leaves an entry without its row or a row without its
//     entry. Readers skip the first (they fetch every row) and delete it
//     after the grace period, never sooner, since the row of a write in
//     flight may still land; Check repairs the second. The caller that
//     lives sees the error, and putting again is idempotent.
//   - Two writers of one key write the same cells: nothing to order.
//   - An insert is one Batch too: each data row's conditional write (its
//     first cell absent) next to its entries. An insert that finds its key
//     taken reads the live row and withdraws exactly the cell versions it
//     wrote under entry keys that row does not derive; until then, or if
//     it dies first, such an entry is one its row does not derive, which
//     readers skip and Check removes.
//   - A delete reads the rows to find their entries, then deletes rows
//     and entries in one Batch; dying inside it leaves an entry without
//     row (skipped, removed after the grace period) or a row without
//     entry.
//   - Index-only counts (Count) count verified entries as they are, so
//     they include the entry of a write in flight before its row lands,
//     and of a writer that died before its row landed, until Check
//     removes it.
//
// Mutable (schema.Mutable) updates, moves and deletes records without a
// read before the write and without a conditional write.
//
//   - A put or delete is one Batch: the new entries, written verified
//     (optimistically), and the data row (or its tombstone) with every
//     cell at the write's version v, including a history cell
//     _ik:<index>:<v> holding the entry key it wrote (empty for a
//     delete). History cells have qualifiers of their own, so they survive
//     whatever the family's VERSIONS.
//   - Then a validation read of the row's bookkeeping cells (in the
//     background unless SyncVerify, and then sent with the next write's
//     Batch when one comes within 2 ms, its cleanup likewise, so a stream
//     of writes pays no round trip for its validations): if the row's
//     version is still v, the
//     write deletes the entries named by older history cells that are not
//     its own (each with a marker at the version that wrote it, so a newer
//     write under the same key keeps its cells) (the previous value's entry of a moved
//     record, a deleted record's entry, the entry of a writer it overtook)
//     and those cells. If a newer write is there, the newer one cleans up
//     after this one when its own validation saw this one's history cell;
//     it did not if this write landed after it validated. So an overtaken
//     write also takes back its own entries (and history cells) wherever
//     the row's live key differs, each delete stopping at its own version.
//   - Ties: two processes writing one record in the same millisecond pick
//     the same version, and HBase keeps the later arrival's cells. No
//     entry is deleted at the version of the row that holds it: a marker
//     at v hides every cell of v under that key, whenever it lands, so it
//     would also hide the entry of a third writer of v under that key
//     whose row lands last and wins. The entry of a tied writer whose row
//     lost is rewritten unverified instead: by its own validation (the
//     whole entry, when the winner's row had landed) and by the winner's
//     (its status, conditional on it being that writer's verified one).
//     A later entry of v under the key overwrites that, so nothing is
//     lost; index-only reads check unverified entries against their
//     rows, and readers remove the entry once a newer version passes it,
//     or after the grace period. (Entries of an inverted index are cells
//     whose qualifier the winner does not know: only the loser's own
//     validation unverifies them.)
//   - Concurrent writers: the cells of the newest version win the data
//     row whatever the arrival order; every older writer's entry is named
//     by its history cell, which the newest write's validation reads if it
//     landed first, and which its own validation withdraws otherwise.
//     Deletes racing updates are writes like any other.
//   - A writer dying inside its Batch leaves an entry without its row (a
//     verified orphan, which readers and Check delete once the row's
//     version has passed it or the grace period has: before that, it is
//     the entry of a write in flight, whose row has not landed yet) or a
//     row without its new entry (missing until Check). A writer dying before its validation leaves the previous
//     value's entry in place though the row has moved on.
//   - Readers that fetch the data row (Find) are never wrong. Index-only
//     counts count verified entries as they are: until the validation of
//     a move or delete has run (or, if its writer died, until a reader
//     meets the entry or Check repairs it), they can count the previous
//     value's entry, and an overtaken writer's entry, next to the current
//     one. Choose Strict where index-only counts must be exact under
//     concurrent rewrites.
//   - Rows another mode wrote hold no history cells, so a mutable write
//     that moves such a record leaves its old (verified) entry to
//     index-only counts until Check. A table moving to the mutable mode
//     runs Check in ModeRebuild through a mutable store first, which
//     rewrites every row with its history
//     (TestMutableAdoptsRowsAfterRebuild).
//
// Versions come from the clock, per row, in every mode: the write's
// millisecond, or one above the row's version when the write read it
// (Strict, inserts, Check's repairs), or one above the version the Table
// last gave that row, whichever is highest. Records of one call, and of
// calls of one millisecond, share a version; one row written twice in a
// millisecond gets two. Versions therefore increase per row in the order
// a Table writes it, and run ahead of the clock only by one row's writes
// within a millisecond (or a stored version already ahead), however many
// rows are written: a writer in another process, whose versions come
// from its own clock, is ordered with this one by time. A mutable or
// verify-on-read write, which reads nothing first, loses to a row stamped
// ahead of its own clock.
//
// Verify-on-read (schema.VerifyOnRead) also updates, moves and deletes
// records, with a single round trip and nothing read, at the cost of
// index-only counts.
//
//   - A put or delete is one Batch: the new entries, written unverified,
//     and the data row (or its tombstone), every cell at the write's
//     version v (above). The row holds the version cell and no entry
//     keys: a dual write's bytes, plus the version. Nothing is read,
//     validated or cleaned up: the entry of a moved record's previous
//     value, and a deleted record's entry, stay where they were.
//   - Readers fetch every entry's data row and return an entry only if
//     the row derives it (as in every mode), so such an entry is never
//     returned. An entry whose row derives another key, or is a
//     tombstone, at a version above the entry's is an old value's: the
//     reader deletes it (a marker at the entry's own version, conditional
//     on its status as read, so a newer write under the same key keeps
//     its cells). An entry above its row's version belongs to a write in
//     flight, whose row has not landed yet, and one at its row's own
//     version to a writer of the same millisecond in another process,
//     whose row may yet win the tie: both are left to the grace period.
//     A valid entry is never rewritten verified (nothing would withdraw
//     it once its record moves); a stale one is rewritten, unverified, at
//     its row's version.
//   - Concurrent writers: the cells of the newest version win the data
//     row whatever the arrival order, and every other writer's entry is
//     one that row does not derive, below its version: readers skip and
//     delete it. Deletes racing updates are writes like any other. Two
//     processes writing one record in one millisecond write cells of the
//     same timestamp, and HBase keeps the later arrival's: the entry of
//     the other stays until the grace period has passed (but see ties
//     below).
//   - A writer dying inside its Batch leaves an entry without its row (an
//     orphan, deleted once the grace period has passed, or once its row's
//     version passes it) or a row without its new entry (missing until
//     Check). Whatever it dies at, the old entries are as after a write
//     that completed.
//   - Index-only reads (Count, Keys) trust no entry in this mode: each
//     costs a Get of its data row, as in Find, and counts if the row
//     derives it. So counts are exact, and cost a read: on the local
//     single-server HBase, counting one account's 1,500 messages of a day
//     took 27 to 35 ms against 9 to 10 ms in the mutable mode
//     (BenchmarkIntegrationCountModes, three runs; its 500 moved records'
//     old entries cost their Gets too). Choose Mutable where counts from
//     the index alone must be cheap, and InsertOnly where records are
//     never rewritten.
//   - Check reports an old value's entry as orphaned until a reader or
//     Check in ModeRepair removes it; an entry that agrees is not missing
//     for being unverified. Inserts and Check's repairs go through the
//     strict protocol, as in every mode, except that they too leave
//     their entries unverified.
//   - So every entry this mode writes is unverified. A table can move to
//     the strict mode at any time, and to the mutable mode after the
//     rebuild that mode asks of rows it did not write (above): their
//     index-only reads check unverified entries against their rows, and
//     their readers and Check remove the old values' entries as they
//     would an interrupted write's. The entry keys that its rows do not record (or record
//     from an older strict write) only make a strict writer mark
//     unverified, or delete, an entry that is no longer the row's.
//
// In the mutable and verify-on-read modes, two processes writing one
// record in one millisecond write cells of the same timestamp, and HBase
// keeps the later arrival's cell column by column: a column one record
// has and the other lacks keeps its cell, so the row can hold a record
// neither wrote, whose entry may then be missing until Check. Writers of
// one record in one process never tie (above).
//
// In every mode Check finds missing entries (rewritten through the strict
// protocol, conditioned on the row's version), orphans (deleted once they
// cannot belong to a write in flight) and stale entries, so repair
// converges to exactly the data table once writes stop.
//
// # Inverted indexes
//
// An inverted index (schema.Index.Inverted; seed 001's province_age
// index) holds one entry per record as one cell: row
// the index key (辽宁省_20), qualifier a layout of the record's key
// fields (the uid). The protocol above is the same, with the entry's
// address being its row and qualifier instead of its row alone:
//
//   - the entry's status is the cell's value ('u' or 'v' and the version,
//     9 bytes; seed 001 writes 1), as the entry has no row of its own for
//     a status cell. Writing the entry, verifying it and marking it
//     unverified are Puts of that one cell at the write's version, so
//     each is atomic as an entry Put is;
//   - deleting the entry deletes its column, every version at or before
//     the writer's version, never the row, which holds the entries of
//     other records; the orphan delete is conditional on the cell's value
//     as read;
//   - the pointer back to the data row is the qualifier: the schema
//     rebuilds the data row key from it, and requires that it determine
//     one record (ErrIndexNotUnique), so no two records share an entry;
//     since the qualifier is a function of the data row key, a record's
//     entry moves between rows only, and the data row records its row as
//     for any index. A record whose qualifier would be empty cannot be
//     written or deleted (schema.ErrInvalidKey): the delete of an empty
//     qualifier is the delete of the family, every entry of the row.
//
// So every step and every argument above holds entry by entry, and the
// guarantees are those of the mode: in Strict a verified cell agrees with
// its data row, through crashes and concurrent writers, and Count, which
// counts a row's verified cells and Gets the data rows of the others, is
// exact; in Mutable and InsertOnly index-only reads have the caveats
// above. Find checks each cell's data row (it must derive both the row and
// the qualifier); Keys lists records' keys from the index as Count counts
// them. Check's first pass reads each record's own cell (a Get of one
// column), its second pass every cell; as a batch may end inside a row,
// its checkpoint holds the last cell too (Checkpoint.AfterCell). A cell without a
// status, as another client writes it, is judged against its data row.
//
// Costs: a write touches one cell, whatever the row holds; a read of a
// value reads its whole row, in parts of the batch size (Scan.Batch), and
// a count cannot use a KeyOnlyFilter, since the status is in the values.
// All records of one value share a row, and so a region: a very common
// value is a hot row.
//
// # Limits
//
// Versions come from the writers' clocks (Config.Clock), as HBase's own cell
// timestamps come from the region servers'. A record written again after
// its tombstone was removed, by a writer whose clock lags the deleter's by
// more than the grace period, can be hidden by the old delete markers, data
// row and entry alike, as a write is hidden by a delete from a region
// server whose clock ran ahead. Keep writers' clocks synchronised (NTP)
// well within the grace period. Each record must have one entry per index
// whose key it alone derives (the message index key above ends with the data key's
// fields).
//
// Inserts (OpInsert) read the row first, like a put that is not blind: a
// live record, ours or one another client wrote (no version cell), ends
// the insert with ErrExists; otherwise the conditional data-row write on
// the version read decides, and a lost race rereads the row.
//
// # Copies
//
// A table copy or a migration's second table (package dao's Copier and
// WithMirror, package jobs' copy job) writes a record read elsewhere at
// the version it had there (Table.CopyActions): the data row as a
// verify-on-read write leaves it, plus its entry keys, and its entries
// unverified, every cell at that version, with nothing read and nothing
// conditional. A newer write of the row outranks the copy and a delete
// marker above it masks it, whatever the order they arrive in, so a copy
// never undoes a live write and copying again changes nothing. The
// entries a copy leaves are checked by readers, and Check in ModeRepair
// verifies them and removes those of older values (docs/migration.md).
//
// # Index state
//
// An index table created over a data table that already holds rows
// starts building (schema.IndexBuilding, a table attribute every client
// sees): writers maintain it, readers refuse it with a *BuildingError
// (ErrIndexBuilding) until Build has written the entries of the older
// rows and marked it active. See docs/index-state.md.
//
// # Who should use it
//
// Package dao, whose store drives this engine for every schema with
// indexes (each IndexSpec must carry the data row key, RowKeyQualifier,
// or be inverted; schema.New already refuses an index key, or an inverted
// entry's qualifier, that does not determine one record). The package depends only on the narrow Client interface, which
// the real client, the fake (hbase/fake) and the mock (hbase/hbasemock)
// satisfy.
//
// # Who should not
//
// Applications: they open a dao store, which is the one way to write an
// indexed table. Code that writes the data table by other means (dao's
// WithUnindexedWrites, bulk loads, other clients) bypasses the protocol:
// run Check with ModeRepair or ModeRebuild afterwards.
package index
