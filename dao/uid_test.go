package dao_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/seeds"
)

// logKinds are the kinds of LOG_TYPES at LogDataUID's widths.
var logKinds = []dao.UIDKind{{Name: seeds.LogHostKind, Width: seeds.LogHostWidth}, {Name: seeds.LogEventKind, Width: seeds.LogEventWidth}}

// countingUIDClient counts the calls a UID table makes.
type countingUIDClient struct {
	dao.UIDClient
	gets, incs, cams atomic.Int64
}

func (c *countingUIDClient) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	c.gets.Add(1)
	return c.UIDClient.Get(ctx, g)
}

func (c *countingUIDClient) Increment(ctx context.Context, inc *hbase.Increment) (*hbase.Result, error) {
	c.incs.Add(1)
	return c.UIDClient.Increment(ctx, inc)
}

func (c *countingUIDClient) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	c.cams.Add(1)
	return c.UIDClient.CheckAndMutate(ctx, cam)
}

// newUIDs returns a LOG_TYPES table on a fake and a UIDs over it.
func newUIDs(t *testing.T, kinds []dao.UIDKind, opts ...dao.UIDOption) (*dao.UIDs, *countingUIDClient) {
	t.Helper()
	f := newFake(t)
	c := &countingUIDClient{UIDClient: f}
	u, err := dao.NewUIDs(c, seeds.LogTypesName, kinds, opts...)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	return u, c
}

func TestUIDAssign(t *testing.T) {
	ctx := context.Background()
	u, c := newUIDs(t, logKinds)
	for i, want := range []struct {
		kind, name string
		id         uint64
	}{
		{"host", "web01", 1}, {"host", "myserver1.mycompany.com", 2}, {"event", "com.package1.subpackage2.subsubpackage3.ImportantService", 1},
		{"host", "web01", 1}, {"event", "e1", 2}, {"host", "a", 3},
	} {
		id, err := u.ID(ctx, want.kind, want.name)
		if err != nil || id != want.id {
			t.Errorf("%d: ID(%s, %q) = %d, %v, want %d", i, want.kind, want.name, id, err, want.id)
		}
		name, err := u.Name(ctx, want.kind, id)
		if err != nil || name != want.name {
			t.Errorf("%d: Name(%s, %d) = %q, %v, want %q", i, want.kind, id, name, err, want.name)
		}
		got, ok, err := u.Lookup(ctx, want.kind, want.name)
		if err != nil || !ok || got != want.id {
			t.Errorf("%d: Lookup(%s, %q) = %d, %v, %v", i, want.kind, want.name, got, ok, err)
		}
	}
	if id, ok, err := u.Lookup(ctx, "host", "unknown"); err != nil || ok || id != 0 {
		t.Errorf("Lookup of a new name = %d, %v, %v; want 0, false, nil", id, ok, err)
	}
	incs := c.incs.Load()
	if incs != 5 {
		t.Errorf("%d increments for 5 new names", incs)
	}
	if _, err := u.Name(ctx, "host", 99); !errors.Is(err, dao.ErrUIDNotFound) {
		t.Errorf("Name of an unassigned id: %v, want ErrUIDNotFound", err)
	}
	rep, err := u.Check(ctx)
	if err != nil || !rep.OK() || len(rep.Unused) != 0 || rep.Names["host"] != 3 || rep.Counters["event"] != 2 {
		t.Errorf("Check = %+v, %v", rep, err)
	}
}

// Once assigned or read, a name and its id come from the cache; a fresh
// UIDs (another process) reads the table once and gets the same ids.
func TestUIDCache(t *testing.T) {
	ctx := context.Background()
	u, c := newUIDs(t, logKinds)
	id, err := u.ID(ctx, "host", "web01")
	if err != nil {
		t.Fatal(err)
	}
	before := c.gets.Load() + c.incs.Load() + c.cams.Load()
	for range 10 {
		if got, err := u.ID(ctx, "host", "web01"); err != nil || got != id {
			t.Fatalf("ID = %d, %v, want %d", got, err, id)
		}
		if name, err := u.Name(ctx, "host", id); err != nil || name != "web01" {
			t.Fatalf("Name = %q, %v", name, err)
		}
	}
	if after := c.gets.Load() + c.incs.Load() + c.cams.Load(); after != before {
		t.Errorf("%d calls for cached names and ids, want 0", after-before)
	}

	other, err := dao.NewUIDs(c, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	gets := c.gets.Load()
	for range 3 {
		if got, err := other.ID(ctx, "host", "web01"); err != nil || got != id {
			t.Fatalf("other ID = %d, %v, want %d", got, err, id)
		}
		if name, err := other.Name(ctx, "host", id); err != nil || name != "web01" {
			t.Fatalf("other Name = %q, %v", name, err)
		}
	}
	if n := c.gets.Load() - gets; n != 2 {
		t.Errorf("a fresh UIDs made %d Gets for one name and one id, want 2", n)
	}

	// A cache of 2 entries per direction still answers right.
	small, err := dao.NewUIDs(c, seeds.LogTypesName, logKinds, dao.WithUIDCacheSize(2))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]uint64{}
	for i := range 10 {
		name := fmt.Sprintf("h%02d", i)
		if ids[name], err = small.ID(ctx, "host", name); err != nil {
			t.Fatal(err)
		}
	}
	for name, id := range ids {
		if got, err := small.ID(ctx, "host", name); err != nil || got != id {
			t.Errorf("small cache: ID(%s) = %d, %v, want %d", name, got, err, id)
		}
		if got, err := small.Name(ctx, "host", id); err != nil || got != name {
			t.Errorf("small cache: Name(%d) = %q, %v, want %s", id, got, err, name)
		}
	}
}

// A kind of width 1 has 255 ids; the 256th name is refused, the others
// keep theirs.
func TestUIDExhausted(t *testing.T) {
	ctx := context.Background()
	u, _ := newUIDs(t, []dao.UIDKind{{Name: "tiny", Width: 1}})
	for i := 1; i <= 255; i++ {
		id, err := u.ID(ctx, "tiny", fmt.Sprint("n", i))
		if err != nil || id != uint64(i) {
			t.Fatalf("ID(n%d) = %d, %v", i, id, err)
		}
	}
	_, err := u.ID(ctx, "tiny", "n256")
	var ue *dao.UIDError
	if !errors.Is(err, dao.ErrUIDExhausted) || !errors.As(err, &ue) || ue.Kind != "tiny" {
		t.Fatalf("256th name: %v, want a *UIDError wrapping ErrUIDExhausted", err)
	}
	if id, err := u.ID(ctx, "tiny", "n7"); err != nil || id != 7 {
		t.Errorf("ID(n7) after exhaustion = %d, %v", id, err)
	}
	if _, ok, _ := u.Lookup(ctx, "tiny", "n256"); ok {
		t.Error("the refused name has an id")
	}
}

func TestUIDBadInput(t *testing.T) {
	ctx := context.Background()
	u, _ := newUIDs(t, logKinds)
	long := string(make([]byte, dao.MaxUIDName+1))
	for name, call := range map[string]func() error{
		"empty name":           func() error { _, err := u.ID(ctx, "host", ""); return err },
		"long name":            func() error { _, err := u.ID(ctx, "host", long); return err },
		"unknown kind":         func() error { _, err := u.ID(ctx, "user", "x"); return err },
		"lookup empty":         func() error { _, _, err := u.Lookup(ctx, "host", ""); return err },
		"lookup unknown kind":  func() error { _, _, err := u.Lookup(ctx, "nope", "x"); return err },
		"name of id 0":         func() error { _, err := u.Name(ctx, "host", 0); return err },
		"name of a wide id":    func() error { _, err := u.Name(ctx, "event", 1<<16); return err },
		"name of unknown kind": func() error { _, err := u.Name(ctx, "nope", 1); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			var ue *dao.UIDError
			if !errors.Is(err, dao.ErrInvalidUID) || !errors.As(err, &ue) {
				t.Errorf("got %v, want a *UIDError wrapping ErrInvalidUID", err)
			}
		})
	}
	f := newFake(t)
	for name, kinds := range map[string][]dao.UIDKind{
		"no kinds":    nil,
		"width 0":     {{Name: "host", Width: 0}},
		"width 9":     {{Name: "host", Width: 9}},
		"bad kind":    {{Name: "Host", Width: 3}},
		"kind twice":  {{Name: "host", Width: 3}, {Name: "host", Width: 2}},
		"empty kind":  {{Name: "", Width: 3}},
		"kind with 0": {{Name: "a\x00b", Width: 3}},
	} {
		if _, err := dao.NewUIDs(f, "log_types", kinds); !errors.Is(err, dao.ErrInvalidOption) {
			t.Errorf("NewUIDs with %s: %v, want ErrInvalidOption", name, err)
		}
	}
	if _, err := dao.NewUIDs(f, "log_types", logKinds, dao.WithUIDCacheSize(-1)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("negative cache size: %v", err)
	}
	if _, err := dao.NewUIDs(nil, "log_types", logKinds); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("nil client: %v", err)
	}
}

// A writer that loses the forward write to another returns the winner's
// id; the reverse row of its own id stays, unused, and Check reports it.
func TestUIDLostRace(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	loser, err := dao.NewUIDs(&raceClient{UIDClient: f, before: func() {
		w, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := w.ID(ctx, "host", "web01"); err != nil || id != 2 {
			t.Errorf("winner: ID = %d, %v, want 2", id, err)
		}
	}}, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, loser.Table())
	id, err := loser.ID(ctx, "host", "web01")
	if err != nil || id != 2 {
		t.Fatalf("loser: ID = %d, %v, want the winner's 2", id, err)
	}
	rep, err := loser.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
	want := []dao.UIDEntry{{Kind: "host", ID: 1, Name: "web01"}}
	if fmt.Sprint(rep.Unused) != fmt.Sprint(want) || rep.Names["host"] != 1 || rep.Counters["host"] != 2 {
		t.Errorf("Check = %+v, want unused %v, 1 host, counter 2", rep, want)
	}
}

// raceClient runs before once, just before the first forward write (the
// second CheckAndMutate).
type raceClient struct {
	dao.UIDClient
	cams   int
	before func()
}

func (c *raceClient) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if c.cams++; c.cams == 2 {
		c.before()
	}
	return c.UIDClient.CheckAndMutate(ctx, cam)
}

// checkConcurrentUIDs has n writers, each with a UIDs of its own (a cache
// of its own), assign the same names at once, and checks that every name
// got one id and the table is consistent.
func checkConcurrentUIDs(t *testing.T, c dao.UIDClient, table string, writers, names int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got := make([][]uint64, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		u, err := dao.NewUIDs(c, table, logKinds)
		if err != nil {
			t.Fatal(err)
		}
		got[w] = make([]uint64, names)
		wg.Go(func() {
			<-start
			for i := range names {
				// Every writer walks the names from another start.
				n := (i + w) % names
				id, err := u.ID(ctx, "host", fmt.Sprintf("host-%03d.example.com", n))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				got[w][n] = id
			}
		})
	}
	close(start)
	wg.Wait()
	seen := map[uint64]int{}
	for n := range names {
		for w := 1; w < writers; w++ {
			if got[w][n] != got[0][n] {
				t.Errorf("name %d: writer %d got id %d, writer 0 got %d", n, w, got[w][n], got[0][n])
			}
		}
		if other, dup := seen[got[0][n]]; dup {
			t.Errorf("names %d and %d share id %d", other, n, got[0][n])
		}
		seen[got[0][n]] = n
	}
	u, err := dao.NewUIDs(c, table, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := u.Check(ctx)
	if err != nil || !rep.OK() || rep.Names["host"] != names {
		t.Fatalf("Check = %+v, %v; want %d names and nothing broken", rep, err, names)
	}
	t.Logf("%d writers, %d names: counter %d, %d unused ids left by lost races", writers, names, rep.Counters["host"], len(rep.Unused))
}

func TestUIDConcurrent(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	checkConcurrentUIDs(t, f, seeds.LogTypesName, 8, 50)
}
