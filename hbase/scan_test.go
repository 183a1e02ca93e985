package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

func fakeRows(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%03d", i)
	}
	return out
}

func collect(t *testing.T, c *Client, s *Scan) []string {
	t.Helper()
	sc, err := c.Scan(testCtx(t), s)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	defer sc.Close()
	var out []string
	for sc.Next() {
		out = append(out, string(sc.Result().Row()))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

func TestScanAcrossFakeRegions(t *testing.T) {
	fc := newFakeCluster(t, []string{"r010", "r020", "r025", "r040"}, 2)
	rows := fakeRows(50)
	fc.load(rows...)
	c := fc.client()
	fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)} // the fake's frames are small
	cr := fc.client()
	rev := slices.Clone(rows)
	slices.Reverse(rev)
	tests := []struct {
		name string
		scan Scan
		want []string
	}{
		{"all", Scan{Caching: 3}, rows},
		{"range", Scan{StartRow: []byte("r005"), StopRow: []byte("r033"), Caching: 4}, rows[5:33]},
		{"stop on a boundary", Scan{StartRow: []byte("r012"), StopRow: []byte("r025")}, rows[12:25]},
		{"limit", Scan{StartRow: []byte("r008"), Limit: 15, Caching: 4}, rows[8:23]},
		{"reversed", Scan{Reversed: true, Caching: 3}, rev},
		{"reversed range", Scan{Reversed: true, StartRow: []byte("r030"), StopRow: []byte("r009"), Caching: 4}, rev[19:40]},
		{"reversed from a boundary", Scan{Reversed: true, StartRow: []byte("r020"), StopRow: []byte("r010")}, rev[29:39]},
		{"reversed limit", Scan{Reversed: true, Limit: 12}, rev[:12]},
		{"empty range", Scan{StartRow: []byte("x"), StopRow: []byte("y")}, nil},
	}
	for _, tc := range tests {
		for _, reuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reuse=%v", tc.name, reuse), func(t *testing.T) {
				s := tc.scan
				s.Table = "t"
				s.ReuseMemory = reuse
				client := c
				if reuse {
					client = cr
				}
				got := collect(t, client, &s)
				if !slices.Equal(got, tc.want) {
					t.Errorf("rows %v\nwant %v", got, tc.want)
				}
			})
		}
	}
}

func TestScanRestartsAfterScannerErrors(t *testing.T) {
	for _, class := range []string{excUnknownScanner, excOutOfOrderScanner, excNotServingRegion, excScannerReset} {
		t.Run(class, func(t *testing.T) {
			fc := newFakeCluster(t, []string{"r020"}, 2)
			rows := fakeRows(40)
			fc.load(rows...)
			c := fc.client()
			var nexts atomic.Int32
			fc.set(func() {
				fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
					if sr, ok := req.(*pb.ScanRequest); ok && sr.ScannerId != nil && !sr.GetCloseScanner() && !sr.GetRenew() {
						if n := nexts.Add(1); n == 2 || n == 5 {
							return fcException(class)
						}
					}
					return nil
				}
			})
			fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
			cr := fc.client()
			for _, reuse := range []bool{false, true} {
				for _, reversed := range []bool{false, true} {
					nexts.Store(0)
					want := slices.Clone(rows)
					if reversed {
						slices.Reverse(want)
					}
					client := c
					if reuse {
						client = cr
					}
					got := collect(t, client, &Scan{Table: "t", Caching: 3, Reversed: reversed, ReuseMemory: reuse})
					if !slices.Equal(got, want) {
						t.Errorf("reuse=%v reversed=%v: rows %v\nwant %v", reuse, reversed, got, want)
					}
				}
			}
		})
	}
}

func TestScanAfterSplit(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	rows := fakeRows(30)
	fc.load(rows...)
	c := fc.client()
	sc, err := c.Scan(testCtx(t), &Scan{Table: "t", Caching: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 6 && sc.Next() {
		got = append(got, string(sc.Result().Row()))
	}
	fc.split("r015") // the open scanner's region is gone: NotServingRegion
	for sc.Next() {
		got = append(got, string(sc.Result().Row()))
	}
	if sc.Err() != nil || !slices.Equal(got, rows) {
		t.Errorf("scan across a split: %v, %v", got, sc.Err())
	}
	sc.Close()
}

func TestScannerLeaseRenewalAndClose(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.load(fakeRows(10)...)
	c := fc.client(WithScannerLeaseRenewal(10 * time.Millisecond))
	sc, err := c.Scan(testCtx(t), &Scan{Table: "t", Caching: 2})
	if err != nil {
		t.Fatal(err)
	}
	sc.Next()
	time.Sleep(80 * time.Millisecond) // a slow consumer
	fc.mu.Lock()
	renewals := fc.renewals
	fc.mu.Unlock()
	if renewals == 0 {
		t.Errorf("no lease renewal while the consumer was idle")
	}
	sc.Close()
	sc.Close()
	fc.mu.Lock()
	open := len(fc.scanners)
	fc.mu.Unlock()
	if open != 0 {
		t.Errorf("%d server-side scanners left open after Close", open)
	}
	if sc.Next() {
		t.Error("Next after Close")
	}
}

func TestScanErrors(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client()
	if _, err := c.Scan(testCtx(t), &Scan{Table: "missing"}); !errors.Is(err, ErrTableNotFound) {
		t.Errorf("scan of a missing table: %v", err)
	}
	fc.set(func() { fc.disabled = true })
	if _, err := c.Scan(testCtx(t), &Scan{Table: "t"}); !errors.Is(err, ErrTableDisabled) {
		t.Errorf("scan of a disabled table: %v", err)
	}
}

// loadWide writes rows with cols columns q00, q01, ... each, values of
// vlen bytes.
func (fc *fakeCluster) loadWide(rows []string, cols, vlen int) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, r := range rows {
		m := map[string][]byte{}
		for i := range cols {
			q := fmt.Sprintf("q%02d", i)
			m[q] = []byte(fmt.Sprintf("%s/%s/%s", r, q, strings.Repeat("v", vlen)))
		}
		fc.rows[r] = m
	}
}

// userScans returns the scan requests to user regions, in order.
func (fc *fakeCluster) userScans() []*pb.ScanRequest {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	var out []*pb.ScanRequest
	for _, c := range fc.calls {
		if r, ok := c.req.(*pb.ScanRequest); ok && !bytes.Equal(r.GetRegion().GetValue(), metaRegionName) {
			out = append(out, r)
		}
	}
	return out
}

// openScanners returns how many server-side scanners the fake holds.
func (fc *fakeCluster) openScanners() int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return len(fc.scanners)
}

// closeRequests counts the close requests the fake received.
func (fc *fakeCluster) closeRequests() int {
	n := 0
	for _, r := range fc.userScans() {
		if r.GetCloseScanner() {
			n++
		}
	}
	return n
}

// waitNoScanners waits (bounded) until the fake received closes closes
// and holds no scanner.
func (fc *fakeCluster) waitNoScanners(t *testing.T, closes int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for fc.openScanners() != 0 || fc.closeRequests() < closes {
		if time.Now().After(deadline) {
			t.Fatalf("%d server-side scanners still open, %d close requests (want %d)", fc.openScanners(), fc.closeRequests(), closes)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// scanResults runs a scan to its end and returns its results.
func scanResults(t *testing.T, c *Client, s *Scan) []*Result {
	t.Helper()
	sc, err := c.Scan(testCtx(t), s)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	defer sc.Close()
	var out []*Result
	for sc.Next() {
		out = append(out, cloneResult(sc.Result())) // valid under ReuseMemory too
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

// cloneResult copies r and its cells' bytes.
func cloneResult(r *Result) *Result {
	out := &Result{Exists: r.Exists, Cells: make([]Cell, len(r.Cells))}
	for i, c := range r.Cells {
		c.Row, c.Family, c.Qualifier, c.Value = bytes.Clone(c.Row), bytes.Clone(c.Family), bytes.Clone(c.Qualifier), bytes.Clone(c.Value)
		out.Cells[i] = c
	}
	return out
}

// shape describes results as "row:ncells" separated by spaces, and checks
// that the cells of each row, concatenated, are the row's columns in order.
func shape(t *testing.T, rs []*Result, cols int) string {
	t.Helper()
	var parts []string
	next := map[string]int{}
	for _, r := range rs {
		row := string(r.Row())
		for _, c := range r.Cells {
			if string(c.Row) != row {
				t.Errorf("result of row %s holds a cell of row %s", row, c.Row)
			}
			want := fmt.Sprintf("q%02d", next[row])
			if string(c.Qualifier) != want || !strings.HasPrefix(string(c.Value), row+"/"+want+"/") {
				t.Errorf("row %s: cell %s=%.20q, want %s", row, c.Qualifier, c.Value, want)
			}
			next[row]++
		}
		parts = append(parts, fmt.Sprintf("%s:%d", row, len(r.Cells)))
	}
	for row, n := range next {
		if n != cols {
			t.Errorf("row %s: %d cells in all, want %d", row, n, cols)
		}
	}
	return strings.Join(parts, " ")
}

// repeatShape is "row:n..." for each row in rows, one entry per size.
func repeatShape(rows []string, sizes ...int) string {
	var parts []string
	for _, r := range rows {
		for _, n := range sizes {
			parts = append(parts, fmt.Sprintf("%s:%d", r, n))
		}
	}
	return strings.Join(parts, " ")
}

func TestScanRequestsHandlePartialsAndHeartbeats(t *testing.T) {
	fc := newFakeCluster(t, []string{"r010", "r020"}, 2)
	fc.load(fakeRows(30)...)
	c := fc.client()
	if got := collect(t, c, &Scan{Table: "t", Caching: 3}); len(got) != 30 {
		t.Fatalf("%d rows, want 30", len(got))
	}
	nexts := 0
	for _, r := range fc.userScans() {
		if !r.GetClientHandlesPartials() || !r.GetClientHandlesHeartbeats() {
			t.Errorf("scan request without the partial and heartbeat flags: %v", r)
		}
		if r.ScannerId != nil && !r.GetCloseScanner() {
			nexts++
		}
	}
	if nexts == 0 {
		t.Error("no next call was made: the test shows nothing")
	}
}

func TestScanHeartbeats(t *testing.T) {
	fc := newFakeCluster(t, []string{"r020"}, 1)
	rows := fakeRows(40)
	fc.load(rows...)
	fc.set(func() { fc.heartbeats = true })
	c := fc.client()
	sc, err := c.Scan(testCtx(t), &Scan{Table: "t", Caching: 7})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for sc.Next() {
		got = append(got, string(sc.Result().Row()))
	}
	if err := sc.Err(); err != nil || !slices.Equal(got, rows) {
		t.Fatalf("rows %v, %v; want %v", got, err, rows)
	}
	if n := sc.(*scanner).heartbeats; n < 2 {
		t.Errorf("%d heartbeats seen, want one per region at least", n)
	}
	sc.Close()
	if n := fc.openScanners(); n != 0 {
		t.Errorf("%d scanners left open", n)
	}
}

// TestScanWideRows reads rows of 30 cells (about 40 bytes each) cut by
// the server's size limit and by Batch, from servers sending cell blocks
// and inline cells.
func TestScanWideRows(t *testing.T) {
	rows := []string{"a", "b", "m", "n", "z"}
	rev := slices.Clone(rows)
	slices.Reverse(rev)
	tests := []struct {
		name string
		scan Scan
		want string
	}{
		{"whole rows", Scan{Caching: 2}, repeatShape(rows, 30)},
		{"whole rows from parts", Scan{MaxResultSize: 200}, repeatShape(rows, 30)},
		{"whole rows from parts reversed", Scan{MaxResultSize: 300, Reversed: true}, repeatShape(rev, 30)},
		{"batch", Scan{Batch: 7}, repeatShape(rows, 7, 7, 7, 7, 2)},
		{"batch dividing the row", Scan{Batch: 10, Caching: 1}, repeatShape(rows, 10, 10, 10)},
		{"batch regrouped from parts", Scan{Batch: 7, MaxResultSize: 150}, repeatShape(rows, 7, 7, 7, 7, 2)},
		{"batch larger than the rows", Scan{Batch: 100, MaxResultSize: 150}, repeatShape(rows, 30)},
		{"batch reversed", Scan{Batch: 8, Reversed: true, MaxResultSize: 100}, repeatShape(rev, 8, 8, 8, 6)},
		{"batch with limit", Scan{Batch: 7, Limit: 2, Caching: 1}, repeatShape(rows[:2], 7, 7, 7, 7, 2)},
		{"limit with parts", Scan{Limit: 3, MaxResultSize: 100}, repeatShape(rows[:3], 30)},
	}
	for _, mode := range []struct{ inline, reuse bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		inline := mode.inline
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/inline=%v/reuse=%v", tc.name, inline, mode.reuse), func(t *testing.T) {
				fc := newFakeCluster(t, []string{"m"}, 2)
				fc.loadWide(rows, 30, 8)
				fc.set(func() { fc.inline = inline })
				if mode.reuse {
					fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
				}
				s := tc.scan
				s.Table = "t"
				s.ReuseMemory = mode.reuse
				if got := shape(t, scanResults(t, fc.client(), &s), 30); got != tc.want {
					t.Errorf("results %s\nwant    %s", got, tc.want)
				}
				fc.mu.Lock()
				blocks := fc.blocks
				fc.mu.Unlock()
				if inline == (blocks > 0) {
					t.Errorf("inline=%v but %d responses carried a cell block", inline, blocks)
				}
			})
		}
	}

	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow partial/reuse=%v", reuse), func(t *testing.T) {
			fc := newFakeCluster(t, []string{"m"}, 2)
			fc.loadWide(rows, 30, 8)
			fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
			rs := scanResults(t, fc.client(), &Scan{Table: "t", AllowPartial: true, MaxResultSize: 200, ReuseMemory: reuse})
			shape(t, rs, 30)
			if len(rs) <= len(rows) {
				t.Errorf("%d results for %d rows: no row came in parts", len(rs), len(rows))
			}
		})
	}
}

// failNexts makes the fake fail the listed next calls (1-based) with
// UnknownScannerException.
func failNexts(fc *fakeCluster, which ...int32) {
	failNextsWith(fc, excUnknownScanner, which...)
}

// failNextsWith makes the given next calls (counted from 1) fail with an
// exception of class exc.
func failNextsWith(fc *fakeCluster, exc string, which ...int32) {
	var nexts atomic.Int32
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if sr, ok := req.(*pb.ScanRequest); ok && sr.ScannerId != nil && !sr.GetCloseScanner() && !sr.GetRenew() {
				if slices.Contains(which, nexts.Add(1)) {
					return fcException(exc)
				}
			}
			return nil
		}
	})
}

// TestScanReopenMidRow fails scanner calls after parts of a row were
// handed out: the re-opened scanner must neither repeat nor lose cells.
func TestScanReopenMidRow(t *testing.T) {
	rows := []string{"a", "b", "c", "d"}
	tests := []struct {
		name string
		scan Scan
		want string
	}{
		{"whole rows", Scan{MaxResultSize: 150}, repeatShape(rows, 30)},
		{"batch", Scan{Batch: 4, MaxResultSize: 150}, repeatShape(rows, 4, 4, 4, 4, 4, 4, 4, 2)},
		{"batch reversed", Scan{Batch: 4, MaxResultSize: 150, Reversed: true}, repeatShape([]string{"d", "c", "b", "a"}, 4, 4, 4, 4, 4, 4, 4, 2)},
	}
	for _, reuse := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/reuse=%v", tc.name, reuse), func(t *testing.T) {
				fc := newFakeCluster(t, nil, 1)
				fc.loadWide(rows, 30, 8)
				fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
				failNexts(fc, 3, 9, 16, 20)
				s := tc.scan
				s.Table = "t"
				s.ReuseMemory = reuse
				if got := shape(t, scanResults(t, fc.client(), &s), 30); got != tc.want {
					t.Errorf("results %s\nwant    %s", got, tc.want)
				}
			})
		}

		t.Run(fmt.Sprintf("allow partial/reuse=%v", reuse), func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			fc.loadWide(rows, 30, 8)
			fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
			failNexts(fc, 2, 5, 11, 14)
			shape(t, scanResults(t, fc.client(), &Scan{Table: "t", AllowPartial: true, MaxResultSize: 150, ReuseMemory: reuse}), 30)
		})
	}
}

// TestScanKeepsReadPoint checks that a scanner re-opened in the same
// region sends back the MVCC read point the first open returned, and that
// the next region starts a snapshot of its own.
func TestScanKeepsReadPoint(t *testing.T) {
	fc := newFakeCluster(t, []string{"r020"}, 2)
	fc.load(fakeRows(40)...)
	var nexts atomic.Int32
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			if sr, ok := req.(*pb.ScanRequest); ok && sr.ScannerId != nil && !sr.GetCloseScanner() && nexts.Add(1) == 2 {
				return fcException(excUnknownScanner)
			}
			return nil
		}
	})
	if got := collect(t, fc.client(), &Scan{Table: "t", Caching: 4}); len(got) != 40 {
		t.Fatalf("%d rows, want 40", len(got))
	}
	var opens []string
	for _, r := range fc.userScans() {
		if r.Scan != nil {
			opens = append(opens, fmt.Sprintf("%s@%d", r.Scan.GetStartRow(), r.Scan.GetMvccReadPoint()))
		}
	}
	// First region: opened (read point 5001), failed, re-opened after
	// r007 with 5001; second region: a snapshot of its own (none sent).
	want := []string{"@0", "r007@5001", "r020@0"}
	if !slices.Equal(opens, want) {
		t.Errorf("opens (start@read point) %q, want %q", opens, want)
	}
}

// TestScanCancelledDuringCallClosesScanner cancels the scan while a call
// (an open, then a next) is on the server: the scanner that call leaves
// open is closed once it answers.
func TestScanCancelledDuringCallClosesScanner(t *testing.T) {
	for _, during := range []string{"open", "next"} {
		t.Run(during, func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			fc.load(fakeRows(20)...)
			entered := make(chan struct{}, 1)
			release := make(chan struct{})
			var gate atomic.Bool
			fc.set(func() {
				fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
					sr, ok := req.(*pb.ScanRequest)
					if !ok || bytes.Equal(sr.GetRegion().GetValue(), metaRegionName) || sr.GetCloseScanner() {
						return nil
					}
					if (sr.Scan != nil) == (during == "open") && gate.Load() {
						entered <- struct{}{}
						<-release
					}
					return nil
				}
			})
			// The caller's own call is cancelled, not one made ahead
			// of it (TestScanReadAheadCancelledOrClosed).
			c := fc.client(WithScanReadAhead(false))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-entered
				cancel()
			}()
			if during == "open" {
				gate.Store(true)
				if _, err := c.Scan(ctx, &Scan{Table: "t", Caching: 5}); !errors.Is(err, context.Canceled) {
					t.Fatalf("Scan = %v, want context.Canceled", err)
				}
			} else {
				sc, err := c.Scan(ctx, &Scan{Table: "t", Caching: 5})
				if err != nil {
					t.Fatal(err)
				}
				gate.Store(true)
				n := 0
				for sc.Next() {
					n++
				}
				if n != 5 || !errors.Is(sc.Err(), context.Canceled) {
					t.Fatalf("%d rows, Err() = %v; want 5, context.Canceled", n, sc.Err())
				}
				sc.Close()
			}
			close(release) // the server answers the abandoned call
			fc.waitNoScanners(t, 1)
			if n := fc.closeRequests(); n != 1 {
				t.Errorf("%d close requests, want 1", n)
			}
		})
	}
}

// TestScanCancelledBetweenCallsClosesScanner: the context ends while no
// call is on the server (no read-ahead); Next and Close close the scanner
// with a context of their own.
func TestScanCancelledBetweenCallsClosesScanner(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.load(fakeRows(20)...)
	ctx, cancel := context.WithCancel(context.Background())
	sc, err := fc.client(WithScanReadAhead(false)).Scan(ctx, &Scan{Table: "t", Caching: 5})
	if err != nil {
		t.Fatal(err)
	}
	if fc.openScanners() != 1 {
		t.Fatalf("%d scanners open, want 1", fc.openScanners())
	}
	cancel()
	if sc.Next() || !errors.Is(sc.Err(), context.Canceled) {
		t.Fatalf("Next after cancel: Err() = %v", sc.Err())
	}
	if n := fc.openScanners(); n != 0 {
		t.Errorf("%d scanners open after the cancelled Next returned", n)
	}
	sc.Close()
}

// TestScanErrorClosesOldScanner: a failed call on an open scanner whose
// error does not say the scanner is gone makes the client close it before
// re-opening elsewhere.
func TestScanErrorClosesOldScanner(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	rows := fakeRows(20)
	fc.load(rows...)
	failNextsWith(fc, excRegionTooBusy, 1)
	if got := collect(t, fc.client(), &Scan{Table: "t", Caching: 4}); !slices.Equal(got, rows) {
		t.Fatalf("rows %v, want %v", got, rows)
	}
	fc.waitNoScanners(t, 1)
}

// TestScanReuseMemoryReusesFrames: with ReuseMemory, every response of a
// scan over many calls (and two regions) is read into the memory of the
// first (given room to spare), or of the first two with read-ahead, its
// rows intact as they are handed out; without it, each response has
// memory of its own.
func TestScanReuseMemoryReusesFrames(t *testing.T) {
	fc := newFakeCluster(t, []string{"r020"}, 1)
	rows := fakeRows(40)
	fc.load(rows...)
	fc.rpcOpts = []rpc.Option{rpc.WithFrameReuseMin(64)}
	for _, ahead := range []bool{false, true} {
		for _, reuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("ahead=%v/reuse=%v", ahead, reuse), func(t *testing.T) {
				testReuseFrames(t, fc.client(WithScanReadAhead(ahead)), rows, reuse, ahead)
			})
		}
	}
}

func testReuseFrames(t *testing.T, c *Client, rows []string, reuse, ahead bool) {
	sc, err := c.Scan(testCtx(t), &Scan{Table: "t", Caching: 4, ReuseMemory: reuse})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	s := sc.(*scanner)
	frames := map[*byte]bool{}
	var got []string
	for sc.Next() {
		r := sc.Result()
		if want := rows[len(got)]; string(r.Row()) != want || !bytes.Equal(r.Value([]byte("cf"), []byte("q")), []byte("v-"+want)) {
			t.Fatalf("row %d: %s=%q, want %s", len(got), r.Row(), r.Value([]byte("cf"), []byte("q")), want)
		}
		got = append(got, string(r.Row()))
		if s.frame != nil {
			frames[unsafe.SliceData(s.frame)] = true
		}
	}
	if err := sc.Err(); err != nil || !slices.Equal(got, rows) {
		t.Fatalf("rows %v, %v", got, err)
	}
	want := 0
	if reuse {
		want = 1
		if ahead {
			want = 2
		}
	}
	if len(frames) != want {
		t.Errorf("%d frame arrays for 10 responses and more, want %d", len(frames), want)
	}
}
