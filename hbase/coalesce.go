package hbase

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// Coalescing of single-row writes.
//
// A Put (or an idempotent Delete) goes straight to its region server as a
// Mutate unless maxWritesInFlight such writes to that server are in
// flight. Then it waits in the server's queue; as soon as a write in
// flight returns, the queue is sent as one Multi, and so on while writes
// keep coming. An idle client adds no latency (no timer), a busy one sends
// fewer, larger requests. Only idempotent writes are queued, so whether a queued write
// whose caller gave up reached the server changes nothing for its caller:
// each caller retries (or not) on its own outcome, as with a Mutate.

// maxWritesInFlight is how many writes (a Mutate or a queue's Multi) go
// to one server at once before single-row writes queue. With 1, four
// writers lost a quarter of their throughput (docs/writes.md).
const maxWritesInFlight = 2

// writeQueue is the queue of single-row writes to one region server.
type writeQueue struct {
	mu       sync.Mutex
	inFlight int // writes in flight, at most maxWritesInFlight
	waiting  []*queuedWrite
}

// queuedWrite is one write waiting in a writeQueue.
type queuedWrite struct {
	it   *batchItem // the action, its region in it.reg
	done chan error // buffered; receives the outcome once
	// taken is set by the sender (the write goes out) or by the caller
	// (it gave up first); whoever sets it first decides.
	taken atomic.Bool
}

// writeQueue returns the queue of the server at addr.
func (c *Client) writeQueue(addr string) *writeQueue {
	if q, ok := c.writeQueues.Load(addr); ok {
		return q.(*writeQueue)
	}
	q, _ := c.writeQueues.LoadOrStore(addr, &writeQueue{})
	return q.(*writeQueue)
}

// writeRow writes the idempotent mutation m to row, coalesced with other
// single-row writes to the same server (see above).
func (c *Client) writeRow(ctx context.Context, table string, row []byte, m *pb.MutationProto) error {
	return c.regionWrite(ctx, table, row, true, func(actx context.Context, r *region) error {
		q := c.writeQueue(r.addr)
		q.mu.Lock()
		if q.inFlight < maxWritesInFlight {
			q.inFlight++
			q.mu.Unlock()
			err := c.rsCall(actx, r.addr, "Mutate", &pb.MutateRequest{Region: r.specifier(), Mutation: m}, nil)
			c.sendQueued(q, r.addr)
			return err
		}
		w := &queuedWrite{
			it: &batchItem{table: table, row: row, reg: r, idempotent: true,
				pa: &pb.Action{Mutation: m}}, // Index: set by sendWriteMulti
			done: make(chan error, 1),
		}
		q.waiting = append(q.waiting, w)
		q.mu.Unlock()
		select {
		case err := <-w.done:
			return err
		case <-actx.Done():
			// Not sent yet (the sender will skip it), or on its way in
			// a Multi: give up waiting, as the caller of a Mutate does.
			w.taken.Store(true)
			return fmt.Errorf("hbase: queued write: %w", actx.Err())
		}
	})
}

// sendQueued is called when a write in flight to addr returned: it hands
// its place to a goroutine that sends the queue as Multis until the queue
// stays empty, or gives the place up if nothing waits.
func (c *Client) sendQueued(q *writeQueue, addr string) {
	q.mu.Lock()
	if len(q.waiting) == 0 {
		q.inFlight--
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	go func() {
		for {
			q.mu.Lock()
			batch := q.waiting
			q.waiting = nil
			if len(batch) == 0 {
				q.inFlight--
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
			c.sendWrites(addr, batch)
		}
	}()
}

// sendWrites sends the queued writes whose callers still wait as one
// Multi (or several, maxActionsPerMulti each) and gives each caller its
// outcome.
func (c *Client) sendWrites(addr string, batch []*queuedWrite) {
	live := batch[:0]
	for _, w := range batch {
		if w.taken.CompareAndSwap(false, true) {
			live = append(live, w)
		}
	}
	for len(live) > 0 {
		n := min(len(live), maxActionsPerMulti)
		c.sendWriteMulti(addr, live[:n])
		live = live[n:]
	}
}

func (c *Client) sendWriteMulti(addr string, ws []*queuedWrite) {
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
		ws[o.it.idx].done <- o.err
	}
}
