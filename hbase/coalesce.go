package hbase

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// Coalescing of single-row calls.
//
// A Put (or an idempotent Delete) goes straight to its region server as a
// Mutate unless maxWritesInFlight such writes to that server are in
// flight. Then it waits in the server's queue; as soon as a write in
// flight returns, the queue is sent as one Multi, and so on while writes
// keep coming. An idle client adds no latency (no timer), a busy one sends
// fewer, larger requests. Only idempotent writes are queued, so whether a queued write
// whose caller gave up reached the server changes nothing for its caller:
// each caller retries (or not) on its own outcome, as with a Mutate.
//
// A Get is coalesced the same way, in a queue of its own per server (a
// read never waits behind writes): it is sent as a Get while fewer than
// maxReadsInFlight Gets to that server are in flight, and otherwise goes
// with the other waiting Gets as one Multi. A Get is safe to send twice.

// maxWritesInFlight is how many calls of one kind (a Mutate or a Get, or
// a queue's Multi) go to one server at once before single-row calls of
// that kind queue. With 1, four writers lost a quarter of their
// throughput (docs/writes.md).
const maxWritesInFlight = 2

// maxReadsInFlight is maxWritesInFlight for Gets. A Get that queues
// waits for a Get in flight to return before its Multi goes: with 2, four
// readers were a fifth slower than with no queue at all (docs/writes.md),
// and with 4 they never queue. From about eight readers up, coalescing
// pays (32 readers: 1.6–2.3× the Gets per second without it).
const maxReadsInFlight = 4

// queueKey names a rowQueue: a region server, and whether it queues Gets
// or writes.
type queueKey struct {
	addr  string
	reads bool
}

// rowQueue is the queue of single-row calls of one kind to one region
// server.
type rowQueue struct {
	mu       sync.Mutex
	inFlight int // calls in flight, at most maxWritesInFlight
	waiting  []*queuedCall
}

// queuedCall is one call waiting in a rowQueue.
type queuedCall struct {
	it   *batchItem   // the action, its region in it.reg
	done chan outcome // buffered; receives the outcome once
	// taken is set by the sender (the call goes out) or by the caller
	// (it gave up first); whoever sets it first decides.
	taken atomic.Bool
}

// rowQueue returns the queue of calls of the given kind to the server at
// addr.
func (c *Client) rowQueue(addr string, reads bool) *rowQueue {
	k := queueKey{addr, reads}
	if q, ok := c.rowQueues.Load(k); ok {
		return q.(*rowQueue)
	}
	q, _ := c.rowQueues.LoadOrStore(k, &rowQueue{})
	return q.(*rowQueue)
}

// writeRow writes the idempotent mutation m to row, coalesced with other
// single-row writes to the same server (see above).
func (c *Client) writeRow(ctx context.Context, table string, row []byte, m *pb.MutationProto) error {
	return c.regionWrite(ctx, table, row, true, func(actx context.Context, r *region) error {
		_, err := c.coalesced(actx, r, row, false, func() *pb.Action { return &pb.Action{Mutation: m} },
			func() (*Result, error) {
				return nil, c.rsCall(actx, r.addr, "Mutate", &pb.MutateRequest{Region: r.specifier(), Mutation: m}, nil)
			})
		return err
	})
}

// coalesced makes a single-row call on row of region r: by direct while fewer
// than its kind's limit of calls are in flight to r's server, and
// otherwise queued, as the Multi action that action builds (called only
// then), to go out with the others. Neither function outlives the call.
func (c *Client) coalesced(actx context.Context, r *region, row []byte, reads bool, action func() *pb.Action, direct func() (*Result, error)) (*Result, error) {
	q := c.rowQueue(r.addr, reads)
	limit := maxWritesInFlight
	if reads {
		limit = maxReadsInFlight
	}
	q.mu.Lock()
	if q.inFlight < limit {
		q.inFlight++
		q.mu.Unlock()
		res, err := direct()
		c.sendQueued(q, r.addr)
		return res, err
	}
	// it.idx and it.pa.Index: set by sendQueuedMulti.
	w := &queuedCall{
		it:   &batchItem{table: r.table, row: row, reg: r, idempotent: true, pa: action()},
		done: make(chan outcome, 1),
	}
	w.it.size = proto.Size(w.it.pa)
	q.waiting = append(q.waiting, w)
	q.mu.Unlock()
	select {
	case o := <-w.done:
		return o.res, o.err
	case <-actx.Done():
		// Not sent yet (the sender will skip it), or on its way in
		// a Multi: give up waiting, as the caller of a Mutate does.
		w.taken.Store(true)
		what := "write"
		if reads {
			what = "read"
		}
		return nil, fmt.Errorf("hbase: queued %s: %w", what, actx.Err())
	}
}

// sendQueued is called when a call in flight to addr returned: it hands
// its place to a goroutine that sends the queue as Multis until the queue
// stays empty, or gives the place up if nothing waits.
func (c *Client) sendQueued(q *rowQueue, addr string) {
	q.mu.Lock()
	if len(q.waiting) == 0 {
		q.inFlight--
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	go func() {
		yielded := false
		for {
			q.mu.Lock()
			batch := q.waiting
			q.waiting = nil
			if len(batch) == 0 && !yielded {
				// The callers just answered are about to call again:
				// let them run and queue once, so that their calls go
				// in the next Multi rather than one of them taking the
				// freed place alone and the rest queueing behind it.
				q.mu.Unlock()
				yielded = true
				runtime.Gosched()
				continue
			}
			if len(batch) == 0 {
				q.inFlight--
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
			yielded = false
			c.sendQueuedCalls(addr, batch)
		}
	}()
}

// sendQueuedCalls sends the queued calls whose callers still wait as one
// Multi (or several, of at most maxActionsPerMulti actions and the write
// buffer's bytes each) and gives each caller its outcome.
func (c *Client) sendQueuedCalls(addr string, batch []*queuedCall) {
	live := batch[:0]
	for _, w := range batch {
		if w.taken.CompareAndSwap(false, true) {
			live = append(live, w)
		}
	}
	for len(live) > 0 {
		n, size := 0, 0
		for n < len(live) && n < maxActionsPerMulti && (n == 0 || size+live[n].it.size <= c.opts.writeBuffer) {
			size += live[n].it.size
			n++
		}
		c.sendQueuedMulti(addr, live[:n])
		live = live[n:]
	}
}

func (c *Client) sendQueuedMulti(addr string, ws []*queuedCall) {
	// Bounded as the callers' own attempts are: the operation timeout,
	// and the RPC timeout for the Multi itself. A caller whose attempt
	// ends first stops waiting for it.
	ctx, cancel := c.operationContext(context.Background())
	defer cancel()
	mr := &multiReq{addr: addr, n: len(ws)}
	groupOf := make(map[*region]*regionGroup)
	for i, w := range ws {
		w.it.idx = i
		w.it.pa.Index = proto.Uint32(uint32(i))
		g := groupOf[w.it.reg]
		if g == nil {
			g = &regionGroup{reg: w.it.reg}
			groupOf[w.it.reg] = g
			mr.groups = append(mr.groups, g)
		}
		g.items = append(g.items, w.it)
	}
	for _, o := range c.sendMulti(ctx, mr) {
		if o.err == nil && o.res == nil && o.it.pa.Get != nil {
			// A Get's result is never absent, even for a missing row:
			// as from a Get, an empty Result.
			o.res = &Result{}
		}
		ws[o.it.idx].done <- o
	}
}
