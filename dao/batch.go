package dao

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// PutBatch writes recs (upserts, like Put) and returns one result per
// record, in order: nil for a record that was written, its error
// otherwise.
//
// Validation is all-or-nothing: every record is checked and encoded once,
// data row and index entries, before anything is sent. If any record is
// invalid, nothing is written; the invalid records' results are
// *ValidationError values, the others' ErrNotAttempted, and the error is a
// *BatchError with Rejected set listing the invalid records.
//
// Writes are then per record, not atomic: the records are sent in chunks
// of the batch size (WithBatchSize) and of at most the client's write
// buffer (hbase.WithWriteBufferSize; a larger record goes alone), each
// chunk sharing its round trips. A record with a cell larger than the
// client sends (hbase.WithMaxCellSize) is invalid: its *ValidationError
// names the field and wraps hbase.ErrCellTooLarge.
// If some records fail, the error is a *BatchError listing each of them
// once (errors.Is and errors.As look through each record's error) and
// every other record was written. If ctx ends between chunks, the records
// not sent have results wrapping ErrNotAttempted and the context's error.
func (r *Repo[T]) PutBatch(ctx context.Context, recs []*T) ([]error, error) {
	return r.batch(ctx, OpPut, recs, nil)
}

// InsertBatch writes recs like PutBatch, each as Insert: a record whose
// row key a live record holds is not written and its result wraps
// ErrExists. Two records of one batch must not share a row key.
func (r *Repo[T]) InsertBatch(ctx context.Context, recs []*T) ([]error, error) {
	return r.batch(ctx, OpInsert, recs, nil)
}

// DeleteBatch deletes the records whose key fields are those of keys, with
// one result per record like PutBatch: every key is encoded first and
// nothing is deleted if one cannot be. A salted layout without indexes is
// refused (use Delete, which deletes under every salt).
func (r *Repo[T]) DeleteBatch(ctx context.Context, keys []*T) ([]error, error) {
	if r.salts > 0 && !r.indexed() {
		return nil, &QueryError{Table: r.name, Field: "key", Reason: "DeleteBatch does not support salted layouts; use Delete"}
	}
	return r.batch(ctx, OpDelete, keys, nil)
}

// batch encodes every record once, then sends them in chunks. tokens,
// when set, are the inserts' tokens (schema.Record.Token), one per record;
// without them each insert gets its own (index.Table.Write).
func (r *Repo[T]) batch(ctx context.Context, op Op, recs []*T, tokens [][]byte) (_ []error, err error) {
	if err := r.usable(); err != nil {
		return nil, err
	}
	ctx, span := r.span(ctx, op, len(recs))
	defer func() { end(span, err) }()
	// Each chunk is one operation (index.Write, or the client's Batch), so
	// a load of any size runs as long as it needs while no chunk waits
	// longer than one operation timeout (docs/timeouts.md); a caller that
	// started an operation (InsertUnique) bounds them all.
	results := make([]error, len(recs))
	slab := r.newRecords(len(recs), op != OpDelete)
	encoded, rows := slab.recs[:len(recs)], slab.ptrs[:len(recs)]
	var rejected []ItemError
	for i, v := range recs {
		err := r.setIDs(ctx, v, op != OpDelete)
		if err != nil && !isValidation(err) {
			// The UID table failed (not the record): nothing is written,
			// but ids of earlier records may have been assigned.
			fill(results, ErrNotAttempted)
			results[i] = err
			return results, &BatchError{Table: r.name, Op: op.String(), Failed: []ItemError{{Index: i, Err: err}}}
		}
		switch {
		case err != nil:
		case op == OpDelete:
			err = r.encodeKey(v, &encoded[i])
		default:
			err = r.encode(v, &encoded[i])
		}
		if err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
		}
		encoded[i].Token = nil // a reused record's is another insert's
		if tokens != nil {
			encoded[i].Token = tokens[i]
		}
	}
	if len(rejected) > 0 {
		for i := range results {
			if results[i] == nil {
				results[i] = ErrNotAttempted
			}
		}
		return results, &BatchError{Table: r.name, Op: op.String(), Rejected: true, Failed: rejected}
	}
	r.sendChunks(ctx, op, rows, results)
	err = r.batchError(op.String(), results)
	if err == nil && r.reuses() {
		// Every write succeeded: the client is done with the records'
		// buffers (after a failure it may still be sending some).
		r.slabs.Put(slab)
	}
	return results, err
}

// reuses reports whether a write's records may be reused once it
// succeeded: on a table without index, and on an insert-only one, nothing
// reads them after the write returns (index.Table.KeepsRecords).
func (r *Repo[T]) reuses() bool { return !r.indexed() || !r.ix.KeepsRecords() }

// recordSlab is the Records a batch encodes into, the pointers to them
// (what index.Write takes) and the rows of their index entries, each in
// one allocation.
type recordSlab struct {
	recs []schema.Record
	ptrs []*schema.Record
	ents []schema.Row
}

// newRecords returns a slab of at least n Records for a batch to encode
// into, with room for the table's index entries when entries is set (what
// EncodeRecord would otherwise allocate per record), in four allocations
// whatever n, one for a single record of a table with at most one index.
// Where the store reuses records (reuses), it comes from the slabs a
// successful batch gave back, with the buffers its encoding grew.
func (r *Repo[T]) newRecords(n int, entries bool) *recordSlab {
	if r.reuses() {
		if s, ok := r.slabs.Get().(*recordSlab); ok {
			if len(s.recs) >= n && (!entries || len(s.ents) >= n*r.nix) {
				return s
			}
			// Too small for this call: a new one, sized for it, takes its place.
		}
	}
	if n == 1 && r.nix <= 1 {
		// The single-record call: one allocation for all of it.
		one := new(struct {
			s   recordSlab
			rec [1]schema.Record
			ptr [1]*schema.Record
			ent [1]schema.Row
		})
		one.ptr[0] = &one.rec[0]
		one.s.recs, one.s.ptrs = one.rec[:], one.ptr[:]
		if entries && r.nix == 1 {
			one.s.ents = one.ent[:]
			one.rec[0].Entries = one.ent[:0:1]
		}
		return &one.s
	}
	s := &recordSlab{recs: make([]schema.Record, n), ptrs: make([]*schema.Record, n)}
	if entries && r.nix > 0 {
		s.ents = make([]schema.Row, n*r.nix)
	}
	for i := range s.recs {
		s.ptrs[i] = &s.recs[i]
		if s.ents != nil {
			s.recs[i].Entries = s.ents[i*r.nix : i*r.nix : (i+1)*r.nix]
		}
	}
	return s
}

// isValidation reports whether err is (or wraps) a *ValidationError.
func isValidation(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}

// sendChunks sends rows in chunks of r.batchSize records and at most the
// client's write buffer bytes (chunkEnd), up to r.writeConc at a time
// (one after another when a row key repeats across chunks, so that the
// later record wins), and stores the outcome of rows[i] in results[i].
// Chunks not started when ctx ends are ErrNotAttempted.
func (r *Repo[T]) sendChunks(ctx context.Context, op Op, rows []*schema.Record, results []error) {
	par := r.writeConc
	if r.chunkEnd(rows, 0) == len(rows) || par > 1 && !distinctKeys(rows) {
		par = 1
	}
	if par > 1 {
		r.sendParallel(ctx, op, rows, results, par)
		return
	}
	// One after another, with no goroutine, semaphore or WaitGroup: the
	// path of every call of one chunk.
	for lo, hi := 0, 0; lo < len(rows); lo = hi {
		hi = r.chunkEnd(rows, lo)
		if err := ctx.Err(); err != nil {
			fill(results[lo:], fmt.Errorf("%w: %w", ErrNotAttempted, err))
			return
		}
		r.send(ctx, op, rows[lo:hi], results[lo:hi])
	}
}

// sendParallel is sendChunks for par > 1 chunks at a time.
func (r *Repo[T]) sendParallel(ctx context.Context, op Op, rows []*schema.Record, results []error, par int) {
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	defer wg.Wait()
	for lo, hi := 0, 0; lo < len(rows); lo = hi {
		hi = r.chunkEnd(rows, lo)
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			fill(results[lo:], fmt.Errorf("%w: %w", ErrNotAttempted, err))
			return
		}
		wg.Go(func() {
			defer func() { <-sem }()
			r.send(ctx, op, rows[lo:hi], results[lo:hi])
		})
	}
}

// distinctKeys reports whether no row key repeats in rows. It compares
// hashes, so that it copies no key: a collision only takes the call to
// the one-after-another path, which is right for any rows.
func distinctKeys(rows []*schema.Record) bool {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{}, len(rows))
	for _, rec := range rows {
		h := maphash.Bytes(seed, rec.Data.Key)
		if _, dup := seen[h]; dup {
			return false
		}
		seen[h] = struct{}{}
	}
	return true
}

// send writes one chunk of encoded records and stores the outcome of
// recs[i] in results[i]: through the index protocol when the table is
// indexed, else as one hbase Batch.
func (r *Repo[T]) send(ctx context.Context, op Op, recs []*schema.Record, results []error) {
	r.sendVia(ctx, op, recs, results, false)
}

// sendVia is send; with single set, a lone record of a table without
// index goes as its own call (Put, Delete, CheckAndMutate), which costs
// the client less than a Batch of one.
func (r *Repo[T]) sendVia(ctx context.Context, op Op, recs []*schema.Record, results []error, single bool) {
	if r.mirror == nil {
		r.sendSource(ctx, op, recs, results, single, nil)
		return
	}
	versions := r.mirrorVersions(ctx, recs)
	r.sendSource(ctx, op, recs, results, single, versions)
	r.follow(ctx, op, recs, results, versions)
}

// sendSource writes recs to the store's own tables. versions, when set,
// stamp the writes of a table without index (a mirrored store's).
func (r *Repo[T]) sendSource(ctx context.Context, op Op, recs []*schema.Record, results []error, single bool, versions []int64) {
	if op == OpDelete {
		defer r.settle.done(recs)
	} else {
		r.settle.wait(ctx, recs)
	}
	if r.indexed() {
		if errs := r.ix.Write(ctx, op, recs); errs != nil {
			copy(results, errs)
		}
		return
	}
	actions := make([]hbapi.Action, len(recs))
	for i, rec := range recs {
		var ts int64 // 0: the server stamps the write
		if versions != nil {
			ts = versions[i]
		}
		switch op {
		case OpDelete:
			actions[i] = &hbapi.Delete{Table: r.name, Row: rec.Data.Key, Timestamp: ts}
		case OpInsert:
			first := rec.Data.Cells[0]
			actions[i] = &hbapi.CheckAndMutate{
				Table: r.name, Row: rec.Data.Key, Family: []byte(first.Family), Qualifier: []byte(first.Qualifier),
				Compare: hbapi.CompareEqual, Value: nil,
				Mutations: []hbapi.Mutation{&hbapi.Put{Table: r.name, Row: rec.Data.Key, Cells: putCells(&rec.Data), Timestamp: ts}},
			}
		default:
			actions[i] = &hbapi.Put{Table: r.name, Row: rec.Data.Key, Cells: putCells(&rec.Data), Timestamp: ts}
		}
	}
	if single && len(actions) == 1 {
		results[0] = r.sendOne(ctx, actions[0])
		return
	}
	res, err := r.c.Batch(ctx, actions)
	var be *hbapi.BatchError
	switch {
	case err != nil && !errors.As(err, &be):
		fill(results, err)
		return
	case len(res) != len(actions):
		if be != nil {
			for _, f := range be.Failed {
				if f.Index >= 0 && f.Index < len(results) {
					results[f.Index] = f.Err
				}
			}
			return
		}
		fill(results, fmt.Errorf("dao: batch returned %d results for %d actions", len(res), len(actions)))
		return
	}
	for j, br := range res {
		switch {
		case br.Err != nil:
			results[j] = br.Err
		case op == OpInsert && !br.Processed:
			results[j] = ErrExists
		}
	}
}

// sendOne sends one plain write as its own call.
func (r *Repo[T]) sendOne(ctx context.Context, a hbapi.Action) error {
	switch a := a.(type) {
	case *hbapi.Put:
		return r.c.Put(ctx, a)
	case *hbapi.Delete:
		return r.c.Delete(ctx, a)
	case *hbapi.CheckAndMutate:
		ok, err := r.c.CheckAndMutate(ctx, a)
		if err == nil && !ok {
			err = ErrExists
		}
		return err
	}
	return fmt.Errorf("dao: unexpected action %T", a)
}

// fill sets every result to err.
func fill(results []error, err error) {
	for i := range results {
		results[i] = err
	}
}

// putCells returns the cells of row as the Cells of a Put, sorted; the
// values alias row.
func putCells(row *schema.Row) []hbapi.PutCell {
	cells := slices.Clone(row.Cells)
	slices.SortFunc(cells, hbapi.ComparePutCells)
	return cells
}
