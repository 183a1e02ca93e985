package index

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index/kmerge"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// entry is one index row as read.
type entry struct {
	key      []byte
	cells    []schema.Cell
	status   byte // 0 when the status cell is missing or malformed
	version  int64
	rawState []byte // the status cell as stored, nil if absent
	dataKey  []byte // nil if the entry carries no row pointer
	maxTS    int64  // newest cell timestamp
	qual     []byte // inverted: the entry cell's qualifier
	raw      []byte // the value conditional writes on the entry test (statusColumn), nil if absent
}

func (s *ixState[T]) parseEntry(r *hbapi.Result) *entry {
	e := &entry{key: r.Row(), cells: toSchemaCells(r, 0)}
	for _, c := range r.Cells {
		e.maxTS = max(e.maxTS, c.Timestamp)
	}
	fam := []byte(s.fam)
	if v, ok := r.Latest(fam, []byte(StatusQualifier)); ok {
		e.rawState = v.Value
		if st, ver, ok := parseStatus(v.Value); ok {
			e.status, e.version = st, ver
		}
	}
	if e.status == 0 {
		e.version = e.maxTS
	}
	e.raw = e.rawState
	if v := r.Value(fam, []byte(s.rowQ)); len(v) > 0 {
		e.dataKey = v
	}
	return e
}

// verdict is what the read check concludes about one entry.
type verdict[T any] struct {
	valid    bool // the data row exists and derives exactly this entry's key
	stale    bool // valid, but the entry's cells differ from those the data row derives
	data     *dataState[T]
	expected schema.Row // the entry the data row derives (valid only)
}

// judge checks entry e of index i against its data row d.
func (t *Table[T]) judge(i int, e *entry, d *dataState[T]) verdict[T] {
	v := verdict[T]{data: d}
	if d == nil || !d.exists || !d.decoded || d.derived[i] == nil || !bytes.Equal(d.derived[i], e.key) {
		return v
	}
	if err := t.ixs[i].ix.EncodeEntry(&v.expected, &d.rec); err != nil {
		return v
	}
	s := t.ixs[i]
	if s.inv {
		// The cell is the whole entry: it is valid when the data row
		// derives its row and its qualifier, and never stale.
		v.valid = v.expected.Cells[0].Qualifier == string(e.qual)
		return v
	}
	v.valid = true
	// Only the cells the index declares count: other clients may write
	// more, which the data row cannot contradict.
	got := slices.DeleteFunc(slices.Clone(e.cells), func(c schema.Cell) bool {
		return c.Family != s.fam || c.Qualifier != s.rowQ && !slices.ContainsFunc(s.carried, func(k schema.ColumnInfo) bool { return k.Qualifier == c.Qualifier })
	})
	v.stale = !sameCells(v.expected.Cells, got)
	return v
}

func sameCells(a, b []schema.Cell) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y schema.Cell) bool {
			return x.Family == y.Family && x.Qualifier == y.Qualifier && bytes.Equal(x.Value, y.Value)
		}) {
			return false
		}
	}
	return true
}

// deadOrphan reports whether entry e, which failed the check against its
// data row d, may be deleted: when, by the mode's protocol, no write in
// flight can still need it, or when it is older than the grace period
// (its writer is gone).
func (t *Table[T]) deadOrphan(e *entry, d *dataState[T]) bool {
	landed := d != nil && (d.exists || d.tombstone)
	switch {
	case t.mode == schema.Strict && e.status == statusVerified:
		return true // the protocol verifies an entry only after its row landed
	case t.mode == schema.InsertOnly && e.status == statusVerified:
		// An insert-only write sends its entry and its data row in one
		// Batch: an entry whose row is not there yet may belong to a
		// write in flight.
		if d != nil && d.exists {
			return true
		}
	case t.mode == schema.Mutable || t.mode == schema.VerifyOnRead:
		// Written (verified in the mutable mode, optimistically) in the
		// same Batch as its data row: the entry of a write in flight
		// until the row passes its version. A row at the entry's own
		// version was written by a writer of the same millisecond in
		// another process, and a writer of that millisecond under this
		// entry's key may still land and win: a marker at this version
		// would hide its entry too, whenever it lands. The grace period
		// decides.
		if landed && d.version > e.version {
			return true
		}
	default: // a strict write's unverified entry
		if landed && d.version >= e.version {
			return true
		}
	}
	return t.o.now().Sub(time.UnixMilli(e.version)) > t.o.grace
}

// repairAction returns the write that repairs entry e of index i, or nil:
// a verified rewrite of a valid entry that is unverified or stale (at the
// data row's version, unless a newer writer already claimed the entry),
// or a conditional delete of a dead orphan. The valid entries of a data
// row without a version cell, which another client wrote, are left as
// they are: Check fixes them (see foreignEntryFix).
func (t *Table[T]) repairAction(i int, e *entry, v verdict[T]) (write hbapi.Action, cam *hbapi.CheckAndMutate) {
	s := t.ixs[i]
	if v.valid && !t.verifies() {
		// Entries stay unverified in this mode (no writer withdraws one it
		// moves away from, so a verified one could not be trusted either):
		// only a stale entry is rewritten.
		if !v.stale || e.version > v.data.version || v.data.verBytes == nil {
			return nil, nil
		}
		return s.entryPut(&v.expected, statusUnverified, v.data.version), nil
	}
	if v.valid {
		if (e.status == statusVerified && !v.stale) || e.version > v.data.version || v.data.verBytes == nil {
			return nil, nil
		}
		return s.entryPut(&v.expected, statusVerified, v.data.version), nil
	}
	if !t.deadOrphan(e, v.data) || s.inv && len(e.qual) == 0 {
		// A cell with an empty qualifier (another client's: the schema
		// never encodes one) cannot be deleted alone: a Delete without a
		// qualifier deletes the family, every entry of the row.
		return nil, nil
	}
	fam, q := s.statusColumn(e)
	return nil, &hbapi.CheckAndMutate{
		Table: s.name, Row: e.key, Family: fam, Qualifier: q,
		Compare: hbapi.CompareEqual, Value: e.raw,
		Mutations: []hbapi.Mutation{s.dropEntry(e.key, e.qual, max(e.version, e.maxTS), hbapi.DurabilityDefault)},
	}
}

// confirmOrphans reads again entries es of index i, which a read judged
// dead orphans against data rows ds (repairAction gave their deletes),
// and the data rows they point to, in one Batch, and returns the deletes
// of those whose second read agrees with the first and judges them dead
// orphans again. HBase's RPC has no checksum: a bit flipped on the way in
// a value of the data row (the account, a timestamp, the version) or in
// the entry's row pointer makes a live record's entry look like an
// orphan, and deleting it would lose the entry of an acknowledged write
// (issue 34). A delete takes two answers that agree, read in different
// round trips. Only reads that find dead orphans pay the round trip.
func (t *Table[T]) confirmOrphans(ctx context.Context, i int, es []*entry, ds []*dataState[T]) []*hbapi.CheckAndMutate {
	if len(es) == 0 {
		return nil
	}
	s := t.ixs[i]
	acts := make([]hbapi.Action, 0, 2*len(es))
	for _, e := range es {
		g := &hbapi.Get{Table: s.name, Row: e.key, Families: [][]byte{[]byte(s.fam)}}
		if s.inv {
			g = &hbapi.Get{Table: s.name, Row: e.key, Columns: []hbapi.Column{{Family: []byte(s.fam), Qualifier: e.qual}}}
		}
		acts = append(acts, g)
		if e.dataKey != nil {
			acts = append(acts, &hbapi.Get{Table: t.name, Row: e.dataKey})
		}
	}
	res, err := t.c.Batch(ctx, acts)
	if err != nil && !isBatchError(err) || len(res) != len(acts) {
		return nil
	}
	var cams []*hbapi.CheckAndMutate
	for j, e := range es {
		er := res[0]
		res = res[1:]
		var d *dataState[T]
		if e.dataKey != nil {
			dr := res[0]
			res = res[1:]
			if dr.Err != nil {
				continue
			}
			d = t.readData(e.dataKey, dr.Result)
		}
		if er.Err != nil || !sameData(i, ds[j], d) ||
			!slices.ContainsFunc(s.parseEntries(er.Result), func(x *entry) bool { return sameEntry(x, e) }) {
			continue // changed, or read differently: a later read judges it
		}
		if _, cam := t.repairAction(i, e, t.judge(i, e, d)); cam != nil {
			cams = append(cams, cam)
		}
	}
	return cams
}

// sameEntry reports whether entries a and b, two reads of one entry, read
// the same.
func sameEntry(a, b *entry) bool {
	return bytes.Equal(a.key, b.key) && bytes.Equal(a.qual, b.qual) && bytes.Equal(a.raw, b.raw) &&
		bytes.Equal(a.dataKey, b.dataKey) && a.maxTS == b.maxTS && a.version == b.version && a.status == b.status
}

// sameData reports whether a and b, two reads of one data row, agree on
// what judging an entry of index i against it takes.
func sameData[T any](i int, a, b *dataState[T]) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.exists == b.exists && a.tombstone == b.tombstone && a.decoded == b.decoded && a.version == b.version &&
		bytes.Equal(a.verBytes, b.verBytes) && bytes.Equal(a.derived[i], b.derived[i])
}

// scanEntriesAfter is scanEntries resumed after cell afterCell of row
// (see FindAfter): when no range starts before row, that row is scanned
// alone from the next cell on (the server skips the others), then the
// ranges after it; otherwise the row's cells up to afterCell are dropped
// before fn sees them.
func (t *Table[T]) scanEntriesAfter(ctx context.Context, s *ixState[T], ranges []keys.KeyRange, row, afterCell []byte, size int, fn func([]*entry) error) error {
	if !s.inv || afterCell == nil {
		return t.scanEntries(ctx, s, ranges, nil, size, fn)
	}
	if slices.ContainsFunc(ranges, func(kr keys.KeyRange) bool { return bytes.Compare(kr.Start, row) < 0 }) {
		// Keys before row too: one scan, the returned cells dropped
		// before their data rows are read.
		return t.scanEntries(ctx, s, ranges, nil, size, func(es []*entry) error {
			es = slices.DeleteFunc(es, func(e *entry) bool { return bytes.Equal(e.key, row) && bytes.Compare(e.qual, afterCell) <= 0 })
			if len(es) == 0 {
				return nil
			}
			return fn(es)
		})
	}
	next := append(bytes.Clone(row), 0) // the smallest key after row
	var rest []keys.KeyRange
	inside := false
	for _, kr := range ranges {
		inside = inside || kr.Contains(row)
		if kr.Stop != nil && bytes.Compare(kr.Stop, next) <= 0 {
			continue // row alone
		}
		if bytes.Equal(kr.Start, row) {
			kr.Start = next
		}
		rest = append(rest, kr)
	}
	if inside {
		if err := t.streamEntries(ctx, s, []keys.KeyRange{{Start: row, Stop: next}}, nil, afterCell, size, fn); err != nil {
			return err
		}
	}
	return t.scanEntries(ctx, s, rest, nil, size, fn)
}

// scanEntries scans the ranges of index s and calls fn with chunks of at
// most size entries (see chunkSize), in key order. One range is streamed.
// Several ranges (the ten buckets of a bucketed query) are cut into up to
// parallelism groups of neighbouring ranges, each read by its own scan
// with a MultiRowRangeFilter, all at once, and merged as they stream in
// (package kmerge): the buckets live in different regions, so the query
// costs one scan's latency, not ten, and a caller that has what it wants
// stops every scan, each having read at most three chunks ahead.
func (t *Table[T]) scanEntries(ctx context.Context, s *ixState[T], ranges []keys.KeyRange, columns []hbapi.Column, size int, fn func([]*entry) error) error {
	if len(ranges) == 0 {
		return nil
	}
	rs := slices.Clone(ranges)
	slices.SortFunc(rs, func(a, b keys.KeyRange) int { return bytes.Compare(a.Start, b.Start) })
	if len(rs) == 1 {
		return t.streamEntries(ctx, s, rs, columns, nil, size, fn)
	}
	groups := min(len(rs), t.o.parallelism)
	srcs := make([]kmerge.Source[*entry], groups)
	for g := range groups {
		part := rs[g*len(rs)/groups : (g+1)*len(rs)/groups]
		srcs[g] = func(ctx context.Context, emit func(*entry) bool) error {
			err := t.scanRanges(ctx, s, part, columns, nil, size, func(e *entry) error {
				if !emit(e) {
					return errStop
				}
				return nil
			})
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	chunk := make([]*entry, 0, size)
	for e, err := range kmerge.Merge(ctx, srcs, kmerge.Config[*entry]{Cmp: entryOrder, Conc: groups, Chunk: size}) {
		if err != nil {
			return err
		}
		chunk = append(chunk, e)
		if len(chunk) == size {
			if err := fn(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	return fn(chunk)
}

// entryOrder orders entries by key, then (inverted) by qualifier.
func entryOrder(a, b *entry) int {
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c
	}
	return bytes.Compare(a.qual, b.qual)
}

// chunkSize is the size of the chunks a read hands over: the batch size,
// or limit when it is smaller (a caller that wants few records reads
// few).
func (t *Table[T]) chunkSize(limit int) int {
	if limit > 0 && limit < t.o.batchSize {
		return limit
	}
	return t.o.batchSize
}

// streamEntries reads sorted ranges of index s with one scan (see
// scanRanges) and calls fn with chunks of at most size entries.
func (t *Table[T]) streamEntries(ctx context.Context, s *ixState[T], rs []keys.KeyRange, columns []hbapi.Column, cellsAfter []byte, size int, fn func([]*entry) error) error {
	var chunk []*entry
	err := t.scanRanges(ctx, s, rs, columns, cellsAfter, size, func(e *entry) error {
		chunk = append(chunk, e)
		if len(chunk) == size {
			err := fn(chunk)
			chunk = chunk[:0]
			return err
		}
		return nil
	})
	if err != nil || len(chunk) == 0 {
		return err
	}
	return fn(chunk)
}

// scanRanges reads sorted ranges of index s with one scan. cellsAfter,
// for the scan of one row of an inverted index, skips the row's cells up
// to that qualifier on the server (a ColumnRangeFilter). The server
// returns size rows (or cells of a row, inverted) at a time.
func (t *Table[T]) scanRanges(ctx context.Context, s *ixState[T], rs []keys.KeyRange, columns []hbapi.Column, cellsAfter []byte, size int, fn func(*entry) error) error {
	sc := &hbapi.Scan{Table: s.name, StartRow: rs[0].Start, Columns: columns, Caching: size}
	if cellsAfter != nil {
		sc.Filter = &hbapi.ColumnRangeFilter{Min: cellsAfter}
	}
	if len(columns) == 0 {
		sc.Families = [][]byte{[]byte(s.fam)}
	}
	if s.inv {
		sc.Batch = size // a row holds an entry per record: read it in parts
	}
	for _, r := range rs {
		if r.Stop == nil {
			sc.StopRow = nil
			break
		}
		if bytes.Compare(r.Stop, sc.StopRow) > 0 {
			sc.StopRow = r.Stop
		}
	}
	if len(rs) > 1 {
		f := &hbapi.MultiRowRangeFilter{}
		for _, r := range rs {
			f.Ranges = append(f.Ranges, hbapi.RowRange{Start: r.Start, StartInclusive: true, Stop: r.Stop})
		}
		sc.Filter = f
	}
	scanner, err := t.c.Scan(ctx, sc)
	if err != nil {
		return err
	}
	for r, err := range hbapi.All(ctx, scanner) {
		if err != nil {
			return err
		}
		for _, e := range s.parseEntries(r) {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// dataRows batch-gets the data rows the entries point to.
func (t *Table[T]) dataRows(ctx context.Context, es []*entry) ([]*dataState[T], error) {
	out := make([]*dataState[T], len(es))
	var gets []hbapi.Action
	var at []int
	for i, e := range es {
		if e.dataKey != nil {
			gets = append(gets, &hbapi.Get{Table: t.name, Row: e.dataKey})
			at = append(at, i)
		}
	}
	if len(gets) == 0 {
		return out, nil
	}
	res, err := t.c.Batch(ctx, gets)
	if err != nil {
		return nil, err // a reader must not guess: any failed Get fails the read
	}
	for j, r := range res {
		out[at[j]] = t.readData(es[at[j]].dataKey, r.Result)
	}
	return out, nil
}

// errStop ends a scan whose caller has what it wants.
var errStop = errors.New("index: stop")

// Find scans the given ranges of the named index and calls fn, in
// index-key order, with each entry key and the record its data row
// confirms: an entry counts only if its data row exists and deriving the
// index key from it gives exactly the entry's key, and the record is
// decoded from the data row. A record is passed to fn once per call,
// though it moves during the read from an entry already read to one not
// yet read (both then agree with the row when they are read): see
// passKeys. fn returning false ends the read. With read repair on,
// confirmed entries that are unverified or stale are rewritten verified
// and dead orphans deleted.
func (t *Table[T]) Find(ctx context.Context, index string, ranges []keys.KeyRange, fn func(key []byte, rec *T) bool) error {
	return t.FindAfter(ctx, index, ranges, nil, nil, 0, fn)
}

// FindAfter is Find resumed inside row of an inverted index, after its
// cell afterCell: the row's cells up to afterCell are not read, nor their
// data rows, and the rest of the ranges is read from the next row on.
// ranges are those left from row on (they start at or before it). With
// afterCell nil, or for an index whose entries are rows, it is Find.
// limit, when positive, is the number of records the caller wants at
// most (fn then returns false): the read fetches entries in chunks no
// larger, so that a small limit reads little.
func (t *Table[T]) FindAfter(ctx context.Context, index string, ranges []keys.KeyRange, row, afterCell []byte, limit int, fn func(key []byte, rec *T) bool) (err error) {
	ctx, s, i, done, err := t.startRead(ctx, "lookup", index, len(ranges))
	if err != nil {
		return err
	}
	defer func() { err = done(err) }()
	stopped := false
	var seen passKeys
	err = t.scanEntriesAfter(ctx, s, ranges, row, afterCell, t.chunkSize(limit), func(es []*entry) error {
		ds, err := t.dataRows(ctx, es)
		if err != nil {
			return err
		}
		var fixes []hbapi.Action
		var orphans []*entry
		var orphanRows []*dataState[T]
		for j, e := range es {
			v := t.judge(i, e, ds[j])
			if v.valid && !stopped && seen.first(e.dataKey) && !fn(e.key, &v.data.rec) {
				stopped = true
			}
			if t.o.readRepair {
				w, cam := t.repairAction(i, e, v)
				if w != nil {
					fixes = append(fixes, w)
				}
				if cam != nil {
					orphans, orphanRows = append(orphans, e), append(orphanRows, ds[j])
				}
			}
		}
		t.applyRepairs(ctx, fixes, t.confirmOrphans(ctx, i, orphans, orphanRows))
		if stopped {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return err
}

// startRead opens a read (op) of the named index over n ranges: it
// checks that the index is readable and starts the read's span and
// operation timeout. It returns the index, its position, and done, which
// ends them with the read's error and returns that error.
func (t *Table[T]) startRead(ctx context.Context, op, index string, n int) (context.Context, *ixState[T], int, func(error) error, error) {
	s, err := t.readable(ctx, index)
	if err != nil {
		return ctx, nil, 0, nil, err
	}
	ctx, span := t.span(ctx, op, s.name, AttrRanges.Int(n))
	ctx, endOp := hbapi.StartOperation(ctx, t.c)
	done := func(err error) error {
		err = endOp(err)
		end(span, err)
		return err
	}
	return ctx, s, slices.Index(t.ixs, s), done, nil
}

// passKeys is the set of data row keys one read (Find, Keys) has passed
// on. A record that moves while the read runs, from an entry the read has
// passed to one it has not reached, has two entries that each agree with
// its row when read (the old one before the move, the new one after): the
// read returns the first and drops the second. No reader can tell which
// of a row's entries it passed, or will reach, without remembering what
// it returned, so the set holds every key returned, until the read ends:
// about 45 to 55 bytes more than the key per record
// (docs/index-reads.md).
type passKeys map[string]struct{}

// first reports whether key is new to the read, and remembers it.
func (p *passKeys) first(key []byte) bool {
	if *p == nil {
		*p = make(passKeys)
	}
	if _, ok := (*p)[string(key)]; ok {
		return false
	}
	(*p)[string(key)] = struct{}{}
	return true
}

// Live reports whether a row read from the data table holds a record: it
// is not empty and not the tombstone a delete leaves (see Deletes in the
// package documentation). Rows written by other clients, without a
// version cell, are live.
func (t *Table[T]) Live(r *hbapi.Result) bool {
	if r.Empty() {
		return false
	}
	v := r.Value([]byte(t.fam), []byte(VersionQualifier))
	return !(len(v) == 9 && v[8] == tombstoneFlag)
}

// applyRepairs sends read-repair writes, the conditional ones too, in one
// Batch. Their failure does not fail the read: the read's answer was
// already checked against the data rows.
func (t *Table[T]) applyRepairs(ctx context.Context, fixes []hbapi.Action, cams []*hbapi.CheckAndMutate) (n int) {
	acts := make([]hbapi.Action, 0, len(fixes)+len(cams))
	acts = append(acts, fixes...)
	for _, cam := range cams {
		acts = append(acts, cam)
	}
	if len(acts) == 0 {
		return 0
	}
	res, _ := t.c.Batch(ctx, acts)
	for i, r := range res {
		if r.Err == nil && (i < len(fixes) || r.Processed) {
			n++
		}
	}
	return n
}

// trusted reports whether index-only reads (Count, Keys) take entry e as
// it is, without its data row: when it is verified, except in the
// verify-on-read mode, whose writers leave behind the entries of the
// values they replace.
func (t *Table[T]) trusted(e *entry) bool {
	return e.status == statusVerified && t.verifies()
}

// verifies reports whether the mode's writes, repairs and readers mark
// entries verified: all but verify-on-read, whose puts never withdraw an
// entry they move away from, so that no reader may trust one.
func (t *Table[T]) verifies() bool { return t.mode != schema.VerifyOnRead }

// Count counts the entries of the named index in the given ranges that
// belong to live records, grouped by group(entry key), from the index
// alone: verified entries are counted as they are; only unverified ones
// (writes in flight or interrupted) and those without a status cell
// (written by other clients) cost a Get of their data row, and count if
// it derives their key. In the verify-on-read mode every entry costs that
// Get (see trusted).
func (t *Table[T]) Count(ctx context.Context, index string, ranges []keys.KeyRange, group func(key []byte) string) (_ map[string]int64, err error) {
	ctx, s, i, done, err := t.startRead(ctx, "count", index, len(ranges))
	if err != nil {
		return nil, err
	}
	defer func() { err = done(err) }()
	var cols []hbapi.Column // an inverted row: its family, every cell an entry
	if !s.inv {
		cols = []hbapi.Column{
			{Family: []byte(s.fam), Qualifier: []byte(StatusQualifier)},
			{Family: []byte(s.fam), Qualifier: []byte(s.rowQ)},
		}
	}
	out := make(map[string]int64)
	err = t.scanEntries(ctx, s, ranges, cols, t.o.batchSize, func(es []*entry) error {
		var check []*entry
		for _, e := range es {
			if t.trusted(e) {
				out[group(e.key)]++
			} else {
				check = append(check, e)
			}
		}
		if len(check) == 0 {
			return nil
		}
		ds, err := t.dataRows(ctx, check)
		if err != nil {
			return err
		}
		for j, e := range check {
			d := ds[j]
			if d != nil && d.exists && d.decoded && bytes.Equal(d.derived[i], e.key) && t.ownsCell(i, e, d) {
				out[group(e.key)]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
