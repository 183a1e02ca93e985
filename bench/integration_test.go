//go:build integration

package bench_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hbkit/hbkit/bench"
	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationWorkloads runs every workload, small, against the HBase
// at HBKIT_ZK (make test starts one), on tables of its own: PE's TestTable
// is left to PE.
func TestIntegrationWorkloads(t *testing.T) {
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		t.Skip("HBKIT_ZK not set: run through make test or tools/with-hbase.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() }) // after the drop below: cleanups run last first
	r, err := bench.New(c, c, bench.WithTable("hbkit_bench_it"), bench.WithRows(300), bench.WithThreads(2),
		bench.WithPresplit(3), bench.WithBatchSize(50), bench.WithBufferSize(64<<10),
		bench.WithJobRunner(cli.BenchJobRunner(c)))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DropTables(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.DropTables(context.Background()); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	for _, w := range bench.Workloads() {
		res, err := r.Run(ctx, w.Name)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		if res.Counts != nil { // scanAll and the job workloads: one timed run over indexedWrite's 600 rows
			if res.Rows != 600 || res.RowsPerSec <= 0 || res.Counts["rows"] != 600 || res.Counts["missing"] != 0 {
				t.Fatalf("%s: %+v", w.Name, res)
			}
			t.Log(res)
			continue
		}
		if res.Rows != 600 || res.RowsPerSec <= 0 || len(res.PerThread) != 2 || res.Latency.Count == 0 {
			t.Fatalf("%s: %+v", w.Name, res)
		}
		t.Log(res)
	}
	regions, err := c.TableRegions(ctx, "hbkit_bench_it")
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 3 {
		t.Fatalf("%d regions, want 3 (presplit)", len(regions))
	}
	n := 0
	for _, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: "hbkit_bench_it"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 600 {
		t.Fatalf("hbkit_bench_it holds %d rows, want 600", n)
	}
}
