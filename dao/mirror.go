package dao

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// WithMirror makes the store write every record to a second table too,
// while a table migrates (docs/migration.md): after each write to its own
// tables (Put, Insert, Delete and their batches), the store reads the rows
// back and copies what they hold through cp, whose source must be the
// store's data table, at the rows' versions. A write returns once both
// tables hold it; a failed copy fails the record with an error wrapping
// ErrMirror (the store's own table holds the write: writing again
// repairs both).
//
// Because the second table gets each row's state at that state's version,
// copies arriving in any order leave it the newest state, whichever
// writer, copy job or mirror sent them. A store without index stamps its
// writes itself while mirrored (versions per row from the client's clock,
// index.RowClock), so that its deletes have a version too: keep writers'
// clocks synchronised, as for the index protocol. Refused (New fails
// with ErrInvalidOption): insert-only tables and salted layouts without
// index, whose deletes leave nothing to read back; WithUnindexedWrites;
// and a mirror whose key cannot be computed from the store's key
// (Copier.ByKey), to which a delete could not follow.
func WithMirror(cp *Copier) Option {
	return func(o *options) {
		if cp == nil {
			o.fail("WithMirror: nil Copier")
			return
		}
		o.mirror = cp
	}
}

// ErrMirror is wrapped by the error of a record a mirrored store wrote to
// its own table but could not copy to the mirror.
var ErrMirror = errors.New("dao: mirror write failed")

// checkMirror validates WithMirror against the store r.
func (r *Repo[T]) checkMirror(cp *Copier) error {
	switch {
	case cp.src.name != r.name:
		return fmt.Errorf("dao: %w: WithMirror: the Copier reads %q, the store writes %q", ErrInvalidOption, cp.src.name, r.name)
	case r.ix != nil && !r.ix.KeepsRecords():
		return fmt.Errorf("dao: %w: WithMirror: %q is insert-only: its deletes leave no version to copy", ErrInvalidOption, r.name)
	case r.unindexed:
		return fmt.Errorf("dao: %w: WithMirror with WithUnindexedWrites: the writes would carry no version", ErrInvalidOption)
	case r.ix == nil && r.salts > 0:
		return fmt.Errorf("dao: %w: WithMirror: %q is salted and has no index", ErrInvalidOption, r.name)
	case !cp.byKey:
		return fmt.Errorf("dao: %w: WithMirror: the key of %q cannot be computed from the key of %q, so deletes cannot follow", ErrInvalidOption, cp.dst.name, r.name)
	}
	return nil
}

// mirrorVersions returns the versions a mirrored store without index
// stamps recs with: above the newest cell of each row (read first, values
// left out), so that a write is newer than what a copy may still bring
// of the row's older state, even within one millisecond. Nil for an
// indexed store, whose protocol stamps its writes.
func (r *Repo[T]) mirrorVersions(ctx context.Context, recs []*schema.Record) []int64 {
	if r.ix != nil {
		return nil
	}
	gets := make([]hbapi.Action, len(recs))
	for i, rec := range recs {
		gets[i] = &hbapi.Get{Table: r.name, Row: rec.Data.Key, Filter: &hbapi.KeyOnlyFilter{}}
	}
	res, err := r.c.Batch(ctx, gets)
	now := time.Now().UnixMilli()
	vs := make([]int64, len(recs))
	for i, rec := range recs {
		var old int64
		if err == nil && i < len(res) && res[i].Result != nil {
			old, _ = r.rowVersion(res[i].Result)
		}
		// A failed read leaves old at 0: the clock alone orders the write.
		vs[i] = r.clock.Next(now, rec.Data.Key, old)
	}
	return vs
}

// follow copies the rows of recs, as the store's table now holds them,
// to the mirror: every record's row, written or not (a write that failed
// may have landed), in one Batch of Gets and one Batch of writes. A
// record written whose copy fails gets an error wrapping ErrMirror.
func (r *Repo[T]) follow(ctx context.Context, op Op, recs []*schema.Record, results []error, versions []int64) {
	fail := func(i int, err error) {
		if results[i] == nil {
			results[i] = fmt.Errorf("%w: %q: %w", ErrMirror, r.mirror.dst.name, err)
		}
	}
	gets := make([]hbapi.Action, len(recs))
	for i, rec := range recs {
		gets[i] = &hbapi.Get{Table: r.name, Row: rec.Data.Key}
	}
	res, err := r.c.Batch(ctx, gets)
	if err == nil && len(res) != len(gets) {
		err = fmt.Errorf("batch returned %d results for %d gets", len(res), len(gets))
	}
	if err != nil {
		for i := range recs {
			fail(i, err)
		}
		return
	}
	var acts []hbapi.Action
	var owner []int
	for i, rec := range recs {
		if res[i].Err != nil {
			fail(i, res[i].Err)
			continue
		}
		var deletedAt int64
		if op == OpDelete && versions != nil {
			deletedAt = versions[i]
		}
		n := len(acts)
		var cerr error
		acts, _, cerr = r.mirror.Actions(acts, rec.Data.Key, res[i].Result, deletedAt)
		if cerr != nil {
			fail(i, cerr)
		}
		for range len(acts) - n {
			owner = append(owner, i)
		}
	}
	if len(acts) == 0 {
		return
	}
	out, err := r.c.Batch(ctx, acts)
	for j := range acts {
		switch {
		case err != nil && len(out) != len(acts):
			fail(owner[j], err)
		case out[j].Err != nil:
			fail(owner[j], out[j].Err)
		}
	}
}
