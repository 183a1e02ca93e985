package dao_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
)

// rowCounter counts the rows the store reads from scans of one table.
type rowCounter struct {
	dao.Client
	table string
	rows  atomic.Int64
}

func (c *rowCounter) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	sc, err := c.Client.Scan(ctx, s)
	if err != nil || s.Table != c.table {
		return sc, err
	}
	return &countingScanner{Scanner: sc, n: &c.rows}, nil
}

type countingScanner struct {
	hbase.Scanner
	n *atomic.Int64
}

func (s *countingScanner) Next() bool {
	ok := s.Scanner.Next()
	if ok {
		s.n.Add(1)
	}
	return ok
}

// TestIndexFindLimitReadsLittle: a read of an index over many large
// ranges with a small limit stops its scans early, each having read at
// most three chunks of the limit's size (see kmerge.Config.Chunk),
// instead of buffering every range whole before the limit applies.
func TestIndexFindLimitReadsLittle(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	counter := &rowCounter{Client: f, table: "parcels_by_color"}
	r, err := dao.New(counter, tbl)
	if err != nil {
		t.Fatal(err)
	}
	const colors, perColor, limit = 10, 300, 5
	var ps []*Parcel
	for c := range colors {
		for i := range perColor {
			ps = append(ps, &Parcel{ID: fmt.Sprintf("c%d-p%04d", c, i), Color: fmt.Sprintf("c%d", c), Qty: int64(i)})
		}
	}
	for part := range slices.Chunk(ps, 500) {
		if _, err := r.PutBatch(ctx, part); err != nil {
			t.Fatal(err)
		}
	}
	x, err := r.Index("parcels_by_color")
	if err != nil {
		t.Fatal(err)
	}
	var ranges []keys.KeyRange
	for c := range colors {
		ranges = append(ranges, keys.KeyRange{Start: []byte{'c', byte('0' + c)}, Stop: []byte{'c', byte('0' + c + 1)}})
	}
	all, err := dao.Collect(x.Find(ctx, dao.Query[Parcel]{Ranges: ranges}))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != colors*perColor {
		t.Fatalf("unlimited read: %d records, want %d", len(all), colors*perColor)
	}
	counter.rows.Store(0)
	got, err := dao.Collect(x.Find(ctx, dao.Query[Parcel]{Ranges: ranges, Limit: limit}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != limit {
		t.Fatalf("%d records, want %d", len(got), limit)
	}
	for i, p := range got {
		if p != all[i] {
			t.Errorf("record %d: got %+v, want %+v", i, p, all[i])
		}
	}
	n, most := counter.rows.Load(), int64(colors*3*limit)
	t.Logf("%d index rows read for %d records", n, limit)
	if n > most {
		t.Errorf("read %d index rows for %d records, want at most %d (3 chunks of %d per range)", n, limit, most, limit)
	}
}
