//go:build integration

package hbase_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
)

// The data-path integration tests run against a real HBase (make
// hbase-up, or tools/with-hbase.sh). HBKIT_ZK names the ZooKeeper quorum
// (default 127.0.0.1:2181).

func itClient(t testing.TB, opts ...hbase.Option) *hbase.Client {
	t.Helper()
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := hbase.New(ctx, zkq, opts...)
	if err != nil {
		t.Fatalf("New(%s): %v", zkq, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestIntegrationConformance(t *testing.T) {
	c := itClient(t)
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("it"),
		Timeout:      3 * time.Minute,
	})
}

// itTable creates a table with family "cf" pre-split at splits and drops
// it at the end of the test.
func itTable(t testing.TB, c *hbase.Client, base string, splits [][]byte) string {
	t.Helper()
	name := itNames(base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "cf"}}}, splits); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.DisableTable(ctx, name); err != nil {
			t.Logf("DisableTable(%s): %v", name, err)
		}
		if err := c.DeleteTable(ctx, name); err != nil {
			t.Logf("DeleteTable(%s): %v", name, err)
		}
	})
	return name
}

var itNames = conformance.NameGenerator("itdata")

func itCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// rowKey is row i of the data tests: "r" + 5 digits, so that rows sort
// like their numbers.
func rowKey(i int) []byte { return fmt.Appendf(nil, "r%05d", i) }

// splitsEvery returns split keys at rows step, 2*step, ... below n.
func splitsEvery(step, n int) [][]byte {
	var out [][]byte
	for i := step; i < n; i += step {
		out = append(out, rowKey(i))
	}
	return out
}

func putRows(t testing.TB, ctx context.Context, c hbase.DataClient, table string, from, to int) {
	t.Helper()
	var actions []hbase.Action
	for i := from; i < to; i++ {
		actions = append(actions, &hbase.Put{Table: table, Row: rowKey(i),
			Values: map[string]map[string][]byte{"cf": {"q": fmt.Appendf(nil, "v%d", i)}}})
		if len(actions) == 1000 || i == to-1 {
			if _, err := c.Batch(ctx, actions); err != nil {
				t.Fatalf("Batch: %v", err)
			}
			actions = actions[:0]
		}
	}
}

// scanRows returns the row numbers of a scan, failing on error.
func scanRows(t testing.TB, ctx context.Context, c hbase.DataClient, s *hbase.Scan) []int {
	t.Helper()
	var out []int
	for r, err := range hbase.ScanAll(ctx, c, s) {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		var n int
		if _, err := fmt.Sscanf(string(r.Row()), "r%05d", &n); err != nil {
			t.Fatalf("scan: unexpected row %q", r.Row())
		}
		out = append(out, n)
	}
	return out
}

// checkSequence checks that got is exactly from..to-1 (or reversed).
func checkSequence(t testing.TB, what string, got []int, from, to int, reversed bool) {
	t.Helper()
	if len(got) != to-from {
		t.Errorf("%s: %d rows, want %d", what, len(got), to-from)
	}
	for i, n := range got {
		want := from + i
		if reversed {
			want = to - 1 - i
		}
		if n != want {
			t.Errorf("%s: row %d is r%05d, want r%05d", what, i, n, want)
			return
		}
	}
}

func TestIntegrationScanAcrossRegions(t *testing.T) {
	c := itClient(t)
	const n = 2000
	table := itTable(t, c, "scan", splitsEvery(n/10, n)) // 10 regions
	ctx := itCtx(t, 3*time.Minute)
	putRows(t, ctx, c, table, 0, n)
	regions, err := c.TableRegions(ctx, table)
	if err != nil || len(regions) < 8 {
		t.Fatalf("TableRegions: %d regions, %v; want >= 8", len(regions), err)
	}
	// Small caching so that every region takes several RPCs.
	checkSequence(t, "forward", scanRows(t, ctx, c, &hbase.Scan{Table: table, Caching: 37}), 0, n, false)
	checkSequence(t, "reversed", scanRows(t, ctx, c, &hbase.Scan{Table: table, Reversed: true, Caching: 37}), 0, n, true)
	checkSequence(t, "forward range", scanRows(t, ctx, c, &hbase.Scan{Table: table, StartRow: rowKey(150), StopRow: rowKey(1234)}), 150, 1234, false)
	// Reversed: StartRow is the high bound (inclusive), StopRow the low one.
	checkSequence(t, "reversed range", scanRows(t, ctx, c, &hbase.Scan{Table: table, Reversed: true, StartRow: rowKey(1599), StopRow: rowKey(399)}), 400, 1600, true)
	checkSequence(t, "stop at a region boundary", scanRows(t, ctx, c, &hbase.Scan{Table: table, StartRow: rowKey(100), StopRow: rowKey(400)}), 100, 400, false)
	checkSequence(t, "limit across regions", scanRows(t, ctx, c, &hbase.Scan{Table: table, StartRow: rowKey(150), Limit: 333, Caching: 50}), 150, 483, false)
	checkSequence(t, "reversed limit", scanRows(t, ctx, c, &hbase.Scan{Table: table, Reversed: true, Limit: 250}), n-250, n, true)
	// A tiny max result size forces partial results per row.
	checkSequence(t, "tiny max result size", scanRows(t, ctx, c, &hbase.Scan{Table: table, StopRow: rowKey(300), MaxResultSize: 1}), 0, 300, false)
}

func TestIntegrationBigBatch(t *testing.T) {
	c := itClient(t)
	const n = 10000
	table := itTable(t, c, "batch", splitsEvery(n/10, n))
	ctx := itCtx(t, 3*time.Minute)
	actions := make([]hbase.Action, n)
	for i := range actions {
		actions[i] = &hbase.Put{Table: table, Row: rowKey(i), Values: map[string]map[string][]byte{"cf": {"q": fmt.Appendf(nil, "v%d", i)}}}
	}
	res, err := c.Batch(ctx, actions)
	if err != nil || len(res) != n {
		t.Fatalf("Batch of %d puts: %d results, %v", n, len(res), err)
	}
	gets := make([]hbase.Action, n)
	for i := range gets {
		gets[i] = &hbase.Get{Table: table, Row: rowKey(i)}
	}
	res, err = c.Batch(ctx, gets)
	if err != nil || len(res) != n {
		t.Fatalf("Batch of %d gets: %d results, %v", n, len(res), err)
	}
	for i, r := range res {
		if got, want := string(r.Result.Value([]byte("cf"), []byte("q"))), fmt.Sprintf("v%d", i); got != want {
			t.Fatalf("get %d: %q, want %q", i, got, want)
		}
	}
	checkSequence(t, "scan after batch", scanRows(t, ctx, c, &hbase.Scan{Table: table}), 0, n, false)
}

func TestIntegrationCheckAndMutate(t *testing.T) {
	c := itClient(t)
	table := itTable(t, c, "cam", nil)
	ctx := itCtx(t, time.Minute)
	row := []byte("acct")
	put := func(v string) *hbase.Put {
		return &hbase.Put{Values: map[string]map[string][]byte{"cf": {"bal": []byte(v)}}}
	}
	tests := []struct {
		name    string
		compare hbase.CompareOp
		value   string
		put     string
		want    bool
	}{
		{"absent holds on a missing column", hbase.CompareEqual, "", "100", true},
		{"absent fails once written", hbase.CompareEqual, "", "999", false},
		{"equal holds", hbase.CompareEqual, "100", "200", true},
		{"equal fails on a stale value", hbase.CompareEqual, "100", "999", false},
		{"not equal holds", hbase.CompareNotEqual, "100", "300", true},
		{"greater: stored 300 > 250", hbase.CompareGreater, "250", "400", true},
		{"less: stored 400 < 250 fails", hbase.CompareLess, "250", "999", false},
		{"present check", hbase.CompareNotEqual, "", "500", true},
	}
	for _, tc := range tests {
		ok, err := c.CheckAndMutate(ctx, &hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("bal"),
			Compare: tc.compare, Value: []byte(tc.value), Mutations: []hbase.Mutation{put(tc.put)}})
		if err != nil || ok != tc.want {
			t.Fatalf("%s: CheckAndMutate = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	// Several mutations: an atomic conditional RegionAction.
	ok, err := c.CheckAndMutate(ctx, &hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("bal"),
		Value: []byte("500"), Mutations: []hbase.Mutation{put("600"), &hbase.Put{Values: map[string]map[string][]byte{"cf": {"log": []byte("x")}}}}})
	if err != nil || !ok {
		t.Fatalf("multi-mutation CheckAndMutate = %v, %v", ok, err)
	}
	r, err := c.Get(ctx, &hbase.Get{Table: table, Row: row})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Value([]byte("cf"), []byte("bal"))) + "/" + string(r.Value([]byte("cf"), []byte("log"))); got != "600/x" {
		t.Errorf("after check-and-mutates: %s, want 600/x", got)
	}
}

func TestIntegrationContextCancel(t *testing.T) {
	c := itClient(t)
	table := itTable(t, c, "cancel", splitsEvery(100, 1000))
	ctx := itCtx(t, time.Minute)
	putRows(t, ctx, c, table, 0, 1000)

	cctx, cancel := context.WithCancel(ctx)
	sc, err := c.Scan(cctx, &hbase.Scan{Table: table, Caching: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	sc.Next()
	cancel()
	start := time.Now()
	for sc.Next() {
	}
	if !errors.Is(sc.Err(), context.Canceled) {
		t.Errorf("scan after cancel: %v, want context.Canceled", sc.Err())
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("scan took %v to notice the cancellation", d)
	}

	// A deadline that expires mid-call returns promptly.
	for _, d := range []time.Duration{time.Microsecond, time.Millisecond} {
		dctx, cancel := context.WithTimeout(ctx, d)
		start = time.Now()
		_, err = c.Batch(dctx, []hbase.Action{&hbase.Get{Table: table, Row: rowKey(1)}, &hbase.Get{Table: table, Row: rowKey(999)}})
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("batch with %v deadline: %v, want nil or DeadlineExceeded", d, err)
		}
		if el := time.Since(start); el > 500*time.Millisecond {
			t.Errorf("batch with a %v deadline took %v", d, el)
		}
	}
}

// TestIntegrationSplitDuringScanAndWrites splits regions (through another
// client, so the data client's cache goes stale) while a scan and a write
// loop run; no row may be lost or duplicated.
func TestIntegrationSplitDuringScanAndWrites(t *testing.T) {
	c := itClient(t)
	admin := itClient(t)
	const n = 3000
	table := itTable(t, admin, "split", [][]byte{rowKey(n / 2)})
	ctx := itCtx(t, 4*time.Minute)
	putRows(t, ctx, c, table, 0, n)

	// Scan: read a third, split both regions, read the rest.
	sc, err := c.Scan(ctx, &hbase.Scan{Table: table, Caching: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	next := func() bool {
		if !sc.Next() {
			return false
		}
		var k int
		fmt.Sscanf(string(sc.Result().Row()), "r%05d", &k)
		got = append(got, k)
		return true
	}
	for len(got) < n/3 && next() {
	}
	// One split per region: daughters cannot split again before their
	// compaction.
	for _, k := range []int{n / 4, n / 4 * 3} {
		if err := admin.SplitRegion(ctx, table, rowKey(k)); err != nil {
			t.Fatalf("SplitRegion(%d): %v", k, err)
		}
	}
	for next() {
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan across splits: %v", err)
	}
	sc.Close()
	checkSequence(t, "scan across splits", got, 0, n, false)

	// Writes: a loop of puts and increments while regions split.
	wtable := itTable(t, admin, "splitw", [][]byte{[]byte("w00400")})
	table = wtable
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 800; i++ {
			row := fmt.Appendf(nil, "w%05d", i)
			if err := c.Put(ctx, &hbase.Put{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": {"q": []byte("x")}}}); err != nil {
				done <- fmt.Errorf("put %d: %w", i, err)
				return
			}
			if _, err := c.Increment(ctx, &hbase.Increment{Table: table, Row: []byte("w-counter"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}}); err != nil {
				done <- fmt.Errorf("increment %d: %w", i, err)
				return
			}
		}
		done <- nil
	}()
	time.Sleep(200 * time.Millisecond)
	for _, k := range []string{"w00200", "w00600"} {
		if err := admin.SplitRegion(ctx, table, []byte(k)); err != nil {
			t.Fatalf("SplitRegion(%s): %v", k, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("write loop: %v", err)
	}
	var written int
	for _, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: table, StartRow: []byte("w0"), StopRow: []byte("w1")}) {
		if err != nil {
			t.Fatal(err)
		}
		written++
	}
	if written != 800 {
		t.Errorf("write loop: %d rows after splits, want 800", written)
	}
	r, err := c.Get(ctx, &hbase.Get{Table: table, Row: []byte("w-counter")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value([]byte("cf"), []byte("n")); len(got) != 8 || binary.BigEndian.Uint64(got) != 800 {
		t.Errorf("counter after splits: %x, want 800", got)
	}
}

// Benchmarks against the real HBase (shared, 2 cores: numbers are for
// comparison between versions, not capacity planning):
//
//	go test -tags integration -run XXX -bench BenchmarkIntegration -benchtime 3s ./hbase/

func benchTable(b *testing.B, c *hbase.Client, base string) string {
	return itTable(b, c, base, splitsEvery(10000, 100000))
}

func BenchmarkIntegrationPut(b *testing.B) {
	c := itClient(b)
	table := benchTable(b, c, "bput")
	ctx := itCtx(b, 10*time.Minute)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := c.Put(ctx, &hbase.Put{Table: table, Row: rowKey(i % 100000), Values: map[string]map[string][]byte{"cf": {"q": []byte("value")}}}); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkIntegrationGet(b *testing.B) {
	c := itClient(b)
	table := benchTable(b, c, "bget")
	ctx := itCtx(b, 10*time.Minute)
	putRows(b, ctx, c, table, 0, 10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.Get(ctx, &hbase.Get{Table: table, Row: rowKey(i % 10000)}); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkIntegrationBatchPut1000(b *testing.B) {
	c := itClient(b)
	table := benchTable(b, c, "bbatch")
	ctx := itCtx(b, 10*time.Minute)
	actions := make([]hbase.Action, 1000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for j := range actions {
			actions[j] = &hbase.Put{Table: table, Row: rowKey((n*1000 + j*97) % 100000), Values: map[string]map[string][]byte{"cf": {"q": []byte("value")}}}
		}
		if _, err := c.Batch(ctx, actions); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(b.N*len(actions))/b.Elapsed().Seconds(), "puts/s")
}

// BenchmarkIntegrationBatchOf100 sends Batches of 100 actions of one kind
// to a table of one region: Puts (one mini-batch, one WAL sync),
// CheckAndMutates (each a conditional RegionAction with its own row lock,
// read and sync), the same CheckAndMutates with AsyncWAL (no sync to wait
// for) and Gets (of rows never written, so the cheapest reads). The index
// protocol's cost rests on the ratio of the first two; the third shows how
// much of it is the per-row WAL sync.
func BenchmarkIntegrationBatchOf100(b *testing.B) {
	c := itClient(b)
	table := itTable(b, c, "bkinds", nil)
	ctx := itCtx(b, 10*time.Minute)
	value := map[string]map[string][]byte{"cf": {"q": []byte("value")}}
	n := 0
	kinds := []struct {
		name string
		make func(row []byte) hbase.Action
	}{
		{"put", func(row []byte) hbase.Action { return &hbase.Put{Table: table, Row: row, Values: value} }},
		{"checkAndMutate", func(row []byte) hbase.Action {
			return &hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("v"),
				Compare: hbase.CompareEqual, Mutations: []hbase.Mutation{&hbase.Put{Values: value}}}
		}},
		{"checkAndMutateAsyncWAL", func(row []byte) hbase.Action {
			return &hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("v"),
				Compare: hbase.CompareEqual, Mutations: []hbase.Mutation{&hbase.Put{Values: value, Durability: hbase.AsyncWAL}}}
		}},
		{"append", func(row []byte) hbase.Action {
			return &hbase.Append{Table: table, Row: row, Values: value}
		}},
		{"increment", func(row []byte) hbase.Action {
			return &hbase.Increment{Table: table, Row: row, Deltas: map[string]map[string]int64{"cf": {"n": 1}}}
		}},
		{"get", func(row []byte) hbase.Action { return &hbase.Get{Table: table, Row: row} }},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			actions := make([]hbase.Action, 100)
			for b.Loop() {
				for j := range actions {
					n++
					actions[j] = k.make(fmt.Appendf(nil, "%s-%09d", k.name, n*7919%1000000007))
				}
				if _, err := c.Batch(ctx, actions); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(actions))/b.Elapsed().Seconds(), "actions/s")
		})
	}
}

func BenchmarkIntegrationScan100k(b *testing.B) {
	c := itClient(b)
	table := benchTable(b, c, "bscan")
	ctx := itCtx(b, 10*time.Minute)
	putRows(b, ctx, c, table, 0, 100000)
	b.ReportAllocs()
	for b.Loop() {
		rows := 0
		for _, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: table}) {
			if err != nil {
				b.Fatal(err)
			}
			rows++
		}
		if rows != 100000 {
			b.Fatalf("scanned %d rows", rows)
		}
	}
	b.ReportMetric(float64(b.N*100000)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkIntegrationScanReadAhead scans 20,000 rows of 1 KB (one
// region) with and without read-ahead (WithScanReadAhead), the caller
// taking each row and doing nothing with it, or hashing its value
// (SHA-256, about a microsecond per row here): read-ahead pays when the
// caller works on the rows while the server fills the next response.
// With -count N each case runs N times in a row: run the whole benchmark
// more than once to see the noise.
func BenchmarkIntegrationScanReadAhead(b *testing.B) {
	const n = 20000
	setup := itClient(b)
	table := itTable(b, setup, "bscanahead", nil)
	ctx := itCtx(b, 10*time.Minute)
	value := bytes.Repeat([]byte("v"), 1000)
	for from := 0; from < n; from += 2000 {
		var actions []hbase.Action
		for i := from; i < from+2000; i++ {
			actions = append(actions, &hbase.Put{Table: table, Row: rowKey(i), Values: map[string]map[string][]byte{"cf": {"q": value}}})
		}
		if _, err := setup.Batch(ctx, actions); err != nil {
			b.Fatalf("loading %s: %v", table, err)
		}
	}
	clients := map[bool]*hbase.Client{true: itClient(b), false: itClient(b, hbase.WithScanReadAhead(false))}
	for _, work := range []string{"none", "sha256"} {
		for _, ahead := range []bool{true, false} {
			b.Run(fmt.Sprintf("caller=%s/ahead=%v", work, ahead), func(b *testing.B) {
				c := clients[ahead]
				for b.Loop() {
					rows := 0
					for r, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: table}) {
						if err != nil {
							b.Fatal(err)
						}
						if work == "sha256" {
							sha256.Sum256(r.Cells[0].Value)
						}
						rows++
					}
					if rows != n {
						b.Fatalf("scanned %d rows", rows)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
