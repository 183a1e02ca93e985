package dao

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// setIDs sets the id of each UID field of v from its name (WithUIDs):
// assigning ids to new names for writes, looking them up for keys, where
// an unknown name gets id 0, which no row holds, and an empty name leaves
// the id as it is. Bad input is a *ValidationError.
func (r *Repo[T]) setIDs(ctx context.Context, v *T, assign bool) error {
	return setUIDs(ctx, r.uids, r.uidDecls, r.name, v, assign)
}

// setUIDs is setIDs for any store of a table named table: the data store
// and the wide store (Wide) share it.
func setUIDs[T any](ctx context.Context, uids *UIDs, decls []schema.UID[T], table string, v *T, assign bool) error {
	if uids == nil || v == nil {
		return nil
	}
	for _, d := range decls {
		name := d.Name(v)
		if name == "" && !assign {
			continue
		}
		var id uint64
		var err error
		if assign {
			id, err = uids.ID(ctx, d.Kind, name)
		} else {
			id, _, err = uids.Lookup(ctx, d.Kind, name)
		}
		if err != nil {
			var ue *UIDError
			if errors.As(err, &ue) && errors.Is(err, ErrInvalidUID) {
				return &ValidationError{Table: table, Field: d.Segment, Reason: ue.Reason, Err: err}
			}
			return fmt.Errorf("dao: table %q: uid of %s: %w", table, d.Segment, err)
		}
		d.SetID(v, id)
	}
	return nil
}

// setNames sets the name of each UID field of v from its id, after a read.
// An id without a name is a *DecodeError.
func (r *Repo[T]) setNames(ctx context.Context, v *T) error {
	return setUIDNames(ctx, r.uids, r.uidDecls, r.name, v)
}

// setUIDNames is setNames for any store of a table named table.
func setUIDNames[T any](ctx context.Context, uids *UIDs, decls []schema.UID[T], table string, v *T) error {
	if uids == nil || v == nil {
		return nil
	}
	for _, d := range decls {
		name, err := uids.Name(ctx, d.Kind, d.ID(v))
		if err != nil {
			var ue *UIDError
			if errors.As(err, &ue) {
				return &DecodeError{Table: table, Field: d.Segment, Reason: ue.Reason, Err: err}
			}
			return fmt.Errorf("dao: table %q: name of %s: %w", table, d.Segment, err)
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

// checkUIDOption checks WithUIDs against the UID fields a table declares:
// required when it declares some, refused when it declares none, and the
// UID table must have each kind at the declared width.
func checkUIDOption[T any](uids *UIDs, decls []schema.UID[T], table hbapi.TableName) error {
	switch {
	case len(decls) > 0 && uids == nil:
		return fmt.Errorf("dao: %w: table %s declares UID fields: give WithUIDs", ErrInvalidOption, table)
	case len(decls) == 0 && uids != nil:
		return fmt.Errorf("dao: %w: WithUIDs: table %s declares no UID field", ErrInvalidOption, table)
	}
	for _, d := range decls {
		if w, ok := uids.Width(d.Kind); !ok || w != d.Width {
			return fmt.Errorf("dao: %w: WithUIDs: UID field %s of table %s wants kind %q of width %d; the UID table has width %d",
				ErrInvalidOption, d.Segment, table, d.Kind, d.Width, w)
		}
	}
	return nil
}
