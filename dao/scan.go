package dao

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// item is a decoded record and its row key.
type item[T any] struct {
	key []byte
	v   *T
}

// Collect drains an iterator of records (Scan, Messages) into a slice of
// copies, stopping at the first error, which it returns with nothing
// else.
func Collect[T any](seq iter.Seq2[*T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, nil
}

// Scan returns an iterator over the records q selects, decoded, in order.
// An error (an invalid query or token, a failed scan, a row that does not
// decode) is yielded once, as the last element, with a nil record.
// Breaking out of the loop stops every scan and goroutine before the
// iterator returns.
//
//	for m, err := range repo.Scan(ctx, dao.Prefix(&Message{Mobile: mobile}, 1)) {
//		if err != nil { ... }
//		...
//	}
func (r *Repo[T]) Scan(ctx context.Context, q Query[T]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		p, err := r.planOf(ctx, q)
		if err != nil {
			yield(nil, err)
			return
		}
		for it, err := range r.items(ctx, p) {
			if err == nil {
				err = r.setNames(ctx, it.v)
			}
			if !yield(it.v, err) || err != nil {
				return
			}
		}
	}
}

// Page returns up to size records of q after q.Resume, and the token that
// continues after the last of them; the token is empty when the query has
// no more rows. Pages of one query never repeat or skip a row that was
// there during the whole paging (rows written meanwhile may or may not
// show, as with any HBase scan). q.Limit is ignored.
func (r *Repo[T]) Page(ctx context.Context, q Query[T], size int) (_ []*T, _ Token, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, r.c)
	defer func() { err = endOp(err) }()
	if size < 1 {
		return nil, "", &QueryError{Table: r.name, Field: "size", Reason: "page size must be at least 1"}
	}
	q.Limit = 0
	p, err := r.planOf(ctx, q)
	if err != nil {
		return nil, "", err
	}
	p.limit = size + 1 // one more tells whether there is a next page
	out := make([]*T, 0, size)
	var last []byte
	more := false
	for it, err := range r.items(ctx, p) {
		if err != nil {
			return nil, "", err
		}
		if len(out) == size {
			more = true
			break
		}
		if err := r.setNames(ctx, it.v); err != nil {
			return nil, "", err
		}
		out = append(out, it.v)
		last = it.key
	}
	if !more {
		return out, "", nil
	}
	return out, p.token(last), nil
}

// items runs a plan: one scan, or one per range merged.
func (r *Repo[T]) items(ctx context.Context, p *plan) iter.Seq2[item[T], error] {
	ranges := p.resumed()
	switch len(ranges) {
	case 0:
		return func(func(item[T], error) bool) {}
	case 1:
		return r.single(ctx, p, ranges[0])
	}
	return r.merged(ctx, p, ranges)
}

// scanOf builds the scan of one range. A reversed scan in HBase starts at
// its StartRow (included) and stops before StopRow (excluded), so the
// half-open [Start, Stop) is read from Stop down, skipping a row equal to
// Stop, to a StopRow just below Start; the stream drops what lies below
// Start.
func (r *Repo[T]) scanOf(kr keys.KeyRange, p *plan) *hbapi.Scan {
	s := &hbapi.Scan{Table: r.name, Reversed: p.reversed, Caching: r.caching, Limit: p.limit}
	if r.ix != nil {
		// Tombstones of deleted records are skipped here, not on the
		// server: a server-side limit would count them.
		s.Limit = 0
	}
	if s.Limit > 0 {
		if p.reversed {
			s.Limit++ // room for a row equal to Stop, which is skipped
		}
		if s.Caching == 0 || s.Caching > s.Limit {
			s.Caching = s.Limit
		}
	}
	if !p.reversed {
		s.StartRow, s.StopRow = kr.Start, kr.Stop
		return s
	}
	s.StartRow = kr.Stop
	if n := len(kr.Start); n > 0 {
		below := bytes.Clone(kr.Start[:n-1])
		if last := kr.Start[n-1]; last > 0 {
			below = append(below, last-1)
		}
		if len(below) > 0 {
			s.StopRow = below
		}
	}
	return s
}

// stream reads the rows of one range from a scanner, in scan order.
type stream struct {
	sc       hbapi.Scanner
	lo, hi   []byte
	reversed bool
	done     bool
}

// next returns the next row of the range that passes live, nil at its
// end.
func (s *stream) next(live func(*hbapi.Result) bool) (*hbapi.Result, error) {
	for !s.done && s.sc.Next() {
		res := s.sc.Result()
		if !live(res) {
			continue
		}
		key := res.Row()
		if !s.reversed {
			return res, nil
		}
		if s.hi != nil && bytes.Compare(key, s.hi) >= 0 {
			continue
		}
		if bytes.Compare(key, s.lo) < 0 {
			s.done = true
			break
		}
		return res, nil
	}
	s.done = true
	return nil, s.sc.Err()
}

func (r *Repo[T]) open(ctx context.Context, kr keys.KeyRange, p *plan) (*stream, error) {
	sc, err := r.c.Scan(ctx, r.scanOf(kr, p))
	if err != nil {
		return nil, fmt.Errorf("dao: scan %q: %w", r.name, err)
	}
	return &stream{sc: sc, lo: kr.Start, hi: kr.Stop, reversed: p.reversed}, nil
}

// single reads one range without goroutines.
func (r *Repo[T]) single(ctx context.Context, p *plan, kr keys.KeyRange) iter.Seq2[item[T], error] {
	return func(yield func(item[T], error) bool) {
		st, err := r.open(ctx, kr, p)
		if err != nil {
			yield(item[T]{}, err)
			return
		}
		defer st.sc.Close()
		var cells []schema.Cell
		for n := 0; p.limit == 0 || n < p.limit; n++ {
			if err := ctx.Err(); err != nil {
				yield(item[T]{}, err)
				return
			}
			res, err := st.next(r.live)
			if err != nil {
				yield(item[T]{}, fmt.Errorf("dao: scan %q: %w", r.name, err))
				return
			}
			if res == nil {
				return
			}
			v := new(T)
			if cells, err = r.decode(res, cells, v); err != nil {
				yield(item[T]{}, err)
				return
			}
			if !yield(item[T]{key: res.Row(), v: v}, nil) {
				return
			}
		}
	}
}
