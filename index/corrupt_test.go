package index_test

import (
	"bytes"
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// corrupting is a client one of whose answers a test corrupts the way a
// flipped bit on the wire would, where the client cannot tell (a value, a
// timestamp): data is applied to the results of the first Batch of Gets
// of the data table, entries to each row of the scans of the index
// table (a Get of an entry reads it right).
type corrupting struct {
	dao.Client
	dataTable, indexTable string
	data, entries         func(r *hbase.Result)
	corrupted             atomic.Bool // data was applied
}

func (c *corrupting) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	res, err := c.Client.Batch(ctx, acts)
	if c.data == nil || c.corrupted.Load() || !slices.ContainsFunc(acts, func(a hbase.Action) bool {
		g, ok := a.(*hbase.Get)
		return ok && g.Table == c.dataTable
	}) {
		return res, err
	}
	c.corrupted.Store(true)
	for i := range res {
		if g, ok := acts[i].(*hbase.Get); ok && g.Table == c.dataTable && res[i].Result != nil {
			res[i].Result = cloneResult(res[i].Result)
			c.data(res[i].Result)
		}
	}
	return res, err
}

func (c *corrupting) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	sc, err := c.Client.Scan(ctx, s)
	if err != nil || c.entries == nil || s.Table != c.indexTable {
		return sc, err
	}
	return &corruptScanner{Scanner: sc, fn: c.entries}, nil
}

type corruptScanner struct {
	hbase.Scanner
	fn  func(*hbase.Result)
	cur *hbase.Result
}

func (s *corruptScanner) Next() bool {
	if !s.Scanner.Next() {
		return false
	}
	s.cur = cloneResult(s.Scanner.Result())
	s.fn(s.cur)
	return true
}

func (s *corruptScanner) Result() *hbase.Result { return s.cur }

func cloneResult(r *hbase.Result) *hbase.Result {
	out := *r
	out.Cells = slices.Clone(r.Cells)
	for i := range out.Cells {
		out.Cells[i].Value = bytes.Clone(out.Cells[i].Value)
	}
	return &out
}

// flipIn flips a bit of the cell cf:q of r: the lowest of its value's
// last byte, or with ts the lowest set bit of its timestamp.
func flipIn(q string, ts bool) func(*hbase.Result) {
	return func(r *hbase.Result) {
		for i := range r.Cells {
			c := &r.Cells[i]
			if string(c.Family) != "cf" || string(c.Qualifier) != q || len(c.Value) == 0 {
				continue
			}
			if ts {
				c.Timestamp &^= c.Timestamp & -c.Timestamp // its lowest set bit: older
			} else {
				c.Value[len(c.Value)-1] ^= 1
			}
		}
	}
}

// TestCorruptReadNeverDropsAnEntry (issue 34): a reader whose answers are
// corrupted where the client cannot tell (a bit of a value or a timestamp
// of the data row it reads, or of the row pointer of the entry it scans)
// returns what it can, but its read repair never deletes the entry of an
// acknowledged record: the entry looks like a dead orphan only through
// the corrupted answer. Before, a strict or insert-only reader deleted
// the verified entry (make test-faults, corrupt: "the index of ... misses
// ... (acknowledged: true)").
func TestCorruptReadNeverDropsAnEntry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		data, entries func(*hbase.Result)
	}{
		{"data row: a bit of the account", flipIn("a", false), nil},
		{"data row: a bit of the account's timestamp", flipIn("a", true), nil},
		{"entry: a bit of the row pointer", nil, flipIn("row", false)},
	}
	for _, mode := range []schema.WriteMode{schema.Strict, schema.InsertOnly} {
		for _, tt := range tests {
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				b, c := newFakeBackend(t)
				healthy := b.sms(t, dao.WithWriteMode(mode), dao.WithReadRepair(false), dao.WithAsyncVerify(false))
				m := msg(7, "acme", time.Hour)
				if errs, err := healthy.PutBatch(ctx, []*seeds.SMS{m}); err != nil || errs[0] != nil {
					t.Fatalf("PutBatch: %v %v", errs, err)
				}
				faulty := b.smsOver(t, &corrupting{Client: c, dataTable: b.data, indexTable: b.index, data: tt.data, entries: tt.entries},
					dao.WithWriteMode(mode))
				got, err := faulty.MessagesOfAccountOnDate(ctx, "acme", day0)
				t.Logf("the corrupted read returned %v, %v", mobiles(got), err)
				assertMessages(t, healthy, "acme", []string{m.Mobile})
				assertClean(t, healthy, 1)
			})
		}
	}
}
