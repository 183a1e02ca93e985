package bench

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	mrand "math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func TestAppendKey(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"zero", 0, "00000000000000000000000000"},
		{"small", 42, "00000000000000000000000042"},
		{"negative is absolute", -42, "00000000000000000000000042"},
		{"max int64", math.MaxInt64, "00000009223372036854775807"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendKey([]byte("x"), tt.n)
			if string(got) != "x"+tt.want {
				t.Fatalf("AppendKey(x, %d) = %q, want %q", tt.n, got, "x"+tt.want)
			}
			if k := Key(tt.n); len(k) != KeyLength {
				t.Fatalf("len(Key(%d)) = %d, want %d", tt.n, len(k), KeyLength)
			}
		})
	}
}

func TestKeyOrder(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	for range 1000 {
		a, b := rng.Int64N(1e15), rng.Int64N(1e15)
		want := 0
		switch {
		case a < b:
			want = -1
		case a > b:
			want = 1
		}
		if got := bytes.Compare(Key(a), Key(b)); got != want {
			t.Fatalf("compare(Key(%d), Key(%d)) = %d, want %d", a, b, got, want)
		}
	}
}

func TestAppendKeyAllocs(t *testing.T) {
	dst := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { _ = AppendKey(dst[:0], 123456) }); n != 0 {
		t.Fatalf("AppendKey with capacity: %v allocations, want 0", n)
	}
}

func TestFillValue(t *testing.T) {
	rng := mrand.New(mrand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 1000} {
		b := make([]byte, n)
		fillValue(rng, b)
		for i, c := range b {
			if c < 'A' || c > 'Z' {
				t.Fatalf("len %d: byte %d = %q, want a capital letter", n, i, c)
			}
			// Runs of eight start at multiples of 8 (the tail may be a
			// longer run of one letter).
			if i%8 != 0 && c != b[i-i%8] {
				t.Fatalf("len %d: byte %d = %q, want %q as at %d", n, i, c, b[i-i%8], i-i%8)
			}
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	c := newFake(t)
	tests := []struct {
		name string
		opts []Option
	}{
		{"zero rows", []Option{WithRows(0)}},
		{"zero threads", []Option{WithThreads(0)}},
		{"negative value size", []Option{WithValueSize(-1)}},
		{"zero buffer", []Option{WithBufferSize(0)}},
		{"zero caching", []Option{WithCaching(0)}},
		{"presplit 1", []Option{WithPresplit(1)}},
		{"presplit beyond rows", []Option{WithRows(2), WithPresplit(3)}},
		{"zero batch", []Option{WithBatchSize(0)}},
		{"bad table", []Option{WithTable("bad table")}},
		{"bad durability", []Option{WithDurability(hbase.Durability(9))}},
		{"nil clock", []Option{WithClock(nil)}},
		{"negative server pid", []Option{WithServerPID(-1)}},
		{"nil option", []Option{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(c, c, tt.opts...); !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("New: got %v, want ErrInvalidOption", err)
			}
		})
	}
	if _, err := New(nil, c); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("New(nil): got %v, want ErrInvalidOption", err)
	}
}

func newFake(t testing.TB) *fake.Client {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func newRunner(t testing.TB, c *fake.Client, opts ...Option) *Runner {
	t.Helper()
	r, err := New(c, c, append([]Option{WithSeed(7)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func countRows(t testing.TB, c hbase.DataClient, table string) int {
	t.Helper()
	n := 0
	for _, err := range hbase.ScanAll(context.Background(), c, &hbase.Scan{Table: table}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestPEWorkloadsOnFake(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	const rows, threads = 40, 3
	r := newRunner(t, c, WithRows(rows), WithThreads(threads), WithValueSize(100))

	if _, err := r.Run(ctx, "randomRead"); !errors.Is(err, ErrNoData) {
		t.Fatalf("randomRead before any write: got %v, want ErrNoData", err)
	}
	for _, w := range []string{"sequentialWrite", "randomWrite", "randomRead", "scan", "scanRange100"} {
		res, err := r.Run(ctx, w)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if res.Workload != w || res.Threads != threads || res.Rows != rows*threads {
			t.Fatalf("%s: result %+v, want workload %s, %d threads, %d rows", w, res, w, threads, rows*threads)
		}
		if len(res.PerThread) != threads {
			t.Fatalf("%s: %d per-thread latencies, want %d", w, len(res.PerThread), threads)
		}
		for i, l := range res.PerThread {
			// Every row but each client's first is measured.
			if l.Count != rows-1 {
				t.Fatalf("%s: client %d measured %d rows, want %d", w, i, l.Count, rows-1)
			}
		}
		if res.Latency.Count != threads*(rows-1) || res.RowsPerSec <= 0 || res.ElapsedMS <= 0 {
			t.Fatalf("%s: result %+v", w, res)
		}
		if res.Latency.P50 > res.Latency.P99 || res.Latency.P99 > res.Latency.Max {
			t.Fatalf("%s: percentiles out of order: %+v", w, res.Latency)
		}
	}
	// sequentialWrite wrote every row with PE's column and value size.
	n := 0
	for res, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: DefaultTable}) {
		if err != nil {
			t.Fatal(err)
		}
		if want := Key(int64(n)); !bytes.Equal(res.Row(), want) {
			t.Fatalf("row %d = %q, want %q", n, res.Row(), want)
		}
		if v := res.Value([]byte(Family), []byte(Qualifier)); len(v) != 100 {
			t.Fatalf("row %q: value of %d bytes, want 100", res.Row(), len(v))
		}
		n++
	}
	if n != rows*threads {
		t.Fatalf("table holds %d rows, want %d", n, rows*threads)
	}

	if err := r.DropTables(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.TableExists(ctx, DefaultTable); err != nil || ok {
		t.Fatalf("after DropTables: exists=%v, %v", ok, err)
	}
}

func TestScanNeedsRows(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	if _, err := newRunner(t, c, WithRows(10)).Run(ctx, "sequentialWrite"); err != nil {
		t.Fatal(err)
	}
	if _, err := newRunner(t, c, WithRows(20)).Run(ctx, "scan"); !errors.Is(err, ErrNoData) {
		t.Fatalf("scan of 20 rows over 10: got %v, want ErrNoData", err)
	}
}

// TestCPUPerRow runs a workload with this process standing in for the
// server (WithServerPID): both sides' CPU time is in the Result and its
// line, and a server that cannot be read fails the run.
func TestCPUPerRow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the server's CPU time comes from Linux's /proc")
	}
	ctx := context.Background()
	c := newFake(t)
	res, err := newRunner(t, c, WithRows(20000), WithServerPID(os.Getpid())).Run(ctx, "sequentialWrite")
	if err != nil {
		t.Fatal(err)
	}
	client, server := res.CPUPerRow()
	if res.ClientCPUMS <= 0 || client <= 0 || server < 0 {
		t.Fatalf("client %.3f ms (%.3f us/row), server %.3f ms (%.3f us/row)", res.ClientCPUMS, client, res.ServerCPUMS, server)
	}
	// The same process, read at 10 ms steps against microseconds.
	if res.ServerCPUMS > res.ClientCPUMS+20 {
		t.Errorf("server %.1f ms above the client's %.1f ms, and they are one process", res.ServerCPUMS, res.ClientCPUMS)
	}
	if line := res.String(); res.ServerPID != os.Getpid() || !strings.Contains(line, "cpu us/row: client=") || !strings.Contains(line, " server=") {
		t.Errorf("server pid %d, line without both sides' CPU: %s", res.ServerPID, line)
	}
	if _, err := newRunner(t, c, WithRows(10), WithServerPID(1<<30)).Run(ctx, "sequentialWrite"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a server pid that does not exist: got %v, want fs.ErrNotExist", err)
	}
}

func TestUnknownWorkload(t *testing.T) {
	c := newFake(t)
	if _, err := newRunner(t, c).Run(context.Background(), "nope"); !errors.Is(err, ErrUnknownWorkload) {
		t.Fatalf("got %v, want ErrUnknownWorkload", err)
	}
}

func TestPresplit(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	regions := func() int {
		rs, err := c.TableRegions(ctx, DefaultTable)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	if _, err := newRunner(t, c, WithRows(20), WithThreads(2), WithPresplit(4)).Run(ctx, "sequentialWrite"); err != nil {
		t.Fatal(err)
	}
	if got := regions(); got != 4 {
		t.Fatalf("%d regions, want 4", got)
	}
	rs, err := c.TableRegions(ctx, DefaultTable)
	if err != nil {
		t.Fatal(err)
	}
	// PE's split points: multiples of totalRows/presplit.
	if want := Key(10); !bytes.Equal(rs[1].StartKey, want) {
		t.Fatalf("second region starts at %q, want %q", rs[1].StartKey, want)
	}
	// Reads keep the table; a write with another presplit recreates it.
	if _, err := newRunner(t, c, WithRows(20), WithThreads(2), WithPresplit(2)).Run(ctx, "randomRead"); err != nil {
		t.Fatal(err)
	}
	if got := regions(); got != 4 {
		t.Fatalf("after a read: %d regions, want 4", got)
	}
	if _, err := newRunner(t, c, WithRows(20), WithThreads(2), WithPresplit(2)).Run(ctx, "randomWrite"); err != nil {
		t.Fatal(err)
	}
	if got := regions(); got != 2 {
		t.Fatalf("after a write with presplit 2: %d regions, want 2", got)
	}
	// Without presplit, an existing table is kept as it is.
	if _, err := newRunner(t, c, WithRows(20), WithThreads(2)).Run(ctx, "sequentialWrite"); err != nil {
		t.Fatal(err)
	}
	if got := regions(); got != 2 {
		t.Fatalf("after a write without presplit: %d regions, want 2", got)
	}
}

// noDescribe is an admin client that cannot describe tables, as the
// gohbase adapter cannot.
type noDescribe struct {
	hbase.AdminClient
	calls int
}

var errNoDescribe = errors.New("describe table unsupported")

func (c *noDescribe) DescribeTable(context.Context, string) (hbase.TableDescriptor, error) {
	c.calls++
	return hbase.TableDescriptor{}, errNoDescribe
}

// A Runner checks the PE table once: the writes after the one that
// created (or checked) it need no DescribeTable; after DropTables the
// next write creates it again.
func TestPETableCheckedOnce(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := &noDescribe{AdminClient: c}
	r, err := New(c, a, WithSeed(7), WithRows(20), WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"sequentialWrite", "randomWrite", "randomRead", "randomWrite"} {
		if _, err := r.Run(ctx, w); err != nil {
			t.Fatalf("%s: %v", w, err)
		}
	}
	if err := r.DropTables(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "sequentialWrite"); err != nil {
		t.Fatalf("sequentialWrite after DropTables: %v", err)
	}
	if a.calls != 0 {
		t.Fatalf("%d DescribeTable calls, want 0", a.calls)
	}
	// Another Runner finds the table there and must check it.
	r2, err := New(c, a, WithSeed(7), WithRows(20), WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Run(ctx, "randomWrite"); !errors.Is(err, errNoDescribe) || a.calls != 1 {
		t.Fatalf("write on a table this Runner did not create: %v after %d DescribeTable calls, want errNoDescribe after 1", err, a.calls)
	}
}

// countingClient counts Batch calls and their actions.
type countingClient struct {
	hbase.DataClient
	mu      sync.Mutex
	batches []int
}

func (c *countingClient) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	c.mu.Lock()
	c.batches = append(c.batches, len(actions))
	c.mu.Unlock()
	return c.DataClient.Batch(ctx, actions)
}

func TestMutatorFlushesAtBufferSize(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	if err := f.CreateTable(ctx, hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: Family}}}, nil); err != nil {
		t.Fatal(err)
	}
	cc := &countingClient{DataClient: f}
	put := func(i int64) *hbase.Put {
		return &hbase.Put{Table: "t", Row: Key(i), Values: map[string]map[string][]byte{Family: {Qualifier: make([]byte, 1000)}}}
	}
	size := putSize(put(0))
	m := newMutator(cc, 10*size) // flushes when the 11th put passes the limit
	for i := range int64(25) {
		if err := m.Mutate(ctx, put(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []int{11, 11, 3}; !equalInts(cc.batches, want) {
		t.Fatalf("batches %v, want %v", cc.batches, want)
	}
	if n := countRows(t, f, "t"); n != 25 {
		t.Fatalf("%d rows, want 25", n)
	}
	if err := m.Flush(ctx); err != nil || len(cc.batches) != 3 {
		t.Fatalf("empty flush: %v, %d batches", err, len(cc.batches))
	}
}

// The buffer counts a PE put about as the Java client does (Put.heapSize
// of HBase 2.6.4: 1,384 bytes), so a flush carries as many puts.
func TestPutSizeMatchesJava(t *testing.T) {
	p := &hbase.Put{Table: DefaultTable, Row: Key(1), Values: map[string]map[string][]byte{Family: {Qualifier: make([]byte, DefaultValueSize)}}}
	const java = 1384
	if got := putSize(p); got < java*99/100 || got > java*101/100 {
		t.Fatalf("putSize = %d, want within 1%% of Java's %d", got, java)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLayerWorkloadsOnFake(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	clock := func() time.Time { return time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC) }
	const rows, threads = 30, 2
	r := newRunner(t, c, WithRows(rows), WithThreads(threads), WithBatchSize(7), WithClock(clock))
	var results []Result
	for _, w := range []string{"plainWrite", "daoWrite", "indexedWrite", "dualWrite"} {
		res, err := r.Run(ctx, w)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		// 30 rows in batches of 7: four full batches are sent and
		// measured, the last two records go out unmeasured in finish.
		for i, l := range res.PerThread {
			if l.Count != 4 {
				t.Fatalf("%s: client %d measured %d batches, want 4", w, i, l.Count)
			}
		}
		results = append(results, res)
	}
	n := r.layerNames()
	for _, tc := range []struct {
		table string
		want  int
	}{{n.plain, rows * threads}, {n.indexed, rows * threads}, {n.index, rows * threads}, {n.dual, rows * threads}, {n.dualIndex, rows * threads}} {
		if got := countRows(t, c, tc.table); got != tc.want {
			t.Fatalf("%s holds %d rows, want %d", tc.table, got, tc.want)
		}
	}
	// plainWrite and daoWrite wrote the same rows, cell for cell.
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for res, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: n.plain}) {
		if err != nil {
			t.Fatal(err)
		}
		var rec seeds.SMS
		if err := st.DecodeRow(res.Row(), toSchemaCells(res), &rec); err != nil {
			t.Fatalf("row %q does not decode: %v", res.Row(), err)
		}
	}
	var b strings.Builder
	if err := WriteLayers(&b, results); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| plainWrite | 2 |", "| daoWrite | 2 |", "| indexedWrite | 2 |", "| dualWrite | 2 |"} {
		if !strings.Contains(b.String(), w) {
			t.Fatalf("layer table lacks %q:\n%s", w, b.String())
		}
	}
	if err := r.DropTables(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tb := range r.Tables() {
		if ok, err := c.TableExists(ctx, tb); err != nil || ok {
			t.Fatalf("%s after DropTables: exists=%v, %v", tb, ok, err)
		}
	}
}

func toSchemaCells(r *hbase.Result) []schema.Cell {
	out := make([]schema.Cell, len(r.Cells))
	for i, c := range r.Cells {
		out[i] = schema.Cell{Family: string(c.Family), Qualifier: string(c.Qualifier), Value: c.Value}
	}
	return out
}

func TestWorkloadsList(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range Workloads() {
		if seen[w.Name] {
			t.Fatalf("workload %s listed twice", w.Name)
		}
		seen[w.Name] = true
		if _, err := lookup(w.Name); err != nil {
			t.Fatal(err)
		}
	}
	for _, pe := range []string{"sequentialWrite", "randomWrite", "randomRead", "scan", "scanRange100"} {
		if !seen[pe] {
			t.Fatalf("PE workload %s missing", pe)
		}
	}
}

func BenchmarkAppendKey(b *testing.B) {
	dst := make([]byte, 0, KeyLength)
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		dst = AppendKey(dst[:0], i)
		i++
	}
}

func BenchmarkSequentialWriteFake(b *testing.B) {
	c := newFake(b)
	r := newRunner(b, c, WithRows(1000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(context.Background(), "sequentialWrite"); err != nil {
			b.Fatal(err)
		}
	}
}
