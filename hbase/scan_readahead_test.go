package hbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// hookNexts makes the fake report every next call (a scan call on an open
// scanner, not a close or renewal) on the channel returned, and, while
// gate is set, hold it until release is closed.
func hookNexts(fc *fakeCluster, gate *atomic.Bool, release <-chan struct{}) <-chan struct{} {
	entered := make(chan struct{}, 64)
	fc.set(func() {
		fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
			sr, ok := req.(*pb.ScanRequest)
			if !ok || sr.ScannerId == nil || sr.GetCloseScanner() || sr.GetRenew() {
				return nil
			}
			select {
			case entered <- struct{}{}:
			default:
			}
			if gate != nil && gate.Load() {
				<-release
			}
			return nil
		}
	})
	return entered
}

// nextCalls counts the next calls the fake received.
func (fc *fakeCluster) nextCalls() int {
	n := 0
	for _, r := range fc.userScans() {
		if r.ScannerId != nil && !r.GetCloseScanner() && !r.GetRenew() {
			n++
		}
	}
	return n
}

// TestScanReadsAhead: the call for the next response reaches the server
// while the caller has not yet read a row of the current one, and the
// rows come out whole and in order, across regions.
func TestScanReadsAhead(t *testing.T) {
	fc := newFakeCluster(t, []string{"r010"}, 1)
	rows := fakeRows(20)
	fc.load(rows...)
	entered := hookNexts(fc, nil, nil)
	sc, err := fc.client().Scan(testCtx(t), &Scan{Table: "t", Caching: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("no call for the next response before the first Next")
	}
	var got []string
	for sc.Next() {
		got = append(got, string(sc.Result().Row()))
	}
	if err := sc.Err(); err != nil || !slices.Equal(got, rows) {
		t.Fatalf("rows %v, %v; want %v", got, err, rows)
	}
	fc.waitNoScanners(t, 0)
}

// TestScanReadAheadOnlyWhenRowsRemain: a scan that fits one response, or
// reaches its Limit, makes no call more than it needs; without read-ahead
// no call is made before the caller asks.
func TestScanReadAheadOnlyWhenRowsRemain(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.load(fakeRows(20)...)
	for _, tc := range []struct {
		name string
		scan Scan
		opts []Option
		want int
	}{
		{"stop row", Scan{Table: "t", StartRow: []byte("r003"), StopRow: []byte("r007")}, nil, 4},
		{"limit", Scan{Table: "t", Caching: 5, Limit: 5}, nil, 5},
		{"off", Scan{Table: "t", Caching: 5}, []Option{WithScanReadAhead(false)}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fc.nextCalls()
			sc, err := fc.client(tc.opts...).Scan(testCtx(t), &tc.scan)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for n < tc.want && sc.Next() {
				n++
			}
			time.Sleep(50 * time.Millisecond) // room for a call that should not come
			if n != tc.want || sc.Err() != nil {
				t.Fatalf("%d rows, %v; want %d", n, sc.Err(), tc.want)
			}
			if calls := fc.nextCalls() - before; calls != 0 {
				t.Errorf("%d next calls after %d rows of the first response, want 0", calls, n)
			}
			sc.Close()
			fc.waitNoScanners(t, 0)
		})
	}
}

// TestScanReadAheadCancelledOrClosed: a scan cancelled or closed while its
// read-ahead call is held on the server returns at once, and the scanner
// that call leaves open is closed once it answers.
func TestScanReadAheadCancelledOrClosed(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			fc.load(fakeRows(20)...)
			var gate atomic.Bool
			gate.Store(true)
			release := make(chan struct{})
			entered := hookNexts(fc, &gate, release)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sc, err := fc.client().Scan(ctx, &Scan{Table: "t", Caching: 5})
			if err != nil {
				t.Fatal(err)
			}
			<-entered // the read-ahead call is held on the server
			start := time.Now()
			if how == "cancel" {
				cancel()
				if sc.Next() || !errors.Is(sc.Err(), context.Canceled) {
					t.Fatalf("Next after cancel: Err() = %v", sc.Err())
				}
			}
			sc.Close()
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s took %v with the read-ahead call held", how, d)
			}
			close(release)
			fc.waitNoScanners(t, 1)
		})
	}
}

// TestScanReadAheadFailureRetried: a read-ahead call that fails is
// retried as the caller's own call would be: the scan re-opens after the
// last row handed out and loses or repeats nothing.
func TestScanReadAheadFailureRetried(t *testing.T) {
	fc := newFakeCluster(t, []string{"r010"}, 1)
	rows := fakeRows(20)
	fc.load(rows...)
	failNextsWith(fc, excRegionTooBusy, 1, 3)
	if got := collect(t, fc.client(), &Scan{Table: "t", Caching: 3}); !slices.Equal(got, rows) {
		t.Fatalf("rows %v, want %v", got, rows)
	}
	// The client closes each scanner whose call failed before re-opening.
	fc.waitNoScanners(t, 2)
}

// TestScanReadAheadTimesOutAsCalledOnDemand: a call ahead that outlives
// the operation timeout of the fetch that waits for it fails that fetch
// as a call made on demand would (ErrTimeout, retryable), not as a
// cancellation, with and without read-ahead.
func TestScanReadAheadTimesOutAsCalledOnDemand(t *testing.T) {
	for _, ahead := range []bool{true, false} {
		t.Run(fmt.Sprintf("ahead=%v", ahead), func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			fc.load(fakeRows(20)...)
			var nexts atomic.Int32
			fc.set(func() {
				fc.hook = func(addr, method string, req proto.Message) *pb.ExceptionResponse {
					if sr, ok := req.(*pb.ScanRequest); ok && sr.ScannerId != nil && !sr.GetCloseScanner() &&
						!sr.GetRenew() && nexts.Add(1) == 1 {
						time.Sleep(time.Second)
					}
					return nil
				}
			})
			c := fc.client(WithOperationTimeout(300*time.Millisecond), WithScanReadAhead(ahead))
			sc, err := c.Scan(context.Background(), &Scan{Table: "t", Caching: 5})
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			for range 5 {
				if !sc.Next() {
					t.Fatalf("first response: %v", sc.Err())
				}
			}
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			for sc.Next() {
			}
			err = sc.Err()
			if !errors.Is(err, ErrTimeout) || !IsRetryable(err) || errors.Is(err, context.Canceled) {
				t.Errorf("Err() = %v; want ErrTimeout, retryable, not a cancellation", err)
			}
			if d := time.Since(start); d > 500*time.Millisecond {
				t.Errorf("Next returned after %v, past the operation timeout of 300ms", d)
			}
		})
	}
}

// TestScanReadAheadAnsweredThenClosed: Close after the call ahead has
// answered, leaving the scanner open, closes it before returning.
func TestScanReadAheadAnsweredThenClosed(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.load(fakeRows(20)...)
	sc, err := fc.client().Scan(testCtx(t), &Scan{Table: "t", Caching: 5})
	if err != nil {
		t.Fatal(err)
	}
	a := sc.(*scanner).ahead
	if a == nil {
		t.Fatal("no call ahead after the first response")
	}
	<-a.done
	if a.err != nil || !leavesScannerOpen(a.resp) {
		t.Fatalf("call ahead: %v, leaves the scanner open: %v", a.err, a.err == nil && leavesScannerOpen(a.resp))
	}
	sc.Close()
	if n := fc.openScanners(); n != 0 {
		t.Errorf("%d scanners open after Close returned", n)
	}
}

// TestScanReadAheadLimitAcrossResponses: a Limit that takes several
// responses is honoured exactly, the calls ahead asking for what is left
// of it, and no call is made once it is reached.
func TestScanReadAheadLimitAcrossResponses(t *testing.T) {
	fc := newFakeCluster(t, []string{"r010"}, 1)
	rows := fakeRows(20)
	fc.load(rows...)
	got := collect(t, fc.client(), &Scan{Table: "t", Caching: 4, Limit: 13})
	if !slices.Equal(got, rows[:13]) {
		t.Fatalf("rows %v, want %v", got, rows[:13])
	}
	var limits []uint32
	for _, r := range fc.userScans() {
		if !r.GetCloseScanner() && !r.GetRenew() {
			limits = append(limits, r.GetLimitOfRows())
		}
	}
	if want := []uint32{13, 9, 5, 3}; !slices.Equal(limits, want) {
		t.Errorf("LimitOfRows of the calls %v, want %v", limits, want)
	}
	fc.waitNoScanners(t, 0)
}

// TestScanReadAheadChainsOnHead: a scanner waiting for a call ahead makes
// the call after it as soon as the answer's message is in, while its
// cells are still on their way (the fake holds the rest of each large
// answer until a later call arrives); the rows come out whole and in
// order, with ReuseMemory too, and nothing stays open on the server.
func TestScanReadAheadChainsOnHead(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			rows := fakeRows(16)
			want := map[string]string{}
			fc.mu.Lock()
			for _, r := range rows {
				want[r] = strings.Repeat(r, rpc.FrameReuseMin/8) // 4 rows: a large answer
				fc.rows[r] = map[string][]byte{"q": []byte(want[r])}
			}
			fc.holdNext = func(int) heldAnswer { return heldAnswer{hold: true} }
			fc.mu.Unlock()
			start := time.Now()
			sc, err := fc.client().Scan(testCtx(t), &Scan{Table: "t", Caching: 4, ReuseMemory: reuse})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for sc.Next() {
				r := sc.Result()
				got = append(got, string(r.Row()))
				if v := string(r.Value([]byte("cf"), []byte("q"))); v != want[string(r.Row())] {
					t.Errorf("row %s: value of %d bytes, want %d", r.Row(), len(v), len(want[string(r.Row())]))
				}
			}
			chains := sc.(*scanner).chains
			if err := sc.Close(); err != nil || sc.Err() != nil || !slices.Equal(got, rows) {
				t.Fatalf("rows %v, %v, %v; want %v", got, err, sc.Err(), rows)
			}
			// The open (rows 0-3), the call ahead for 4-7, then, chained
			// on the answers before them, 8-11 and 12-15 (the last).
			if chains != 2 {
				t.Errorf("%d calls chained, want 2", chains)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("scan took %v: an answer waited for a call that came only after it", d)
			}
			fc.waitNoScanners(t, 0)
		})
	}
}

// TestScanReadAheadChainedCallFails: a chained call that fails goes
// through the fetch's retries like any call ahead: the scan re-opens
// after the last row handed out and nothing stays open.
func TestScanReadAheadChainedCallFails(t *testing.T) {
	fc := bigRowsCluster(t, 16)
	fc.set(func() { fc.holdNext = func(int) heldAnswer { return heldAnswer{hold: true} } })
	failNextsWith(fc, excRegionTooBusy, 2) // the first chained call
	got := collect(t, fc.client(), &Scan{Table: "t", Caching: 4})
	if !slices.Equal(got, fakeRows(16)) {
		t.Fatalf("rows %v, want %v", got, fakeRows(16))
	}
	fc.waitNoScanners(t, 0)
}

// TestScanReadAheadChainedAfterFailure: when the answer a call was
// chained on turns out unreadable after its head, the scan ends with that
// error after the rows before it, and the chained call is given up and
// the scanner closed, whether the chained call's own answer came first
// or not.
func TestScanReadAheadChainedAfterFailure(t *testing.T) {
	for range 20 {
		fc := bigRowsCluster(t, 16)
		fc.set(func() { fc.holdNext = func(k int) heldAnswer { return heldAnswer{hold: k == 1, corrupt: true} } })
		got, chains, err := scanChained(t, fc.client(), &Scan{Table: "t", Caching: 4})
		if err == nil || !strings.Contains(err.Error(), "malformed cell block") || !slices.Equal(got, fakeRows(4)) {
			t.Fatalf("rows %v, error %v; want the first 4 rows, then the malformed cell block", got, err)
		}
		if chains != 1 {
			t.Fatalf("%d calls chained, want 1", chains)
		}
		fc.waitNoScanners(t, 0)
	}
}

// TestScanReadAheadChainedAfterTimeout: the answer a call was chained on
// stops after its head for longer than the RPC timeout: the call times
// out, the chained call (whose answer waits behind it) is given up, the
// retry re-opens after the last row handed out, and every row comes
// once. The stalled connection is closed, so its scanner is left to the
// server's lease, as after any stall.
func TestScanReadAheadChainedAfterTimeout(t *testing.T) {
	fc := bigRowsCluster(t, 16)
	fc.set(func() {
		fc.holdNext = func(k int) heldAnswer { return heldAnswer{hold: k == 1, delay: 300 * time.Millisecond} }
	})
	got, chains, err := scanChained(t, fc.client(WithRPCTimeout(100*time.Millisecond)), &Scan{Table: "t", Caching: 4})
	if err != nil || !slices.Equal(got, fakeRows(16)) {
		t.Fatalf("rows %v, %v; want %v", got, err, fakeRows(16))
	}
	if chains == 0 {
		t.Error("no call chained")
	}
	opens := 0
	for _, r := range fc.userScans() {
		if r.Scan != nil {
			opens++
		}
	}
	if opens < 2 {
		t.Errorf("%d opens, want a re-open", opens)
	}
}

// scanChained runs s to its end and returns its rows, the calls it
// chained and its error, having closed it.
func scanChained(t *testing.T, c *Client, s *Scan) (rows []string, chains int, err error) {
	t.Helper()
	sc, err := c.Scan(testCtx(t), s)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for sc.Next() {
		rows = append(rows, string(sc.Result().Row()))
	}
	return rows, sc.(*scanner).chains, sc.Err()
}

// TestHeadLeavesScannerOpen: the head's two-flag reading agrees with
// leavesScannerOpen on the decoded answer, whatever the other fields.
func TestHeadLeavesScannerOpen(t *testing.T) {
	flags := []*bool{nil, proto.Bool(false), proto.Bool(true)}
	for _, more := range flags {
		for _, inRegion := range flags {
			r := &pb.ScanResponse{CellsPerResult: []uint32{3, 1, 200}, ScannerId: proto.Uint64(1 << 40), MoreResults: more,
				PartialFlagPerResult: []bool{false, true, false}, MoreResultsInRegion: inRegion, MvccReadPoint: proto.Uint64(9)}
			msg, err := proto.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			open, ok := headLeavesScannerOpen(msg)
			if !ok || open != leavesScannerOpen(r) {
				t.Errorf("more_results %v, more_results_in_region %v: open %v, ok %v; want %v", more, inRegion, open, ok, leavesScannerOpen(r))
			}
		}
	}
	if _, ok := headLeavesScannerOpen([]byte{0x18}); ok {
		t.Error("a cut message read as whole")
	}
}

// bigRowsCluster is a fake cluster of one region with n rows whose four
// make a response above rpc.FrameReuseMin.
func bigRowsCluster(t *testing.T, n int) *fakeCluster {
	fc := newFakeCluster(t, nil, 1)
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, r := range fakeRows(n) {
		fc.rows[r] = map[string][]byte{"q": []byte(strings.Repeat(r, rpc.FrameReuseMin/8))}
	}
	return fc
}

// BenchmarkHeadLeavesScannerOpen: what the head function costs the
// connection's reader for the message of a 2,000-row answer, reading the
// two flags against decoding the whole message.
func BenchmarkHeadLeavesScannerOpen(b *testing.B) {
	r := &pb.ScanResponse{ScannerId: proto.Uint64(12345), MoreResults: proto.Bool(true), MoreResultsInRegion: proto.Bool(true)}
	for range 2000 {
		r.CellsPerResult = append(r.CellsPerResult, 1)
		r.PartialFlagPerResult = append(r.PartialFlagPerResult, false)
	}
	msg, err := proto.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("flags", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if open, ok := headLeavesScannerOpen(msg); !ok || !open {
				b.Fatal("not open")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h := new(pb.ScanResponse)
			if err := proto.Unmarshal(msg, h); err != nil || !leavesScannerOpen(h) {
				b.Fatal("not open")
			}
		}
	})
}
