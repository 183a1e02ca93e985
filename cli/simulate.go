package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/sim"
)

const simulateUsage = `usage: hbkit simulate --schema NAME [--records N] [--splits SPEC] [--servers K] [flags]
       hbkit simulate --sample FILE [--schema NAME|--schema-file FILE|--table T] [--splits SPEC] [flags]

Predicts how a row-key design and its pre-split keys spread writes over
regions, before the table exists: rows and share per region, max/mean skew,
which regions take the writes of each time slice (a key that grows with
time shows one hot region per slice), how regions would split as they grow
(HBase 2's stepping policy by default: past twice --flush-size while a
region is its table's only one on its server, else past --split-size), and
the load of --servers region servers.

Keys come from a deterministic generator of the built-in schema's records
(--records, --mobiles, --accounts, --days, --start, --seed; see
"hbkit simulate --list") or from --sample FILE: one row key per line,
printable bytes as is and others as \xHH (HBase's Bytes.toStringBinary),
optionally followed by a tab and the record time in Unix milliseconds.
With --sample, the split keys are those of the schema of --schema (a
built-in workload, a schema of this binary or a file), of --schema-file
FILE (a schema document), or of the document stored with the live table
--table T. A schema document describes keys, not the records a team
writes, so it simulates only with --sample (ErrNoWorkload otherwise).

--splits SPEC sets the pre-split keys:
  schema      the schema's own split keys (default)
  none        one region
  hex:N       RegionSplitter HexStringSplit into N regions
  decimal:N   DecimalStringSplit; uniform:N UniformSplit
  prefix:N:W  N regions over a W-digit decimal prefix ('05'..'95' for 20:2)
  sample:N    N regions cut from 100,000 sampled keys of the workload
  keys:K1,K2  explicit keys (\xHH escapes allowed)
  @FILE       one key per line

Flags:
`

// workloadFlags are the generator settings shared by simulate and regions.
type workloadFlags struct {
	records  int64
	mobiles  int
	accounts int
	days     int
	start    string
	zipf     float64
	seed     uint64
}

func (w *workloadFlags) register(fs *flag.FlagSet, defaultRecords int64) {
	fs.Int64Var(&w.records, "records", defaultRecords, "number of generated records")
	fs.IntVar(&w.mobiles, "mobiles", 0, "distinct owners of keys (sim.Config.Entities: mobiles, hosts, customers ...); 0: the workload's default")
	fs.IntVar(&w.accounts, "accounts", 0, "sending accounts (sim.Config.Accounts; 0: 100)")
	fs.IntVar(&w.days, "days", 0, "length of the time window in days (0: 30)")
	fs.StringVar(&w.start, "start", "", "start of the time window, `YYYY-MM-DD` UTC (default 2025-01-01)")
	fs.Float64Var(&w.zipf, "zipf", 0, "Zipf exponent (> 1) of the entities' popularity: some mobiles far busier than others (0: uniform)")
	fs.Uint64Var(&w.seed, "seed", 1, "seed of the generator")
}

func (w *workloadFlags) config() (sim.Config, error) {
	c := sim.Config{Records: w.records, Entities: w.mobiles, Accounts: w.accounts, Days: w.days, Zipf: w.zipf, Seed: w.seed}
	if w.start != "" {
		t, err := time.Parse("2006-01-02", w.start)
		if err != nil {
			return c, fmt.Errorf("--start %q: want YYYY-MM-DD", w.start)
		}
		c.Start = t
	}
	return c, nil
}

// outputFlags are the report outputs shared by simulate and regions.
type outputFlags struct {
	json bool
	svg  string
	html string
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print the report as JSON instead of tables")
	fs.StringVar(&o.svg, "svg", "", "write a bar chart of the rows per region to `FILE` (SVG)")
	fs.StringVar(&o.html, "html", "", "write the chart and the report to `FILE` (HTML)")
}

type simulateFlags struct {
	schema    string
	file      string // --schema-file
	table     string // --table
	zk        string
	sample    string
	splits    string
	servers   int
	slices    int
	splitSize string
	splitRows int64
	policy    string
	flushSize string
	list      bool
	work      workloadFlags
	out       outputFlags
}

func simulateFlagSet(e *Env, f *simulateFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("hbkit simulate", flag.ContinueOnError)
	fs.StringVar(&f.schema, "schema", "", "built-in schema `NAME` whose keys to simulate (see --list)")
	fs.StringVar(&f.sample, "sample", "", "read row keys from `FILE` instead of generating records")
	fs.StringVar(&f.file, "schema-file", "", "with --sample: the split keys of the schema document `FILE`")
	fs.StringVar(&f.table, "table", "", "with --sample: the split keys of the document stored with table `T`")
	e.connectFlags(fs, &f.zk)
	fs.StringVar(&f.splits, "splits", "schema", "pre-split keys: schema, none, hex:N, decimal:N, uniform:N, prefix:N:W, sample:N, keys:K1,K2 or @FILE")
	fs.IntVar(&f.servers, "servers", 1, "number of region servers")
	fs.IntVar(&f.slices, "slices", -1, "number of time slices (0: none; default one per region, 10 to 48)")
	fs.StringVar(&f.splitSize, "split-size", "10GiB", "regions split past this `SIZE` (hbase.hregion.max.filesize; e.g. 256MiB)")
	fs.Int64Var(&f.splitRows, "split-rows", 0, "emulate region splits past this many rows (0: off)")
	fs.StringVar(&f.policy, "split-policy", "stepping", "stepping: HBase 2's default, past 2×--flush-size while a region is alone on its server, else past --split-size; constant: past --split-size; none: no split emulation")
	fs.StringVar(&f.flushSize, "flush-size", "128MiB", "memstore flush `SIZE` for counting flushes (0: off)")
	fs.BoolVar(&f.list, "list", false, "list the built-in schemas and exit")
	f.work.register(fs, 1_000_000)
	f.out.register(fs)
	return fs
}

// simulateCommand is hbkit simulate.
func simulateCommand(e *Env) command {
	return command{name: "simulate", summary: "predict how a key design spreads writes over regions and servers", usage: text(simulateUsage),
		bind: func() (*flag.FlagSet, runFunc) {
			var f simulateFlags
			fs := simulateFlagSet(e, &f)
			return fs, func(ctx context.Context, args []string) error { return e.simulate(ctx, &f, fs, args) }
		}}
}

// runSimulate runs hbkit simulate with args.
func runSimulate(ctx context.Context, e *Env, args []string) error {
	return runOne(ctx, e, simulateCommand(e), args)
}

// simulate runs hbkit simulate with its flags (of fs) and arguments.
func (e *Env) simulate(ctx context.Context, f *simulateFlags, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s simulate: unexpected argument %q\n", e.name(), args[0])
		return ErrUsage
	}
	if f.list {
		return e.printNames(registeredNames(e.Workloads), f.out.json)
	}
	if f.schema == "" && f.sample == "" {
		if f.file != "" || f.table != "" {
			return ErrNoWorkload
		}
		fmt.Fprintf(e.Stderr, "%s simulate: need --schema NAME or --sample FILE\n", e.name())
		fs.Usage()
		return ErrUsage
	}
	src, err := e.simulateSource(ctx, f)
	if err != nil {
		return err
	}
	opts, err := simulateOptions(f, src)
	if err != nil {
		return err
	}
	began := time.Now()
	r, err := sim.Simulate(ctx, src, opts...)
	if err != nil {
		return err
	}
	r.Elapsed = time.Since(began)
	if err := writeReport(e, &f.out, r, nil); err != nil {
		return err
	}
	if !f.out.json {
		fmt.Fprintf(e.Stdout, "\n%d keys in %s (%.1f million keys/s)\n", r.Rows, r.Elapsed.Round(time.Millisecond),
			float64(r.Rows)/r.Elapsed.Seconds()/1e6)
	}
	return nil
}

// ErrNoWorkload is the error of simulate given a schema document without
// --sample: a document describes keys, not the records a team writes.
var ErrNoWorkload = errors.New("a schema document has no record generator: give --sample FILE, one row key per line (hbkit regions measures a live table)")

// simulateSource returns the generated workload of --schema, or the keys
// of --sample with the split keys of --schema, --schema-file or --table's
// stored document, if given.
func (e *Env) simulateSource(ctx context.Context, f *simulateFlags) (sim.Source, error) {
	if f.sample == "" {
		if f.file != "" || f.table != "" {
			return nil, ErrNoWorkload
		}
		cfg, err := f.work.config()
		if err != nil {
			return nil, err
		}
		return e.workload(f.schema, cfg)
	}
	name, splits, err := e.sampleSplits(ctx, f)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = f.sample
	}
	ks, at, err := readSampleFile(f.sample)
	if err != nil {
		return nil, err
	}
	return sim.FromKeys(name, splits, ks, at)
}

// sampleSplits returns the table name and split keys of the schema that
// goes with --sample: a built-in workload's, else those of --schema,
// --schema-file or --table's stored document; none without any.
func (e *Env) sampleSplits(ctx context.Context, f *simulateFlags) (string, [][]byte, error) {
	var d schema.Definition
	var err error
	switch {
	case f.schema != "":
		cfg, cerr := f.work.config()
		if cerr != nil {
			return "", nil, cerr
		}
		cfg.Records = 1
		s, berr := e.workload(f.schema, cfg)
		if berr == nil {
			return f.schema, s.Splits(), nil
		}
		if d, err = e.loadDefinition(f.schema); err != nil {
			return "", nil, fmt.Errorf("--schema %s: neither a built-in workload (%w) nor a schema: %w", f.schema, berr, err)
		}
	case f.file != "":
		d, err = e.loadDefinition(f.file)
	case f.table != "":
		d, err = e.storedDefinition(ctx, "simulate", f.zk, f.table)
	default:
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return d.Name().String(), d.SplitKeys(), nil
}

// storedDefinition connects and opens the document stored with table.
func (e *Env) storedDefinition(ctx context.Context, command, zkFlag, table string) (schema.Definition, error) {
	c, closer, err := dial(ctx, e, e.connect, zkFlag)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return openStored(ctx, command, c, table)
}

func simulateOptions(f *simulateFlags, src sim.Source) ([]sim.Option, error) {
	splitSize, err := parseSize(f.splitSize)
	if err != nil {
		return nil, fmt.Errorf("--split-size: %w", err)
	}
	flushSize, err := parseSize(f.flushSize)
	if err != nil {
		return nil, fmt.Errorf("--flush-size: %w", err)
	}
	opts := []sim.Option{
		sim.WithServers(f.servers), sim.WithSplitRows(f.splitRows),
		sim.WithFlushSize(flushSize), sim.WithSeed(f.work.seed),
	}
	switch f.policy {
	case "constant":
		opts = append(opts, sim.WithSplitSize(splitSize))
	case "stepping":
		if flushSize == 0 {
			return nil, errors.New("--split-policy stepping needs a --flush-size")
		}
		opts = append(opts, sim.WithSplitSize(splitSize), sim.WithSteppingSplit())
	case "none":
	default:
		return nil, fmt.Errorf("--split-policy %q: want stepping, constant or none", f.policy)
	}
	regions := len(src.Splits()) + 1
	if f.splits != "" && f.splits != "schema" {
		splits, err := parseSplits(f.splits, src)
		if err != nil {
			return nil, fmt.Errorf("--splits %s: %w", f.splits, err)
		}
		opts = append(opts, sim.WithSplits(splits))
		regions = len(splits) + 1
	}
	// One slice per region shows a key that moves through the regions
	// with time as one hot region per slice.
	slices := f.slices
	if slices < 0 {
		slices = min(max(regions, sim.DefaultSlices), 48)
	}
	return append(opts, sim.WithSlices(slices)), nil
}

// parseSplits turns a --splits SPEC into split keys.
func parseSplits(spec string, src sim.Source) ([][]byte, error) {
	if rest, ok := strings.CutPrefix(spec, "@"); ok {
		ks, _, err := readSampleFile(rest)
		return ks, err
	}
	kind, arg, _ := strings.Cut(spec, ":")
	n := 0
	if kind != "none" && kind != "keys" {
		first, _, _ := strings.Cut(arg, ":")
		v, err := strconv.Atoi(first)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("want a region count after %q", kind+":")
		}
		n = v
	}
	switch kind {
	case "none":
		return nil, nil
	case "hex":
		return keys.HexStringSplit(n)
	case "decimal":
		return keys.DecimalStringSplit(n)
	case "uniform":
		return keys.UniformSplit(n)
	case "prefix":
		_, w, ok := strings.Cut(arg, ":")
		width, err := strconv.Atoi(w)
		if !ok || err != nil {
			return nil, errors.New("want prefix:N:WIDTH")
		}
		return keys.DecimalPrefixSplits(n, width)
	case "sample":
		return sampleSplits(src, n)
	case "keys":
		var out [][]byte
		for _, s := range strings.Split(arg, ",") {
			k, err := parseBinaryKey(s)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
		}
		return out, keys.ValidateSplits(out)
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// sampleSplits cuts n regions from up to 100,000 keys of src taken at
// even intervals, the sampling method of seed 003.
func sampleSplits(src sim.Source, n int) ([][]byte, error) {
	const want = 100_000
	step := max(1, src.Len()/want)
	var samples [][]byte
	var i int64
	for w, err := range src.Writes() {
		if err != nil {
			return nil, err
		}
		if i%step == 0 {
			samples = append(samples, append([]byte(nil), w.Key...))
		}
		i++
	}
	return keys.SampleSplits(samples, n)
}

// readSampleFile reads one key per line, in Bytes.toStringBinary form,
// optionally followed by a tab and a time in Unix ms. Blank lines are
// skipped. Times are returned only if every line has one.
func readSampleFile(name string) ([][]byte, []int64, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	var ks [][]byte
	var at []int64
	timed := true
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		keyText, tText, hasTime := strings.Cut(text, "\t")
		k, err := parseBinaryKey(keyText)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		ks = append(ks, k)
		if hasTime && timed {
			ms, err := strconv.ParseInt(strings.TrimSpace(tText), 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: time %q: want Unix milliseconds", name, line, tText)
			}
			at = append(at, ms)
		} else {
			timed = false
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if !timed {
		at = nil
	}
	return ks, at, nil
}

// parseBinaryKey reverses Bytes.toStringBinary: \xHH is a byte, anything
// else stands for itself.
func parseBinaryKey(s string) ([]byte, error) {
	k, err := sim.ParseKey(s)
	return []byte(k), err
}

// parseSize parses a byte size: a number with an optional unit B, K/KB/KiB,
// M/MB/MiB, G/GB/GiB or T/TB/TiB (all powers of 1024, as HBase's settings).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("bad size unit in %q", s)
	}
	return int64(v * mult), nil
}

// writeReport prints r (and the comparison, if any) as tables or JSON and
// writes the --svg and --html files.
func writeReport(e *Env, o *outputFlags, r *sim.Report, cmp *sim.Comparison) error {
	if o.json {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if cmp != nil {
			return enc.Encode(struct {
				Report     *sim.Report     `json:"report"`
				Comparison *sim.Comparison `json:"comparison"`
			}{r, cmp})
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		if err := r.WriteText(e.Stdout); err != nil {
			return err
		}
		if cmp != nil {
			fmt.Fprintln(e.Stdout)
			if err := cmp.WriteText(e.Stdout); err != nil {
				return err
			}
		}
	}
	chart := r.WriteSVG
	if cmp != nil {
		chart = cmp.WriteSVG
	}
	if o.svg != "" {
		if err := writeFile(o.svg, chart); err != nil {
			return err
		}
	}
	if o.html != "" {
		texts := []func(io.Writer) error{r.WriteText}
		if cmp != nil {
			texts = append(texts, cmp.WriteText)
		}
		charts := []func(io.Writer) error{chart}
		if len(r.Splits) > 0 {
			charts = append(charts, r.WriteFinalSVG)
		}
		page := func(w io.Writer) error {
			return sim.WriteHTML(w, "hbkit: regions of "+r.Table, charts, texts)
		}
		if err := writeFile(o.html, page); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, write func(io.Writer) error) error {
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return fh.Close()
}

// workload returns the writes of the workload e.Workloads registers for
// the table name; an unknown name is a *sim.ConfigError.
func (e *Env) workload(name string, cfg sim.Config) (sim.Source, error) {
	gen, ok := registered(e.Workloads, name)
	if !ok {
		return nil, &sim.ConfigError{Field: "schema", Reason: fmt.Sprintf("no built-in workload for %s (have %v)",
			strconv.Quote(name), registeredNames(e.Workloads))}
	}
	return gen(cfg)
}
