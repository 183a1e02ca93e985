//go:build integration

package jobs_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
)

// dropAfter drops tables when t ends (and now, should they exist).
func dropAfter(t *testing.T, c admin.Client, tables ...string) {
	t.Helper()
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, tb := range tables {
			if ok, err := c.TableExists(ctx, tb); err == nil && ok {
				if err := a.Drop(ctx, tb); err != nil {
					t.Errorf("drop %s: %v", tb, err)
				}
			}
		}
	}
	drop()
	t.Cleanup(drop)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// copyRows is the number of rows of the throughput test: HBKIT_COPY_ROWS,
// or 100,000.
func copyRows(t *testing.T) int {
	if s := os.Getenv("HBKIT_COPY_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			t.Fatalf("HBKIT_COPY_ROWS=%q: want a number ≥ 1000", s)
		}
		return n
	}
	return 100_000
}

// plainWrite writes batches of the target's rows as raw Puts, up to
// inFlight Batches at a time (the copy's own batching): the baseline.
func plainWrite(ctx context.Context, c hbapi.DataClient, batches [][]hbapi.Action, inFlight int) error {
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, b := range batches {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := c.Batch(ctx, b); err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// TestIntegrationCopyThroughput copies an inbox keyed by user and time,
// without hash, into a hash-bucketed key pre-split into 8 regions from a
// sample, and writes the same target rows as raw batched Puts into a table
// of the same splits: it logs both rates and their ratio (one worker), and
// checks the spread of the rows over the regions and that compare is
// clean. The index variant copies into the target with an index too, and
// its baseline writes each record's entry as a raw Put too.
//
//	HBKIT_ZK=127.0.0.1:2281 HBKIT_COPY_ROWS=100000 go test -tags integration -count=1 -run TestIntegrationCopyThroughput -v ./jobs/
func TestIntegrationCopyThroughput(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprintf("indexed=%v", indexed), func(t *testing.T) { copyThroughput(t, indexed) })
	}
}

func copyThroughput(t *testing.T, indexed bool) {
	ctx := context.Background()
	c := ittest.Connect(t)
	n := copyRows(t)
	sfx := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	src, dst, plain := "g3it_inbox_"+sfx, "g3it_inbox_v2_"+sfx, "g3it_plain_"+sfx
	dropAfter(t, c, src, dst, dst+"_by_id", plain, plain+"_by_id")
	srcDoc := parseDoc(t, inboxDoc(src))
	dstDoc, plainDoc := parseDoc(t, inboxBucketedDoc(dst)), parseDoc(t, inboxBucketedDoc(plain))
	if !indexed {
		dstDoc.Indexes, plainDoc.Indexes = nil, nil
	}
	store := createTable(t, c, srcDoc, dao.WithBatchSize(1000))
	loadInbox(t, store, n/100, 100)

	start := time.Now()
	splits, err := jobs.PrepareTarget(ctx, c, c, src, dstDoc, 8)
	if err != nil {
		t.Fatal(err)
	}
	prepared := time.Since(start)
	if _, err := jobs.PrepareTarget(ctx, c, c, src, plainDoc, 8); err != nil {
		t.Fatal(err)
	}
	// The baseline first, its rows encoded beforehand and dropped before
	// the copy starts, so that neither run carries the other's heap.
	batches := plainBatches(t, plainDoc, inboxRecords(n/100, 100))
	runtime.GC()
	start = time.Now()
	if err := plainWrite(ctx, c, batches, 4); err != nil {
		t.Fatal(err)
	}
	base := time.Since(start)
	batches = nil
	runtime.GC()

	start = time.Now()
	counts := runJob(t, c, jobs.Spec{Kind: jobs.KindCopy, Table: src, Target: dst})
	copied := time.Since(start)
	if counts["written"] != int64(n) {
		t.Fatalf("copy counts %v, want %d written", counts, n)
	}

	start = time.Now()
	scanned := 0
	for _, err := range hbapi.ScanAll(ctx, c, &hbapi.Scan{Table: src, Caching: 1000}) {
		if err != nil {
			t.Fatal(err)
		}
		scanned++
	}
	scan := time.Since(start)

	copyRate, baseRate := float64(n)/copied.Seconds(), float64(n)/base.Seconds()
	t.Logf("%d rows, load average %s: prepare (sample, %d splits) %v; copy %v = %.0f rows/s; plain raw batched Puts %v = %.0f rows/s; copy/plain = %.2f; full scan of the source %v = %.0f rows/s",
		n, loadAverage(), len(splits), prepared.Round(time.Millisecond), copied.Round(time.Millisecond), copyRate,
		base.Round(time.Millisecond), baseRate, copyRate/baseRate, scan.Round(time.Millisecond), float64(scanned)/scan.Seconds())

	regions := regionCounts(t, c, dst)
	t.Logf("rows per region of %s: %v", dst, regions)
	checkSpread(t, regions, n, 0.25)
	cmp := runJob(t, c, jobs.Spec{Kind: jobs.KindCompare, Table: src, Target: dst})
	if cmp["same"] != int64(n) || cmp["missing"]+cmp["different"]+cmp["extra"]+cmp["undecodable"] != 0 {
		t.Fatalf("compare %v", cmp)
	}
}

// plainBatches encodes recs as doc's rows, each record's data row and
// index entries as raw Puts, in Batches of the Puts of 1000 records.
func plainBatches(t *testing.T, doc schema.Document, recs []schema.Values) [][]hbapi.Action {
	if len(doc.Indexes) > 0 {
		doc = doc.WithRowPointers()
	}
	tbl, err := schema.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]hbapi.Action
	var b []hbapi.Action
	for i := range recs {
		var rec schema.Record
		if err := tbl.EncodeRecord(&rec, &recs[i]); err != nil {
			t.Fatal(err)
		}
		b = append(b, &hbapi.Put{Table: doc.Name, Row: rec.Data.Key, Cells: rec.Data.Cells})
		for j, e := range rec.Entries {
			b = append(b, &hbapi.Put{Table: doc.Indexes[j].Name, Row: e.Key, Cells: e.Cells})
		}
		if (i+1)%1000 == 0 {
			out, b = append(out, b), nil
		}
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

// TestIntegrationMigrationUnderConcurrentWriters is the online migration
// test (testMigration) against the real HBase.
func TestIntegrationMigrationUnderConcurrentWriters(t *testing.T) {
	c := ittest.Connect(t)
	sfx := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	src, dst := "g3it_mig_"+sfx, "g3it_mig_v2_"+sfx
	dropAfter(t, c, src, dst, dst+"_by_id")
	testMigration(t, c, src, dst, 12, 50, 3)
}

// TestIntegrationMirrorCost times the writes of the inbox store (no
// index) alone and mirrored into the hash-bucketed key with an index:
// single Puts one after another, and PutBatch of 500 records.
//
//	HBKIT_ZK=127.0.0.1:2281 go test -tags integration -count=1 -run TestIntegrationMirrorCost -v ./jobs/
func TestIntegrationMirrorCost(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	sfx := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	src, dst := "g3it_mc_"+sfx, "g3it_mc_v2_"+sfx
	dropAfter(t, c, src, dst, dst+"_by_id")
	srcDoc, dstDoc := parseDoc(t, inboxDoc(src)), parseDoc(t, inboxBucketedDoc(dst))
	plain := createTable(t, c, srcDoc)
	loadInbox(t, plain, 10, 10)
	if _, err := jobs.PrepareTarget(ctx, c, c, src, dstDoc, 8); err != nil {
		t.Fatal(err)
	}
	cp, err := dao.NewCopier(c, dao.CopySpec{Source: srcDoc, Target: dstDoc})
	if err != nil {
		t.Fatal(err)
	}
	mirrored := openStore(t, c, srcDoc, dao.WithMirror(cp))
	const singles, batched = 1000, 20_000
	for round, store := range []*dao.Repo[schema.Values]{plain, mirrored, plain, mirrored} {
		base := uint64(round+1) * 1_000_000
		start := time.Now()
		for i := range singles {
			v := inboxRecord(i%50, base+uint64(i), "single", false)
			if err := store.Put(ctx, &v); err != nil {
				t.Fatal(err)
			}
		}
		one := time.Since(start)
		recs := make([]*schema.Values, batched)
		for i := range recs {
			v := inboxRecord(i%50, base+500_000+uint64(i), "batched", true)
			recs[i] = &v
		}
		start = time.Now()
		if _, err := store.PutBatch(ctx, recs); err != nil {
			t.Fatal(err)
		}
		many := time.Since(start)
		name := "alone"
		if store == mirrored {
			name = "mirrored"
		}
		t.Logf("%-8s load average %s: %d single Puts %.0f/s (%.2f ms each); PutBatch of %d: %.0f records/s",
			name, loadAverage(), singles, singles/one.Seconds(), one.Seconds()*1000/singles, batched, batched/many.Seconds())
	}
}
