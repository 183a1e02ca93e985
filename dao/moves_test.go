package dao_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// ShopOrder is an order whose status and day move it through an index
// keyed [status][day][id]: "latest paid orders" reads one status, day by
// day.
type ShopOrder struct {
	ID     string
	Status string
	Day    time.Time
	Amount int64
}

// ordersByStatus is the index of ordersTable.
const ordersByStatus = "shop_orders_by_status"

func ordersTable(t testing.TB) *schema.Table[ShopOrder] {
	t.Helper()
	return ordersTableWrites(t, schema.Strict)
}

// ordersTableWrites is ordersTable declaring the write mode writes.
func ordersTableWrites(t testing.TB, writes schema.WriteMode) *schema.Table[ShopOrder] {
	t.Helper()
	id := keys.String("id", func(o *ShopOrder) string { return o.ID }, func(o *ShopOrder, v string) { o.ID = v })
	key, err := keys.NewLayout(id)
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(
		keys.String("status", func(o *ShopOrder) string { return o.Status }, func(o *ShopOrder, v string) { o.Status = v }),
		keys.Date("day", func(o *ShopOrder) time.Time { return o.Day }, func(o *ShopOrder, v time.Time) { o.Day = v }),
		id,
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[ShopOrder]{
		Name: "shop_orders", Families: []schema.Family{{Name: "f"}}, Key: key, Writes: writes,
		Columns: []schema.Column[ShopOrder]{
			schema.StringColumn("status", "f", "s", func(o *ShopOrder) string { return o.Status }, func(o *ShopOrder, v string) { o.Status = v }),
			schema.TimeColumn("day", "f", "d", func(o *ShopOrder) time.Time { return o.Day }, func(o *ShopOrder, v time.Time) { o.Day = v.UTC() }),
			schema.Int64Column("amount", "f", "a", func(o *ShopOrder) int64 { return o.Amount }, func(o *ShopOrder, v int64) { o.Amount = v }),
		},
		Indexes: []schema.IndexSpec[ShopOrder]{{
			Name: ordersByStatus, Families: []schema.Family{{Name: "i"}}, Key: ixKey, RowKeyQualifier: "r",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// moveBackend is where a test of moving records runs: the client and the
// options that name its tables.
type moveBackend struct {
	c    dao.Client
	opts []dao.Option
}

// heldClient runs the first Batch that writes the data table in two
// steps: its other actions (the new index entries) at once, then, once
// released, its data-table writes. So a test can read the index while a
// record's move has its new entry written and its data row not yet.
type heldClient struct {
	dao.Client
	data    string
	landed  chan struct{} // closed when the held Batch's entries are written
	release chan struct{} // close to let its data-table writes go
	once    sync.Once
}

func newHeldClient(c dao.Client, data string) *heldClient {
	return &heldClient{Client: c, data: data, landed: make(chan struct{}), release: make(chan struct{})}
}

func writesTable(a hbase.Action, table string) bool {
	switch x := a.(type) {
	case *hbase.Put:
		return x.Table == table
	case *hbase.Delete:
		return x.Table == table
	case *hbase.CheckAndMutate:
		return x.Table == table
	}
	return false
}

func (h *heldClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	if !slices.ContainsFunc(acts, func(a hbase.Action) bool { return writesTable(a, h.data) }) {
		return h.Client.Batch(ctx, acts)
	}
	held := false
	h.once.Do(func() { held = true })
	if !held {
		return h.Client.Batch(ctx, acts)
	}
	var first, later []hbase.Action
	var at []bool // per action: in later
	for _, a := range acts {
		w := writesTable(a, h.data)
		at = append(at, w)
		if w {
			later = append(later, a)
		} else {
			first = append(first, a)
		}
	}
	var r1, r2 []hbase.BatchResult
	var err error
	if len(first) > 0 {
		if r1, err = h.Client.Batch(ctx, first); err != nil {
			close(h.landed)
			return nil, err
		}
	}
	close(h.landed)
	<-h.release
	if r2, err = h.Client.Batch(ctx, later); err != nil {
		return nil, err
	}
	out := make([]hbase.BatchResult, 0, len(acts))
	for _, w := range at {
		if w {
			out, r2 = append(out, r2[0]), r2[1:]
		} else {
			out, r1 = append(out, r1[0]), r1[1:]
		}
	}
	return out, nil
}

// afterGets calls fn once, after the first Batch of Gets of table has
// returned: between two chunks of an index read.
type afterGets struct {
	dao.Client
	table string
	fn    func()
	once  sync.Once
}

func (a *afterGets) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	res, err := a.Client.Batch(ctx, acts)
	if len(acts) > 0 {
		if g, ok := acts[0].(*hbase.Get); ok && g.Table == a.table {
			a.once.Do(a.fn)
		}
	}
	return res, err
}

var (
	day1 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	day2 = time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
)

// testReadsReturnEachRecordOnce moves an order from day 11-02 to 11-03
// inside the range of its status while Find, Page or Keys reads that
// range, through one range or two (one per day): the order's new entry is
// written before the read starts, its data row changes after the read
// has returned the order at its old entry. In the insert-only mode, which
// moves nothing, the order is deleted and inserted again at its new day
// instead. Every order of the status comes back exactly once.
func testReadsReturnEachRecordOnce(t *testing.T, backend func(t *testing.T, mode schema.WriteMode) moveBackend) {
	ctx := context.Background()
	modes := []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly, schema.VerifyOnRead}
	reads := []string{"Find", "Page", "Keys"}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			b := backend(t, mode)
			opts := append(slices.Clone(b.opts), dao.WithWriteMode(mode))
			plain, err := dao.New(b.c, ordersTable(t), opts...)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, read := range reads {
				for _, twoRanges := range []bool{false, true} {
					n++
					status := fmt.Sprintf("paid%d", n) // each case its own orders
					t.Run(fmt.Sprintf("%s ranges=%d", read, map[bool]int{false: 1, true: 2}[twoRanges]), func(t *testing.T) {
						readMoving(t, ctx, b, opts, plain, mode, read, twoRanges, status)
					})
				}
			}
		})
	}
}

func readMoving(t *testing.T, ctx context.Context, b moveBackend, opts []dao.Option, plain *dao.Repo[ShopOrder], mode schema.WriteMode,
	read string, twoRanges bool, status string) {
	var orders []*ShopOrder
	for i := range 21 {
		day := day1
		if i > 10 {
			day = day2
		}
		orders = append(orders, &ShopOrder{ID: fmt.Sprintf("%s-o%02d", status, i), Status: status, Day: day, Amount: int64(i)})
	}
	if _, err := plain.PutBatch(ctx, orders); err != nil {
		t.Fatal(err)
	}
	mover := newHeldClient(b.c, plain.Name())
	movers, err := dao.New(mover, ordersTable(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	moved := *orders[0] // first on 11-02; on 11-03 first again
	moved.Day, moved.Amount = day2, 1000
	done := make(chan error, 1)
	go func() {
		if mode == schema.InsertOnly {
			done <- movers.Insert(ctx, &moved)
		} else {
			done <- movers.Put(ctx, &moved)
		}
	}()
	<-mover.landed
	var moveOnce sync.Once
	move := func() {
		moveOnce.Do(func() {
			if mode == schema.InsertOnly {
				if err := plain.Delete(ctx, orders[0]); err != nil {
					t.Error(err)
				}
				time.Sleep(5 * time.Millisecond) // the insert's cells after the delete's millisecond
			}
			close(mover.release)
			if err := <-done; err != nil {
				t.Errorf("move: %v", err)
			}
		})
	}
	reader := &afterGets{Client: b.c, table: plain.Name(), fn: move}
	readers, err := dao.New(reader, ordersTable(t), append(slices.Clone(opts), dao.WithBatchSize(2))...)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := readers.Index(ordersByStatus)
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&ShopOrder{Status: status}, "status")
	if twoRanges {
		q = dao.Query[ShopOrder]{}
		for _, d := range []time.Time{day1, day2} {
			rs, err := ix.Schema().Key().Ranges(&ShopOrder{Status: status, Day: d}, &ShopOrder{Status: status, Day: d}, 2)
			if err != nil {
				t.Fatal(err)
			}
			q.Ranges = append(q.Ranges, rs...)
		}
	}
	var got []string
	switch read {
	case "Find", "Keys":
		seq := ix.Find(ctx, q)
		if read == "Keys" {
			seq = ix.Keys(ctx, q)
		}
		for o, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, o.ID)
			move() // after the first order, which is the moving one
		}
	case "Page":
		page, next, err := ix.Page(ctx, q, 100)
		if err != nil || next != "" {
			t.Fatalf("Page: next %q, %v", next, err)
		}
		for _, o := range page {
			got = append(got, o.ID)
		}
	}
	move()
	want := make([]string, len(orders))
	for i, o := range orders {
		want[i] = o.ID
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s returned %d orders %v, want each of the %d once", read, len(got), got, len(want))
	}
}

// TestReadsReturnEachRecordOnce runs testReadsReturnEachRecordOnce on the
// fake.
func TestReadsReturnEachRecordOnce(t *testing.T) {
	testReadsReturnEachRecordOnce(t, func(t *testing.T, _ schema.WriteMode) moveBackend {
		f := newFake(t)
		createTables(t, f, ordersTable(t))
		return moveBackend{c: f}
	})
}
