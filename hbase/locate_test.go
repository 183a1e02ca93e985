package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// countingZK is a ZooKeeper for unit tests that counts its reads. Master
// answers masters in turn (the last one repeats); MetaRegionServer answers
// meta ("rs1:16020" if empty).
type countingZK struct {
	mu          sync.Mutex
	masters     []string
	meta        string
	masterReads atomic.Int64
	metaReads   atomic.Int64
}

func (z *countingZK) Master(context.Context) (zk.Master, error) {
	n := z.masterReads.Add(1)
	z.mu.Lock()
	defer z.mu.Unlock()
	addr := z.masters[min(int(n)-1, len(z.masters)-1)]
	return zk.Master{Server: serverName(addr)}, nil
}

func (z *countingZK) MetaRegionServer(context.Context) (zk.MetaLocation, error) {
	z.metaReads.Add(1)
	z.mu.Lock()
	defer z.mu.Unlock()
	addr := z.meta
	if addr == "" {
		addr = "rs1:16020"
	}
	return zk.MetaLocation{Server: serverName(addr), State: zk.StateOpen}, nil
}

func (z *countingZK) setMeta(addr string) {
	z.mu.Lock()
	z.meta = addr
	z.mu.Unlock()
}

func (*countingZK) Close() error { return nil }

func serverName(addr string) zk.ServerName {
	host, port := splitHostPort(addr)
	return zk.ServerName{Host: host, Port: port, StartCode: 1}
}

// flightWaiters is the number of callers waiting for lookups of table.
func (rc *regionCache) flightWaiters(table string) int {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	n := 0
	if tc := rc.tables[table]; tc != nil {
		for _, fl := range tc.flights {
			n += fl.waiters
		}
	}
	return n
}

// holdFirstMetaScan makes the fake's first meta scan wait until n callers
// wait for lookups of table "t" (or 5s pass), so that they all overlap.
func holdFirstMetaScan(fc *fakeCluster, c *Client, n int) {
	var once sync.Once
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if sr, ok := req.(*pb.ScanRequest); ok && bytes.Equal(sr.GetRegion().GetValue(), metaRegionName) {
				once.Do(func() {
					deadline := time.Now().Add(5 * time.Second)
					for c.regions.flightWaiters("t") < n && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond)
					}
				})
			}
			return nil
		}
	})
}

// lookupLog records the region each meta lookup found.
type lookupLog struct {
	mu    sync.Mutex
	found map[string]int // region name -> lookups that found it
	errs  int
}

func logLookups(c *Client) *lookupLog {
	l := &lookupLog{found: map[string]int{}}
	c.regions.onLookup = func(table string, row []byte, before bool, r *region, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			l.errs++
			return
		}
		l.found[string(r.name)]++
	}
	return l
}

// TestLocateSharesColdLookups: callers that need the same region at the
// same time share one meta lookup.
func TestLocateSharesColdLookups(t *testing.T) {
	const callers = 64
	tests := []struct {
		name   string
		splits []string
		row    func(i int) string
	}{
		{"one row", nil, func(int) string { return "k" }},
		{"one region", nil, func(i int) string { return fmt.Sprintf("row%02d", i) }},
		{"rows across five regions", []string{"d", "h", "m", "r"}, func(i int) string { return fmt.Sprintf("%c%02d", 'a'+i%26, i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCluster(t, tt.splits, 3)
			c := fc.client()
			z := &countingZK{masters: []string{"master:16000"}}
			c.zk = z
			log := logLookups(c)
			holdFirstMetaScan(fc, c, callers)
			ctx := testCtx(t)
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte(tt.row(i))}); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("Get: %v", err)
			}
			regions := len(tt.splits) + 1
			if got := fc.metaScans(); got > regions || (regions == 1 && got != 1) {
				t.Errorf("%d meta scans for %d cold Gets over %d region(s), want at most one per region", got, callers, regions)
			}
			for name, n := range log.found {
				if n > 1 {
					t.Errorf("region %q looked up %d times", name, n)
				}
			}
			if got := z.metaReads.Load(); got != 1 {
				t.Errorf("%d ZooKeeper reads of meta's location, want 1", got)
			}
			// Each caller's Get reached a server once: as a Get, or in a
			// Multi while two Gets to its server were in flight.
			if got := fc.count("", "Get") + fc.multiGets(); got != callers {
				t.Errorf("%d Gets reached the servers, want %d", got, callers)
			}
		})
	}
}

// TestGetRetriedBoundsMetaAndZK: a Get retried n times reads meta at most
// n+1 times, and ZooKeeper only when meta itself cannot be reached (at
// most n+1 times then too), never more: lookups are not retried inside
// the Get's own retries.
func TestGetRetriedBoundsMetaAndZK(t *testing.T) {
	const retries = 5
	userGet := func(method string, req proto.Message) bool {
		gr, ok := req.(*pb.GetRequest)
		return ok && method == "Get" && !bytes.Equal(gr.GetRegion().GetValue(), metaRegionName)
	}
	tests := []struct {
		name      string
		setup     func(fc *fakeCluster, z *countingZK)
		wantGets  int   // Gets that reached a user region
		maxScans  int   // meta scans
		wantZK    int64 // ZooKeeper reads of meta's location (exactly)
		maxZK     int64 // or at most, when wantZK is 0
		wantClass string
	}{
		{
			name: "region server answers NotServingRegion",
			setup: func(fc *fakeCluster, z *countingZK) {
				fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
					if userGet(method, req) {
						return fcException(excNotServingRegion)
					}
					return nil
				}
			},
			wantGets: retries + 1, maxScans: retries + 1, wantZK: 1, wantClass: excNotServingRegion,
		},
		{
			name: "region server unreachable, meta still names it",
			setup: func(fc *fakeCluster, z *countingZK) {
				fc.regions[0].addr = "dead:16020"
			},
			wantGets: 0, maxScans: retries + 1, wantZK: 1,
		},
		{
			name: "meta unreachable",
			setup: func(fc *fakeCluster, z *countingZK) {
				z.meta = "deadmeta:16020"
			},
			wantGets: 0, maxScans: 0, maxZK: retries + 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			c := fc.client(WithMaxRetries(retries))
			z := &countingZK{masters: []string{"master:16000"}}
			c.zk = z
			fc.set(func() { tt.setup(fc, z) })
			_, err := c.Get(testCtx(t), &Get{Table: "t", Row: []byte("a")})
			if err == nil {
				t.Fatal("Get succeeded")
			}
			if !IsRetryable(err) {
				t.Errorf("Get: %v, want a retryable error", err)
			}
			var re *RemoteError
			if tt.wantClass != "" && (!errors.As(err, &re) || re.Class != tt.wantClass) {
				t.Errorf("Get: %v, want %s", err, tt.wantClass)
			}
			if got := fc.count("", "Get") - metaGets(fc); got != tt.wantGets {
				t.Errorf("%d Gets reached a user region, want %d", got, tt.wantGets)
			}
			if got := fc.metaScans(); got > tt.maxScans {
				t.Errorf("%d meta scans, want at most %d", got, tt.maxScans)
			}
			if got := int(c.regions.lookups.Load()); got > retries+1 {
				t.Errorf("%d lookups, want at most %d", got, retries+1)
			}
			got := z.metaReads.Load()
			if tt.wantZK != 0 && got != tt.wantZK {
				t.Errorf("%d ZooKeeper reads, want %d", got, tt.wantZK)
			}
			if tt.wantZK == 0 && (got < 2 || got > tt.maxZK) {
				t.Errorf("%d ZooKeeper reads, want 2..%d (re-read after each meta failure)", got, tt.maxZK)
			}
			t.Logf("%s: %d meta scans, %d lookups, %d ZooKeeper reads, %d meta Gets", tt.name, fc.metaScans(), c.regions.lookups.Load(), got, metaGets(fc))
		})
	}
}

// metaGets counts the Gets of hbase:meta (table state reads).
func metaGets(fc *fakeCluster) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	n := 0
	for _, c := range fc.calls {
		if r, ok := c.req.(*pb.GetRequest); ok && bytes.Equal(r.GetRegion().GetValue(), metaRegionName) {
			n++
		}
	}
	return n
}

// TestFailureInvalidatesOneEntry: a call that times out on a server evicts
// the region it was for, not the other regions of that server.
func TestFailureInvalidatesOneEntry(t *testing.T) {
	fc := newFakeCluster(t, []string{"g", "p"}, 2) // rs1: ["", g) and [p, ""); rs2: [g, p)
	c := fc.client(WithRPCTimeout(20*time.Millisecond), WithMaxRetries(0))
	ctx := testCtx(t)
	for _, row := range []string{"a", "h", "q"} {
		if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)}); err != nil {
			t.Fatal(err)
		}
	}
	fc.set(func() { fc.hang = true })
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err == nil {
		t.Fatal("Get from a silent server succeeded")
	}
	if r := c.regions.get("t", []byte("a")); r != nil {
		t.Errorf("the failed region is still cached at %s", r.addr)
	}
	if r := c.regions.get("t", []byte("q")); r == nil || r.addr != "rs1:16020" {
		t.Errorf("the other region of the same server was evicted (%v)", r)
	}
}

// TestLookupsPacedWhileMetaIsStale: a region whose server is gone while
// meta still names it (the master has not reassigned it yet) is not looked
// up by every caller: after an answer that repeats the failed location,
// the next lookup waits for a hold (here 10 × 1s backoff base, far longer
// than the test), whoever asks. Callers meanwhile wait within their
// context.
func TestLookupsPacedWhileMetaIsStale(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.move("", "dead:16020") // meta names a server that is gone
	c := fc.client(WithBackoff(time.Second, 30*time.Second), WithMaxRetries(0))
	ctx := testCtx(t)
	var dialErr error
	for range 2 { // the first answer, then the same again after the failure
		_, dialErr = c.Get(ctx, &Get{Table: "t", Row: []byte("a")})
		if dialErr == nil {
			t.Fatal("Get from a dead server succeeded")
		}
	}
	if got := c.regions.lookups.Load(); got != 2 {
		t.Fatalf("%d lookups, want 2", got)
	}
	// Load: 8 callers, 10 Gets each, 50ms each. (A budget of a few
	// milliseconds can end before a Get is scheduled at all on a loaded
	// machine, and a Get whose context ended before it started has no
	// connection error to report.)
	var wg sync.WaitGroup
	var held atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				gctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				_, err := c.Get(gctx, &Get{Table: "t", Row: []byte("a")})
				cancel()
				var ce *rpc.ConnError
				if errors.Is(err, context.DeadlineExceeded) && errors.As(err, &ce) {
					held.Add(1)
				} else {
					t.Errorf("Get during the hold: %v, want the deadline with the last connection error", err)
				}
			}
		}()
	}
	wg.Wait()
	if got := c.regions.lookups.Load(); got != 2 {
		t.Errorf("%d lookups after 80 Gets during the hold, want still 2", got)
	}
	if got := fc.metaScans(); got != 2 {
		t.Errorf("%d meta scans, want 2", got)
	}
	// The master reassigns the region; the hold ends: one lookup finds it.
	fc.move("", "rs2:16020")
	endHolds(c, "t")
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err != nil {
		t.Fatalf("Get after the reassignment: %v", err)
	}
	if got := c.regions.lookups.Load(); got != 3 {
		t.Errorf("%d lookups, want 3", got)
	}
}

// endHolds ends the holds of table's failed locations now.
func endHolds(c *Client, table string) {
	c.regions.mu.Lock()
	defer c.regions.mu.Unlock()
	for _, f := range c.regions.tables[table].failed {
		f.until = time.Now()
	}
}

// TestLookupsPacedWhileMetaIsDown: while hbase:meta cannot be reached,
// callers wait for the backoff of the meta failures instead of each
// reading ZooKeeper and dialling meta.
func TestLookupsPacedWhileMetaIsDown(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithBackoff(time.Second, 30*time.Second), WithMaxRetries(0))
	z := &countingZK{masters: []string{"master:16000"}, meta: "deadmeta:16020"}
	c.zk = z
	ctx := testCtx(t)
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err == nil {
		t.Fatal("Get without meta succeeded")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				gctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
				if _, err := c.Get(gctx, &Get{Table: "t", Row: []byte("a")}); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Get while meta is paced: %v, want the deadline", err)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if got := z.metaReads.Load(); got != 1 {
		t.Errorf("%d ZooKeeper reads after 200 Gets, want 1", got)
	}
	if got := c.regions.lookups.Load(); got != 1 {
		t.Errorf("%d lookups, want 1", got)
	}
	// Meta is back (at a new server); the pacing ends.
	z.setMeta("rs1:16020")
	c.regions.mu.Lock()
	c.regions.meta.until = time.Now()
	c.regions.mu.Unlock()
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err != nil {
		t.Fatalf("Get after meta is back: %v", err)
	}
	if got := z.metaReads.Load(); got != 2 {
		t.Errorf("%d ZooKeeper reads, want 2", got)
	}
}

// TestStaleAnswersDoNotOverwrite: what a lookup read from meta never
// replaces a cache entry from fresher information.
func TestStaleAnswersDoNotOverwrite(t *testing.T) {
	mk := func(start, end, addr string, id, seq uint64) *region {
		return &region{
			info:   &pb.RegionInfo{RegionId: proto.Uint64(id)},
			table:  "t",
			name:   fmt.Appendf(nil, "t,%s,%d.x.", start, id),
			start:  []byte(start),
			end:    []byte(end),
			addr:   addr,
			seqNum: seq,
		}
	}
	tests := []struct {
		name string
		// run returns the answer of a lookup started at the generation
		// it chooses; want is the region cached for row afterwards.
		run  func(rc *regionCache) (answer *region, startGen uint64)
		row  string
		want string // addr of the cached region for row, "" for none
		res  error  // what learn returns
	}{
		{
			name: "lookup started before the location failed",
			run: func(rc *regionCache) (*region, uint64) {
				r := mk("", "", "rs1:1", 10, 5)
				rc.add(r)
				start := rc.generation()
				rc.invalidate(r, errRegionNotReady, time.Now(), pacing{})
				return mk("", "", "rs1:1", 10, 5), start
			},
			row: "a", want: "", res: errLookAgain,
		},
		{
			name: "split parent after its daughters",
			run: func(rc *regionCache) (*region, uint64) {
				rc.add(mk("g", "k", "rs2:1", 20, 1))
				rc.add(mk("k", "p", "rs3:1", 20, 1))
				return mk("g", "p", "rs1:1", 10, 7), rc.generation()
			},
			row: "h", want: "rs2:1", res: errLookAgain,
		},
		{
			name: "earlier open of the same region",
			run: func(rc *regionCache) (*region, uint64) {
				rc.add(mk("", "", "rs2:1", 10, 9))
				return mk("", "", "rs1:1", 10, 5), rc.generation()
			},
			row: "a", want: "rs2:1", res: errLookAgain,
		},
		{
			name: "lookup started before a RegionMoved redirect",
			run: func(rc *regionCache) (*region, uint64) {
				r := mk("", "", "rs1:1", 10, 5)
				rc.add(r)
				start := rc.generation()
				rc.moved(r, "rs3:1")
				return mk("", "", "rs1:1", 10, 5), start
			},
			row: "a", want: "rs3:1", res: errLookAgain,
		},
		{
			name: "still opening after open",
			run: func(rc *regionCache) (*region, uint64) {
				rc.add(mk("", "", "rs2:1", 10, 9))
				o := mk("", "", "rs2:1", 10, 9)
				o.opening = true
				return o, rc.generation()
			},
			row: "a", want: "rs2:1", res: errLookAgain,
		},
		{
			name: "later open replaces",
			run: func(rc *regionCache) (*region, uint64) {
				rc.add(mk("", "", "rs1:1", 10, 5))
				return mk("", "", "rs2:1", 10, 9), rc.generation()
			},
			row: "a", want: "rs2:1",
		},
		{
			name: "daughters replace the parent",
			run: func(rc *regionCache) (*region, uint64) {
				rc.add(mk("g", "p", "rs1:1", 10, 7))
				return mk("g", "k", "rs2:1", 20, 1), rc.generation()
			},
			row: "h", want: "rs2:1",
		},
		{
			name: "table dropped while the lookup ran",
			run: func(rc *regionCache) (*region, uint64) {
				start := rc.generation()
				rc.dropTable("t")
				return mk("", "", "rs1:1", 10, 5), start
			},
			row: "a", want: "", res: errLookAgain,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := newRegionCache()
			answer, start := tt.run(rc)
			_, _, err := rc.learn(answer, nil, start, time.Now(), pacing{})
			if !errors.Is(err, tt.res) || (tt.res == nil && err != nil) {
				t.Errorf("learn: %v, want %v", err, tt.res)
			}
			got := rc.get("t", []byte(tt.row))
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("cached %s, want nothing", got.addr)
			case tt.want != "" && (got == nil || got.addr != tt.want):
				t.Errorf("cached %v, want %s", got, tt.want)
			}
		})
	}
}

// TestLocateOpeningRegion: a region that meta shows OPENING is located at
// the server opening it (info:sn), not at the one it was on.
func TestLocateOpeningRegion(t *testing.T) {
	ri, _ := proto.Marshal(&pb.RegionInfo{RegionId: proto.Uint64(5), TableName: &pb.TableName{Namespace: []byte("default"), Qualifier: []byte("t")}})
	cell := func(q, v string) *pb.Cell {
		return &pb.Cell{Row: []byte("t,,5.x."), Family: []byte("info"), Qualifier: []byte(q), Value: []byte(v)}
	}
	tests := []struct {
		name  string
		cells []*pb.Cell
		want  string // addr, or "" for errRegionNotReady
	}{
		{"open", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "OPEN")}, "old:1"},
		{"no state", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1")}, "old:1"},
		{"opening", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "OPENING"), cell("sn", "new,2,1795420162256")}, "new:2"},
		{"opening without sn", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "OPENING")}, ""},
		{"closed", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "CLOSED")}, ""},
		{"abnormally closed", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "ABNORMALLY_CLOSED")}, ""},
		{"closing", []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "old:1"), cell("state", "CLOSING")}, "old:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := pickRegion([]*pb.Result{{Cell: tt.cells}}, "t", []byte("k"), false)
			switch {
			case tt.want == "" && !errors.Is(err, errRegionNotReady):
				t.Errorf("pickRegion = %v, %v; want errRegionNotReady", r, err)
			case tt.want != "" && (err != nil || r.addr != tt.want):
				t.Errorf("pickRegion = %v, %v; want %s", r, err, tt.want)
			}
		})
	}
}

// TestLookupPrefetches: one lookup caches the regions before the one
// asked for that the scan returned.
func TestLookupPrefetches(t *testing.T) {
	fc := newFakeCluster(t, []string{"d", "h", "m"}, 2)
	c := fc.client()
	ctx := testCtx(t)
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("z")}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"a", "e", "i"} {
		if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := fc.metaScans(); got != 1 {
		t.Errorf("%d meta scans for four regions, want 1", got)
	}
}

// watchZK is a countingZK that also knows which region servers are
// registered (by "host:port"); unregister closes the watch channel.
type watchZK struct {
	countingZK
	registered map[string]bool
	changed    chan struct{}
	rsReads    atomic.Int64
}

func (z *watchZK) RegionServer(ctx context.Context, s zk.ServerName) (bool, <-chan struct{}, error) {
	z.rsReads.Add(1)
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.registered[s.Addr()], z.changed, nil
}

func (z *watchZK) unregister(addr string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	delete(z.registered, addr)
	close(z.changed)
	z.changed = make(chan struct{})
}

// TestLookupWaitsForServerToLeaveZK: a region server says it is stopping
// while meta still names it. Once meta has answered that location again,
// no caller looks the region up until the server has left ZooKeeper (the
// master then reassigns its regions), however long that takes; then one
// lookup finds the new location.
func TestLookupWaitsForServerToLeaveZK(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.move("", "rs2:16020")
	c := fc.client(WithMaxRetries(0)) // holds of 10ms
	z := &watchZK{countingZK: countingZK{masters: []string{"master:16000"}}, registered: map[string]bool{"rs2:16020": true}, changed: make(chan struct{})}
	c.zk = z
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if addr == "rs2:16020" {
				return fcException(excRSStopped)
			}
			return nil
		}
	})
	ctx := testCtx(t)
	for range 2 { // the first answer; the same again after the failure
		if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err == nil {
			t.Fatal("Get from a stopping server succeeded")
		}
	}
	if got := c.regions.lookups.Load(); got != 2 {
		t.Fatalf("%d lookups, want 2", got)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				gctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond) // twice the hold
				_, err := c.Get(gctx, &Get{Table: "t", Row: []byte("a")})
				cancel()
				var re *RemoteError
				if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &re) || re.Class != excRSStopped {
					t.Errorf("Get while the server is registered: %v, want the deadline with RegionServerStopped", err)
				}
			}
		}()
	}
	wg.Wait()
	if got := c.regions.lookups.Load(); got != 2 {
		t.Errorf("%d lookups while the server was registered, want still 2", got)
	}
	if got := z.rsReads.Load(); got != 1 {
		t.Errorf("%d ZooKeeper reads of the region servers, want 1", got)
	}
	fc.move("", "rs3:16020")
	z.unregister("rs2:16020")
	if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); err != nil {
		t.Fatalf("Get after the server left: %v", err)
	}
	if got := c.regions.lookups.Load(); got != 3 {
		t.Errorf("%d lookups, want 3", got)
	}
}

func TestServerDown(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", &rpc.ConnError{Addr: "rs:1", Err: refused}, true},
		{"connection reset", &rpc.ConnError{Addr: "rs:1", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, false},
		{"stalled", &rpc.ConnError{Addr: "rs:1", Err: rpc.ErrConnStalled}, false},
		{"stopping", &rpc.RemoteError{Class: excRSStopped}, true},
		{"aborting", &rpc.RemoteError{Class: excRSAborted}, true},
		{"not serving", &rpc.RemoteError{Class: excNotServingRegion}, false},
		{"attempt timeout", &attemptTimeoutError{err: context.DeadlineExceeded}, false},
	}
	for _, tt := range tests {
		if got := serverDown(tt.err); got != tt.want {
			t.Errorf("%s: serverDown = %v, want %v", tt.name, got, tt.want)
		}
	}
}
