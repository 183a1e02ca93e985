package hbase

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
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
		t.Run(tc.name, func(t *testing.T) {
			s := tc.scan
			s.Table = "t"
			got := collect(t, c, &s)
			if !slices.Equal(got, tc.want) {
				t.Errorf("rows %v\nwant %v", got, tc.want)
			}
		})
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
			for _, reversed := range []bool{false, true} {
				nexts.Store(0)
				want := slices.Clone(rows)
				if reversed {
					slices.Reverse(want)
				}
				got := collect(t, c, &Scan{Table: "t", Caching: 3, Reversed: reversed})
				if !slices.Equal(got, want) {
					t.Errorf("reversed=%v: rows %v\nwant %v", reversed, got, want)
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
