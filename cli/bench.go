package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/bench"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
)

const benchUsage = `usage: hbkit bench [--zk ADDR] [--rows N] [--threads T] [--workloads LIST] [flags]
       hbkit bench --drop-tables [--zk ADDR]
       hbkit bench --compare DIR
       hbkit bench --records FILE --seed S --start TIME [--rows N] [--threads T]

Runs the workloads of HBase's PerformanceEvaluation ("hbase pe --nomapred")
with %s, with PE's defaults: table TestTable, family
info0, column 0, 26-digit keys, 1,000-byte values, 2 MB write buffer, scanner
caching 30. Each of --threads clients handles --rows rows. Prints rows/s
(PE's "Avg TPS/QPS") and latency percentiles in microseconds.

Workloads (run in the order given; the reads need a write first):
%s

--drop-tables drops the tables the workloads use and exits. --compare DIR
prints the comparison table of a make bench-compare run from the PE logs
(DIR/pe-<workload>-<threads>.log, from tools/pe/run.sh) and the JSON
reports (DIR/hbkit-*.json, from --json) it finds there; it needs no HBase.
--records FILE writes the SMS records the layer workloads write with these
--rows, --threads, --seed and --start to FILE (tab-separated, see
bench.WriteRecords) and exits; it needs no HBase either. tools/phoenix loads
them through Apache Phoenix.

Flags:
`

// benchPEWorkloads is the default --workloads: PE's, in a runnable order.
const benchPEWorkloads = "sequentialWrite,randomWrite,randomRead,scan,scanRange100"

type benchFlags struct {
	zk         string
	table      string
	rows       int
	threads    int
	workloads  string
	presplit   int
	valueSize  int
	batch      int
	seed       uint64
	json       bool
	fresh      bool
	drop       bool
	compare    string
	cpuprofile string
	start      string
	records    string
	writeMode  string
	serverPID  int
	workers    int
}

func benchFlagSet(e *Env, f *benchFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("hbkit bench", flag.ContinueOnError)
	e.connectFlags(fs, &f.zk)
	fs.StringVar(&f.table, "table", bench.DefaultTable, "table `T` of the PE workloads, and prefix of the layer workloads' tables (PE's --table)")
	fs.IntVar(&f.rows, "rows", bench.DefaultRows, "rows per client thread (PE's --rows)")
	fs.IntVar(&f.threads, "threads", bench.DefaultThreads, "client threads (PE's nclients)")
	fs.StringVar(&f.workloads, "workloads", benchPEWorkloads, "comma-separated workloads to run in order, or \"all\"")
	fs.IntVar(&f.presplit, "presplit", 0, "pre-split a table the writes create into `R` regions (PE's --presplit)")
	fs.IntVar(&f.valueSize, "value-size", bench.DefaultValueSize, "value size in bytes (PE's --valueSize)")
	fs.IntVar(&f.batch, "batch", bench.DefaultBatchSize, "records per call of plainWrite, daoWrite, indexedWrite and dualWrite")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the random keys and values (default: random)")
	fs.BoolVar(&f.json, "json", false, "print the results (with --compare: the comparison) as JSON")
	fs.BoolVar(&f.fresh, "fresh", false, "drop the workloads' tables first, so the writes start from empty tables")
	fs.BoolVar(&f.drop, "drop-tables", false, "drop the workloads' tables and exit")
	fs.StringVar(&f.compare, "compare", "", "print the comparison table of the PE logs and JSON reports in `DIR` and exit")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the workloads to `FILE`")
	fs.StringVar(&f.start, "start", "", "send `TIME` (RFC 3339) of the layer workloads' first record (default: when each starts)")
	fs.StringVar(&f.records, "records", "", "write the layer workloads' records to `FILE` and exit")
	fs.IntVar(&f.serverPID, "server-pid", 0, "report the CPU time per row that process `PID` (a local HBase's JVM) spent during each workload, next to the client's own")
	fs.IntVar(&f.workers, "workers", 1, "workers of the jobs of verifyJob and rebuildJob (package jobs)")
	fs.StringVar(&f.writeMode, "write-mode", "", "write indexedWrite's records, and read them in accountDayQuery, through a store in `MODE` (strict, mutable, insert-only, verify-on-read) instead of the schema's own (insert-only)")
	return fs
}

// comparisonJSON is one row of bench --compare --json: a workload run by
// PerformanceEvaluation (Java) and by hbkit.
type comparisonJSON struct {
	Workload string       `json:"workload"`
	Threads  int          `json:"threads"`
	Java     bench.Result `json:"java"`
	Hbkit    bench.Result `json:"hbkit"`
	Ratio    float64      `json:"ratio"` // hbkit's rows/s over Java's
}

// writeComparisonJSON writes the output of bench --compare --json: the
// comparisons, and every hbkit result read (the layer workloads too).
func writeComparisonJSON(w io.Writer, cs []bench.Comparison, ours []bench.Result) error {
	out := struct {
		Comparisons []comparisonJSON `json:"comparisons"`
		Results     []bench.Result   `json:"results"`
	}{Comparisons: []comparisonJSON{}, Results: ours}
	for _, c := range cs {
		out.Comparisons = append(out.Comparisons, comparisonJSON{c.Workload, c.Threads, c.Java, c.Ours, c.Ratio()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// benchReport is the JSON output of hbkit bench.
type benchReport struct {
	Rows    int `json:"rows_per_thread"`
	Threads int `json:"threads"`
	// WriteMode is --write-mode, when given.
	WriteMode string         `json:"write_mode,omitempty"`
	Results   []bench.Result `json:"results"`
}

// benchCommand is hbkit bench.
func benchCommand(e *Env, connect connectFunc[Client]) command {
	usage := func() string {
		var b strings.Builder
		for _, w := range bench.Workloads() {
			fmt.Fprintf(&b, "  %-16s %s\n", w.Name, w.Summary)
		}
		return fmt.Sprintf(benchUsage, e.clientName(), strings.TrimRight(b.String(), "\n"))
	}
	return command{name: "bench", summary: "run PE's workloads (and dao/index writes) with " + e.clientName() + ": rows/s and latency",
		usage: usage,
		bind: func() (*flag.FlagSet, runFunc) {
			var f benchFlags
			return benchFlagSet(e, &f), func(ctx context.Context, args []string) error { return e.bench(ctx, f, args, connect) }
		}}
}

// runBenchWith runs hbkit bench with args over connect.
func runBenchWith(ctx context.Context, e *Env, args []string, connect connectFunc[Client]) error {
	return runOne(ctx, e, benchCommand(e, connect), args)
}

// bench runs hbkit bench with its flags and arguments.
func (e *Env) bench(ctx context.Context, f benchFlags, args []string, connect connectFunc[Client]) error {
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s bench: unexpected argument %q\n", e.name(), args[0])
		return ErrUsage
	}
	if f.compare != "" {
		return benchCompare(e, f.compare, f.json)
	}
	names, err := benchWorkloads(f.workloads)
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s bench: %v\n", e.name(), err)
		return ErrUsage
	}
	opts := []bench.Option{
		bench.WithTable(f.table), bench.WithRows(f.rows), bench.WithThreads(f.threads), bench.WithPresplit(f.presplit),
		bench.WithValueSize(f.valueSize), bench.WithBatchSize(f.batch), bench.WithServerPID(f.serverPID),
		bench.WithWorkers(f.workers),
	}
	if f.seed != 0 {
		opts = append(opts, bench.WithSeed(f.seed))
	}
	if f.start != "" {
		start, err := time.Parse(time.RFC3339Nano, f.start)
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s bench: --start: %v\n", e.name(), err)
			return ErrUsage
		}
		opts = append(opts, bench.WithStart(start))
	}
	if f.writeMode != "" {
		mode, err := schema.ParseWriteMode(f.writeMode)
		if err != nil {
			fmt.Fprintf(e.Stderr, "%s bench: --write-mode: %v\n", e.name(), err)
			return ErrUsage
		}
		opts = append(opts, bench.WithIndexedWriteMode(mode))
	}
	if f.records != "" {
		return benchRecords(f.records, opts)
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	r, err := bench.New(c, c, append(opts, bench.WithJobRunner(BenchJobRunner(c)))...)
	if err != nil {
		return err
	}
	if f.drop || f.fresh {
		if err := r.DropTables(ctx); err != nil {
			return err
		}
		if f.drop {
			fmt.Fprintf(e.Stderr, "%s bench: dropped %s (those that existed)\n", e.name(), strings.Join(r.Tables(), ", "))
			return nil
		}
	}
	if !f.fresh && writesPE(names) {
		// A PE write checks an existing table first (PE's checkTable).
		if u := refused(c, "bench", "DescribeTable", "to check the existing table "+f.table+" before writing to it (--fresh drops it first)"); u != nil {
			exists, err := c.TableExists(ctx, f.table)
			if err != nil {
				return err
			}
			if exists {
				return u
			}
		}
	}
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	report := benchReport{Rows: f.rows, Threads: f.threads, WriteMode: f.writeMode}
	for _, name := range names {
		res, err := r.Run(ctx, name)
		if err != nil {
			return err
		}
		report.Results = append(report.Results, res)
		if !f.json {
			fmt.Fprintln(e.Stdout, res)
		}
	}
	if f.json {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return nil
}

// writesPE reports whether one of the workloads is a PE write.
func writesPE(names []string) bool {
	for _, w := range bench.Workloads() {
		if w.PE != "" && w.Write && slices.Contains(names, w.Name) {
			return true
		}
	}
	return false
}

// benchRecords writes the layer workloads' records to path.
func benchRecords(path string, opts []bench.Option) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := bench.WriteRecords(fh, opts...); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// benchWorkloads parses --workloads.
func benchWorkloads(list string) ([]string, error) {
	var known []string
	for _, w := range bench.Workloads() {
		known = append(known, w.Name)
	}
	if strings.TrimSpace(list) == "all" {
		return known, nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("unknown workload %q (known: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no workload given")
	}
	return out, nil
}

// benchCompare prints the comparison of the PE logs and hbkit reports in
// dir.
func benchCompare(e *Env, dir string, asJSON bool) error {
	logs, err := filepath.Glob(filepath.Join(dir, "pe-*.log"))
	if err != nil {
		return err
	}
	var java []bench.Result
	for _, p := range logs {
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		res, err := bench.ParsePE(fh)
		fh.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		java = append(java, res)
	}
	reports, err := filepath.Glob(filepath.Join(dir, "hbkit-*.json"))
	if err != nil {
		return err
	}
	var ours []bench.Result
	for _, p := range reports {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var rep benchReport
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		ours = append(ours, rep.Results...)
	}
	if len(java) == 0 && len(ours) == 0 {
		return fmt.Errorf("no pe-*.log or hbkit-*.json in %s", dir)
	}
	// Threads first, then the workloads in their run order.
	order := make(map[string]int)
	for i, w := range bench.Workloads() {
		order[w.Name] = i
	}
	slices.SortStableFunc(ours, func(a, b bench.Result) int {
		if a.Threads != b.Threads {
			return a.Threads - b.Threads
		}
		return order[a.Workload] - order[b.Workload]
	})
	cs := bench.Compare(java, ours)
	if asJSON {
		return writeComparisonJSON(e.Stdout, cs, ours)
	}
	if len(cs) > 0 {
		if err := bench.WriteComparison(e.Stdout, cs); err != nil {
			return err
		}
	}
	var layers strings.Builder
	if err := bench.WriteLayers(&layers, ours); err != nil {
		return err
	}
	if layers.Len() > 0 {
		fmt.Fprintf(e.Stdout, "\n%s", layers.String())
	}
	return nil
}

// BenchJobRunner is the runner hbkit bench gives bench's job workloads
// (bench.WithJobRunner): jobs.Run on c, each job run anew: its checkpoints from an earlier run are reset first. A
// copy's target is created first, pre-split from a sample of the source
// (jobs.PrepareTarget).
func BenchJobRunner(c Client) bench.JobRunner {
	return func(ctx context.Context, j bench.Job) (map[string]int64, error) {
		if j.Target != "" {
			a, ok := c.(admin.Client)
			if !ok {
				return nil, fmt.Errorf("bench: copyJob creates its target: %w", errors.ErrUnsupported)
			}
			if _, err := jobs.PrepareTarget(ctx, c, a, j.Table, j.TargetDocument, j.Regions); err != nil {
				return nil, err
			}
		}
		if err := jobs.EnsureStore(ctx, c); err != nil {
			return nil, err
		}
		s, err := jobs.NewStore(c)
		if err != nil {
			return nil, err
		}
		spec := jobs.Spec{Kind: jobs.Kind(j.Kind), Table: j.Table, Target: j.Target}
		if err := s.Reset(ctx, spec.ID()); err != nil {
			return nil, err
		}
		rep, err := jobs.Run(ctx, c, spec, jobs.WithStore(s), jobs.WithWorkers(j.Workers))
		return rep.Counts, err
	}
}
