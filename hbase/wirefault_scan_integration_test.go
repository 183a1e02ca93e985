//go:build integration

package hbase_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/faultnet"
)

// Scans over a bad network (issue 34): the client's connections go
// through a faultnet.Dialer; the rows are loaded before any fault is set.

// scanFaultClient returns a client whose connections go through a new
// faultnet.Dialer, and that dialer.
func scanFaultClient(t *testing.T, opts ...hbase.Option) (*hbase.Client, *faultnet.Dialer) {
	t.Helper()
	d := faultnet.New(nil, nil)
	return itClient(t, append([]hbase.Option{hbase.WithDialer(d.Dial)}, opts...)...), d
}

// loadValued writes rows 0..n-1 (rowKey) with a value of size bytes each.
func loadValued(t *testing.T, ctx context.Context, c *hbase.Client, table string, n, size int) {
	t.Helper()
	var actions []hbase.Action
	for i := range n {
		v := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		actions = append(actions, &hbase.Put{Table: table, Row: rowKey(i),
			Values: map[string]map[string][]byte{"cf": {"q": v}}})
		if len(actions) == 1000 || i == n-1 {
			if _, err := c.Batch(ctx, actions); err != nil {
				t.Fatalf("Batch: %v", err)
			}
			actions = actions[:0]
		}
	}
}

// scanEvery scans table and checks that it returns rows 0..n-1, each once,
// in order, with the value loadValued wrote.
func scanEvery(t *testing.T, ctx context.Context, c *hbase.Client, s *hbase.Scan, n, size int) {
	t.Helper()
	next := 0
	for r, err := range hbase.ScanAll(ctx, c, s) {
		if err != nil {
			t.Fatalf("scan failed after %d rows: %v", next, err)
		}
		if !bytes.Equal(r.Row(), rowKey(next)) {
			t.Fatalf("row %d is %q, want %q", next, r.Row(), rowKey(next))
		}
		if v := r.Value([]byte("cf"), []byte("q")); len(v) != size || (size > 0 && v[0] != byte('a'+next%26)) {
			t.Fatalf("row %d: value of %d bytes, want %d", next, len(v), size)
		}
		next++
	}
	if next != n {
		t.Fatalf("scan returned %d rows, want %d", next, n)
	}
}

// TestIntegrationScanSurvivesResets: with 15% of the answers dropped and
// their connections reset (the server acted on the request, the client
// never hears), a scan of 20,000 rows returns every row once, in order:
// each reset re-opens the scanner after the last row completed.
func TestIntegrationScanSurvivesResets(t *testing.T) {
	const n, size = 20000, 100
	c, d := scanFaultClient(t, hbase.WithOperationTimeout(20*time.Second), hbase.WithRPCTimeout(5*time.Second))
	ctx := itCtx(t, 5*time.Minute)
	table := itTable(t, c, "resets", nil)
	loadValued(t, ctx, c, table, n, size)
	for _, tc := range []struct {
		name string
		scan hbase.Scan
	}{
		{"caching 200", hbase.Scan{Caching: 200}},
		{"64 KiB answers", hbase.Scan{MaxResultSize: 64 << 10}},
		{"reused memory", hbase.Scan{Caching: 300, ReuseMemory: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d.Seed(34)
			d.SetFaults(faultnet.Faults{ResetAnswer: 0.15})
			defer d.SetFaults(faultnet.Faults{})
			before := d.Stats()
			s := tc.scan
			s.Table = table
			scanEvery(t, ctx, c, &s, n, size)
			after := d.Stats()
			t.Logf("%d answers, %d reset", after.Frames-before.Frames, after.Resets-before.Resets)
			if after.Resets-before.Resets < 5 {
				t.Errorf("only %d resets: the test did not test", after.Resets-before.Resets)
			}
		})
	}
}

// TestIntegrationScanSlowLink: on a 64 KiB/s link with a 2s RPC timeout,
// the default 2 MiB answer cannot arrive in time (it takes 32s); the scan
// shrinks its answers until they fit and returns every row.
func TestIntegrationScanSlowLink(t *testing.T) {
	const n, size = 5000, 1024
	c, d := scanFaultClient(t, hbase.WithRPCTimeout(2*time.Second))
	ctx := itCtx(t, 5*time.Minute)
	table := itTable(t, c, "slowlink", nil)
	loadValued(t, ctx, c, table, n, size)
	d.SetFaults(faultnet.Faults{BytesPerSecond: 64 << 10})
	defer d.SetFaults(faultnet.Faults{})
	start := time.Now()
	scanEvery(t, ctx, c, &hbase.Scan{Table: table}, n, size)
	took := time.Since(start)
	// 5,000 rows of about 1.05 KiB take 80s at 64 KiB/s.
	t.Logf("scan of %d rows of %d bytes took %v", n, size, took)
}
