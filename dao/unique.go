package dao

import (
	"context"
	"errors"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
)

// InsertUnique inserts recs like InsertBatch, and gives each record whose
// row key a live record holds the next key next proposes (by changing
// the record's key fields in place), inserting it again, until it lands or
// next reports none is left (its result then wraps ErrExists). A unique
// suffix (keys.Unique) is what next usually changes.
//
// A record is never moved on for its own write: on an indexed table each
// record keeps one insert token (schema.Record.Token) under every key it
// tries, an insert whose answer the network hid is settled by reading the
// token back, and Check counts two rows holding one token as Duplicates.
// A result wrapping hbase.ErrOutcomeUnknown (the read back failed too) is
// not moved on either: read the record before sending it again. Every
// attempt shares one operation timeout (docs/timeouts.md).
func InsertUnique[T any](ctx context.Context, r *Repo[T], recs []*T, next func(*T) bool) (results []error, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, r.c)
	defer func() { err = endOp(err) }()
	tokens := make([][]byte, len(recs))
	for i := range tokens {
		tokens[i] = index.NewToken()
	}
	results, err = r.batch(ctx, OpInsert, recs, tokens)
	for err != nil {
		var retry []int
		for i, e := range results {
			if errors.Is(e, ErrExists) && next(recs[i]) {
				retry = append(retry, i)
			}
		}
		if len(retry) == 0 {
			break
		}
		again := make([]*T, len(retry))
		againTokens := make([][]byte, len(retry))
		for j, i := range retry {
			again[j], againTokens[j] = recs[i], tokens[i]
		}
		res, _ := r.batch(ctx, OpInsert, again, againTokens)
		for j, i := range retry {
			results[i] = res[j]
		}
		err = r.batchError("insert", results)
	}
	return results, err
}

// batchError is the *BatchError of results, or nil when all succeeded.
func (r *Repo[T]) batchError(op string, results []error) error {
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
