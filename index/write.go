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
			errs[i] = fmt.Errorf("%w: write op %v", ErrInvalidOption, op)
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
	fail := func(its []*item[T], phase Phase, err error) {
		for _, it := range its {
			if it.err == nil {
				it.err = &StepError{Step: Step{Op: op, Phase: phase, Attempt: n, Records: len(items)}, Err: err}
			}
		}
	}
	// Read the current rows: their versions and the entries they own. A
	// plain put's new entries do not depend on what is read, so they go
	// in the same round trip (phase 1, early), at a version taken before
	// the read; if the row turns out to be newer, the attempt is redone
	// above it. Deletes and Check's conditional rewrites read first.
	//
	// A blind attempt skips the read: it assumes the rows absent, and the
	// conditional write of phase 2 checks that assumption like any other;
	// a row that exists makes the record start over, reading first.
	// Inserts read first, so that a row another client wrote (no version
	// cell for a blind attempt's condition to find) is refused too.
	early := op == OpPut && items[0].expect == nil && !items[0].insert
	var acts []hbapi.Action
	var owner []*item[T]
	if !blind {
		for _, it := range items {
			acts = append(acts, &hbapi.Get{Table: t.name, Row: it.key})
			owner = append(owner, it)
		}
	}
	reads := len(acts)
	if early {
		if err := t.hook(Step{Op: op, Phase: PhaseUnverified, Attempt: n, Records: len(items)}); err != nil {
			fail(items, PhaseUnverified, err)
			return nil
		}
		for _, it := range items {
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
		fail(items, PhaseUnverified, err)
		return nil
	}
	for i := reads; i < len(res); i++ {
		if res[i].Err != nil {
			fail([]*item[T]{owner[i]}, PhaseUnverified, res[i].Err)
		}
	}
	var retry []*item[T]
	var cleanup []hbapi.Action
	live := items[:0:0]
	for i, it := range items {
		if it.err != nil {
			continue
		}
		if blind {
			// The row is assumed absent: no version, no entries to drop.
			it.oldVer, it.oldKeys = nil, t.noKeys
			live = append(live, it)
			continue
		}
		if res[i].Err != nil {
			fail([]*item[T]{it}, PhaseUnverified, res[i].Err)
			continue
		}
		d := t.readData(it.key, res[i].Result)
		switch {
		case it.expect != nil && (!d.exists || d.version != *it.expect):
			it.skipped, it.done = true, true
			continue
		case op == OpDelete && !d.exists:
			it.done = true
			continue
		case it.insert && d.exists && t.ownInsert(it, res[i].Result):
			// An earlier attempt of this insert landed, though its answer
			// said otherwise (lost, or corrupted on the way): finish it as
			// a put of the same record over its own row, which writes and
			// verifies its entries like any put.
			it.insert = false
			if early && it.v <= d.version {
				it.floor = d.version
				retry = append(retry, it)
				continue
			}
			if !early {
				it.v = t.nextVersion(it.key, d.version)
			}
		case it.insert && d.exists:
			it.err, it.done = ErrExists, true
			cleanup = append(cleanup, t.withdraw(it, d)...)
			continue
		case early && it.v <= d.version:
			it.floor = d.version // the row is ahead of our clock: redo above it
			retry = append(retry, it)
			continue
		case !early:
			it.v = t.nextVersion(it.key, d.version)
		}
		it.oldVer, it.oldKeys = d.verBytes, d.keys
		live = append(live, it)
	}
	if len(cleanup) > 0 {
		// Best effort: what is left is an unverified orphan, which readers
		// skip and Check removes after the grace period.
		_, _ = t.c.Batch(ctx, cleanup)
	}
	if len(live) == 0 {
		return retry
	}

	// Phase 1 (the rest): entries about to be dropped are marked
	// unverified before the data row moves away from them, so that no
	// verified entry ever disagrees with its data row.
	if !early {
		if err := t.hook(Step{Op: op, Phase: PhaseUnverified, Attempt: n, Records: len(live)}); err != nil {
			fail(live, PhaseUnverified, err)
			return retry
		}
	}
	acts, owner = acts[:0], owner[:0]
	for _, it := range live {
		for i, s := range t.ixs {
			var newKey []byte
			if op == OpPut {
				newKey = it.enc.Entries[i].Key
				if !early {
					for _, a := range s.entryActions(&it.enc.Entries[i], statusUnverified, it.v) {
						acts, owner = append(acts, a), append(owner, it)
					}
				}
			}
			if old := it.oldKeys[i]; old != nil && !bytes.Equal(old, newKey) {
				acts = append(acts, s.markUnverified(old, it.quals[i], it.v))
				owner = append(owner, it)
			}
		}
	}
	live = t.batch(ctx, acts, owner, live, func(it *item[T], err error) { fail([]*item[T]{it}, PhaseUnverified, err) })
	if len(live) == 0 {
		return retry
	}

	// Phase 2: the data row, only if nobody changed it since we read it.
	if err := t.hook(Step{Op: op, Phase: PhaseData, Attempt: n, Records: len(live)}); err != nil {
		fail(live, PhaseData, err)
		return retry
	}
	// One Batch of CheckAndMutates: one conditional RegionAction per
	// record, in a few parallel Multis per region server.
	acts = acts[:0]
	for _, it := range live {
		acts = append(acts, t.dataMutation(op, it))
	}
	res, err = t.c.Batch(ctx, acts)
	if err == nil && len(res) != len(acts) {
		err = fmt.Errorf("index: Batch returned %d results for %d actions", len(res), len(acts))
	}
	if err != nil && !isBatchError(err) {
		fail(live, PhaseData, err)
		return retry
	}
	var written, unknown []*item[T]
	var unknownErrs []error
	lost := 0
	for i, it := range live {
		switch {
		case res[i].Err != nil && outcomeUnknown(res[i].Err):
			unknown, unknownErrs = append(unknown, it), append(unknownErrs, res[i].Err)
		case res[i].Err != nil:
			fail([]*item[T]{it}, PhaseData, res[i].Err)
		case res[i].Processed:
			written = append(written, it)
		default:
			retry = append(retry, it)
			lost++
		}
	}
	if blind && !live[0].insert {
		t.noteBlind(len(live), lost)
	}
	// A write whose outcome the network hid: its own (the insert's
	// token) goes on to phase 3, any other is retried, and the next
	// attempt's read decides; unread, its error stays.
	for i, v := range t.readBackIf(ctx, unknown) {
		switch v {
		case landed:
			written = append(written, unknown[i])
		case unread:
			fail([]*item[T]{unknown[i]}, PhaseData, unknownErrs[i])
		default:
			retry = append(retry, unknown[i])
		}
	}
	if len(written) == 0 {
		return retry
	}

	// Phase 3: verify the new entries, delete the dropped ones. Every cell
	// is written at the version's timestamp, so a slower writer of an
	// older version can neither resurrect nor re-verify what this one
	// dropped. The entry is rewritten whole, not just its status: two
	// writers of one record in one millisecond (in two processes) write
	// their phase 1 at the same timestamp, and the loser's cells may have
	// landed last. These writes skip the wait for the WAL sync
	// (AsyncWAL): if a region server loses them, the entries are left as
	// phase 1 and 2 made them (new ones unverified, dropped ones marked
	// unverified), which readers and Check already handle.
	if err := t.hook(Step{Op: op, Phase: PhaseVerify, Attempt: n, Records: len(written)}); err != nil {
		fail(written, PhaseVerify, err)
		return retry
	}
	acts, owner = acts[:0], owner[:0]
	for _, it := range written {
		for i, s := range t.ixs {
			var newKey []byte
			if op == OpPut {
				newKey = it.enc.Entries[i].Key
			}
			if op == OpPut && t.verifies() {
				// (A verify-on-read table's entries stay unverified, those
				// of its inserts and Check's repairs too.)
				p := s.entryPut(&it.enc.Entries[i], statusVerified, it.v)
				p.Durability = hbapi.AsyncWAL
				acts, owner = append(acts, p), append(owner, it)
			}
			if old := it.oldKeys[i]; old != nil && !bytes.Equal(old, newKey) {
				acts = append(acts, s.dropEntry(old, it.quals[i], it.v, hbapi.AsyncWAL))
				owner = append(owner, it)
			}
		}
	}
	if t.ver != nil && written[0].expect == nil {
		if err := t.ver.enqueue(ctx, acts); err != nil {
			fail(written, PhaseVerify, err)
			return retry
		}
		for _, it := range written {
			it.done = true
		}
		return retry
	}
	for _, it := range t.batch(ctx, acts, owner, written, func(it *item[T], err error) { fail([]*item[T]{it}, PhaseVerify, err) }) {
		it.done = true
	}
	return retry
}

// dataMutation is the conditional write of phase 2. Its cells and delete
// markers carry the version as timestamp, like the entries: a record
// deleted and written again within one millisecond is not hidden by its
// own delete marker, as it would be with server-assigned timestamps.
func (t *Table[T]) dataMutation(op Op, it *item[T]) *hbapi.CheckAndMutate {
	cam := &hbapi.CheckAndMutate{
		Table: t.name, Row: it.key, Family: []byte(t.fam), Qualifier: []byte(VersionQualifier),
		Compare: hbapi.CompareEqual, Value: it.oldVer,
	}
	if op == OpDelete {
		// Delete the record's cells, keep its version as a tombstone.
		vals := map[string]map[string][]byte{}
		put(vals, t.fam, VersionQualifier, append(versionValue(it.v), tombstoneFlag))
		muts := []hbapi.Mutation{&hbapi.Put{Table: t.name, Row: it.key, Values: vals, Timestamp: it.v}}
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
	vals := it.enc.Data.Values()
	put(vals, t.fam, VersionQualifier, versionValue(it.v))
	if len(it.enc.Token) > 0 {
		put(vals, t.fam, TokenQualifier, it.enc.Token)
	}
	for i, s := range t.ixs {
		put(vals, t.fam, s.keyQ, it.enc.Entries[i].Key)
		if t.mode == schema.Mutable {
			// Mutable writers learn the keys to clean up from the history
			// (nonce 0: this write does not validate).
			put(vals, t.fam, string(s.historyQualifier(it.v, 0)), it.enc.Entries[i].Key)
			put(vals, t.fam, WriterQualifier, []byte{0, 0, 0, 0})
		}
	}
	muts := []hbapi.Mutation{&hbapi.Put{Table: t.name, Row: it.key, Values: vals, Timestamp: it.v}}
	for _, c := range t.dataCols {
		if _, ok := vals[c.Family][c.Qualifier]; !ok {
			muts = append(muts, &hbapi.Delete{Table: t.name, Row: it.key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), AllVersions: true, Timestamp: it.v})
		}
	}
	cam.Mutations = muts
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
