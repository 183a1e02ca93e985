package dao

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
)

// PutBatch writes recs and returns one result per record, in order: nil
// for a record that was written, its error otherwise.
//
// Validation is all-or-nothing: every record is encoded (and checked by
// the validators and the indexer) before anything is sent. If any record
// is invalid, nothing is written; the invalid records' results are
// *ValidationError values, the others' ErrNotAttempted, and the error is a
// *BatchError with Rejected set listing the invalid records.
//
// Writes are then per record, not atomic: the records are sent in chunks
// of the batch size (WithBatchSize), one hbase Batch call per chunk, in
// order (or handed to the Writer, chunk by chunk). If some records fail,
// the error is a *BatchError listing them (errors.Is and errors.As look
// through each record's error) and every other record was written. If ctx
// ends between chunks, the records not sent have results wrapping
// ErrNotAttempted and the context's error.
func (r *Repo[T]) PutBatch(ctx context.Context, recs []*T) ([]error, error) {
	results := make([]error, len(recs))
	puts := make([]*hbase.Put, len(recs))
	var rejected []ItemError
	for i, v := range recs {
		row := new(schema.Row)
		if err := r.encode(v, row); err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
			continue
		}
		puts[i] = r.putOf(row)
	}
	if len(rejected) > 0 {
		for i := range results {
			if results[i] == nil {
				results[i] = ErrNotAttempted
			}
		}
		return results, &BatchError{Table: r.name, Op: "put", Rejected: true, Failed: rejected}
	}
	actions := make([]hbase.Action, 0, min(r.batchSize, len(recs)))
	index := make([]int, 0, cap(actions)) // action → record
	for lo := 0; lo < len(recs); lo += r.batchSize {
		hi := min(lo+r.batchSize, len(recs))
		if err := ctx.Err(); err != nil {
			for i := lo; i < len(recs); i++ {
				results[i] = fmt.Errorf("%w: %w", ErrNotAttempted, err)
			}
			break
		}
		actions, index = actions[:0], index[:0]
		for i := lo; i < hi; i++ {
			actions = append(actions, puts[i])
			index = append(index, i)
		}
		if r.w != nil {
			writeVia(ctx, r.w.PutRecords, recs[lo:hi], index, results)
			continue
		}
		r.sendChunk(ctx, actions, index, results)
	}
	return results, r.batchErr("put", results)
}

// sendChunk runs one hbase Batch and records each action's outcome in
// results.
func (r *Repo[T]) sendChunk(ctx context.Context, actions []hbase.Action, index []int, results []error) {
	res, err := r.c.Batch(ctx, actions)
	var be *hbase.BatchError
	switch {
	case errors.As(err, &be):
		for _, f := range be.Failed {
			if f.Index >= 0 && f.Index < len(index) {
				results[index[f.Index]] = f.Err
			}
		}
	case err != nil:
		for _, i := range index {
			results[i] = err
		}
	case len(res) != len(actions):
		err := fmt.Errorf("dao: batch returned %d results for %d actions", len(res), len(actions))
		for _, i := range index {
			results[i] = err
		}
	default:
		for j, br := range res {
			if br.Err != nil {
				results[index[j]] = br.Err
			}
		}
	}
}

func (r *Repo[T]) batchErr(op string, results []error) error {
	var failed []ItemError
	for i, err := range results {
		if err != nil {
			failed = append(failed, ItemError{Index: i, Err: err})
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &BatchError{Table: r.name, Op: op, Failed: failed}
}

// DeleteBatch deletes the rows of the records whose key fields are those
// of keys, with one result per record like PutBatch: every key is encoded
// first and nothing is deleted if one cannot be; then the deletes are sent
// in chunks (or handed to the Writer). Without a Writer, salted layouts are
// refused (use Delete, which deletes under every salt).
func (r *Repo[T]) DeleteBatch(ctx context.Context, recs []*T) ([]error, error) {
	if r.salts > 0 && r.w == nil {
		return nil, &QueryError{Table: r.name, Field: "key", Reason: "DeleteBatch does not support salted layouts; use Delete"}
	}
	results := make([]error, len(recs))
	dels := make([]*hbase.Delete, len(recs))
	var rejected []ItemError
	for i, v := range recs {
		ks, err := r.rowKeys(v)
		if err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
			continue
		}
		dels[i] = &hbase.Delete{Table: r.name, Row: ks[0]}
	}
	if len(rejected) > 0 {
		for i := range results {
			if results[i] == nil {
				results[i] = ErrNotAttempted
			}
		}
		return results, &BatchError{Table: r.name, Op: "delete", Rejected: true, Failed: rejected}
	}
	actions := make([]hbase.Action, 0, min(r.batchSize, len(recs)))
	index := make([]int, 0, cap(actions))
	for lo := 0; lo < len(recs); lo += r.batchSize {
		hi := min(lo+r.batchSize, len(recs))
		if err := ctx.Err(); err != nil {
			for i := lo; i < len(recs); i++ {
				results[i] = fmt.Errorf("%w: %w", ErrNotAttempted, err)
			}
			break
		}
		actions, index = actions[:0], index[:0]
		for i := lo; i < hi; i++ {
			actions = append(actions, dels[i])
			index = append(index, i)
		}
		if r.w != nil {
			writeVia(ctx, r.w.DeleteRecords, recs[lo:hi], index, results)
			continue
		}
		r.sendChunk(ctx, actions, index, results)
	}
	return results, r.batchErr("delete", results)
}
