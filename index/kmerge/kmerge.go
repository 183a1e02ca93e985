// Package kmerge merges sorted streams into one sorted stream, reading
// them concurrently with bounded memory: the one streaming multi-range
// merge behind dao's scans and index's reads. It uses only the standard
// library. It is a part of hbkit's machinery, shared by packages dao and
// index; applications have no use for it.
package kmerge

import (
	"container/heap"
	"context"
	"iter"
	"sync"
)

// Source streams one sorted run: it calls emit with each element in
// order, and returns at its end, on error, or as soon as emit reports
// false (the merge needs no more of it).
type Source[E any] func(ctx context.Context, emit func(E) bool) error

// Config shapes a merge.
type Config[E any] struct {
	// Cmp orders the merged stream; elements of one source keep their
	// order.
	Cmp func(a, b E) int
	// Conc bounds the sources fetching at a time (at least 1). A source
	// holds its slot while it produces a chunk, not while it waits for
	// the merger to take it.
	Conc int
	// Chunk is how many elements a source hands over at a time (at
	// least 1): a source reads at most three chunks ahead of what the
	// merger yielded (the one the merger holds, one waiting in its
	// channel, one it is sending).
	Chunk int
	// Limit, if positive, ends the merge after that many elements; no
	// source is asked for more than Limit.
	Limit int
}

// chunk is a run of elements of one source, or the error that ended it.
type chunk[E any] struct {
	items []E
	err   error
}

// Merge reads every source with its own goroutine and merges their
// elements in Cmp order (a k-way merge over container/heap). An error of
// a source is yielded once, when the merge reaches it, and ends the
// merge. When the loop ends, by limit, break, error or ctx, the
// goroutines are cancelled and waited for before the iterator returns.
func Merge[E any](ctx context.Context, srcs []Source[E], c Config[E]) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer func() {
			cancel()
			wg.Wait()
		}()
		sem := make(chan struct{}, max(c.Conc, 1))
		chans := make([]chan chunk[E], len(srcs))
		for i, src := range srcs {
			ch := make(chan chunk[E], 1)
			chans[i] = ch
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(ch)
				pump(ctx, src, &c, sem, ch)
			}()
		}
		h := &mergeHeap[E]{cmp: c.Cmp}
		// recv takes the next chunk of source i into the heap; it reports
		// false after yielding an error.
		recv := func(i int) bool {
			select {
			case ck, ok := <-chans[i]:
				switch {
				case !ok:
					return true // source finished
				case ck.err != nil:
					yield(zero, ck.err)
					return false
				}
				heap.Push(h, &cursor[E]{src: i, items: ck.items})
				return true
			case <-ctx.Done():
				yield(zero, ctx.Err())
				return false
			}
		}
		for i := range chans {
			if !recv(i) {
				return
			}
		}
		for n := 0; h.Len() > 0 && (c.Limit <= 0 || n < c.Limit); n++ {
			// Elements already fetched must not outlive the context either.
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			cur := h.cur[0]
			if !yield(cur.items[cur.pos], nil) {
				return
			}
			cur.pos++
			if cur.pos < len(cur.items) {
				heap.Fix(h, 0)
				continue
			}
			heap.Pop(h)
			if !recv(cur.src) {
				return
			}
		}
	}
}

// pump runs one source and sends its elements in chunks, holding a slot
// of sem while the source produces.
func pump[E any](ctx context.Context, src Source[E], c *Config[E], sem chan struct{}, ch chan<- chunk[E]) {
	send := func(ck chunk[E]) bool {
		select {
		case ch <- ck:
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
	if !acquire() {
		return
	}
	held, gone := true, false
	sent := 0
	size := func() int {
		n := max(c.Chunk, 1)
		if c.Limit > 0 {
			n = min(n, c.Limit-sent)
		}
		return n
	}
	items := make([]E, 0, size())
	err := src(ctx, func(e E) bool {
		if gone || !held {
			return false
		}
		items = append(items, e)
		if len(items) < cap(items) {
			return true
		}
		<-sem
		held = false
		if !send(chunk[E]{items: items}) {
			gone = true
			return false
		}
		sent += len(items)
		if c.Limit > 0 && sent >= c.Limit {
			items = nil
			return false // no source contributes more than the limit
		}
		if !acquire() {
			gone = true
			return false
		}
		held = true
		items = make([]E, 0, size())
		return true
	})
	if held {
		<-sem
	}
	if gone {
		return
	}
	if len(items) > 0 && !send(chunk[E]{items: items}) {
		return
	}
	if err != nil {
		send(chunk[E]{err: err})
	}
}

// cursor is the unread part of one source's current chunk.
type cursor[E any] struct {
	src   int
	items []E
	pos   int
}

// mergeHeap orders cursors by their current element (container/heap).
type mergeHeap[E any] struct {
	cur []*cursor[E]
	cmp func(a, b E) int
}

func (h *mergeHeap[E]) Len() int { return len(h.cur) }
func (h *mergeHeap[E]) Less(i, j int) bool {
	return h.cmp(h.cur[i].items[h.cur[i].pos], h.cur[j].items[h.cur[j].pos]) < 0
}
func (h *mergeHeap[E]) Swap(i, j int) { h.cur[i], h.cur[j] = h.cur[j], h.cur[i] }
func (h *mergeHeap[E]) Push(x any)    { h.cur = append(h.cur, x.(*cursor[E])) }
func (h *mergeHeap[E]) Pop() any {
	n := len(h.cur) - 1
	c := h.cur[n]
	h.cur[n] = nil
	h.cur = h.cur[:n]
	return c
}
