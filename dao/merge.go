package dao

import (
	"context"
	"fmt"
	"iter"

	"github.com/hbkit/hbkit/index/kmerge"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// chunkRows is the number of rows a merged scan's goroutine decodes and
// hands over at a time.
const chunkRows = 64

// merged reads every range with its own scanner and goroutine and merges
// the streams in key order (package kmerge, the merge index reads use
// too). At most r.conc goroutines fetch and decode at a time. When the
// loop ends, by limit, break, error or ctx, the goroutines are cancelled
// and waited for before the iterator returns.
func (r *Repo[T]) merged(ctx context.Context, p *plan, ranges []keys.KeyRange) iter.Seq2[item[T], error] {
	srcs := make([]kmerge.Source[item[T]], len(ranges))
	for i, kr := range ranges {
		srcs[i] = r.source(p, kr)
	}
	cmp := func(a, b item[T]) int {
		c := mergeCmp(a.key, b.key, p.skip)
		if p.reversed {
			return -c
		}
		return c
	}
	return kmerge.Merge(ctx, srcs, kmerge.Config[item[T]]{Cmp: cmp, Conc: r.conc, Chunk: chunkRows, Limit: p.limit})
}

// source scans one range and emits its decoded rows.
func (r *Repo[T]) source(p *plan, kr keys.KeyRange) kmerge.Source[item[T]] {
	return func(ctx context.Context, emit func(item[T]) bool) error {
		st, err := r.open(ctx, kr, p)
		if err != nil {
			return err
		}
		defer st.sc.Close()
		var cells []schema.Cell
		for {
			res, err := st.next(r.live)
			if err != nil {
				return fmt.Errorf("dao: scan %q: %w", r.name, err)
			}
			if res == nil {
				return nil
			}
			v := new(T)
			if cells, err = r.decode(res, cells, v); err != nil {
				return err
			}
			if !emit(item[T]{key: res.Row(), v: v}) {
				return nil
			}
		}
	}
}
