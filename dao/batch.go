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
	actions := make([]hbase.Action, len(recs))
	var rejected []ItemError
	for i, v := range recs {
		row := new(schema.Row)
		if err := r.encode(v, row); err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
			continue
		}
		if r.w == nil {
			actions[i] = r.putOf(row)
		}
	}
	var via func(context.Context, []*T) []error
	if r.w != nil {
		via = r.w.PutRecords
	}
	return r.writeChunks(ctx, "put", recs, actions, rejected, results, via)
}

// writeChunks finishes PutBatch and DeleteBatch once every record has been
// encoded into its action: if any was rejected nothing is sent; otherwise
// the actions go out in chunks of the batch size, each as one hbase Batch,
// or through via (the Writer) when it is set.
func (r *Repo[T]) writeChunks(ctx context.Context, op string, recs []*T, all []hbase.Action, rejected []ItemError,
	results []error, via func(context.Context, []*T) []error) ([]error, error) {
	if len(rejected) > 0 {
		for i := range results {
			if results[i] == nil {
				results[i] = ErrNotAttempted
			}
		}
		return results, &BatchError{Table: r.name, Op: op, Rejected: true, Failed: rejected}
	}
	for lo := 0; lo < len(recs); lo += r.batchSize {
		hi := min(lo+r.batchSize, len(recs))
		if err := ctx.Err(); err != nil {
			fill(results[lo:], fmt.Errorf("%w: %w", ErrNotAttempted, err))
			break
		}
		if via != nil {
			writeVia(ctx, via, recs[lo:hi], results[lo:hi])
			continue
		}
		r.sendChunk(ctx, all[lo:hi], results[lo:hi])
	}
	return results, r.batchErr(op, results)
}

// sendChunk runs one hbase Batch and records the outcome of actions[i] in
// results[i].
func (r *Repo[T]) sendChunk(ctx context.Context, actions []hbase.Action, results []error) {
	res, err := r.c.Batch(ctx, actions)
	var be *hbase.BatchError
	switch {
	case errors.As(err, &be):
		for _, f := range be.Failed {
			if f.Index >= 0 && f.Index < len(results) {
				results[f.Index] = f.Err
			}
		}
	case err != nil:
		fill(results, err)
	case len(res) != len(actions):
		fill(results, fmt.Errorf("dao: batch returned %d results for %d actions", len(res), len(actions)))
	default:
		for j, br := range res {
			if br.Err != nil {
				results[j] = br.Err
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
	actions := make([]hbase.Action, len(recs))
	var rejected []ItemError
	for i, v := range recs {
		ks, err := r.rowKeys(v)
		if err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
			continue
		}
		actions[i] = &hbase.Delete{Table: r.name, Row: ks[0]}
	}
	var via func(context.Context, []*T) []error
	if r.w != nil {
		via = r.w.DeleteRecords
	}
	return r.writeChunks(ctx, "delete", recs, actions, rejected, results, via)
}
