package dao

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Index reads one index of a store, typed: queries name index-key fields
// (Eq, Range) or give explicit ranges, and every record returned is the
// data row's, checked against its entry (see package index), so a reader
// never sees a record that disagrees with the data table, nor a deleted
// one.
type Index[T any] struct {
	r        *Repo[T]
	ix       *schema.Index[T]
	declared string // name in the schema
	name     string // name on the cluster
}

// Index returns the reader of the index the schema declares under name
// (as written in the schema, or its full "namespace:table" form). An
// unknown name is an error wrapping ErrUnknownIndex.
func (r *Repo[T]) Index(name string) (*Index[T], error) {
	if x, ok := r.indexes[name]; ok {
		return x, nil
	}
	return nil, fmt.Errorf("dao: table %q: %w: %q", r.name, ErrUnknownIndex, name)
}

// Name returns the index table's name on the cluster.
func (x *Index[T]) Name() string { return x.name }

// Schema returns the index declaration.
func (x *Index[T]) Schema() *schema.Index[T] { return x.ix }

// source maps an index-key segment to the data-table field it is
// computed from.
func (x *Index[T]) source(segment string) string {
	src, _ := x.ix.Source(segment)
	return src
}

// planOf sets the ids of the names q's bounds give (UID fields) and
// plans q for this index.
func (x *Index[T]) planOf(ctx context.Context, q Query[T]) (*plan, error) {
	if err := x.r.usable(); err != nil {
		return nil, err
	}
	if err := x.r.setQueryIDs(ctx, q); err != nil {
		return nil, err
	}
	return x.plan(q)
}

// plan validates q for this index. Index reads run forward, in index-key
// order; Reversed and MergeSkip are refused.
func (x *Index[T]) plan(q Query[T]) (*plan, error) {
	switch {
	case q.Reversed:
		return nil, &QueryError{Table: x.name, Field: "Reversed", Reason: "index reads run in index-key order only"}
	case q.MergeSkip != 0:
		return nil, &QueryError{Table: x.name, Field: "MergeSkip", Reason: "index reads run in index-key order only"}
	}
	var p *plan
	var err error
	if x.ix.Inverted() && q.Resume != "" {
		p, err = x.planCells(q)
	} else {
		p, err = planQuery(x.name, x.ix.Key(), x.source, q)
	}
	if err != nil {
		return nil, err
	}
	exactRows(x.ix.Key(), x.source, q, p)
	return p, nil
}

// Find returns an iterator over the records q selects through the index,
// in index-key order, at most q.Limit of them (0: all), after q.Resume,
// each record once though it moves while the read runs (Page and Keys
// likewise; see docs/index-reads.md for the memory this costs). An error
// is yielded once, as the last element, with a nil record.
func (x *Index[T]) Find(ctx context.Context, q Query[T]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		// One operation timeout for the whole query (docs/timeouts.md).
		ctx, endOp := hbapi.StartOperation(ctx, x.r.c)
		defer endOp(nil)
		p, err := x.planOf(ctx, q)
		if err != nil {
			yield(nil, err)
			return
		}
		stopped := false
		var nerr error
		err = x.find(ctx, p, func(_ []byte, rec *T) bool {
			v := *rec
			if nerr = x.r.setNames(ctx, &v); nerr != nil {
				return false
			}
			if !yield(&v, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err == nil {
			err = nerr
		}
		if err != nil && !stopped {
			yield(nil, x.readError(ctx, endOp(err)))
		}
	}
}

// find runs a plan through the index protocol's reader, honouring the
// plan's limit and resume point.
func (x *Index[T]) find(ctx context.Context, p *plan, fn func(key []byte, rec *T) bool) error {
	ranges := p.resumed()
	if len(ranges) == 0 {
		return nil
	}
	n := 0
	// A page of an inverted index resumed inside a row: the row's cells up
	// to the token's are skipped before their data rows are read.
	err := x.r.ix.FindAfter(ctx, x.declared, ranges, p.after, p.afterCell, p.limit, func(key []byte, rec *T) bool {
		if err := ctx.Err(); err != nil {
			return false
		}
		if p.afterCell != nil && x.returned(p, key, rec) {
			return true
		}
		n++
		if !fn(key, rec) {
			return false
		}
		return p.limit == 0 || n < p.limit
	})
	if err == nil {
		err = ctx.Err() // a read stopped by ctx is not a complete one
	}
	return err
}

// readError wraps the error of a read of the index. A read that ctx
// stopped says so once, however many scans it ran.
func (x *Index[T]) readError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("dao: index %q: read stopped by its context before it completed "+
			"(cancelled, or a deadline too short for the ranges read): %w", x.name, err)
	}
	return fmt.Errorf("dao: index %q: %w", x.name, err)
}

// Page returns up to size records of q through the index after q.Resume,
// and the token that continues after the last of them (empty when there
// is no more). q.Limit is ignored.
func (x *Index[T]) Page(ctx context.Context, q Query[T], size int) (_ []*T, _ Token, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, x.r.c)
	defer func() { err = endOp(err) }()
	if size < 1 {
		return nil, "", &QueryError{Table: x.name, Field: "size", Reason: "page size must be at least 1"}
	}
	q.Limit = 0
	p, err := x.planOf(ctx, q)
	if err != nil {
		return nil, "", err
	}
	p.limit = size + 1
	out := make([]*T, 0, size)
	var last []byte
	more := false
	var nerr error
	err = x.find(ctx, p, func(key []byte, rec *T) bool {
		if len(out) == size {
			more = true
			return false
		}
		v := *rec
		if nerr = x.r.setNames(ctx, &v); nerr != nil {
			return false
		}
		out = append(out, &v)
		last = x.position(key, rec)
		return true
	})
	if err == nil {
		err = nerr
	}
	if err != nil {
		return nil, "", x.readError(ctx, err)
	}
	if !more {
		return out, "", nil
	}
	return out, p.token(last), nil
}

// Count counts the live records q selects through the index, grouped by
// the value of the index-key segment named by, as text (keys.Segment.Text:
// "dev-00354" for a string, "20" for a number, "2025-01-23" for a date,
// never the key's bytes); an empty by counts everything under "". It
// reads the index alone: verified entries are counted as they are, and
// only unverified ones (writes in flight or interrupted) cost a Get of
// their data row. q.Limit and q.Resume must be unset.
func (x *Index[T]) Count(ctx context.Context, q Query[T], by string) (_ map[string]int64, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, x.r.c)
	defer func() { err = endOp(err) }()
	if q.Limit != 0 || q.Resume != "" {
		return nil, &QueryError{Table: x.name, Field: "Limit", Reason: "a count takes no limit or resume token"}
	}
	p, err := x.planOf(ctx, q)
	if err != nil {
		return nil, err
	}
	return x.count(ctx, p.ranges, by)
}

// CountRanges counts like Count over the ranges of several queries at
// once (a count per day over many days, each day an Eq query).
func (x *Index[T]) CountRanges(ctx context.Context, qs []Query[T], by string) (_ map[string]int64, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, x.r.c)
	defer func() { err = endOp(err) }()
	var ranges []keys.KeyRange
	for _, q := range qs {
		p, err := x.planOf(ctx, q)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, p.ranges...)
	}
	return x.count(ctx, ranges, by)
}

func (x *Index[T]) count(ctx context.Context, ranges []keys.KeyRange, by string) (map[string]int64, error) {
	layout := x.ix.Key()
	pos := -1
	if by != "" {
		if pos = layout.SegmentIndex(by); pos < 0 {
			segs := layout.Segments()
			names := make([]string, len(segs))
			for i, s := range segs {
				names[i] = s.Name
			}
			return nil, &QueryError{Table: x.name, Field: "by", Reason: fmt.Sprintf("%q is not a segment of the index key (%v)", by, names)}
		}
	}
	var seg keys.Segment
	if pos >= 0 {
		seg = layout.Segments()[pos]
	}
	group := func(key []byte) string {
		if pos < 0 {
			return ""
		}
		parts, err := layout.Parts(key)
		if err != nil || pos >= len(parts) {
			return ""
		}
		text, err := seg.Text(parts[pos])
		if err != nil {
			return string(parts[pos]) // an entry another client wrote: its bytes
		}
		return text
	}
	out, err := x.r.ix.Count(ctx, x.declared, ranges, group)
	if err != nil {
		return nil, x.readError(ctx, err)
	}
	return out, nil
}
