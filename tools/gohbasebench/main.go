// Command gohbasebench runs one workload with one client — hbkit's native
// client (package hbase) or gohbase — against the HBase at --zk and prints
// one JSON line. tools/gohbasebench/compare.sh runs it as separate
// processes, the two sides alternately, and prints a table of ratios
// (`make bench-gohbase`).
//
// It is a module of its own so that the main module never depends on
// gohbase (built from ../shared/third_party/gohbase, or GOHBASE_SRC).
//
//	gohbasebench --zk 127.0.0.1:2181 --table T --setup --rows 20000
//	gohbasebench --zk ... --table T --client hbkit --workload get --goroutines 4
//	gohbasebench --zk ... --table T --client gohbase --flush-interval 1ms --workload put
//	gohbasebench --zk ... --table T --teardown
//	gohbasebench --report results.jsonl
//
// Workloads: put (one row of 1 KB), get (one random row), batch (100 Puts:
// hbkit Batch, gohbase SendBatch), scan100 (StartRow..StopRow spanning 100
// consecutive rows, 100 rows per RPC on both sides), fullscan (every row of
// the table, each client's default caching). Writes go to the table T_w so
// that the read table keeps exactly --rows rows.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/proccpu"
	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
)

const (
	family    = "f"
	qualifier = "q"
	valueSize = 1024
	batchSize = 100
	scanRows  = 100
)

type result struct {
	Client     string  `json:"client"`
	Flush      string  `json:"flush,omitempty"`
	Reuse      bool    `json:"reuse,omitempty"` // hbkit: Scan.ReuseMemory
	Workload   string  `json:"workload"`
	Goroutines int     `json:"goroutines"`
	Ops        int64   `json:"ops"`
	Rows       int64   `json:"rows"`
	ElapsedS   float64 `json:"elapsed_s"`
	OpsPerS    float64 `json:"ops_per_s"`
	RowsPerS   float64 `json:"rows_per_s"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	Errors     int64   `json:"errors"`
	// CPUS is the CPU time (user and system) the process spent in the
	// measured runs: what the client costs, whatever else the machine runs.
	CPUS float64 `json:"cpu_s"`
	// ServerCPUS is the CPU time the HBase JVM (--server-pid) spent in the
	// same window; absent when no pid was given. On a machine where client
	// and server share the cores, a run is bound by the sum of both.
	ServerCPUS float64 `json:"server_cpu_s,omitempty"`
}

// side is one client under test. Every call returns the number of rows it
// wrote or read.
type side interface {
	put(ctx context.Context, row string) (int, error)
	get(ctx context.Context, row string) (int, error)
	batch(ctx context.Context, rows []string) (int, error)
	scan(ctx context.Context, start, stop string, caching int) (int, error)
	close()
}

var value = func() []byte {
	b := make([]byte, valueSize)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}()

func rowKey(i int) string { return fmt.Sprintf("row%010d", i) }

func main() {
	zk := flag.String("zk", os.Getenv("HBKIT_ZK"), "ZooKeeper quorum (default $HBKIT_ZK)")
	table := flag.String("table", "", "read table; writes go to <table>_w")
	client := flag.String("client", "hbkit", "hbkit or gohbase")
	flush := flag.Duration("flush-interval", -1, "gohbase: RPC queue flush interval (negative: gohbase's default, 20ms)")
	workload := flag.String("workload", "get", "put, get, batch, scan100 or fullscan")
	goroutines := flag.Int("goroutines", 1, "concurrent callers on one client")
	rows := flag.Int("rows", 20000, "rows in the read table (setup; get and scan100 draw keys below it)")
	duration := flag.Duration("duration", 2*time.Second, "run each workload this long (fullscan: at least one scan per goroutine)")
	setup := flag.Bool("setup", false, "create <table> with --rows rows of 1 KB and an empty <table>_w, then exit")
	teardown := flag.Bool("teardown", false, "drop <table> and <table>_w, then exit")
	settle := flag.Bool("settle", false, "wait (at most a minute) until the memstore of <table>_w is below the flush size, then exit")
	report := flag.String("report", "", "print the markdown ratio table of a file of JSON lines, then exit")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured runs (not the warm-up) to this file")
	reuse := flag.Bool("reuse", false, "hbkit: scans with Scan.ReuseMemory (a Result valid until the next row)")
	noAhead := flag.Bool("no-read-ahead", false, "hbkit: scanners wait for the caller before asking for the next response (hbase.WithScanReadAhead(false))")
	maxResult := flag.Int64("max-result-size", 0, "hbkit: bytes per scan response (0: the client's default, hbase.DefaultScanMaxResultSize)")
	serverPid := flag.Int("server-pid", 0, "pid of the HBase JVM, whose CPU time in the measured window is reported as server_cpu_s (0: not measured)")
	flag.Parse()

	if *report != "" {
		if err := printReport(os.Stdout, *report); err != nil {
			fatal(err)
		}
		return
	}
	if *zk == "" || *table == "" {
		fatal(errors.New("--zk (or HBKIT_ZK) and --table are required"))
	}
	ctx := context.Background()
	switch {
	case *setup:
		fatal(doSetup(ctx, *zk, *table, *rows))
		return
	case *teardown:
		fatal(doTeardown(ctx, *zk, *table))
		return
	case *settle:
		fatal(doSettle(ctx, *zk, *table))
		return
	}

	var s side
	res := result{Client: *client, Workload: *workload, Goroutines: *goroutines, Reuse: *reuse && *client == "hbkit"}
	switch *client {
	case "hbkit":
		var opts []hbase.Option
		if *maxResult > 0 {
			opts = append(opts, hbase.WithScanDefaults(hbase.DefaultScanCaching, *maxResult))
		}
		if *noAhead {
			opts = append(opts, hbase.WithScanReadAhead(false))
		}
		c, err := hbase.New(ctx, *zk, opts...)
		if err != nil {
			fatal(err)
		}
		s = &hbkitSide{c: c, table: *table, reuse: *reuse}
	case "gohbase":
		var opts []gohbase.Option
		res.Flush = "default"
		if *flush >= 0 {
			opts = append(opts, gohbase.FlushInterval(*flush))
			res.Flush = flush.String()
		}
		s = &gohbaseSide{c: gohbase.NewClient(*zk, opts...), table: *table}
	default:
		fatal(fmt.Errorf("unknown --client %q", *client))
	}
	defer s.close()

	op, err := workloadFunc(s, *workload, *rows, *goroutines)
	if err != nil {
		fatal(err)
	}
	// Warm-up: locate the regions and open the connections outside the
	// measured time, as a long-running service would have them.
	if _, err := op(ctx, rand.New(rand.NewPCG(1, 2)), -1); err != nil {
		fatal(fmt.Errorf("warm-up %s: %w", *workload, err))
	}

	var (
		mu        sync.Mutex
		lat       []time.Duration
		ops, nrow atomic.Int64
		nerr      atomic.Int64
		firstErr  error
		wg        sync.WaitGroup
	)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatal(err)
		}
		defer f.Close()
	}
	cpu, srvErr := proccpu.Start(*serverPid)
	start := time.Now()
	deadline := start.Add(*duration)
	for g := range *goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), uint64(start.UnixNano())))
			var mine []time.Duration
			for i := 0; ; i++ {
				if !time.Now().Before(deadline) && !(*workload == "fullscan" && i == 0) {
					break
				}
				t := time.Now()
				n, err := op(ctx, rng, g*1_000_000_000+i)
				mine = append(mine, time.Since(t))
				if err != nil {
					if nerr.Add(1) == 1 {
						mu.Lock()
						firstErr = err
						mu.Unlock()
					}
					continue
				}
				ops.Add(1)
				nrow.Add(int64(n))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	self, srv, err := cpu.Stop()
	res.CPUS = self.Seconds()
	if err := errors.Join(srvErr, err); err != nil {
		fmt.Fprintf(os.Stderr, "gohbasebench: server CPU of pid %d: %v\n", *serverPid, err)
	} else if *serverPid > 0 {
		res.ServerCPUS = srv.Seconds()
	}
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "gohbasebench: %d errors, first: %v\n", nerr.Load(), firstErr)
	}
	slices.Sort(lat)
	res.Ops, res.Rows, res.Errors = ops.Load(), nrow.Load(), nerr.Load()
	res.ElapsedS = elapsed.Seconds()
	res.OpsPerS = float64(res.Ops) / res.ElapsedS
	res.RowsPerS = float64(res.Rows) / res.ElapsedS
	res.P50Ms, res.P99Ms = pct(lat, 0.50), pct(lat, 0.99)
	_ = json.NewEncoder(os.Stdout).Encode(res)
	if res.Errors > 0 {
		os.Exit(1)
	}
}

func pct(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return float64(sorted[i].Microseconds()) / 1000
}

func fatal(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohbasebench:", err)
		os.Exit(2)
	}
}

// workloadFunc returns one operation of the workload; seq numbers the
// writes (negative for the warm-up).
func workloadFunc(s side, w string, rows, goroutines int) (func(ctx context.Context, rng *rand.Rand, seq int) (int, error), error) {
	switch w {
	case "put":
		return func(ctx context.Context, _ *rand.Rand, seq int) (int, error) {
			return s.put(ctx, writeKey(seq))
		}, nil
	case "get":
		return func(ctx context.Context, rng *rand.Rand, _ int) (int, error) {
			return s.get(ctx, rowKey(rng.IntN(rows)))
		}, nil
	case "batch":
		return func(ctx context.Context, _ *rand.Rand, seq int) (int, error) {
			keys := make([]string, batchSize)
			for i := range keys {
				keys[i] = writeKey(seq) + fmt.Sprintf("-%03d", i)
			}
			return s.batch(ctx, keys)
		}, nil
	case "scan100":
		if rows < scanRows {
			return nil, fmt.Errorf("scan100 needs --rows >= %d", scanRows)
		}
		return func(ctx context.Context, rng *rand.Rand, _ int) (int, error) {
			i := rng.IntN(rows - scanRows + 1)
			return s.scan(ctx, rowKey(i), rowKey(i+scanRows), scanRows)
		}, nil
	case "fullscan":
		return func(ctx context.Context, _ *rand.Rand, _ int) (int, error) {
			return s.scan(ctx, "", "", 0)
		}, nil
	}
	return nil, fmt.Errorf("unknown --workload %q", w)
}

// writeKey spreads writers over the key space (a hash-like prefix) so that
// concurrent writers do not all append at one end of the table.
func writeKey(seq int) string {
	return fmt.Sprintf("%08x-%d-%d", uint32(seq)*2654435761, os.Getpid(), seq)
}

// ---- hbkit ----

type hbkitSide struct {
	c     *hbase.Client
	table string
	reuse bool // Scan.ReuseMemory
}

func (h *hbkitSide) putOf(row string) *hbase.Put {
	return &hbase.Put{Table: h.table + "_w", Row: []byte(row),
		Values: map[string]map[string][]byte{family: {qualifier: value}}}
}

func (h *hbkitSide) put(ctx context.Context, row string) (int, error) {
	return 1, h.c.Put(ctx, h.putOf(row))
}

func (h *hbkitSide) get(ctx context.Context, row string) (int, error) {
	r, err := h.c.Get(ctx, &hbase.Get{Table: h.table, Row: []byte(row)})
	if err != nil {
		return 0, err
	}
	if len(r.Cells) == 0 {
		return 0, fmt.Errorf("row %s not found", row)
	}
	return 1, nil
}

func (h *hbkitSide) batch(ctx context.Context, rows []string) (int, error) {
	acts := make([]hbase.Action, len(rows))
	for i, r := range rows {
		acts[i] = h.putOf(r)
	}
	_, err := h.c.Batch(ctx, acts)
	return len(rows), err
}

func (h *hbkitSide) scan(ctx context.Context, start, stop string, caching int) (int, error) {
	sc := &hbase.Scan{Table: h.table, Caching: caching, ReuseMemory: h.reuse}
	if start != "" {
		sc.StartRow, sc.StopRow = []byte(start), []byte(stop)
	}
	n := 0
	for r, err := range hbase.ScanAll(ctx, h.c, sc) {
		if err != nil {
			return n, err
		}
		_ = r
		n++
	}
	return n, nil
}

func (h *hbkitSide) close() { h.c.Close() }

// ---- gohbase ----

type gohbaseSide struct {
	c     gohbase.Client
	table string
}

func (g *gohbaseSide) mutate(ctx context.Context, row string) (*hrpc.Mutate, error) {
	return hrpc.NewPutStr(ctx, g.table+"_w", row, map[string]map[string][]byte{family: {qualifier: value}})
}

func (g *gohbaseSide) put(ctx context.Context, row string) (int, error) {
	p, err := g.mutate(ctx, row)
	if err != nil {
		return 0, err
	}
	_, err = g.c.Put(p)
	return 1, err
}

func (g *gohbaseSide) get(ctx context.Context, row string) (int, error) {
	q, err := hrpc.NewGetStr(ctx, g.table, row)
	if err != nil {
		return 0, err
	}
	r, err := g.c.Get(q)
	if err != nil {
		return 0, err
	}
	if len(r.Cells) == 0 {
		return 0, fmt.Errorf("row %s not found", row)
	}
	return 1, nil
}

// batch uses SendBatch (one call for the 100 Puts, as hbkit's Batch).
func (g *gohbaseSide) batch(ctx context.Context, rows []string) (int, error) {
	calls := make([]hrpc.Call, len(rows))
	for i, r := range rows {
		p, err := g.mutate(ctx, r)
		if err != nil {
			return 0, err
		}
		calls[i] = p
	}
	res, ok := g.c.SendBatch(ctx, calls)
	if !ok {
		for _, r := range res {
			if r.Error != nil {
				return 0, r.Error
			}
		}
		return 0, errors.New("SendBatch failed")
	}
	return len(rows), nil
}

func (g *gohbaseSide) scan(ctx context.Context, start, stop string, caching int) (int, error) {
	var opts []func(hrpc.Call) error
	if caching > 0 {
		opts = append(opts, hrpc.NumberOfRows(uint32(caching)))
	}
	var (
		s   *hrpc.Scan
		err error
	)
	if start != "" {
		s, err = hrpc.NewScanRangeStr(ctx, g.table, start, stop, opts...)
	} else {
		s, err = hrpc.NewScanStr(ctx, g.table, opts...)
	}
	if err != nil {
		return 0, err
	}
	sc := g.c.Scan(s)
	defer sc.Close()
	n := 0
	for {
		_, err := sc.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

func (g *gohbaseSide) close() { g.c.Close() }

// ---- setup / teardown (hbkit's admin API) ----

func doSetup(ctx context.Context, zk, table string, rows int) error {
	c, err := hbase.New(ctx, zk)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, t := range []string{table, table + "_w"} {
		// No splits during the runs: a split of the write table put a
		// region in transition under whichever side was running then.
		if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: t,
			Families:   []hbase.FamilyDescriptor{{Name: family}},
			Attributes: map[string]string{"SPLIT_POLICY": "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy"},
		}, nil); err != nil {
			return fmt.Errorf("create %s: %w", t, err)
		}
	}
	const chunk = 500
	next := atomic.Int64{}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= rows {
					return
				}
				hi := min(lo+chunk, rows)
				acts := make([]hbase.Action, 0, hi-lo)
				for i := lo; i < hi; i++ {
					acts = append(acts, &hbase.Put{Table: table, Row: []byte(rowKey(i)),
						Values: map[string]map[string][]byte{family: {qualifier: value}}})
				}
				if _, err := c.Batch(ctx, acts); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gohbasebench: %s has %d rows of %d bytes\n", table, rows, valueSize)
	return nil
}

// settleBelowMB is the write table's memstore (the region server's flush
// size, 128 MB by default) below which a write run may start.
const settleBelowMB = 128

// doSettle waits until the server has flushed what earlier write runs
// left in the write table's memstore. Writes of 100 KB batches from 32
// goroutines outrun the flushes of a local server: without this, the
// memstore grows run after run until the region blocks writes
// (RegionTooBusyException, "Over memstore limit") during whichever
// side's run comes next. The memstore size comes from the master's
// cluster status, a few seconds old at most.
func doSettle(ctx context.Context, zk, table string) error {
	c, err := hbase.New(ctx, zk)
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	for {
		loads, err := c.RegionLoads(ctx, table+"_w")
		if err != nil {
			return err
		}
		var mb uint32
		for _, l := range loads {
			mb += l.MemStoreSizeMB
		}
		if mb < settleBelowMB {
			if waited := time.Since(start); waited > time.Second {
				fmt.Fprintf(os.Stderr, "gohbasebench: waited %v for the memstore of %s_w to flush\n", waited.Round(100*time.Millisecond), table)
			}
			return nil
		}
		if time.Since(start) > time.Minute {
			return fmt.Errorf("the memstore of %s_w still holds %d MB after a minute", table, mb)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func doTeardown(ctx context.Context, zk, table string) error {
	c, err := hbase.New(ctx, zk)
	if err != nil {
		return err
	}
	defer c.Close()
	var errs []error
	for _, t := range []string{table, table + "_w"} {
		ok, err := c.TableExists(ctx, t)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		if err := c.DisableTable(ctx, t); err != nil && !strings.Contains(err.Error(), "isabled") {
			errs = append(errs, err)
		}
		errs = append(errs, c.DeleteTable(ctx, t))
	}
	return errors.Join(errs...)
}
