package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// item is one record of a write in progress.
type item[T any] struct {
	pos     int            // index in the caller's slice
	op      Op             // OpPut or OpDelete
	insert  bool           // OpInsert: fail with ErrExists when a live record holds the key
	key     []byte         // data row key
	enc     *schema.Record // new rows (puts)
	expect  *int64         // rewrite only if the row still has this version (Check)
	floor   int64          // a version the row was seen at: the next attempt goes above it
	err     error
	done    bool
	skipped bool     // expect did not hold: the row changed, nothing written
	quals   [][]byte // per index: the qualifier of the record's entry in an inverted index, else nil

	// per attempt
	oldVer  []byte
	oldKeys [][]byte
	v       int64
}

// Write writes records with their index entries: op is OpPut (replace
// the record with the same row key, if any), OpInsert (fail with
// ErrExists when a live record holds the key, as decided by the data
// row's conditional write) or OpDelete (only recs[i].Data.Key is read;
// deleting a missing record is not an error). The records must have been
// encoded by the table's schema (schema.Table.EncodeRecord) and have
// distinct row keys, and stay untouched after Write returns: the
// background verification (Config.SyncVerify off) sends cells that alias
// them (not on an insert-only table: see KeepsRecords). The write runs
// under the caller's span (retries are events on it). It shares each
// phase's round trip between all records (see Cost in the package
// documentation).
//
// It returns one error per record, nil for those written, or a nil slice
// when all were. A record's error is a *StepError (the phase it failed
// at; before PhaseUnverified with nothing sent, wrapping a *schema.Error,
// for a record whose inverted-index qualifier does not encode), or wraps
// ErrConflict, ErrExists or the context's error. An insert is never
// reported ErrExists for its own write: one whose answer the network hid
// is settled by reading its token back (an insert without
// schema.Record.Token gets one), and an error wrapping
// hbase.ErrOutcomeUnknown is left only when that read failed too. An
// invalid op fails every record with ErrInvalidOption.
func (t *Table[T]) Write(ctx context.Context, op Op, recs []*schema.Record) (errs []error) {
	switch op {
	case OpPut, OpInsert, OpDelete:
	default:
		errs = make([]error, len(recs))
		for i := range errs {
			errs[i] = fmt.Errorf("index: %w: write op %v", ErrInvalidOption, op)
		}
		return errs
	}
	// One operation timeout for every step and retry (docs/timeouts.md).
	ctx, endOp := hbapi.StartOperation(ctx, t.c)
	defer func() {
		for i, err := range errs {
			errs[i] = endOp(err)
		}
		endOp(nil)
	}()
	kind := op
	if kind == OpInsert {
		kind = OpPut
	}
	// The items live in one slab, and the pointers to them in one array
	// shared by all and items (items never outruns all): two
	// allocations per call, whatever the number of records.
	slab := make([]item[T], len(recs))
	ptrs := make([]*item[T], 2*len(recs))
	all, items := ptrs[:len(recs):len(recs)], ptrs[len(recs):len(recs)]
	for i, r := range recs {
		it := &slab[i]
		it.pos, it.op, it.key = i, op, r.Data.Key
		if op != OpDelete {
			it.op, it.insert, it.enc = OpPut, op == OpInsert, r
		}
		if op == OpInsert && len(r.Token) == 0 {
			r.Token = NewToken()
		}
		all[i] = it
		var err error
		if it.quals, err = t.qualifiers(it.key, it.enc); err != nil {
			// Nothing sent: the record's entry cannot be addressed (an
			// inverted index's qualifier does not encode).
			it.err = &StepError{Step: Step{Op: kind, Phase: PhaseUnverified, Attempt: 1, Records: len(recs)}, Err: err}
			continue
		}
		items = append(items, it)
	}
	switch {
	case t.mode == schema.InsertOnly && op != OpDelete:
		t.insertInsertOnly(ctx, items)
	case t.mode == schema.InsertOnly && op == OpDelete:
		t.deleteInsertOnly(ctx, items)
	case t.mode == schema.Mutable && op != OpInsert:
		t.writeMutable(ctx, op, items)
	case t.mode == schema.VerifyOnRead && op != OpInsert:
		t.writeVerifyOnRead(ctx, op, items)
	default:
		t.run(ctx, kind, items)
	}
	for _, it := range all {
		if it.err == nil {
			continue
		}
		if errs == nil {
			errs = make([]error, len(recs))
		}
		errs[it.pos] = it.err
	}
	return errs
}

// run drives items of one kind through the protocol, retrying those that
// lose the conditional data-row write, at most MaxAttempts times.
func (t *Table[T]) run(ctx context.Context, op Op, items []*item[T]) {
	pending := items
	// A put's first attempt may skip the read altogether (blind): see
	// guessAbsent and settled. It does not count against the attempts: a blind
	// attempt lost to an existing row is no conflict. Inserts never go
	// blind (see early in attempt).
	blindFirst := op == OpPut && len(items) > 0 && items[0].expect == nil && !items[0].insert &&
		t.o.blindPuts && t.settled(ctx) && t.guessAbsent()
	limit := t.o.attempts
	if blindFirst {
		limit++
	}
	for attempt := 1; len(pending) > 0; attempt++ {
		blind := attempt == 1 && blindFirst
		if attempt > limit {
			for _, it := range pending {
				it.err = fmt.Errorf("%w (%d attempts)", ErrConflict, t.o.attempts)
			}
			return
		}
		if err := ctx.Err(); err != nil {
			for _, it := range pending {
				it.err = err
			}
			return
		}
		if attempt > 1 {
			trace.SpanFromContext(ctx).AddEvent("retry", trace.WithAttributes(attribute.Int("attempt", attempt), attribute.Int("records", len(pending))))
		}
		pending = t.attempt(ctx, op, attempt, blind, pending)
	}
}

// attempt runs the three writes once and returns the items to retry.
func (t *Table[T]) attempt(ctx context.Context, op Op, n int, blind bool, items []*item[T]) []*item[T] {
	r := &round[T]{t: t, op: op, n: n, blind: blind, items: items,
		early: op == OpPut && items[0].expect == nil && !items[0].insert}
	live := r.read(ctx)
	if len(live) > 0 {
		live = r.unverify(ctx, live)
	}
	if len(live) > 0 {
		live = r.writeData(ctx, live)
	}
	if len(live) > 0 {
		r.verify(ctx, live)
	}
	return r.retry
}

// round is one attempt of a batch of writes of one kind: the steps of the
// protocol, each a method, and the items they leave to retry.
type round[T any] struct {
	t     *Table[T]
	op    Op
	n     int  // the attempt's number
	blind bool // the rows are assumed absent, not read (see run)
	// early: a plain put, whose new entries do not depend on what is
	// read, so they go in the read's round trip (phase 1, early).
	early bool
	items []*item[T]
	retry []*item[T]
}

// fail records err, at phase, on the items of its that have no error
// yet.
func (r *round[T]) fail(its []*item[T], phase Phase, err error) {
	for _, it := range its {
		if it.err == nil {
			it.err = &StepError{Step: Step{Op: r.op, Phase: phase, Attempt: r.n, Records: len(r.items)}, Err: err}
		}
	}
}

// failOne is fail of one item, for Table.batch.
func (r *round[T]) failOne(phase Phase) func(*item[T], error) {
	return func(it *item[T], err error) { r.fail([]*item[T]{it}, phase, err) }
}

// hook runs the hook before phase for its; false when it stopped them.
func (r *round[T]) hook(phase Phase, its []*item[T]) bool {
	if err := r.t.hook(Step{Op: r.op, Phase: phase, Attempt: r.n, Records: len(its)}); err != nil {
		r.fail(its, phase, err)
		return false
	}
	return true
}

// read reads the current rows: their versions and the entries they own.
// A plain put's new entries go in the same round trip (phase 1, early),
// at a version taken before the read; if the row turns out to be newer,
// the attempt is redone above it. Deletes and Check's conditional
// rewrites read first.
//
// A blind attempt skips the read: it assumes the rows absent, and the
// conditional write of phase 2 checks that assumption like any other; a
// row that exists makes the record start over, reading first. Inserts
// read first, so that a row another client wrote (no version cell for a
// blind attempt's condition to find) is refused too.
//
// It returns the items that go on to the rest of phase 1.
func (r *round[T]) read(ctx context.Context) []*item[T] {
	t := r.t
	var acts []hbapi.Action
	var owner []*item[T]
	if !r.blind {
		for _, it := range r.items {
			acts = append(acts, &hbapi.Get{Table: t.name, Row: it.key})
			owner = append(owner, it)
		}
	}
	reads := len(acts)
	if r.early {
		if !r.hook(PhaseUnverified, r.items) {
			return nil
		}
		for _, it := range r.items {
			it.v = t.nextVersion(it.key, it.floor)
			for i, s := range t.ixs {
				for _, a := range s.entryActions(&it.enc.Entries[i], statusUnverified, it.v) {
					acts, owner = append(acts, a), append(owner, it)
				}
			}
		}
	}
	res, err := t.c.Batch(ctx, acts)
	if err != nil && !isBatchError(err) {
		r.fail(r.items, PhaseUnverified, err)
		return nil
	}
	for i := reads; i < len(res); i++ {
		if res[i].Err != nil {
			r.fail(owner[i:i+1], PhaseUnverified, res[i].Err)
		}
	}
	return r.judgeRows(ctx, res)
}

// judgeRows decides from the rows read (res, one per item, unless
// blind) which items go on, and withdraws the early entries of inserts
// refused.
func (r *round[T]) judgeRows(ctx context.Context, res []hbapi.BatchResult) []*item[T] {
	var cleanup []hbapi.Action
	live := r.items[:0:0]
	for i, it := range r.items {
		if it.err != nil {
			continue
		}
		if r.blind {
			// The row is assumed absent: no version, no entries to drop.
			it.oldVer, it.oldKeys = nil, r.t.noKeys
			live = append(live, it)
			continue
		}
		if res[i].Err != nil {
			r.fail([]*item[T]{it}, PhaseUnverified, res[i].Err)
			continue
		}
		d := r.t.readData(it.key, res[i].Result)
		goOn, withdraw := r.judgeRow(it, d, res[i].Result)
		cleanup = append(cleanup, withdraw...)
		if goOn {
			it.oldVer, it.oldKeys = d.verBytes, d.keys
			live = append(live, it)
		}
	}
	if len(cleanup) > 0 {
		// Best effort: what is left is an unverified orphan, which readers
		// skip and Check removes after the grace period.
		_, _ = r.t.c.Batch(ctx, cleanup)
	}
	return live
}

// judgeRow decides whether item it goes on over its data row d (read as
// row): it may be done (a conditional write whose row changed, a delete
// of an absent row), refused (an insert over a live record, whose early
// entries the returned writes withdraw) or retried above the row's
// version; going on, it gets its version.
func (r *round[T]) judgeRow(it *item[T], d *dataState[T], row *hbapi.Result) (goOn bool, withdraw []hbapi.Action) {
	t := r.t
	switch {
	case it.expect != nil && (!d.exists || d.version != *it.expect):
		it.skipped, it.done = true, true
		return false, nil
	case r.op == OpDelete && !d.exists:
		it.done = true
		return false, nil
	case it.insert && d.exists && t.ownInsert(it, row):
		// An earlier attempt of this insert landed, though its answer
		// said otherwise (lost, or corrupted on the way): finish it as a
		// put of the same record over its own row, which writes and
		// verifies its entries like any put.
		it.insert = false
		if r.early && it.v <= d.version {
			it.floor = d.version
			r.retry = append(r.retry, it)
			return false, nil
		}
		if !r.early {
			it.v = t.nextVersion(it.key, d.version)
		}
	case it.insert && d.exists:
		it.err, it.done = ErrExists, true
		return false, t.withdraw(it, d)
	case r.early && it.v <= d.version:
		it.floor = d.version // the row is ahead of our clock: redo above it
		r.retry = append(r.retry, it)
		return false, nil
	case !r.early:
		it.v = t.nextVersion(it.key, d.version)
	}
	return true, nil
}

// unverify is the rest of phase 1: entries about to be dropped are
// marked unverified before the data row moves away from them, so that no
// verified entry ever disagrees with its data row; the new entries of a
// write that read first are written unverified.
func (r *round[T]) unverify(ctx context.Context, live []*item[T]) []*item[T] {
	t := r.t
	if !r.early && !r.hook(PhaseUnverified, live) {
		return nil
	}
	acts, owner := r.entryWrites(live, func(it *item[T], i int, s *ixState[T], dropped []byte) (acts []hbapi.Action) {
		if r.op == OpPut && !r.early {
			acts = s.entryActions(&it.enc.Entries[i], statusUnverified, it.v)
		}
		if dropped != nil {
			acts = append(acts, s.markUnverified(dropped, it.quals[i], it.v))
		}
		return acts
	})
	return t.batch(ctx, acts, owner, live, r.failOne(PhaseUnverified))
}

// entryWrites collects the writes fn returns for each item of its and
// each index i: dropped is the entry key the item's row recorded, when
// the write moves the record away from it (nil otherwise). It returns one
// Batch's actions and the item each belongs to.
func (r *round[T]) entryWrites(its []*item[T], fn func(it *item[T], i int, s *ixState[T], dropped []byte) []hbapi.Action) ([]hbapi.Action, []*item[T]) {
	var acts []hbapi.Action
	var owner []*item[T]
	for _, it := range its {
		for i, s := range r.t.ixs {
			var newKey []byte
			if r.op == OpPut {
				newKey = it.enc.Entries[i].Key
			}
			var dropped []byte
			if old := it.oldKeys[i]; old != nil && !bytes.Equal(old, newKey) {
				dropped = old
			}
			for _, a := range fn(it, i, s, dropped) {
				acts, owner = append(acts, a), append(owner, it)
			}
		}
	}
	return acts, owner
}

// writeData is phase 2: the data row, only if nobody changed it since it
// was read. One Batch of CheckAndMutates: one conditional RegionAction
// per record, in a few parallel Multis per region server. It returns the
// items written.
func (r *round[T]) writeData(ctx context.Context, live []*item[T]) []*item[T] {
	if !r.hook(PhaseData, live) {
		return nil
	}
	acts := make([]hbapi.Action, 0, len(live))
	for _, it := range live {
		acts = append(acts, r.t.dataMutation(r.op, it))
	}
	res, err := r.t.c.Batch(ctx, acts)
	if err == nil && len(res) != len(acts) {
		err = fmt.Errorf("index: Batch returned %d results for %d actions", len(res), len(acts))
	}
	if err != nil && !isBatchError(err) {
		r.fail(live, PhaseData, err)
		return nil
	}
	return r.landed(ctx, live, res)
}

// landed sorts the answers res of phase 2 into the items written, those
// to retry (lost to another writer) and those failed. A write whose
// outcome the network hid: its own (the insert's token) goes on to phase
// 3, any other is retried, and the next attempt's read decides; unread,
// its error stays.
func (r *round[T]) landed(ctx context.Context, live []*item[T], res []hbapi.BatchResult) []*item[T] {
	var written, unknown []*item[T]
	var unknownErrs []error
	lost := 0
	for i, it := range live {
		switch {
		case res[i].Err != nil && outcomeUnknown(res[i].Err):
			unknown, unknownErrs = append(unknown, it), append(unknownErrs, res[i].Err)
		case res[i].Err != nil:
			r.fail([]*item[T]{it}, PhaseData, res[i].Err)
		case res[i].Processed:
			written = append(written, it)
		default:
			r.retry = append(r.retry, it)
			lost++
		}
	}
	if r.blind && !live[0].insert {
		r.t.noteBlind(len(live), lost)
	}
	for i, v := range r.t.readBackIf(ctx, unknown) {
		switch v {
		case landed:
			written = append(written, unknown[i])
		case unread:
			r.fail([]*item[T]{unknown[i]}, PhaseData, unknownErrs[i])
		default:
			r.retry = append(r.retry, unknown[i])
		}
	}
	return written
}

// verify is phase 3: verify the new entries, delete the dropped ones.
// Every cell is written at the version's timestamp, so a slower writer of
// an older version can neither resurrect nor re-verify what this one
// dropped. The entry is rewritten whole, not just its status: two writers
// of one record in one millisecond (in two processes) write their phase 1
// at the same timestamp, and the loser's cells may have landed last.
// These writes skip the wait for the WAL sync (AsyncWAL): if a region
// server loses them, the entries are left as phase 1 and 2 made them (new
// ones unverified, dropped ones marked unverified), which readers and
// Check already handle.
func (r *round[T]) verify(ctx context.Context, written []*item[T]) {
	t := r.t
	if !r.hook(PhaseVerify, written) {
		return
	}
	acts, owner := r.entryWrites(written, func(it *item[T], i int, s *ixState[T], dropped []byte) (acts []hbapi.Action) {
		if r.op == OpPut && t.verifies() {
			// (A verify-on-read table's entries stay unverified, those of
			// its inserts and Check's repairs too.)
			p := s.entryPut(&it.enc.Entries[i], statusVerified, it.v)
			p.Durability = hbapi.AsyncWAL
			acts = append(acts, p)
		}
		if dropped != nil {
			acts = append(acts, s.dropEntry(dropped, it.quals[i], it.v, hbapi.AsyncWAL))
		}
		return acts
	})
	if t.ver != nil && written[0].expect == nil {
		if err := t.ver.enqueue(ctx, acts); err != nil {
			r.fail(written, PhaseVerify, err)
			return
		}
		for _, it := range written {
			it.done = true
		}
		return
	}
	for _, it := range t.batch(ctx, acts, owner, written, r.failOne(PhaseVerify)) {
		it.done = true
	}
}

// dataMutation is the conditional write of phase 2. Its cells and delete
// markers carry the version as timestamp, like the entries: a record
// deleted and written again within one millisecond is not hidden by its
// own delete marker, as it would be with server-assigned timestamps.
func (t *Table[T]) dataMutation(op Op, it *item[T]) *hbapi.CheckAndMutate {
	if op == OpDelete {
		cam := &hbapi.CheckAndMutate{
			Table: t.name, Row: it.key, Family: []byte(t.fam), Qualifier: []byte(VersionQualifier),
			Compare: hbapi.CompareEqual, Value: it.oldVer,
		}
		// Delete the record's cells, keep its version as a tombstone.
		cells := []hbapi.PutCell{{Family: t.fam, Qualifier: VersionQualifier, Value: append(versionValue(it.v), tombstoneFlag)}}
		muts := []hbapi.Mutation{&hbapi.Put{Table: t.name, Row: it.key, Cells: cells, Timestamp: it.v}}
		for _, f := range t.t.Families() {
			if f.Name != t.fam {
				muts = append(muts, &hbapi.Delete{Table: t.name, Row: it.key, Family: []byte(f.Name), Timestamp: it.v})
			}
		}
		for _, c := range t.dataCols {
			if c.Family == t.fam {
				muts = append(muts, &hbapi.Delete{Table: t.name, Row: it.key, Family: []byte(c.Family),
					Qualifier: []byte(c.Qualifier), AllVersions: true, Timestamp: it.v})
			}
		}
		for _, s := range t.ixs {
			muts = append(muts, &hbapi.Delete{Table: t.name, Row: it.key, Family: []byte(t.fam),
				Qualifier: []byte(s.keyQ), AllVersions: true, Timestamp: it.v})
		}
		cam.Mutations = muts
		return cam
	}
	b := newCondPut(t.name, it.key, t.fam, VersionQualifier, &it.enc.Data, 3+2*len(t.ixs))
	b.cam.Value = it.oldVer
	cells := addCell(b.put.Cells, t.fam, VersionQualifier, b.version(it.v))
	if len(it.enc.Token) > 0 {
		cells = addCell(cells, t.fam, TokenQualifier, it.enc.Token)
	}
	for i, s := range t.ixs {
		cells = addCell(cells, t.fam, s.keyQ, it.enc.Entries[i].Key)
		if t.mode == schema.Mutable {
			// Mutable writers learn the keys to clean up from the history
			// (nonce 0: this write does not validate).
			cells = addCell(cells, t.fam, string(s.historyQualifier(it.v, 0)), it.enc.Entries[i].Key)
		}
	}
	if t.mode == schema.Mutable && len(t.ixs) > 0 {
		cells = addCell(cells, t.fam, writerQualifier, []byte{0, 0, 0, 0})
	}
	b.put.Cells = cells
	cam := b.finish(it.v)
	for _, c := range t.dataCols {
		if _, ok := b.put.Value(c.Family, c.Qualifier); !ok {
			cam.Mutations = append(cam.Mutations, &hbapi.Delete{Table: t.name, Row: it.key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), AllVersions: true, Timestamp: it.v})
		}
	}
	return cam
}

// batch sends acts and returns the items none of whose actions failed;
// onErr is called once for each item with a failed action.
func (t *Table[T]) batch(ctx context.Context, acts []hbapi.Action, owner, items []*item[T], onErr func(*item[T], error)) []*item[T] {
	if len(acts) == 0 {
		return items
	}
	res, err := t.c.Batch(ctx, acts)
	return t.settle(res, err, owner, items, onErr)
}

// settle is batch's second half: given the answers to acts (res, err of
// their Batch), it reports each failed item's first error to onErr and
// returns the items none of whose actions failed.
func (t *Table[T]) settle(res []hbapi.BatchResult, err error, owner, items []*item[T], onErr func(*item[T], error)) []*item[T] {
	if err != nil && !isBatchError(err) {
		for _, it := range items {
			onErr(it, err)
		}
		return nil
	}
	var bad map[*item[T]]bool
	for i, r := range res {
		if r.Err != nil && !bad[owner[i]] {
			if bad == nil {
				bad = make(map[*item[T]]bool)
			}
			bad[owner[i]] = true
			onErr(owner[i], r.Err)
		}
	}
	if bad == nil {
		return items[:len(items):len(items)]
	}
	out := items[:0:0]
	for _, it := range items {
		if !bad[it] {
			out = append(out, it)
		}
	}
	return out
}

func isBatchError(err error) bool {
	var be *hbapi.BatchError
	return errors.As(err, &be)
}

func (t *Table[T]) hook(s Step) error {
	if t.o.hook == nil {
		return nil
	}
	if err := t.o.hook(s); err != nil {
		return fmt.Errorf("%w: %w", ErrAborted, err)
	}
	return nil
}

// readFirstBatches is how many batches of puts read their rows before
// writing after a blind first attempt found too many rows present.
const readFirstBatches = 16

// guessAbsent says whether a put's first attempt should skip the read and
// assume its rows absent: the case of records written once (messages,
// events), whose read finds nothing. It is, unless a recent blind attempt
// found more than a quarter of its rows present (see noteBlind); then
// the next readFirstBatches batches read first, and the guess is tried
// again.
func (t *Table[T]) guessAbsent() bool {
	for {
		n := t.readFirst.Load()
		if n == 0 {
			return true
		}
		if t.readFirst.CompareAndSwap(n, n-1) {
			return false
		}
	}
}

// noteBlind records the outcome of a blind first attempt: tried
// conditional writes, of which lost found the row present.
func (t *Table[T]) noteBlind(tried, lost int) {
	if lost*4 > tried {
		t.readFirst.Store(readFirstBatches)
	}
}

// withdraw returns the deletes of the entries an insert's lost attempt
// wrote (at it.v) for a key that a live record holds: each cell version it
// wrote, and nothing else, so that a concurrent writer's cells under the
// same entry key at another version stay. An entry key the live record
// itself derives is left alone: its cells there are the record's entry,
// rewritten unverified, which readers check and repair.
func (t *Table[T]) withdraw(it *item[T], d *dataState[T]) []hbapi.Action {
	if it.enc == nil || it.v == 0 {
		return nil
	}
	var acts []hbapi.Action
	for i, s := range t.ixs {
		e := &it.enc.Entries[i]
		if bytes.Equal(e.Key, d.keys[i]) {
			continue
		}
		if s.inv {
			// Exactly the cell version it wrote.
			acts = append(acts, &hbapi.Delete{Table: s.name, Row: e.Key, Family: []byte(s.fam), Qualifier: it.quals[i], Timestamp: it.v})
			continue
		}
		acts = append(acts, &hbapi.Delete{Table: s.name, Row: e.Key, Family: []byte(s.fam), Qualifier: []byte(StatusQualifier), Timestamp: it.v})
		for _, c := range e.Cells {
			acts = append(acts, &hbapi.Delete{Table: s.name, Row: e.Key, Family: []byte(c.Family), Qualifier: []byte(c.Qualifier), Timestamp: it.v})
		}
	}
	return acts
}
