package dao_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// insertOnlyStores are the two ways a table is insert-only: its schema
// declares it, or the store's option says so.
var insertOnlyStores = []struct {
	name  string
	table func(t testing.TB) *schema.Table[ShopOrder]
	opts  []dao.Option
}{
	{"schema Writes", func(t testing.TB) *schema.Table[ShopOrder] { return ordersTableWrites(t, schema.InsertOnly) }, nil},
	{"WithWriteMode", ordersTable, []dao.Option{dao.WithWriteMode(schema.InsertOnly)}},
}

// testInsertOnlyRefusesRewrites writes 79 orders to an insert-only table,
// then tries to rewrite 10 of them in place and to move 4 (another status
// or day), one by one and in a batch: each is refused with ErrInsertOnly
// and changes nothing, while putting an order again as it is succeeds.
// After deleting 5, the index counts exactly the 74 orders left, Find
// returns them as first written, and Check finds nothing to repair or
// skip.
func testInsertOnlyRefusesRewrites(t *testing.T, backend func(t *testing.T, tbl *schema.Table[ShopOrder]) moveBackend) {
	ctx := context.Background()
	for _, st := range insertOnlyStores {
		t.Run(st.name, func(t *testing.T) {
			tbl := st.table(t)
			b := backend(t, tbl)
			r, err := dao.New(b.c, tbl, append(slices.Clone(b.opts), st.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := r.Index(ordersByStatus)
			if err != nil {
				t.Fatal(err)
			}
			live := map[string]ShopOrder{}
			var orders []*ShopOrder
			for i := range 79 {
				o := &ShopOrder{ID: fmt.Sprintf("io-%02d", i), Status: "paid", Day: day1.AddDate(0, 0, i%3), Amount: int64(i)}
				orders = append(orders, o)
				live[o.ID] = *o
			}
			if _, err := r.PutBatch(ctx, orders); err != nil {
				t.Fatal(err)
			}
			rewrite := func(i int) *ShopOrder {
				o := *orders[i]
				switch {
				case i < 10:
					o.Amount += 1000 // in place: the entry stays where it is
				case i < 12:
					o.Status = "shipped" // a move to another status
				default:
					o.Day = o.Day.AddDate(0, 0, 1) // a move to another day
				}
				return &o
			}
			for i := range 14 {
				if err := r.Put(ctx, rewrite(i)); !errors.Is(err, dao.ErrInsertOnly) {
					t.Errorf("Put over live order %d: %v, want ErrInsertOnly", i, err)
				}
			}
			var batch []*ShopOrder
			for i := range 14 {
				batch = append(batch, rewrite(i), orders[20+i]) // rewrites next to repeats
			}
			results, err := r.PutBatch(ctx, batch)
			if !errors.Is(err, dao.ErrInsertOnly) {
				t.Errorf("PutBatch of rewrites: %v, want ErrInsertOnly", err)
			}
			for i, res := range results {
				if rewritten := i%2 == 0; rewritten != errors.Is(res, dao.ErrInsertOnly) || !rewritten && res != nil {
					t.Errorf("PutBatch result %d (rewrite %v): %v", i, rewritten, res)
				}
			}
			if err := r.Put(ctx, orders[40]); err != nil {
				t.Errorf("Put of an order as it is: %v, want nil", err)
			}
			for _, o := range orders[70:75] {
				if err := r.Delete(ctx, o); err != nil {
					t.Fatal(err)
				}
				delete(live, o.ID)
			}
			time.Sleep(5 * time.Millisecond) // past the deletes' millisecond
			n, err := ix.Count(ctx, dao.Eq(&ShopOrder{Status: "paid"}, "status"), "")
			if err != nil {
				t.Fatal(err)
			}
			shipped, err := ix.Count(ctx, dao.Eq(&ShopOrder{Status: "shipped"}, "status"), "")
			if err != nil {
				t.Fatal(err)
			}
			if n[""] != int64(len(live)) || shipped[""] != 0 {
				t.Errorf("Count: %d paid and %d shipped, want %d and 0", n[""], shipped[""], len(live))
			}
			got := map[string]ShopOrder{}
			for o, err := range ix.Find(ctx, dao.Eq(&ShopOrder{Status: "paid"}, "status")) {
				if err != nil {
					t.Fatal(err)
				}
				got[o.ID] = *o
			}
			if len(got) != len(live) {
				t.Errorf("Find: %d orders, want %d", len(got), len(live))
			}
			for id, o := range live {
				if g := got[id]; !g.Day.Equal(o.Day) || g.Status != o.Status || g.Amount != o.Amount {
					t.Errorf("Find: order %s is %+v, want %+v as first written", id, g, o)
				}
			}
			for _, mode := range []index.Mode{index.ModeVerify, index.ModeRepair} {
				rep, err := r.Check(ctx, mode)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Clean() || rep.Skipped != 0 || rep.Repaired != 0 || rep.DataRows != int64(len(live)) || rep.Entries != int64(len(live)) {
					t.Errorf("%s: %+v, want %d rows and entries, clean, nothing skipped or repaired", mode, rep, len(live))
				}
			}
		})
	}
}

func TestInsertOnlyRefusesRewrites(t *testing.T) {
	testInsertOnlyRefusesRewrites(t, func(t *testing.T, tbl *schema.Table[ShopOrder]) moveBackend {
		f := newFake(t)
		createTables(t, f, tbl)
		return moveBackend{c: f}
	})
}

// TestCheckSaysWhyItSkips: an entry whose data row has not landed yet (a
// write in flight, held by heldClient) is an orphan Check must not delete
// before the grace period; the report counts it under Skips.InFlight and
// says so in words.
func TestCheckSaysWhyItSkips(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl := ordersTableWrites(t, schema.InsertOnly)
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl, dao.WithGracePeriod(90*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	held := newHeldClient(f, r.Name())
	w, err := dao.New(held, tbl)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Put(ctx, &ShopOrder{ID: "in-flight", Status: "paid", Day: day1}) }()
	<-held.landed
	rep, err := r.Check(ctx, index.ModeRepair)
	close(held.release)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := index.Skips{InFlight: 1, Grace: 90 * time.Second}
	if rep.Orphaned != 1 || rep.Skipped != 1 || rep.Skips != want {
		t.Errorf("repair: %+v, want 1 orphan skipped as %+v", rep, want)
	}
	if why := rep.SkippedWhy(); !strings.Contains(why, "1 orphaned entries within the grace period of 1m30s") {
		t.Errorf("SkippedWhy() = %q, want it to name the grace period", why)
	}
	rep, err = r.Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.DataRows != 1 {
		t.Errorf("verify after the write landed: %+v, %v", rep, err)
	}
}
