package dao_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

// verifyGate passes every call to the fake and watches the background
// verifications: Batches holding a Put with Durability AsyncWAL (phase 3
// of the index protocol). It counts those puts and, while hold is set,
// keeps such a Batch waiting until its context ends.
type verifyGate struct {
	*fake.Client
	hold     atomic.Bool
	verified atomic.Int64
	held     chan struct{} // a token each time a Batch starts waiting
}

func newVerifyGate(f *fake.Client) *verifyGate {
	return &verifyGate{Client: f, held: make(chan struct{}, 100)}
}

func (g *verifyGate) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	n := 0
	for _, a := range acts {
		if p, ok := a.(*hbase.Put); ok && p.Durability == hbase.AsyncWAL {
			n++
		}
	}
	if n > 0 && g.hold.Load() {
		g.held <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	res, err := g.Client.Batch(ctx, acts)
	if err == nil {
		g.verified.Add(int64(n))
	}
	return res, err
}

func newParcels(t *testing.T, c dao.Client, f *fake.Client, withIndex bool) *dao.Repo[Parcel] {
	t.Helper()
	tbl, err := parcelsTable(withIndex)
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	r, err := dao.New(c, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCloseSendsVerificationsThenRefuses: Close returns once every
// verification queued by the writes before it was sent; then every call
// of the store and of its index fails with ErrClosed, and Close again is
// a no-op.
func TestCloseSendsVerificationsThenRefuses(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	g := newVerifyGate(f)
	r := newParcels(t, g, f, true)
	const n = 50
	for i := range n {
		if err := r.Put(ctx, &Parcel{ID: fmt.Sprintf("p%03d", i), Color: "red", Qty: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := g.verified.Load(); got != n {
		t.Errorf("verifications sent by Close = %d, want %d (one per entry)", got, n)
	}
	ix, err := r.Index("parcels_by_color")
	if err != nil {
		t.Fatal(err)
	}
	p := &Parcel{ID: "p001", Color: "red"}
	findErr := func() error {
		for _, err := range ix.Find(ctx, dao.Eq(&Parcel{Color: "red"}, "color")) {
			return err
		}
		return nil
	}
	scanErr := func() error {
		for _, err := range r.Scan(ctx, dao.Query[Parcel]{}) {
			return err
		}
		return nil
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Put", func() error { return r.Put(ctx, p) }},
		{"Insert", func() error { return r.Insert(ctx, &Parcel{ID: "new"}) }},
		{"Delete", func() error { return r.Delete(ctx, p) }},
		{"Get", func() error { _, _, err := r.Get(ctx, p); return err }},
		{"PutBatch", func() error { _, err := r.PutBatch(ctx, []*Parcel{p}); return err }},
		{"DeleteBatch", func() error { _, err := r.DeleteBatch(ctx, []*Parcel{p}); return err }},
		{"Scan", scanErr},
		{"Page", func() error { _, _, err := r.Page(ctx, dao.Query[Parcel]{}, 10); return err }},
		{"Flush", func() error { return r.Flush(ctx) }},
		{"Check", func() error { _, err := r.Check(ctx, dao.ModeVerify); return err }},
		{"IndexState", func() error { _, err := r.IndexState(ctx, "parcels_by_color"); return err }},
		{"Index.Find", findErr},
		{"Index.Count", func() error { _, err := ix.Count(ctx, dao.Query[Parcel]{}, ""); return err }},
	} {
		if err := tc.call(); !errors.Is(err, dao.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", tc.name, err)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, ok, err := newParcels2(t, f).Get(ctx, p); err != nil || !ok {
		t.Errorf("the data written before Close, read by a new store: ok=%v err=%v", ok, err)
	}
}

// newParcels2 is a second store on tables that exist already.
func newParcels2(t *testing.T, f *fake.Client) *dao.Repo[Parcel] {
	t.Helper()
	tbl, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCloseBoundedByContext: when the verifications cannot be sent (the
// server does not answer), Close returns the context's error once it
// ends, cancels the send in flight and leaves no goroutine behind. The
// entries stay unverified, which Check reports and repairs.
func TestCloseBoundedByContext(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newFake(t)
	g := newVerifyGate(f)
	r := newParcels(t, g, f, true)
	g.hold.Store(true)
	ctx := context.Background()
	if err := r.Put(ctx, &Parcel{ID: "p1", Color: "blue", Qty: 1}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the background verification never started")
	}
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := r.Close(cctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("Close took %v with a 100ms context", d)
	}
	if got := g.verified.Load(); got != 0 {
		t.Errorf("verifications sent = %d, want 0 (held)", got)
	}
	g.hold.Store(false)
	rep, err := newParcels2(t, f).Check(ctx, dao.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Check after a bounded Close: %+v", rep)
	if _, ok, err := newParcels2(t, f).Get(ctx, &Parcel{ID: "p1"}); err != nil || !ok {
		t.Errorf("the record after a bounded Close: ok=%v err=%v", ok, err)
	}
	f.Close()
	noLeak(t, before)
}

// TestCloseUnderWriters: Close while writers run (go test -race): each
// write either succeeds or fails with ErrClosed, Close returns nil, and
// every write that succeeded is readable by a new store.
func TestCloseUnderWriters(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newParcels(t, f, f, true)
	var wg sync.WaitGroup
	var written sync.Map
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				p := &Parcel{ID: fmt.Sprintf("w%d-%04d", w, i), Color: "green", Qty: int64(i)}
				err := r.Put(ctx, p)
				if errors.Is(err, dao.ErrClosed) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				written.Store(p.ID, true)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := r.Close(cctx); err != nil {
		t.Errorf("Close = %v", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("write: %v", err)
	}
	r2 := newParcels2(t, f)
	n := 0
	written.Range(func(k, _ any) bool {
		n++
		if _, ok, err := r2.Get(ctx, &Parcel{ID: k.(string)}); err != nil || !ok {
			t.Errorf("record %s written before Close: ok=%v err=%v", k, ok, err)
		}
		return true
	})
	if n == 0 {
		t.Fatal("no write succeeded before Close")
	}
	if _, err := r2.Check(ctx, dao.ModeVerify); err != nil {
		t.Errorf("Check after Close under writers: %v", err)
	}
}

// TestClosePlainTable: a store without indexes has no background work;
// Close returns nil and later calls fail with ErrClosed.
func TestClosePlainTable(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newParcels(t, f, f, false)
	if err := r.Put(ctx, &Parcel{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := r.Close(ctx); err != nil {
			t.Fatalf("Close = %v", err)
		}
	}
	if err := r.Put(ctx, &Parcel{ID: "b"}); !errors.Is(err, dao.ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	if _, _, err := r.Get(ctx, &Parcel{ID: "a"}); !errors.Is(err, dao.ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
}
