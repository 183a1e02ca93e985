package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrNoSummary is returned by ParsePE for output without PE's summary
// (the run failed or was cut short).
var ErrNoSummary = errors.New("bench: no PerformanceEvaluation summary in the output")

// peOptions is the part of PE's "test run options=" JSON that ParsePE
// reads. Gson writes Java longs as strings, ints as numbers.
type peOptions struct {
	CmdName          string      `json:"cmdName"`
	NumClientThreads int         `json:"numClientThreads"`
	PerClientRunRows json.Number `json:"perClientRunRows"`
}

// ParsePE reads the log of one PerformanceEvaluation run (--nomapred),
// as tools/pe/run.sh keeps it, into a Result: the workload and sizes from
// its "test run options" line, rows per second from "[ Avg TPS/QPS]", the
// elapsed time from the slowest client's duration, and one Latency per
// client from its "Latency (us)" and "Num measures" lines. Latency is
// left zero: PE prints no merged histogram (see Result.ThreadAverage).
func ParsePE(r io.Reader) (Result, error) {
	var res Result
	var opts peOptions
	haveOpts, haveTPS := false, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.Contains(line, " test run options="):
			js := line[strings.Index(line, "options=")+len("options="):]
			if err := json.Unmarshal([]byte(js), &opts); err != nil {
				return Result{}, fmt.Errorf("bench: PE options: %w", err)
			}
			haveOpts = true
		case strings.HasPrefix(line, "Latency (us) :"):
			l, err := parsePELatency(strings.TrimPrefix(line, "Latency (us) :"))
			if err != nil {
				return Result{}, err
			}
			res.PerThread = append(res.PerThread, l)
		case strings.HasPrefix(line, "Num measures (latency) :"):
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Num measures (latency) :")), 10, 64)
			if err != nil {
				return Result{}, fmt.Errorf("bench: PE measures %q: %w", line, err)
			}
			if k := len(res.PerThread); k > 0 {
				res.PerThread[k-1].Count = n
			}
		case strings.HasPrefix(line, "[ Avg TPS/QPS]"):
			f := strings.Fields(strings.TrimPrefix(line, "[ Avg TPS/QPS]"))
			if len(f) == 0 {
				return Result{}, fmt.Errorf("bench: PE summary %q", line)
			}
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return Result{}, fmt.Errorf("bench: PE summary %q: %w", line, err)
			}
			res.RowsPerSec, haveTPS = v, true
		case strings.Contains(line, " duration ]") && strings.Contains(line, "Max:"):
			f := strings.Fields(line[strings.Index(line, "Max:")+len("Max:"):])
			if len(f) > 0 {
				if v, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "ms"), 64); err == nil {
					res.ElapsedMS = v
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, err
	}
	if !haveOpts || !haveTPS {
		return Result{}, ErrNoSummary
	}
	rows, err := opts.PerClientRunRows.Int64()
	if err != nil {
		return Result{}, fmt.Errorf("bench: PE perClientRunRows %q: %w", opts.PerClientRunRows, err)
	}
	res.Workload = opts.CmdName
	res.Threads = opts.NumClientThreads
	res.Rows = rows * int64(opts.NumClientThreads)
	return res, nil
}

// parsePELatency parses "mean=1.5, min=1.00, max=9.00, ..., 50th=2.00,
// 75th=..., 95th=..., 99th=..., 99.9th=..., ..." (microseconds).
func parsePELatency(s string) (Latency, error) {
	var l Latency
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return Latency{}, fmt.Errorf("bench: PE latency %s=%q: %w", k, v, err)
		}
		switch k {
		case "mean":
			l.Mean = f
		case "max":
			l.Max = f
		case "50th":
			l.P50 = f
		case "95th":
			l.P95 = f
		case "99th":
			l.P99 = f
		case "99.9th":
			l.P999 = f
		}
	}
	return l, nil
}

// Comparison pairs PE's result and hbkit's for one workload and thread
// count.
type Comparison struct {
	Workload string
	Threads  int
	Java     Result
	Ours     Result
}

// Ratio is hbkit's rows per second over Java's (above 1: hbkit faster).
func (c Comparison) Ratio() float64 {
	if c.Java.RowsPerSec == 0 {
		return 0
	}
	return c.Ours.RowsPerSec / c.Java.RowsPerSec
}

// Compare pairs results by workload and thread count, in the order of
// ours. Results without a counterpart are left out.
func Compare(java, ours []Result) []Comparison {
	type key struct {
		w string
		t int
	}
	byKey := make(map[key]Result, len(java))
	for _, j := range java {
		byKey[key{j.Workload, j.Threads}] = j
	}
	var out []Comparison
	for _, o := range ours {
		if j, ok := byKey[key{o.Workload, o.Threads}]; ok {
			out = append(out, Comparison{Workload: o.Workload, Threads: o.Threads, Java: j, Ours: o})
		}
	}
	return out
}

// WriteComparison writes the comparisons as a Markdown table. Latencies
// are each client's percentiles averaged over the clients, for both
// sides, because that is what PE reports.
func WriteComparison(w io.Writer, cs []Comparison) error {
	var b strings.Builder
	b.WriteString("| workload | threads | Java rows/s | hbkit rows/s | hbkit/Java | Java p50 µs | hbkit p50 µs | Java p99 µs | hbkit p99 µs |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cs {
		j, o := c.Java.ThreadAverage(), c.Ours.ThreadAverage()
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.2f | %.0f | %.0f | %.0f | %.0f |\n",
			c.Workload, c.Threads, c.Java.RowsPerSec, c.Ours.RowsPerSec, c.Ratio(), j.P50, o.P50, j.P99, o.P99)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteLayers writes the layer workloads of ours as a Markdown table, each
// against plainWrite with the same thread count: the cost of dao and of
// the index protocol over plain puts of the same rows.
func WriteLayers(w io.Writer, ours []Result) error {
	plain := make(map[int]Result)
	for _, r := range ours {
		if r.Workload == "plainWrite" {
			plain[r.Threads] = r
		}
	}
	var b strings.Builder
	b.WriteString("| workload | threads | records/s | vs plainWrite | p50 µs per batch | p99 µs per batch |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	rows := 0
	for _, r := range ours {
		switch r.Workload {
		case "plainWrite", "daoWrite", "indexedWrite", "dualWrite":
		default:
			continue
		}
		ratio := "–"
		if p, ok := plain[r.Threads]; ok && p.RowsPerSec > 0 {
			ratio = strconv.FormatFloat(r.RowsPerSec/p.RowsPerSec, 'f', 2, 64)
		}
		l := r.ThreadAverage()
		fmt.Fprintf(&b, "| %s | %d | %.0f | %s | %.0f | %.0f |\n", r.Workload, r.Threads, r.RowsPerSec, ratio, l.P50, l.P99)
		rows++
	}
	if rows == 0 {
		return nil
	}
	_, err := io.WriteString(w, b.String())
	return err
}
