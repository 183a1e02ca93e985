//go:build integration

package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// Scanner tests against the local HBase (HBKIT_ZK, default
// 127.0.0.1:2181). They create tables of their own, with unique names,
// and drop them.

// scanIT is a client whose connections record the scan requests they
// send.
type scanIT struct {
	c      *Client
	mu     sync.Mutex
	req    []*pb.ScanRequest // every ScanRequest sent, in order
	closed []uint64          // scanners whose close call returned (Client.scannerClosed)
}

func newScanIT(t *testing.T, opts ...Option) *scanIT {
	t.Helper()
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	it := &scanIT{}
	var d net.Dialer
	opts = append([]Option{WithDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recordingConn{Conn: nc, it: it}, nil
	})}, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := New(ctx, zkq, opts...)
	if err != nil {
		t.Fatalf("New(%s): %v", zkq, err)
	}
	t.Cleanup(func() { c.Close() })
	c.scannerClosed = func(id uint64) {
		it.mu.Lock()
		defer it.mu.Unlock()
		it.closed = append(it.closed, id)
	}
	it.c = c
	return it
}

// requests returns the ScanRequests sent so far, in order.
func (it *scanIT) requests() []*pb.ScanRequest {
	it.mu.Lock()
	defer it.mu.Unlock()
	return slices.Clone(it.req)
}

// closes returns the ids of the scanners the client asked to close.
func (it *scanIT) closes() []uint64 {
	var ids []uint64
	for _, r := range it.requests() {
		if r.GetCloseScanner() {
			ids = append(ids, r.GetScannerId())
		}
	}
	return ids
}

// waitClose waits (bounded) for a close request of a scanner not in
// before, and for that close call to return (the server may still be
// working on a request merely sent), and returns the scanner's id.
func (it *scanIT) waitClose(t *testing.T, before int) uint64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ids := it.closes(); len(ids) > before {
			id := ids[before]
			it.mu.Lock()
			done := slices.Contains(it.closed, id)
			it.mu.Unlock()
			if done {
				return id
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no close request sent")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordingConn parses the request frames written after the connection
// header and records the ScanRequests.
type recordingConn struct {
	net.Conn
	it  *scanIT
	buf []byte
	hdr bool // preamble and connection header seen
}

func (rc *recordingConn) Write(b []byte) (int, error) {
	rc.buf = append(rc.buf, b...)
	for {
		if !rc.hdr {
			if len(rc.buf) < 10 {
				break
			}
			n := 10 + int(binary.BigEndian.Uint32(rc.buf[6:]))
			if len(rc.buf) < n {
				break
			}
			rc.buf, rc.hdr = rc.buf[n:], true
			continue
		}
		if len(rc.buf) < 4 {
			break
		}
		n := 4 + int(binary.BigEndian.Uint32(rc.buf))
		if len(rc.buf) < n {
			break
		}
		frame := rc.buf[4:n]
		rc.buf = rc.buf[n:]
		hb, m := protowire.ConsumeBytes(frame)
		param, k := protowire.ConsumeBytes(frame[max(m, 0):])
		var h pb.RequestHeader
		if m < 0 || k < 0 || proto.Unmarshal(hb, &h) != nil {
			continue
		}
		if h.GetMethodName() == "Scan" {
			r := new(pb.ScanRequest)
			if proto.Unmarshal(param, r) == nil {
				rc.it.mu.Lock()
				rc.it.req = append(rc.it.req, r)
				rc.it.mu.Unlock()
			}
		}
	}
	return rc.Conn.Write(b)
}

// scanITTable creates a table with family cf and n rows "row%07d" of a
// 16-byte value, and drops it when the test ends.
func scanITTable(t *testing.T, c *Client, base string, n int) string {
	t.Helper()
	name := fmt.Sprintf("hbkit_scanit_%s_%s", base, strconv.FormatInt(time.Now().UnixNano(), 36))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.CreateTable(ctx, TableDescriptor{Name: name, Families: []FamilyDescriptor{{Name: "cf"}}}, nil); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = c.DisableTable(ctx, name)
		_ = c.DeleteTable(ctx, name)
	})
	const chunk = 2000
	for i := 0; i < n; i += chunk {
		var acts []Action
		for j := i; j < min(i+chunk, n); j++ {
			acts = append(acts, &Put{Table: name, Row: itRow(j), Values: map[string]map[string][]byte{"cf": {"q": []byte("value-0123456789")}}})
		}
		if _, err := c.Batch(ctx, acts); err != nil {
			t.Fatalf("loading %s: %v", name, err)
		}
	}
	return name
}

func itRow(i int) []byte { return []byte(fmt.Sprintf("row%07d", i)) }

// onlyRows matches the given rows, by row key: the server filters every
// other row without reading its cells.
func onlyRows(rows ...[]byte) Filter {
	fl := &FilterList{Op: MustPassOne}
	for _, r := range rows {
		fl.Filters = append(fl.Filters, &RowFilter{Compare: CompareEqual, Comparator: &BinaryComparator{Value: r}})
	}
	return fl
}

const itRows = 200_000

// TestIntegrationScanner runs the scanner scenarios on one table of
// itRows small rows.
func TestIntegrationScanner(t *testing.T) {
	it := newScanIT(t)
	table := scanITTable(t, it.c, "rows", itRows)
	mid, last := itRow(itRows/2), itRow(itRows-1)

	// A filter that matches one row in itRows: with a short RPC timeout
	// the server stops at half of it and answers with a heartbeat, and
	// the client keeps going.
	t.Run("selective filter with heartbeats", func(t *testing.T) {
		hit := newScanIT(t, WithRPCTimeout(300*time.Millisecond))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		start := time.Now()
		sc, err := hit.c.Scan(ctx, &Scan{Table: table, Filter: onlyRows(mid, last)})
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		var got []string
		for sc.Next() {
			got = append(got, string(sc.Result().Row()))
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("scan: %v", err)
		}
		hb := sc.(*scanner).heartbeats
		sc.Close()
		if len(got) != 2 || got[0] != string(mid) || got[1] != string(last) {
			t.Errorf("rows %q, want %s and %s", got, mid, last)
		}
		t.Logf("%d heartbeats in %v", hb, time.Since(start))
		if hb == 0 {
			t.Errorf("no heartbeat: the server's time limit never cut a call")
		}
	})

	for _, during := range []string{"open", "next"} {
		t.Run("cancel during "+during, func(t *testing.T) {
			before := len(it.closes())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Each call searches half the table for its row and leaves
			// the scanner open (a call that reached the end of the region
			// would close it on the server).
			if during == "open" {
				time.AfterFunc(30*time.Millisecond, cancel)
				if _, err := it.c.Scan(ctx, &Scan{Table: table, Caching: 1, Filter: onlyRows(mid, last)}); !errors.Is(err, context.Canceled) {
					t.Fatalf("Scan = %v, want context.Canceled (the open was too fast?)", err)
				}
			} else {
				// The open finds the first row at once.
				sc, err := it.c.Scan(ctx, &Scan{Table: table, Caching: 1, Filter: onlyRows(itRow(0), mid, last)})
				if err != nil {
					t.Fatalf("Scan: %v", err)
				}
				if !sc.Next() {
					t.Fatalf("first row: %v", sc.Err())
				}
				time.AfterFunc(30*time.Millisecond, cancel)
				if sc.Next() {
					t.Fatalf("second Next = true (the next call was too fast?)")
				}
				if !errors.Is(sc.Err(), context.Canceled) {
					t.Fatalf("Err() = %v, want context.Canceled", sc.Err())
				}
				sc.Close()
			}
			id := it.waitClose(t, before)
			if state := it.probe(t, table, id); state != "closed" {
				t.Errorf("scanner %d is %s on the server after the close", id, state)
			}
		})
	}

	// The control for the probe: a scanner opened and left open is seen
	// open, then closed once closed.
	t.Run("probe", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		loc, err := it.c.locate(ctx, canonicalTable(table), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var resp pb.ScanResponse
		if err := it.c.rsCall(ctx, loc.addr, "Scan", &pb.ScanRequest{Region: loc.specifier(), Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(1),
			ClientHandlesPartials: &boolTrue, ClientHandlesHeartbeats: &boolTrue}, &resp); err != nil {
			t.Fatalf("open: %v", err)
		}
		id := resp.GetScannerId()
		if state := it.probe(t, table, id); state != "open" {
			t.Errorf("scanner %d left open is %s", id, state)
		}
		it.c.closeScanner(loc.addr, id)
		if state := it.probe(t, table, id); state != "closed" {
			t.Errorf("scanner %d is %s after the close", id, state)
		}
	})
}

// probe asks the region server for one more row of scanner id and says
// whether the scanner is "open" or "closed". HBase 2.6 answers a call to
// a scanner it closed recently with an empty response (it keeps closed
// scanner names for a lease period, so that an old client's close after
// the server closed the scanner itself is not an error), and one it does
// not know with UnknownScannerException.
func (it *scanIT) probe(t *testing.T, table string, id uint64) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	loc, err := it.c.locate(ctx, canonicalTable(table), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var resp pb.ScanResponse
	err = it.c.rsCall(ctx, loc.addr, "Scan", &pb.ScanRequest{ScannerId: proto.Uint64(id), NumberOfRows: proto.Uint32(1),
		ClientHandlesPartials: &boolTrue, ClientHandlesHeartbeats: &boolTrue}, &resp)
	var re *rpc.RemoteError
	switch {
	case errors.As(err, &re) && re.Class == excUnknownScanner:
		return "closed"
	case err != nil:
		t.Fatalf("probe of scanner %d: %v", id, err)
	case !resp.GetMoreResults() && len(resp.GetResults()) == 0 && len(resp.GetCellsPerResult()) == 0:
		return "closed"
	}
	// It was open: the probe used it; close it.
	it.c.closeScanner(loc.addr, id)
	return "open"
}

// TestIntegrationScanWideRow reads a row of 4,000 cells of 100 bytes
// (about 500 KB) with a 64 KB MaxResultSize: whole, in Batch-sized
// Results, and in parts, with and without read-ahead.
func TestIntegrationScanWideRow(t *testing.T) {
	it := newScanIT(t)
	noAhead := newScanIT(t, WithScanReadAhead(false))
	table := scanITTable(t, it.c, "wide", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const cols = 4000
	vals := map[string][]byte{}
	for i := range cols {
		vals[fmt.Sprintf("c%05d", i)] = bytes.Repeat([]byte{byte('a' + i%26)}, 100)
	}
	for _, row := range []string{"w1", "w2"} {
		if err := it.c.Put(ctx, &Put{Table: table, Row: []byte(row), Values: map[string]map[string][]byte{"cf": vals}}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	check := func(t *testing.T, c *Client, s Scan, wantSizes []int) {
		t.Helper()
		s.Table, s.MaxResultSize = table, 64<<10
		sc, err := c.Scan(ctx, &s)
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		defer sc.Close()
		var sizes []int
		next := map[string]int{}
		frames := map[*byte]bool{}
		for sc.Next() {
			r := sc.Result()
			if f := sc.(*scanner).frame; f != nil {
				frames[unsafe.SliceData(f)] = true
			}
			for _, c := range r.Cells {
				q := fmt.Sprintf("c%05d", next[string(c.Row)])
				if string(c.Qualifier) != q || !bytes.Equal(c.Value, vals[q]) {
					t.Fatalf("row %s: cell %s, want %s", c.Row, c.Qualifier, q)
				}
				next[string(c.Row)]++
			}
			sizes = append(sizes, len(r.Cells))
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("scan: %v", err)
		}
		if next["w1"] != cols || next["w2"] != cols {
			t.Errorf("cells per row %v, want %d each", next, cols)
		}
		if wantSizes != nil && fmt.Sprint(sizes) != fmt.Sprint(wantSizes) {
			t.Errorf("result sizes %v, want %v", sizes, wantSizes)
		}
		partials := sc.(*scanner).partials
		t.Logf("%d results; %d partial results from the server; %d frame arrays", len(sizes), partials, len(frames))
		if partials == 0 {
			t.Errorf("the server sent no partial result: MaxResultSize did not cut the row")
		}
		// With ReuseMemory, parts handed out as they come (nothing being
		// joined across responses) go into the memory of the first frame,
		// or of the one that outgrew it; with read-ahead two frames take
		// turns, each outgrown the same way.
		maxFrames := 3
		if !c.opts.noScanReadAhead {
			maxFrames = 6
		}
		if s.ReuseMemory && s.AllowPartial && len(frames) > maxFrames {
			t.Errorf("%d frame arrays for %d partial results: ReuseMemory did not reuse them", len(frames), partials)
		}
	}
	for _, c := range []*Client{it.c, noAhead.c} {
		ahead := !c.opts.noScanReadAhead
		for _, reuse := range []bool{false, true} {
			t.Run(fmt.Sprintf("whole/ahead=%v/reuse=%v", ahead, reuse), func(t *testing.T) {
				check(t, c, Scan{ReuseMemory: reuse}, []int{cols, cols})
			})
			t.Run(fmt.Sprintf("batch/ahead=%v/reuse=%v", ahead, reuse), func(t *testing.T) {
				check(t, c, Scan{Batch: 1500, ReuseMemory: reuse}, []int{1500, 1500, 1000, 1500, 1500, 1000})
			})
			t.Run(fmt.Sprintf("allow partial/ahead=%v/reuse=%v", ahead, reuse), func(t *testing.T) {
				check(t, c, Scan{AllowPartial: true, ReuseMemory: reuse}, nil)
			})
		}
	}
}

// TestIntegrationBoundedScanOneCall: a scan whose stop row comes right
// after the rows one call brings (Caching rows) costs one Scan request:
// HBase sees the stop row after the last of them, answers that the
// region has no more, and closes the scanner itself; the client neither
// asks again nor sends a close.
func TestIntegrationBoundedScanOneCall(t *testing.T) {
	it := newScanIT(t)
	ctx := context.Background()
	table := scanITTable(t, it.c, "boundedscan", 300)
	warm := &Scan{Table: table, StartRow: itRow(0), StopRow: itRow(1)}
	for _, err := range ScanAll(ctx, it.c, warm) { // the region located
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, caching := range []int{100, 1000} {
		before := len(it.requests())
		n := 0
		for _, err := range ScanAll(ctx, it.c, &Scan{Table: table, StartRow: itRow(100), StopRow: itRow(200), Caching: caching}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		sent := it.requests()[before:]
		if n != 100 || len(sent) != 1 {
			t.Errorf("caching %d: %d rows with %d Scan requests %v, want 100 rows with one request", caching, n, len(sent), sent)
		}
	}
}

// TestIntegrationScanReuseMemory scans 3,000 rows of 1 KB in responses
// of about 100 KB, forward and reversed, with and without ReuseMemory,
// with and without read-ahead: the same rows and values, and with
// ReuseMemory every response in the memory of the first (or of the one
// that outgrew it), or of the first two with read-ahead.
func TestIntegrationScanReuseMemory(t *testing.T) {
	it := newScanIT(t)
	noAhead := newScanIT(t, WithScanReadAhead(false))
	table := scanITTable(t, it.c, "reuse", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 3000
	value := func(i int) []byte { return bytes.Repeat([]byte(strconv.Itoa(i%10)), 1000) }
	var acts []Action
	for i := range n {
		acts = append(acts, &Put{Table: table, Row: itRow(i), Values: map[string]map[string][]byte{"cf": {"q": value(i)}}})
	}
	if _, err := it.c.Batch(ctx, acts); err != nil {
		t.Fatalf("loading %s: %v", table, err)
	}
	for _, c := range []*Client{it.c, noAhead.c} {
		ahead := !c.opts.noScanReadAhead
		for _, reversed := range []bool{false, true} {
			for _, reuse := range []bool{false, true} {
				t.Run(fmt.Sprintf("ahead=%v/reversed=%v/reuse=%v", ahead, reversed, reuse), func(t *testing.T) {
					sc, err := c.Scan(ctx, &Scan{Table: table, MaxResultSize: 100 << 10, Reversed: reversed, ReuseMemory: reuse})
					if err != nil {
						t.Fatalf("Scan: %v", err)
					}
					defer sc.Close()
					frames := map[*byte]bool{}
					got := 0
					for sc.Next() {
						i := got
						if reversed {
							i = n - 1 - got
						}
						r := sc.Result()
						if !bytes.Equal(r.Row(), itRow(i)) || !bytes.Equal(r.Value([]byte("cf"), []byte("q")), value(i)) {
							t.Fatalf("row %d: %s, value %.12q…, want %s", got, r.Row(), r.Value([]byte("cf"), []byte("q")), itRow(i))
						}
						if f := sc.(*scanner).frame; f != nil {
							frames[unsafe.SliceData(f)] = true
						}
						got++
					}
					if err := sc.Err(); err != nil || got != n {
						t.Fatalf("%d rows, %v; want %d", got, err, n)
					}
					t.Logf("%d frame arrays", len(frames))
					maxFrames := 2
					if ahead {
						maxFrames = 4
					}
					if reuse && (len(frames) == 0 || len(frames) > maxFrames) {
						t.Errorf("%d frame arrays for about 30 responses, want 1 to %d", len(frames), maxFrames)
					}
				})
			}
		}
	}
}

// TestIntegrationRecordScanResponses records, when HBKIT_RECORD=1, the
// response frames of one Scan call over 64 rows of 1 KB, inline and with
// a KeyValueCodec cell block, into testdata/ for BenchmarkDecodeScan.
func TestIntegrationRecordScanResponses(t *testing.T) {
	if os.Getenv("HBKIT_RECORD") != "1" {
		t.Skip("set HBKIT_RECORD=1 to record testdata/scan-1k-rows.*.frame")
	}
	it := newScanIT(t)
	table := scanITTable(t, it.c, "record", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const rows = 64
	var acts []Action
	for i := range rows {
		v := bytes.Repeat([]byte{byte('a' + i%26)}, 1000)
		acts = append(acts, &Put{Table: table, Row: []byte(fmt.Sprintf("row%04d", i)), Values: map[string]map[string][]byte{"cf": {"q": v}}})
	}
	if _, err := it.c.Batch(ctx, acts); err != nil {
		t.Fatal(err)
	}
	loc, err := it.c.locate(ctx, canonicalTable(table), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{"inline", "cellblock"} {
		var captured bytes.Buffer
		var mu sync.Mutex
		opts := []rpc.Option{rpc.WithDialFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &capturingConn{Conn: nc, mu: &mu, buf: &captured}, nil
		})}
		if form == "cellblock" {
			opts = append(opts, cellBlockOptions()...)
		}
		pool, err := rpc.NewPool(opts...)
		if err != nil {
			t.Fatal(err)
		}
		req := &pb.ScanRequest{Region: loc.specifier(), Scan: &pb.Scan{Caching: proto.Uint32(rows)}, NumberOfRows: proto.Uint32(rows),
			CloseScanner: &boolTrue, ClientHandlesPartials: &boolTrue, ClientHandlesHeartbeats: &boolTrue}
		var resp pb.ScanResponse
		err = pool.Call(ctx, loc.addr, rpc.ClientService, "Scan", req, &resp, rpc.WithCellBlock(new([]byte)))
		pool.Close()
		if err != nil {
			t.Fatalf("%s scan: %v", form, err)
		}
		mu.Lock()
		frame, err := rpc.ReadFrame(bytes.NewReader(captured.Bytes()), rpc.DefaultMaxFrameSize)
		mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		path := "testdata/scan-1k-rows." + form + ".frame"
		if err := os.WriteFile(path, frame, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d results, %d cells_per_result", path, len(frame), len(resp.GetResults()), len(resp.GetCellsPerResult()))
	}
}

// capturingConn keeps a copy of every byte read.
type capturingConn struct {
	net.Conn
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (cc *capturingConn) Read(b []byte) (int, error) {
	n, err := cc.Conn.Read(b)
	cc.mu.Lock()
	cc.buf.Write(b[:n])
	cc.mu.Unlock()
	return n, err
}
