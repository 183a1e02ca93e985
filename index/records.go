package index

import (
	"context"
	"errors"
)

// PutRecords writes recs like PutBatch, and reports one error per record,
// in order: nil for a record that was written. A nil slice means all were.
// With PutRecords and DeleteRecords a *Table[T] is a dao.Writer[T] (dao
// declares that interface; index does not import dao), so a dao.Repo can
// route its writes through the index:
//
//	repo, err := dao.New(c, tbl, dao.WithWriter[T](ix))
func (t *Table[T]) PutRecords(ctx context.Context, recs []*T) []error {
	return PerRecord(len(recs), t.PutBatch(ctx, recs))
}

// DeleteRecords deletes recs like DeleteBatch, with results like
// PutRecords.
func (t *Table[T]) DeleteRecords(ctx context.Context, recs []*T) []error {
	return PerRecord(len(recs), t.DeleteBatch(ctx, recs))
}

// PerRecord spreads the error of a batch of n records over their
// positions: nil when err is nil; each failed record's own error when err
// is a *BatchError (failures naming a position outside [0, n) are
// ignored); err itself for every record otherwise, since the batch failed
// as a whole.
func PerRecord(n int, err error) []error {
	if err == nil {
		return nil
	}
	out := make([]error, n)
	var be *BatchError
	if !errors.As(err, &be) {
		for i := range out {
			out[i] = err
		}
		return out
	}
	for _, f := range be.Failed {
		if f.Index >= 0 && f.Index < n {
			out[f.Index] = f.Err
		}
	}
	return out
}
