package dao

import (
	"container/heap"
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// chunkRows is the number of rows a merged scan's goroutine decodes and
// hands over at a time.
const chunkRows = 64

// chunk is a run of decoded rows of one range, or the error that ended it.
type chunk[T any] struct {
	items []item[T]
	err   error
}

// merged reads every range with its own scanner and goroutine and merges
// the streams in key order (container/heap, a k-way merge). At most
// r.conc goroutines fetch and decode at a time. When the loop ends, by
// limit, break, error or ctx, the goroutines are cancelled and waited for
// before the iterator returns.
func (r *Repo[T]) merged(ctx context.Context, p *plan, ranges []keys.KeyRange) iter.Seq2[item[T], error] {
	return func(yield func(item[T], error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() {
			cancel()
			wg.Wait()
		}()
		sem := make(chan struct{}, r.conc)
		chans := make([]chan chunk[T], len(ranges))
		for i, kr := range ranges {
			ch := make(chan chunk[T], 1)
			chans[i] = ch
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(ch)
				r.pump(ctx, p, kr, sem, ch)
			}()
		}
		h := &mergeHeap[T]{skip: p.skip, reversed: p.reversed}
		// recv takes the next chunk of stream i into the heap; it reports
		// false after yielding an error.
		recv := func(i int) bool {
			select {
			case c, ok := <-chans[i]:
				switch {
				case !ok:
					return true // stream finished
				case c.err != nil:
					yield(item[T]{}, c.err)
					return false
				}
				heap.Push(h, &cursor[T]{src: i, items: c.items})
				return true
			case <-ctx.Done():
				yield(item[T]{}, ctx.Err())
				return false
			}
		}
		for i := range chans {
			if !recv(i) {
				return
			}
		}
		for n := 0; h.Len() > 0 && (p.limit == 0 || n < p.limit); n++ {
			// Rows already fetched must not outlive the context either.
			if err := ctx.Err(); err != nil {
				yield(item[T]{}, err)
				return
			}
			c := h.cur[0]
			it := c.items[c.pos]
			if !yield(it, nil) {
				return
			}
			c.pos++
			if c.pos < len(c.items) {
				heap.Fix(h, 0)
				continue
			}
			heap.Pop(h)
			if !recv(c.src) {
				return
			}
		}
	}
}

// pump scans one range and sends its decoded rows in chunks. It holds a
// slot of sem while it fetches and decodes, not while it waits for the
// merger.
func (r *Repo[T]) pump(ctx context.Context, p *plan, kr keys.KeyRange, sem chan struct{}, ch chan<- chunk[T]) {
	send := func(c chunk[T]) bool {
		select {
		case ch <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	acquire := func() bool {
		select {
		case sem <- struct{}{}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	release := func() { <-sem }
	if !acquire() {
		return
	}
	st, err := r.open(ctx, kr, p)
	if err != nil {
		release()
		send(chunk[T]{err: err})
		return
	}
	defer st.sc.Close()
	var cells []schema.Cell
	sent := 0
	for {
		size := chunkRows
		if p.limit > 0 {
			size = min(size, p.limit-sent)
		}
		items := make([]item[T], 0, size)
		var ferr error
		for len(items) < size {
			res, err := st.next(r.live)
			if err != nil {
				ferr = fmt.Errorf("dao: scan %q: %w", r.name, err)
				break
			}
			if res == nil {
				break
			}
			v := new(T)
			if cells, err = r.decode(res, cells, v); err != nil {
				ferr = err
				break
			}
			items = append(items, item[T]{key: res.Row(), v: v})
		}
		release()
		if len(items) > 0 && !send(chunk[T]{items: items}) {
			return
		}
		if ferr != nil {
			send(chunk[T]{err: ferr})
			return
		}
		sent += len(items)
		if st.done || len(items) < size || (p.limit > 0 && sent >= p.limit) {
			return
		}
		if !acquire() {
			return
		}
	}
}

// cursor is the unread part of one stream's current chunk.
type cursor[T any] struct {
	src   int
	items []item[T]
	pos   int
}

// mergeHeap orders cursors by their current key (container/heap).
type mergeHeap[T any] struct {
	cur      []*cursor[T]
	skip     int
	reversed bool
}

func (h *mergeHeap[T]) Len() int { return len(h.cur) }
func (h *mergeHeap[T]) Less(i, j int) bool {
	a, b := h.cur[i].items[h.cur[i].pos].key, h.cur[j].items[h.cur[j].pos].key
	c := mergeCmp(a, b, h.skip)
	if h.reversed {
		return c > 0
	}
	return c < 0
}
func (h *mergeHeap[T]) Swap(i, j int) { h.cur[i], h.cur[j] = h.cur[j], h.cur[i] }
func (h *mergeHeap[T]) Push(x any)    { h.cur = append(h.cur, x.(*cursor[T])) }
func (h *mergeHeap[T]) Pop() any {
	n := len(h.cur) - 1
	c := h.cur[n]
	h.cur[n] = nil
	h.cur = h.cur[:n]
	return c
}
