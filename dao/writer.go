package dao

import (
	"context"
	"fmt"
)

// Writer takes over a Repo's writes, for tables whose rows must be written
// together with something else: a client-managed secondary index (hbkit's
// package index writes a data row and its index entries by its own
// protocol), an audit table, a cache. dao does not import any of these;
// WithWriter plugs one in through this interface.
//
// With a Writer, a Repo still validates and encodes every record first
// (all-or-nothing for batches, see PutBatch), still chunks batches by
// WithBatchSize, and still reads (Get, Scan, Page) the data table itself;
// only the writes go through the Writer, which receives the records, not
// their cells. Cells the Writer adds to data rows (a version column) are
// ignored when rows are decoded, since the schema does not declare them.
//
// hbkit's index package implements it (its Table[T] has PutRecords and
// DeleteRecords; dao does not import index), as in ExampleWithWriter:
//
//	ix, err := index.NewSMS(client)
//	repo, err := dao.NewSMS(client, dao.WithWriter[schema.SMS](ix))
//
// Implementations must be safe for concurrent use.
type Writer[T any] interface {
	// PutRecords writes recs and returns one error per record, in order
	// (nil for a record that was written); a nil slice means all were.
	PutRecords(ctx context.Context, recs []*T) []error
	// DeleteRecords deletes the records with the keys of recs, with
	// results like PutRecords.
	DeleteRecords(ctx context.Context, recs []*T) []error
}

// WriterFuncs adapts two functions to a Writer. A nil function writes
// nothing and reports success.
type WriterFuncs[T any] struct {
	Put    func(ctx context.Context, recs []*T) []error
	Delete func(ctx context.Context, recs []*T) []error
}

// PutRecords calls f.Put.
func (f WriterFuncs[T]) PutRecords(ctx context.Context, recs []*T) []error {
	if f.Put == nil {
		return nil
	}
	return f.Put(ctx, recs)
}

// DeleteRecords calls f.Delete.
func (f WriterFuncs[T]) DeleteRecords(ctx context.Context, recs []*T) []error {
	if f.Delete == nil {
		return nil
	}
	return f.Delete(ctx, recs)
}

// writeVia runs one call of the writer on recs and stores the result of
// recs[i] in results[i].
func writeVia[T any](ctx context.Context, call func(context.Context, []*T) []error, recs []*T, results []error) {
	errs := call(ctx, recs)
	if errs == nil {
		return
	}
	if len(errs) != len(recs) {
		fill(results, fmt.Errorf("dao: writer returned %d results for %d records", len(errs), len(recs)))
		return
	}
	copy(results, errs)
}

// fill sets every result to err.
func fill(results []error, err error) {
	for i := range results {
		results[i] = err
	}
}
