package hbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// putConcurrently starts one Put per p, each on its own goroutine, and
// returns a function that waits for them and returns their errors in
// order.
func putConcurrently(ctx context.Context, c *Client, ps ...*Put) (wait func() []error) {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Put(ctx, p)
		}()
	}
	return func() []error {
		wg.Wait()
		return errs
	}
}

// fillInFlight sends maxWritesInFlight Puts (rows a0, a1, ...) that the
// fake holds until release is called, and returns once they are all on
// the server: from then on, Puts queue. wait returns their errors.
func fillInFlight(t *testing.T, fc *fakeCluster, c *Client) (release func(), wait func() []error) {
	t.Helper()
	arrived := make(chan struct{}, maxWritesInFlight)
	hold := make(chan struct{})
	var held atomic.Int32
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if method == "Mutate" && held.Add(1) <= maxWritesInFlight {
				arrived <- struct{}{}
				<-hold
			}
			return nil
		}
	})
	var ps []*Put
	for _, r := range inFlightRows() {
		ps = append(ps, tput(r, "v"))
	}
	wait = putConcurrently(testCtx(t), c, ps...)
	for range maxWritesInFlight {
		<-arrived
	}
	return func() { close(hold) }, wait
}

// inFlightRows are the rows fillInFlight writes.
func inFlightRows() []string {
	var rows []string
	for i := range maxWritesInFlight {
		rows = append(rows, fmt.Sprintf("a%d", i))
	}
	return rows
}

// waitQueued waits until n writes wait in the queue of addr.
func waitQueued(t *testing.T, c *Client, addr string, n int) {
	t.Helper()
	q := c.rowQueue(addr, false)
	deadline := time.Now().Add(5 * time.Second)
	for {
		q.mu.Lock()
		got := len(q.waiting)
		q.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued for %s, want %d", got, addr, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// multiRows returns, per Multi the fake received, the rows of its
// mutations in request order.
func (fc *fakeCluster) multiRows() [][]string {
	var out [][]string
	for _, mr := range fc.multis() {
		var rows []string
		for _, ra := range mr.GetRegionAction() {
			for _, a := range ra.GetAction() {
				rows = append(rows, string(a.GetMutation().GetRow()))
			}
		}
		out = append(out, rows)
	}
	return out
}

// multiGets counts the Get actions of the Multis the fake received.
func (fc *fakeCluster) multiGets() int {
	n := 0
	for _, mr := range fc.multis() {
		for _, ra := range mr.GetRegionAction() {
			for _, a := range ra.GetAction() {
				if a.Get != nil {
					n++
				}
			}
		}
	}
	return n
}

// TestGetsCoalesceWhileServerBusy: Gets to a server with
// maxReadsInFlight Gets in flight wait, then go together as one Multi,
// each caller getting its own row (an empty Result for a missing one);
// queued writes and queued Gets do not wait for each other.
func TestGetsCoalesceWhileServerBusy(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 1) // two regions, one server
	c := fc.client()
	ctx := testCtx(t)
	for _, r := range []string{"b", "c", "n"} {
		if err := c.Put(ctx, tput(r, "v"+r)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("b")}); err != nil {
		t.Fatal(err)
	}
	if n, m := fc.count("rs1:16020", "Get"), fc.multiGets(); n != 1 || m != 0 {
		t.Fatalf("idle Get: %d Gets, %d in Multis; want 1, 0", n, m)
	}

	arrived := make(chan struct{}, maxReadsInFlight)
	hold := make(chan struct{})
	var held atomic.Int32
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if method == "Get" && held.Add(1) <= maxReadsInFlight {
				arrived <- struct{}{}
				<-hold
			}
			return nil
		}
	})
	type got struct {
		res *Result
		err error
	}
	getAll := func(rows ...string) func() []got {
		out := make([]got, len(rows))
		var wg sync.WaitGroup
		for i, r := range rows {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i].res, out[i].err = c.Get(ctx, &Get{Table: "t", Row: []byte(r)})
			}()
		}
		return func() []got { wg.Wait(); return out }
	}
	var busy []string
	for i := range maxReadsInFlight {
		busy = append(busy, []string{"b", "c", "n"}[i%3])
	}
	inFlight := getAll(busy...)
	for range maxReadsInFlight {
		<-arrived
	}
	rows := []string{"b", "c", "n", "missing"}
	queued := getAll(rows...)
	q := c.rowQueue("rs1:16020", true)
	deadline := time.Now().Add(5 * time.Second)
	for {
		q.mu.Lock()
		n := len(q.waiting)
		q.mu.Unlock()
		if n == len(rows) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Gets queued, want %d", n, len(rows))
		}
		time.Sleep(time.Millisecond)
	}
	// A Put meanwhile goes straight out: writes have their own queue.
	if err := c.Put(ctx, tput("o", "vo")); err != nil {
		t.Fatalf("Put while Gets wait: %v", err)
	}
	close(hold)
	for i, g := range inFlight() {
		if g.err != nil {
			t.Errorf("Get in flight %d: %v", i, g.err)
		}
	}
	for i, g := range queued() {
		r := rows[i]
		switch {
		case g.err != nil:
			t.Errorf("Get %s: %v", r, g.err)
		case g.res == nil:
			t.Errorf("Get %s: nil Result", r)
		case r == "missing":
			if len(g.res.Cells) != 0 {
				t.Errorf("Get %s: %d cells, want none", r, len(g.res.Cells))
			}
		case len(g.res.Cells) != 1 || string(g.res.Cells[0].Value) != "v"+r:
			t.Errorf("Get %s: cells %v, want one of value v%s", r, g.res.Cells, r)
		}
	}
	if n := fc.multiGets(); n != len(rows) {
		t.Errorf("%d Gets in Multis, want %d", n, len(rows))
	}
	if n, want := fc.count("rs1:16020", "Get"), 1+maxReadsInFlight; n != want {
		t.Errorf("%d Gets, want %d (idle, those in flight)", n, want)
	}
}

// TestPutsCoalesceWhileServerBusy: Puts to a server with
// maxWritesInFlight writes in flight wait, then go together as one Multi
// (grouped by region), each caller getting its own outcome; an idle
// client sends a Mutate.
func TestPutsCoalesceWhileServerBusy(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 1) // two regions, one server
	c := fc.client()
	ctx := testCtx(t)

	if err := c.Put(ctx, tput("idle", "v")); err != nil {
		t.Fatal(err)
	}
	if n, m := fc.count("rs1:16020", "Mutate"), len(fc.multiRows()); n != 1 || m != 0 {
		t.Fatalf("idle Put: %d Mutates, %d Multis; want 1, 0", n, m)
	}

	release, inFlight := fillInFlight(t, fc, c)
	rows := []string{"b", "c", "n", "o", "nofamily"}
	var ps []*Put
	for _, r := range rows[:4] {
		ps = append(ps, tput(r, "v"+r))
	}
	ps = append(ps, &Put{Table: "t", Row: []byte("nofamily"), Values: map[string]map[string][]byte{"nope": {"q": {}}}})
	queued := putConcurrently(ctx, c, ps...)
	waitQueued(t, c, "rs1:16020", len(rows))
	release()
	errs := queued()
	for i, err := range inFlight() {
		if err != nil {
			t.Errorf("Put in flight %d: %v", i, err)
		}
	}
	for i, r := range rows {
		switch {
		case r == "nofamily":
			if !errors.Is(errs[i], ErrNoSuchFamily) || IsRetryable(errs[i]) {
				t.Errorf("Put %s: %v, want ErrNoSuchFamily, not retryable", r, errs[i])
			}
		case errs[i] != nil:
			t.Errorf("Put %s: %v", r, errs[i])
		}
	}
	multis := fc.multiRows()
	if len(multis) != 1 {
		t.Fatalf("Multis %q, want one", multis)
	}
	got := slices.Clone(multis[0])
	slices.Sort(got)
	want := slices.Clone(rows)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Multi rows %q, want %q", got, want)
	}
	if n, want := fc.count("rs1:16020", "Mutate"), 1+maxWritesInFlight; n != want {
		t.Errorf("%d Mutates, want %d (idle, those in flight)", n, want)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, r := range slices.Concat(rows[:4], inFlightRows(), []string{"idle"}) {
		if _, ok := fc.rows[r]; !ok {
			t.Errorf("row %s not written", r)
		}
	}
}

// TestCoalescedWriteRetriesPerCaller: an action of the Multi that fails
// with a retryable error is retried by its caller alone; the others
// return at once.
func TestCoalescedWriteRetriesPerCaller(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	var busyOnce atomic.Bool
	fc.set(func() {
		fc.actionHook = func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair {
			if string(a.GetMutation().GetRow()) == "c" && busyOnce.CompareAndSwap(false, true) {
				return &pb.NameBytesPair{Name: proto.String(excRegionTooBusy), Value: []byte("busy")}
			}
			return nil
		}
	})
	release, inFlight := fillInFlight(t, fc, c)
	defer inFlight()
	rows := []string{"b", "c", "d"}
	queued := putConcurrently(ctx, c, tput("b", "v"), tput("c", "v"), tput("d", "v"))
	waitQueued(t, c, "rs1:16020", len(rows))
	release()
	for i, err := range queued() {
		if err != nil {
			t.Errorf("Put %s: %v", rows[i], err)
		}
	}
	if !busyOnce.Load() {
		t.Fatal("the action of row c never failed")
	}
	// c was sent twice: in the Multi, then alone.
	sent := map[string]int{}
	for _, m := range fc.multiRows() {
		for _, r := range m {
			sent[r]++
		}
	}
	fc.mu.Lock()
	for _, call := range fc.calls {
		if mr, ok := call.req.(*pb.MutateRequest); ok {
			sent[string(mr.GetMutation().GetRow())]++
		}
	}
	fc.mu.Unlock()
	want := map[string]int{"b": 1, "c": 2, "d": 1}
	for _, r := range inFlightRows() {
		want[r] = 1
	}
	if fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Errorf("sent %v, want %v", sent, want)
	}
}

// TestQueuedWriteCancelled: a caller whose context ends while its write
// waits in the queue gets the context's error, and its write is never
// sent; the others go on.
func TestQueuedWriteCancelled(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	ctx := testCtx(t)
	release, inFlight := fillInFlight(t, fc, c)
	defer inFlight()
	cctx, cancel := context.WithCancel(ctx)
	gone := make(chan error, 1)
	go func() { gone <- c.Put(cctx, tput("gone", "v")) }()
	waitQueued(t, c, "rs1:16020", 1)
	kept := make(chan error, 1)
	go func() { kept <- c.Put(ctx, tput("kept", "v")) }()
	waitQueued(t, c, "rs1:16020", 2)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Put: %v, want context.Canceled", err)
	}
	release()
	if err := <-kept; err != nil {
		t.Errorf("Put kept: %v", err)
	}
	if m := fc.multiRows(); len(m) != 1 || !slices.Equal(m[0], []string{"kept"}) {
		t.Errorf("Multis %q, want one with kept only", m)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if _, ok := fc.rows["gone"]; ok {
		t.Error("the cancelled write was applied")
	}
}
