package bench

import (
	"context"

	"github.com/hbkit/hbkit/hbase"
)

// putOverhead approximates what the Java client counts on top of a put's
// bytes in Mutation.heapSize (object headers, the family map, the
// KeyValue's length fields, timestamp and type), so that a flush carries
// about as many puts as a BufferedMutator's does. For PE's put (26-byte
// row, info0:0, 1,000-byte value) HBase 2.6.4's Put.heapSize() is 1,384
// bytes; putSize says 1,378.
const putOverhead = 160

// mutator buffers puts like the Java client's BufferedMutator: Mutate adds
// a put and, once the estimated heap size of the buffer passes the limit,
// sends the whole buffer in one Batch and waits for it. Flush sends what is
// left. A mutator is used by one goroutine.
type mutator struct {
	c     hbase.DataClient
	limit int
	buf   []hbase.Action
	size  int
}

func newMutator(c hbase.DataClient, limit int) *mutator {
	return &mutator{c: c, limit: limit}
}

// putSize estimates the heap size of a put the way the buffer counts it.
func putSize(p *hbase.Put) int {
	n := len(p.Row) + putOverhead
	for _, c := range p.Cells {
		n += len(p.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + putOverhead
	}
	for f, qs := range p.Values {
		for q, v := range qs {
			n += len(p.Row) + len(f) + len(q) + len(v) + putOverhead
		}
	}
	return n
}

// Mutate buffers p, flushing when the buffer is over its limit.
func (m *mutator) Mutate(ctx context.Context, p *hbase.Put) error {
	m.buf = append(m.buf, p)
	m.size += putSize(p)
	if m.size <= m.limit {
		return nil
	}
	return m.Flush(ctx)
}

// Flush sends the buffered puts in one Batch and waits for the answer.
func (m *mutator) Flush(ctx context.Context) error {
	if len(m.buf) == 0 {
		return nil
	}
	batch := m.buf
	m.buf = make([]hbase.Action, 0, cap(batch))
	m.size = 0
	_, err := m.c.Batch(ctx, batch)
	return err
}
