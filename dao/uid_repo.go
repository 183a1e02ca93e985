package dao

import (
	"context"
	"errors"
	"fmt"
)

// setIDs sets the id of each UID field of v from its name (WithUIDs):
// assigning ids to new names for writes, looking them up for keys, where
// an unknown name gets id 0, which no row holds, and an empty name leaves
// the id as it is. Bad input is a *ValidationError.
func (r *Repo[T]) setIDs(ctx context.Context, v *T, assign bool) error {
	if r.uids == nil || v == nil {
		return nil
	}
	for _, d := range r.uidDecls {
		name := d.Name(v)
		if name == "" && !assign {
			continue
		}
		var id uint64
		var err error
		if assign {
			id, err = r.uids.ID(ctx, d.Kind, name)
		} else {
			id, _, err = r.uids.Lookup(ctx, d.Kind, name)
		}
		if err != nil {
			var ue *UIDError
			if errors.As(err, &ue) && errors.Is(err, ErrInvalidUID) {
				return &ValidationError{Table: r.name, Field: d.Segment, Reason: ue.Reason, Err: err}
			}
			return fmt.Errorf("dao: table %q: uid of %s: %w", r.name, d.Segment, err)
		}
		d.SetID(v, id)
	}
	return nil
}

// setNames sets the name of each UID field of v from its id, after a read.
// An id without a name is a *DecodeError.
func (r *Repo[T]) setNames(ctx context.Context, v *T) error {
	if r.uids == nil || v == nil {
		return nil
	}
	for _, d := range r.uidDecls {
		name, err := r.uids.Name(ctx, d.Kind, d.ID(v))
		if err != nil {
			var ue *UIDError
			if errors.As(err, &ue) {
				return &DecodeError{Table: r.name, Field: d.Segment, Reason: ue.Reason, Err: err}
			}
			return fmt.Errorf("dao: table %q: name of %s: %w", r.name, d.Segment, err)
		}
		d.SetName(v, name)
	}
	return nil
}

// setQueryIDs sets the ids of the names a query's bounds give.
func (r *Repo[T]) setQueryIDs(ctx context.Context, q Query[T]) error {
	if err := r.setIDs(ctx, q.Lo, false); err != nil {
		return err
	}
	if q.Hi != q.Lo {
		return r.setIDs(ctx, q.Hi, false)
	}
	return nil
}
