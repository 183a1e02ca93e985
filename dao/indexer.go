package dao

import "context"

// Indexer keeps secondary index entries in step with a Repo's writes. It
// is the seam between dao and a client-managed index (package index of
// hbkit, or your own): dao does not import any index package; an adapter
// of a few lines plugs one in (IndexerFuncs, or any type with these
// methods), with WithIndexer.
//
// With an indexer, a Repo
//
//   - calls CheckIndex on every record while validating it, before any
//     write, so that a record whose index key cannot be built is rejected
//     like one whose row key cannot;
//   - writes the index entries first (PutIndex) and the data row second,
//     and does not write the data row of a record whose index write
//     failed: an index entry may point at a missing row (readers of the
//     index skip those), but no data row is ever missing from the index;
//   - on Delete, deletes the data row first and the index entries second
//     (DeleteIndex), for the same reason.
//
// Implementations must be safe for concurrent use.
type Indexer[T any] interface {
	// CheckIndex reports whether the index entries of v can be encoded.
	// It writes nothing. A non-nil error rejects the record.
	CheckIndex(v *T) error
	// PutIndex writes the index entries of recs and returns one error per
	// record, in order (nil for success); a nil slice means every record
	// succeeded.
	PutIndex(ctx context.Context, recs []*T) []error
	// DeleteIndex removes the index entries of v, which carries the
	// indexed fields.
	DeleteIndex(ctx context.Context, v *T) error
}

// IndexerFuncs adapts three functions to an Indexer, so that an index
// writer with other method names plugs in without a named type:
//
//	w := … // an index writer with Check, PutAll and Delete methods
//	repo, err := dao.New(client, table, dao.WithIndexer[schema.SMS](dao.IndexerFuncs[schema.SMS]{
//		Check:  w.Check,
//		Put:    w.PutAll,
//		Delete: w.Delete,
//	}))
//
// A nil Check accepts every record; a nil Put or Delete does nothing.
type IndexerFuncs[T any] struct {
	Check  func(v *T) error
	Put    func(ctx context.Context, recs []*T) []error
	Delete func(ctx context.Context, v *T) error
}

// CheckIndex calls f.Check.
func (f IndexerFuncs[T]) CheckIndex(v *T) error {
	if f.Check == nil {
		return nil
	}
	return f.Check(v)
}

// PutIndex calls f.Put.
func (f IndexerFuncs[T]) PutIndex(ctx context.Context, recs []*T) []error {
	if f.Put == nil {
		return nil
	}
	return f.Put(ctx, recs)
}

// DeleteIndex calls f.Delete.
func (f IndexerFuncs[T]) DeleteIndex(ctx context.Context, v *T) error {
	if f.Delete == nil {
		return nil
	}
	return f.Delete(ctx, v)
}
