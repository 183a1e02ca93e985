package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// The write modes other than Strict (see schema.WriteMode, and Modes in
// the package documentation for what each guarantees).

// insertInsertOnly writes the puts and inserts of an insert-only table in
// one Batch: each data row's conditional write (its first cell absent)
// next to its entries, verified, at version v. A write that finds its key
// taken reads the live row: a put of the record the row holds succeeds
// (writing a record again is idempotent); any other write fails, an
// insert with ErrExists, a put (a rewrite or a move) with ErrInsertOnly,
// and withdraws the cell versions it wrote under entry keys the live
// record does not derive (withdraw). So the round trip is shared by every
// write and only the rare lost one pays a second. A write whose outcome
// the network hid is read back (readBack): its own token means it landed,
// another record means the key is taken, no record means it is sent again,
// up to the table's attempts.
func (t *Table[T]) insertInsertOnly(ctx context.Context, items []*item[T]) {
	if err := t.hook(Step{Op: OpPut, Phase: PhaseData, Attempt: 1, Records: len(items)}); err != nil {
		t.failAll(items, OpPut, PhaseData, len(items), err)
		return
	}
	// One version for every round: a round's entries are written at it,
	// so a later round that finds the key taken withdraws them all.
	v := t.o.now().UnixMilli()
	for attempt := 1; len(items) > 0; attempt++ {
		again, errs := t.insertInsertOnlyOnce(ctx, items, v)
		if attempt >= t.o.attempts {
			for i, it := range again {
				t.failAll([]*item[T]{it}, OpPut, PhaseData, len(items), errs[i])
			}
			return
		}
		items = again
	}
}

// insertInsertOnlyOnce is one round of insertInsertOnly. It returns the
// inserts to send again, whose write the network hid and did not land,
// with the errors that hid them.
func (t *Table[T]) insertInsertOnlyOnce(ctx context.Context, items []*item[T], v int64) (again []*item[T], errs []error) {
	acts := make([]hbapi.Action, 0, len(items)*(1+len(t.ixs)))
	owner := make([]*item[T], 0, cap(acts))
	cams := make([]int, len(items)) // position of each item's conditional write in acts
	for n, it := range items {
		it.v = v
		first := it.enc.Data.Cells[0]
		cams[n] = len(acts)
		b := newCondPut(t.name, it.key, first.Family, first.Qualifier, &it.enc.Data, 1)
		if len(it.enc.Token) > 0 {
			b.put.Cells = addCell(b.put.Cells, t.fam, TokenQualifier, it.enc.Token)
		}
		acts = append(acts, b.finish(0))
		owner = append(owner, it)
		for i, s := range t.ixs {
			acts, owner = append(acts, s.entryPut(&it.enc.Entries[i], statusVerified, v)), append(owner, it)
		}
	}
	res, err := t.c.Batch(ctx, acts)
	if err != nil && !isBatchError(err) {
		t.failAll(items, OpPut, PhaseData, len(items), err)
		return nil, nil
	}
	if len(res) != len(acts) {
		t.failAll(items, OpPut, PhaseData, len(items), fmt.Errorf("index: Batch returned %d results for %d actions", len(res), len(acts)))
		return nil, nil
	}
	for i, r := range res {
		if _, cond := acts[i].(*hbapi.CheckAndMutate); r.Err != nil && !(cond && outcomeUnknown(r.Err)) {
			t.failAll([]*item[T]{owner[i]}, OpPut, PhaseData, len(items), r.Err)
		}
	}
	var lost, unknown []*item[T]
	var unknownErrs []error
	for n, it := range items {
		switch r := res[cams[n]]; {
		case r.Err != nil && outcomeUnknown(r.Err):
			unknown, unknownErrs = append(unknown, it), append(unknownErrs, r.Err)
		case r.Err != nil:
		case !r.Processed:
			if it.err == nil { // keep an entry's failure: the insert may be its own
				it.err = ErrExists
			}
			it.done = true
			lost = append(lost, it)
		case it.err == nil:
			it.done = true
		}
	}
	for i, l := range t.readBackIf(ctx, unknown) {
		it := unknown[i]
		switch l {
		case landed:
			it.done = it.err == nil
		case taken:
			it.err, it.done = ErrExists, true
			lost = append(lost, it)
		case absent:
			it.err = nil // an entry's failure of this round is sent again too
			again, errs = append(again, it), append(errs, unknownErrs[i])
		default:
			t.failAll([]*item[T]{it}, OpPut, PhaseData, len(items), unknownErrs[i])
		}
	}
	t.withdrawLost(ctx, lost, v)
	return again, errs
}

// withdrawLost cleans up after inserts that found their key taken: it
// withdraws the entries they wrote at v (withdraw), and writes again the
// live record's entry where an insert's cells landed over it.
func (t *Table[T]) withdrawLost(ctx context.Context, lost []*item[T], v int64) {
	if len(lost) == 0 {
		return
	}
	gets := make([]hbapi.Action, len(lost))
	for i, it := range lost {
		gets[i] = &hbapi.Get{Table: t.name, Row: it.key}
	}
	rows, err := t.c.Batch(ctx, gets)
	if err != nil {
		for _, it := range lost {
			if !it.insert { // a put cannot tell a rewrite from a repeat without the row
				it.err = nil
				t.failAll([]*item[T]{it}, OpPut, PhaseData, len(lost), err)
			}
		}
		return // best effort: what is left is an entry its row does not derive, which Check removes
	}
	var cleanup []hbapi.Action
	for i, it := range lost {
		if it.insert && t.ownInsert(it, rows[i].Result) {
			// Its own insert: the answer that said the key was taken was
			// wrong (a flipped bit on the way), the record is stored, and
			// so are its entries unless one of them failed.
			if it.err == ErrExists {
				it.err = nil
			}
			it.done = true
			continue
		}
		d := t.readData(it.key, rows[i].Result)
		if !it.insert {
			if t.holds(d, it.enc) {
				it.err = nil // the same record again
				continue
			}
			it.err = ErrInsertOnly
		}
		cleanup = append(cleanup, t.withdraw(it, d)...)
		// An entry key the live record derives got this insert's cells
		// over the record's own: write the record's entry again, above
		// them. Its records never change, so nothing newer can be lost.
		for j, s := range t.ixs {
			if d.decoded && bytes.Equal(it.enc.Entries[j].Key, d.keys[j]) {
				var e schema.Row
				if err := s.ix.EncodeEntry(&e, &d.rec); err == nil {
					cleanup = append(cleanup, s.entryPut(&e, statusVerified, v+1))
				}
			}
		}
	}
	if len(cleanup) > 0 {
		_, _ = t.c.Batch(ctx, cleanup)
	}
}

// holds reports whether data row d holds the record rec encodes: the
// same cells, no more.
func (t *Table[T]) holds(d *dataState[T], rec *schema.Record) bool {
	if !d.exists || !d.decoded {
		return false
	}
	live, err := t.encode(&d.rec)
	return err == nil && sameCells(live.Data.Cells, rec.Data.Cells)
}

// deleteInsertOnly deletes records of an insert-only table: it reads the
// data rows to learn their entries, then deletes rows and entries in one
// Batch.
func (t *Table[T]) deleteInsertOnly(ctx context.Context, items []*item[T]) {
	gets := make([]hbapi.Action, len(items))
	for i, it := range items {
		gets[i] = &hbapi.Get{Table: t.name, Row: it.key}
	}
	res, err := t.c.Batch(ctx, gets)
	if err != nil {
		t.failAll(items, OpDelete, PhaseUnverified, len(items), err)
		return
	}
	if err := t.hook(Step{Op: OpDelete, Phase: PhaseData, Attempt: 1, Records: len(items)}); err != nil {
		t.failAll(items, OpDelete, PhaseData, len(items), err)
		return
	}
	var acts []hbapi.Action
	var owner, live []*item[T]
	for i, it := range items {
		d := t.readData(it.key, res[i].Result)
		if !d.exists {
			it.done = true
			continue
		}
		live = append(live, it)
		acts, owner = append(acts, &hbapi.Delete{Table: t.name, Row: it.key}), append(owner, it)
		for j, s := range t.ixs {
			if k := d.keys[j]; k != nil {
				acts, owner = append(acts, s.dropEntry(k, it.quals[j], 0, hbapi.DurabilityDefault)), append(owner, it)
			}
		}
	}
	t.finish(ctx, acts, owner, live, OpDelete, PhaseData)
}

// failAll records err as the error of every item at the given phase.
func (t *Table[T]) failAll(items []*item[T], op Op, phase Phase, records int, err error) {
	for _, it := range items {
		if it.err == nil {
			it.err = &StepError{Step: Step{Op: op, Phase: phase, Attempt: 1, Records: records}, Err: err}
		}
	}
}

// finish sends acts and marks done the items none of whose actions failed.
func (t *Table[T]) finish(ctx context.Context, acts []hbapi.Action, owner, items []*item[T], op Op, phase Phase) {
	onErr := func(it *item[T], err error) { t.failAll([]*item[T]{it}, op, phase, len(items), err) }
	for _, it := range t.batch(ctx, acts, owner, items, onErr) {
		it.done = true
	}
}

// History qualifiers of a mutable table's data rows: every write records
// the entry key it wrote for each index under a qualifier of its own,
// historyQualifierPrefix + index + ":" + its 8-byte version + its 4-byte
// writer nonce, so that the newest writer learns every key older writers
// (or writers of the same millisecond) may have left behind, whatever the
// family's VERSIONS. The newest writer deletes those entries and their
// history cells; a delete records an empty key.
const historyQualifierPrefix = "_ik:"

// writerQualifier holds the nonce of the mutable write that produced the
// row's version: two writes of one millisecond share the version, and the
// nonce tells which one's cells the row holds.
const writerQualifier = "_w"

func (s *ixState[T]) historyQualifier(v int64, nonce uint32) []byte {
	q := make([]byte, 0, len(historyQualifierPrefix)+len(s.declared)+13)
	q = append(q, historyQualifierPrefix...)
	q = append(q, s.declared...)
	q = append(q, ':')
	q = binary.BigEndian.AppendUint64(q, uint64(v))
	return binary.BigEndian.AppendUint32(q, nonce)
}

// pendingWrite is a mutable write waiting for its validation.
type pendingWrite[T any] struct {
	it    *item[T]
	v     int64
	nonce uint32
}

// writeMutable writes puts and deletes of a mutable table in one Batch:
// the new entries and the data rows (or their tombstones), every cell at
// the write's version, with no read and no conditional write. The
// entries are written verified, optimistically: validation
// (validateMutable) then reads the rows' bookkeeping and, for each write
// still the newest of its row, removes the entries older writes left (the
// entry of a moved record's previous value, or of a writer it overtook),
// in the background unless Config.SyncVerify.
func (t *Table[T]) writeMutable(ctx context.Context, op Op, items []*item[T]) {
	if err := t.hook(Step{Op: op, Phase: PhaseData, Attempt: 1, Records: len(items)}); err != nil {
		t.failAll(items, op, PhaseData, len(items), err)
		return
	}
	acts, owner, nonces := t.mutableActions(op, items)
	res, err := t.batchCarrying(ctx, acts)
	written := t.settle(res, err, owner, items, func(it *item[T], err error) { t.failAll([]*item[T]{it}, op, PhaseData, len(items), err) })
	for _, it := range written {
		it.done = true
	}
	if len(written) == 0 {
		return
	}
	if err := t.hook(Step{Op: op, Phase: PhaseVerify, Attempt: 1, Records: len(written)}); err != nil {
		t.failAll(written, op, PhaseVerify, len(written), err)
		return
	}
	t.validateWritten(ctx, op, written, nonces)
}

// mutableActions returns the writes of a mutable table's puts or deletes
// (and the item of each), every cell at the write's version, and the
// nonce of each item's writer.
func (t *Table[T]) mutableActions(op Op, items []*item[T]) ([]hbapi.Action, []*item[T], map[*item[T]]uint32) {
	var acts []hbapi.Action
	var owner []*item[T]
	add := func(a hbapi.Action, it *item[T]) { acts, owner = append(acts, a), append(owner, it) }
	nonces := make(map[*item[T]]uint32, len(items))
	for _, it := range items {
		it.v = t.nextVersion(it.key, 0)
		nonce := rand.Uint32()
		nonces[it] = nonce
		// One Put per row, atomic: the record's cells (none for a
		// delete's tombstone), the version, the writer's nonce, the entry
		// keys and their history (blindRow).
		b := t.blindRow(op, it, 1+2*len(t.ixs))
		cells := addCell(b.put.Cells, t.fam, writerQualifier, binary.BigEndian.AppendUint32(b.nonce[:0], nonce))
		for i, s := range t.ixs {
			var k []byte
			if op == OpPut {
				k = it.enc.Entries[i].Key
				for _, a := range s.entryActions(&it.enc.Entries[i], statusVerified, it.v) {
					add(a, it)
				}
			}
			cells = addCell(cells, t.fam, s.keyQ, k)
			cells = addCell(cells, t.fam, string(s.historyQualifier(it.v, nonce)), k)
		}
		b.put.Cells = cells
		b.finish(it.v)
		add(&b.put, it)
	}
	return acts, owner, nonces
}

// batchCarrying sends acts in one Batch with the validations earlier
// writes queued riding along, saving their own round trip (the
// verifier's sender leaves its queue to the writers for a moment before
// sending it itself). It returns the results of acts.
func (t *Table[T]) batchCarrying(ctx context.Context, acts []hbapi.Action) ([]hbapi.BatchResult, error) {
	var extra takenWork
	if t.val != nil {
		extra = t.val.take(maxPiggyback)
	}
	own := len(acts)
	res, err := t.c.Batch(ctx, append(acts, extra.acts...))
	if len(extra.acts) > 0 {
		if err != nil && !isBatchError(err) || len(res) != own+len(extra.acts) {
			// This write's call failed as a whole (its context, say): the
			// validations it carried are not this caller's to lose.
			t.val.putBack(extra)
		} else {
			cleanup, verr := t.validated(extra.acts, res[own:], err)
			t.val.settle(extra, cleanup, verr)
		}
	}
	if len(res) >= own {
		res = res[:own]
	}
	return res, err
}

// bookkeepingGet is the Get of the bookkeeping cells of row: history,
// recorded keys, version. The Get, its family and its filter are one
// allocation.
func (t *Table[T]) bookkeepingGet(row []byte) *hbapi.Get {
	b := new(struct {
		get    hbapi.Get
		fams   [1][]byte
		filter hbapi.ColumnRangeFilter
		names  [32]byte
	})
	names := append(b.names[:0:len(b.names)], t.fam...)
	b.fams[0] = names[:len(t.fam):len(t.fam)]
	names = append(names, historyQualifierPrefix...)
	min := names[len(t.fam):len(names):len(names)]
	b.filter = hbapi.ColumnRangeFilter{Min: min, MinInclusive: true, Max: append(names, writerQualifier...)[len(names):], MaxInclusive: true}
	b.get = hbapi.Get{Table: t.name, Row: row, Families: b.fams[:], Filter: &b.filter}
	return &b.get
}

// validateWritten validates the mutable writes written (see
// validateMutable): it reads their rows' bookkeeping and removes the
// entries older writes left, in the background unless Config.SyncVerify.
func (t *Table[T]) validateWritten(ctx context.Context, op Op, written []*item[T], nonces map[*item[T]]uint32) {
	gets := make([]hbapi.Action, len(written))
	for i, it := range written {
		g := t.bookkeepingGet(it.key)
		gets[i] = g
		t.pending.Store(g, pendingWrite[T]{it: it, v: it.v, nonce: nonces[it]})
	}
	if t.val != nil {
		if err := t.val.enqueue(ctx, gets); err != nil {
			for _, g := range gets {
				t.pending.Delete(g)
			}
			t.failAll(written, op, PhaseVerify, len(written), err)
		}
		return
	}
	cleanup, err := t.sendValidations(ctx, gets)
	if err == nil && len(cleanup) > 0 {
		_, err = t.c.Batch(ctx, cleanup)
	}
	if err != nil {
		t.failAll(written, op, PhaseVerify, len(written), err)
	}
}

// writeVerifyOnRead writes puts and deletes of a verify-on-read table in
// one Batch: the new entries, unverified, and the data rows (or their
// tombstones), every cell at the write's version. The rows carry the
// version and nothing else of the protocol's: no entry keys, which no
// reader of this mode needs (a row's bytes are what a plain write costs).
// Nothing is read and nothing validated: the entries older values left
// are the readers' to skip and remove (see Modes in the package
// documentation).
func (t *Table[T]) writeVerifyOnRead(ctx context.Context, op Op, items []*item[T]) {
	if err := t.hook(Step{Op: op, Phase: PhaseData, Attempt: 1, Records: len(items)}); err != nil {
		t.failAll(items, op, PhaseData, len(items), err)
		return
	}
	acts := make([]hbapi.Action, 0, len(items)*(1+len(t.ixs)))
	owner := make([]*item[T], 0, cap(acts))
	for _, it := range items {
		it.v = t.nextVersion(it.key, 0)
		b := t.blindRow(op, it, 0)
		b.finish(it.v)
		if op == OpPut {
			for i, s := range t.ixs {
				for _, a := range s.entryActions(&it.enc.Entries[i], statusUnverified, it.v) {
					acts, owner = append(acts, a), append(owner, it)
				}
			}
		}
		acts, owner = append(acts, &b.put), append(owner, it)
	}
	t.finish(ctx, acts, owner, items, op, PhaseData)
}

// blindRow returns the data-row Put (of a condPut) of a write that reads
// nothing first (mutable, verify-on-read) at version it.v: for a put the
// record's cells and the version, for a delete only the version with the
// tombstone flag. Columns the record lacks are not deleted: their cells
// are older than the version, and readers take only the version's own
// cells (Table.Since).
// Its cells have room for extra more; finish stamps them.
func (t *Table[T]) blindRow(op Op, it *item[T], extra int) *condPut {
	if op != OpPut {
		b := newCondPut(t.name, it.key, "", "", nil, 1+extra)
		b.put.Cells = addCell(b.put.Cells, t.fam, VersionQualifier, append(versionValue(it.v), tombstoneFlag))
		return b
	}
	b := newCondPut(t.name, it.key, "", "", &it.enc.Data, 1+extra)
	b.put.Cells = addCell(b.put.Cells, t.fam, VersionQualifier, b.version(it.v))
	return b
}

// maxPiggyback bounds the queued validations a mutable write sends with
// its own Batch.
const maxPiggyback = 1000

// sendValidations is the verifier's send for a mutable table: it sends
// the validation reads writeMutable queued, with the cleanup earlier
// validations called for, in one Batch, and returns the cleanup its reads
// call for (validated).
func (t *Table[T]) sendValidations(ctx context.Context, acts []hbapi.Action) ([]hbapi.Action, error) {
	res, err := t.c.Batch(ctx, acts)
	return t.validated(acts, res, err)
}

// validated takes the answers (res, err of their Batch) to acts, a mix of
// the validation reads writeMutable queued and cleanup deletes, and
// returns the cleanup the reads call for: for each write still the newest
// of its row, the entries and history cells older writes left; for a
// write a newer one has overtaken, its own entries where the row's live
// key differs (withdrawOvertaken). err is the Batch's.
func (t *Table[T]) validated(acts []hbapi.Action, res []hbapi.BatchResult, err error) ([]hbapi.Action, error) {
	ws := make([]pendingWrite[T], len(acts))
	for i, a := range acts {
		if g, ok := a.(*hbapi.Get); ok {
			p, _ := t.pending.LoadAndDelete(g)
			ws[i], _ = p.(pendingWrite[T])
		}
	}
	if err != nil && !isBatchError(err) {
		return nil, err
	}
	err = nil // a BatchError may be about other actions of the Batch: take this part's own
	for _, r := range res {
		if r.Err != nil {
			err = r.Err
			break
		}
	}
	var cleanup []hbapi.Action
	for i, w := range ws {
		if w.it == nil || i >= len(res) || res[i].Err != nil || res[i].Result.Empty() {
			continue
		}
		cleanup = append(cleanup, t.cleanupAfter(w, res[i].Result)...)
	}
	return cleanup, err
}

// cleanupAfter returns the cleanup that the bookkeeping r of write w's
// row calls for (see validated).
func (t *Table[T]) cleanupAfter(w pendingWrite[T], r *hbapi.Result) []hbapi.Action {
	fam := []byte(t.fam)
	ver := r.Value(fam, []byte(VersionQualifier))
	nonce := r.Value(fam, []byte(writerQualifier))
	if len(ver) < 8 {
		return nil
	}
	if int64(binary.BigEndian.Uint64(ver)) != w.v || len(nonce) != 4 || binary.BigEndian.Uint32(nonce) != w.nonce {
		// Overtaken, or tied with a writer whose cells won. That writer
		// cleans up after this one if its validation saw this one's
		// history cell; it did not if this write landed after it
		// validated. Either way, withdraw this write's own entries where
		// the row's live key differs: they can only mislead index-only
		// counts.
		return t.withdrawOvertaken(w, r)
	}
	tomb := len(ver) == 9 && ver[8] == tombstoneFlag
	var cleanup []hbapi.Action
	for j, s := range t.ixs {
		var key []byte
		if !tomb {
			key = w.it.enc.Entries[j].Key
		}
		cleanup = t.dropOlderWrites(cleanup, w, j, s, key, r)
	}
	return cleanup
}

// dropOlderWrites appends to cleanup the removal of what the writes older
// than w left in index j (s) of its row (r): their history cells, and
// their entries where they differ from key, the entry w keeps.
func (t *Table[T]) dropOlderWrites(cleanup []hbapi.Action, w pendingWrite[T], j int, s *ixState[T], key []byte, r *hbapi.Result) []hbapi.Action {
	fam := []byte(t.fam)
	own := s.historyQualifier(w.v, w.nonce)
	prefix := own[:len(own)-12]
	for _, c := range r.Cells {
		if !bytes.Equal(c.Family, fam) || len(c.Qualifier) != len(own) || !bytes.HasPrefix(c.Qualifier, prefix) ||
			bytes.Equal(c.Qualifier, own) {
			continue
		}
		at := int64(binary.BigEndian.Uint64(c.Qualifier[len(prefix):]))
		switch {
		case at > w.v:
			continue
		case at == w.v:
			// A writer of this millisecond (another process) whose row
			// lost. Its entry is not deleted: a marker at this version
			// would also hide the entry of any other writer of the
			// millisecond under that key, whose row may yet land and win.
			// Unverified while still verified as that writer wrote it, it
			// is checked by index-only reads, and removed once a newer
			// version passes it. Its history cell stays for that newer
			// write.
			if len(c.Value) > 0 && !bytes.Equal(c.Value, key) && !s.inv {
				cleanup = append(cleanup, s.unverifyTied(bytes.Clone(c.Value), at))
			}
			continue
		}
		if len(c.Value) > 0 && !bytes.Equal(c.Value, key) {
			// The cells that write stamped, and older ones: a newer write
			// under the same entry key (a record moved back) keeps its
			// own.
			cleanup = append(cleanup, s.dropEntry(bytes.Clone(c.Value), w.it.quals[j], at, hbapi.AsyncWAL))
		}
		cleanup = append(cleanup, &hbapi.Delete{Table: t.name, Row: w.it.key, Family: fam, Qualifier: bytes.Clone(c.Qualifier),
			AllVersions: true, Timestamp: w.v, Durability: hbapi.AsyncWAL})
	}
	return cleanup
}

// unverifyTied returns the write that marks unverified the entry under
// key that a mutable write of version v (tied with the validating one,
// whose row won) wrote verified: a status Put at v, conditional on the
// status being that writer's, so that an entry which has not landed is
// not created, and one that another writer of v rewrote is left alone.
// For an index whose entries are rows.
func (s *ixState[T]) unverifyTied(key []byte, v int64) *hbapi.CheckAndMutate {
	q := []byte(StatusQualifier)
	return &hbapi.CheckAndMutate{
		Table: s.name, Row: key, Family: []byte(s.fam), Qualifier: q,
		Compare: hbapi.CompareEqual, Value: statusValue(statusVerified, v),
		Mutations: []hbapi.Mutation{&hbapi.Put{Table: s.name, Row: key, Timestamp: v, Durability: hbapi.AsyncWAL,
			Cells: []hbapi.PutCell{{Family: s.fam, Qualifier: StatusQualifier, Value: statusValue(statusUnverified, v)}}}},
	}
}

// withdrawOvertaken returns the deletes that take back the entries and
// history cells of mutable write w, which a newer write (or a tied one
// whose cells won) overtook, where the row's live entry key differs from
// the one w wrote. Each delete stops at w's version, so cells a newer
// write put under the same key stay; deleting what the newer write's
// validation already deleted changes nothing.
func (t *Table[T]) withdrawOvertaken(w pendingWrite[T], r *hbapi.Result) []hbapi.Action {
	if w.it.op != OpPut {
		return nil // a tombstone wrote no entry
	}
	fam := []byte(t.fam)
	ver := r.Value(fam, []byte(VersionQualifier))
	tied := len(ver) >= 8 && int64(binary.BigEndian.Uint64(ver)) == w.v
	var acts []hbapi.Action
	for j, s := range t.ixs {
		mine := w.it.enc.Entries[j].Key
		if bytes.Equal(r.Value(fam, []byte(s.keyQ)), mine) {
			continue // the live record derives the same entry
		}
		if tied {
			// Tied with a writer of the same millisecond whose cells won
			// for now: a third writer of the millisecond under this key
			// may still land and win, and a marker at this version would
			// hide its entry too. The entry is rewritten unverified
			// instead, which such a writer's entry, landing later,
			// overwrites (same timestamp): index-only reads check it, and
			// readers remove it once a newer version passes it.
			p := s.entryPut(&w.it.enc.Entries[j], statusUnverified, w.v)
			p.Durability = hbapi.AsyncWAL
			acts = append(acts, p)
			continue
		}
		acts = append(acts,
			s.dropEntry(mine, w.it.quals[j], w.v, hbapi.AsyncWAL),
			&hbapi.Delete{Table: t.name, Row: w.it.key, Family: fam, Qualifier: s.historyQualifier(w.v, w.nonce),
				AllVersions: true, Timestamp: w.v, Durability: hbapi.AsyncWAL})
	}
	return acts
}
