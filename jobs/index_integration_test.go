//go:build integration

package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
)

// The index jobs against the real HBase at HBKIT_ZK, on ledgers of their
// own, dropped when each test ends (synchronously: this file leaves
// TestMain to the package's other integration tests).

// itLedger returns a fresh ledger name and drops its tables (and extra
// ones) when tb ends.
func itLedger(tb testing.TB, c *hbase.Client, base string, extra ...string) string {
	name := fmt.Sprintf("%s_%s", base, strconv.FormatInt(time.Now().UnixNano()/1e6, 36))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		tables := []string{name, name + "_by_status", name + "_by_ref"}
		for _, e := range extra {
			tables = append(tables, name+e)
		}
		for _, t := range tables {
			if ok, err := c.TableExists(ctx, t); err != nil || !ok {
				continue
			}
			_ = c.DisableTable(ctx, t)
			if err := c.DeleteTable(ctx, t); err != nil {
				tb.Errorf("drop %s: %v", t, err)
			}
		}
	})
	return name
}

// TestIntegrationIndexTaskConcurrentWriters is concurrentScenario on the
// real HBase: writers move statuses and delete records while a rebuild
// job's units and a repair job's run two at a time; Find then answers
// exactly the live records, and verify is clean after a final repair.
func TestIntegrationIndexTaskConcurrentWriters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := ittest.Connect(t)
	concurrentScenario(ctx, t, c, itLedger(t, c, "g2ix_cw"), 3000)
}

// TestIntegrationIndexTaskBuild is buildScenario on the real HBase: an
// index table created over rows is building and Find refuses it; the
// build job's units write the entries, Finish marks it active, and Find
// answers every old row.
func TestIntegrationIndexTaskBuild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := ittest.Connect(t)
	buildScenario(ctx, t, c, itLedger(t, c, "g2ix_b"), 3000)
}

// BenchmarkIntegrationIndexJobs measures, once, on one worker (each job
// one Task.Run per table over the whole table), on a ledger of
// HBKIT_BENCH_ROWS rows (default 100,000) with two indexes:
//
//   - plain: the data rows written as raw batched Puts (500 per Batch)
//     into a table of the same families and splits;
//   - scan: a full scan of the data table and both index tables;
//   - verify: the verify job's units of the three tables;
//   - rebuild: the rebuild job's data-table unit over emptied index
//     tables (both indexes; then one index alone), and its index units;
//   - Check in ModeRebuild, the protocol's rebuild, for comparison.
//
// Rates are data rows per second; the ratios are the targets
// (rebuild ≥ 0.8× plain, verify ≥ 0.5× scan). See docs/index-jobs.md.
func BenchmarkIntegrationIndexJobs(b *testing.B) {
	n := 100_000
	if s := os.Getenv("HBKIT_BENCH_ROWS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	c := ittest.Connect(b)
	name := itLedger(b, c, "g2ix_bench", "_plain")
	doc := ledgerTables(b, name)
	repo, err := dao.Open[ledger](ctx, c, doc, dao.WithBatchSize(500))
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*ledger, n)
	for i := range recs {
		recs[i] = ledgerRecord(i, []string{"pending", "settled"}[i%2])
	}
	load := time.Now()
	if _, err := repo.PutBatch(ctx, recs); err != nil {
		b.Fatal(err)
	}
	if err := repo.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d rows through the store in %v", n, time.Since(load).Round(time.Millisecond))
	b.ResetTimer()
	plain := timeIt(func() { plainWrite(ctx, b, c, repo, name+"_plain", recs) })
	tables := []string{name, name + "_by_status", name + "_by_ref"}
	scan := timeIt(func() { scanAll(ctx, b, c, tables) })
	verify := timeIt(func() {
		runWhole(ctx, b, c, Spec{Kind: KindVerify, Table: name}, tables, Counts{"rows": int64(n), "missing": 0})
	})
	// The digest verify (Span.Digest of 64 buckets, then the differing
	// buckets judged exactly: none here), a scan timed again after it.
	cpu0 := cpuTime(b)
	digest := timeIt(func() {
		got, diff := digestVerify(ctx, b, c, name, 64)
		wantCounts(b, "digest verify", got, Counts{"rows": int64(n), "missing": 0})
		if diff != 0 {
			b.Errorf("digest verify: %d buckets differ on a clean table", diff)
		}
	})
	digestCPU := cpuTime(b) - cpu0
	scan2 := timeIt(func() { scanAll(ctx, b, c, tables) })
	truncate(ctx, b, c, tables[1:]...)
	rebuild := timeIt(func() {
		runWhole(ctx, b, c, Spec{Kind: KindRebuild, Table: name}, tables[:1], Counts{"rows": int64(n), "repaired": int64(n)})
	})
	rebuildIx := timeIt(func() { runWhole(ctx, b, c, Spec{Kind: KindRebuild, Table: name}, tables[1:], Counts{"orphaned": 0}) })
	truncate(ctx, b, c, tables[1])
	one := timeIt(func() {
		runWhole(ctx, b, c, Spec{Kind: KindRebuild, Table: name, Index: tables[1]}, tables[:1], Counts{"rows": int64(n), "repaired": int64(n)})
	})
	protocol := timeIt(func() { // the rebuild of index.Table.Check, for comparison
		if rep, err := repo.Check(ctx, dao.ModeRebuild); err != nil || rep.DataRows != int64(n) {
			b.Fatalf("Check in ModeRebuild: %+v, %v", rep, err)
		}
	})
	b.StopTimer()
	rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
	b.ReportMetric(rate(protocol), "check_rebuild_rows/s")
	b.ReportMetric(rate(plain), "plain_rows/s")
	b.ReportMetric(rate(scan), "scan_rows/s")
	b.ReportMetric(rate(verify), "verify_rows/s")
	b.ReportMetric(rate(rebuild), "rebuild_rows/s")
	b.ReportMetric(rate(one), "rebuild1_rows/s")
	b.ReportMetric(plain.Seconds()/rebuild.Seconds(), "rebuild/plain")
	b.ReportMetric(plain.Seconds()/one.Seconds(), "rebuild1/plain")
	b.ReportMetric(scan.Seconds()/verify.Seconds(), "verify/scan")
	b.ReportMetric(rate(digest), "digest_verify_rows/s")
	b.ReportMetric(scan2.Seconds()/digest.Seconds(), "digest/scan2")
	b.Logf("digest verify (64 buckets, per region) %v (this process's CPU %v), scan again after it %v: digest/scan %.2f (first scan), %.2f (second)",
		digest, digestCPU, scan2, scan.Seconds()/digest.Seconds(), scan2.Seconds()/digest.Seconds())
	b.Logf("%d rows: plain %v, scan (3 tables) %v, verify %v, rebuild data unit (2 indexes) %v + index units %v, rebuild of one index %v; "+
		"Check's rebuild through the protocol (both passes) %v", n, plain, scan, verify, rebuild, rebuildIx, one, protocol)
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func timeIt(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// plainWrite writes the data rows of recs, as the schema encodes them,
// into a new table of the same families and splits as the data table,
// with raw Batches of 500 Puts, one after the other.
func plainWrite(ctx context.Context, b *testing.B, c *hbase.Client, repo *dao.Repo[ledger], table string, recs []*ledger) {
	desc := hbapi.TableDescriptor{Name: table, Families: []hbapi.FamilyDescriptor{{Name: "e"}}}
	if err := c.CreateTable(ctx, desc, repo.Table().SplitKeys()); err != nil {
		b.Fatal(err)
	}
	acts := make([]hbapi.Action, 0, 500)
	flush := func() {
		if _, err := c.Batch(ctx, acts); err != nil {
			b.Fatal(err)
		}
		acts = acts[:0]
	}
	for _, r := range recs {
		var rec schema.Record
		if err := repo.Table().EncodeRecord(&rec, r); err != nil {
			b.Fatal(err)
		}
		p := &hbapi.Put{Table: table, Row: rec.Data.Key}
		p.Cells = append(p.Cells, rec.Data.Cells...)
		if acts = append(acts, p); len(acts) == cap(acts) {
			flush()
		}
	}
	if len(acts) > 0 {
		flush()
	}
}

// scanAll reads every row of tables, 500 at a time.
func scanAll(ctx context.Context, b *testing.B, c *hbase.Client, tables []string) {
	for _, t := range tables {
		sc, err := c.Scan(ctx, &hbapi.Scan{Table: t, Caching: 500})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range hbapi.All(ctx, sc) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// runWhole runs spec's task over each of tables as one unit, one after
// the other, and checks the counts against want.
func runWhole(ctx context.Context, b *testing.B, c Client, spec Spec, tables []string, want Counts) {
	task, err := NewTask(ctx, c, spec)
	if err != nil {
		b.Fatal(err)
	}
	total := Counts{}
	for _, t := range tables {
		if err := task.Run(ctx, Unit{ID: t, Table: t}, nil, func(_ []byte, d Counts) error { total.Add(d); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	wantCounts(b, string(spec.Kind), total, want)
}

func truncate(ctx context.Context, b *testing.B, c *hbase.Client, tables ...string) {
	for _, t := range tables {
		if err := c.DisableTable(ctx, t); err != nil {
			b.Fatal(err)
		}
		if err := c.TruncateTable(ctx, t, true); err != nil {
			b.Fatal(err)
		}
	}
}
