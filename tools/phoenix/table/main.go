// Command table prints the Markdown table of a make bench-phoenix run
// (tools/phoenix/compare.sh) from the JSON reports in a directory:
//
//	go run ./tools/phoenix/table DIR
//
// It reads DIR/phoenix-<kind>-b<batch>-t<threads>-{write,query}.json
// (tools/phoenix/run.sh) and DIR/hbkit-<kind>-b<batch>-t<threads>-{write,query}.json
// (hbkit bench --json), and prints one row per table kind, batch size and
// thread count: the write rates of both sides and their ratio, and the index
// query's latency on both sides.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/bench"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/phoenix/table DIR")
		os.Exit(2)
	}
	rounds, err := load(os.Args[1])
	if err == nil {
		err = write(os.Stdout, rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
}

// phoenixResult is what Bench.java writes.
type phoenixResult struct {
	Workload   string        `json:"workload"`
	Kind       string        `json:"kind"`
	Threads    int           `json:"threads"`
	Batch      int           `json:"batch"`
	Rows       int64         `json:"rows"`
	RowsPerSec float64       `json:"rows_per_sec"`
	RowsRead   int64         `json:"rows_read"`
	Latency    bench.Latency `json:"latency"`
}

// hbkitReport is what hbkit bench --json writes.
type hbkitReport struct {
	WriteMode string         `json:"write_mode"` // hbkit bench --write-mode, if given
	Results   []bench.Result `json:"results"`
}

type key struct {
	kind           string
	batch, threads int
}

// round is one table kind, batch size and thread count, both sides.
type round struct {
	key
	workload                     string // hbkit's write workload
	phoenixWrite, hbkitWrite     *bench.Result
	phoenixQuery, hbkitQuery     *bench.Result
	messagesPerQuery             float64
	phoenixQueries, hbkitQueries int64
}

var fileRE = regexp.MustCompile(`^(phoenix|hbkit)-(mutable|immutable)-b(\d+)-t(\d+)-(write|query)\.json$`)

func load(dir string) ([]*round, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byKey := map[key]*round{}
	for _, e := range entries {
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[3])
		t, _ := strconv.Atoi(m[4])
		k := key{m[2], b, t}
		r := byKey[k]
		if r == nil {
			r = &round{key: k}
			byKey[k] = r
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		res, workload, read, err := decode(m[1], data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		switch m[1] + "-" + m[5] {
		case "phoenix-write":
			r.phoenixWrite = res
		case "phoenix-query":
			r.phoenixQuery = res
			r.phoenixQueries = res.Rows
			if res.Rows > 0 {
				r.messagesPerQuery = float64(read) / float64(res.Rows)
			}
		case "hbkit-write":
			r.hbkitWrite, r.workload = res, workload
		case "hbkit-query":
			r.hbkitQuery = res
			r.hbkitQueries = res.Rows
		}
	}
	if len(byKey) == 0 {
		return nil, fmt.Errorf("no phoenix-*.json or hbkit-*.json in %s", dir)
	}
	rounds := make([]*round, 0, len(byKey))
	for _, r := range byKey {
		rounds = append(rounds, r)
	}
	slices.SortFunc(rounds, func(a, b *round) int {
		if a.batch != b.batch {
			return a.batch - b.batch
		}
		if a.threads != b.threads {
			return a.threads - b.threads
		}
		return strings.Compare(b.kind, a.kind) // mutable first
	})
	return rounds, nil
}

// decode reads one report: the result, hbkit's workload name and, for
// Phoenix's queries, the messages they returned.
func decode(side string, data []byte) (*bench.Result, string, int64, error) {
	if side == "phoenix" {
		var p phoenixResult
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, "", 0, err
		}
		return &bench.Result{Workload: p.Workload, Threads: p.Threads, Rows: p.Rows, RowsPerSec: p.RowsPerSec, Latency: p.Latency}, "", p.RowsRead, nil
	}
	var h hbkitReport
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, "", 0, err
	}
	if len(h.Results) != 1 {
		return nil, "", 0, errors.New("want one result")
	}
	workload := h.Results[0].Workload
	if h.WriteMode != "" {
		workload += " (" + h.WriteMode + ")"
	}
	return &h.Results[0], workload, 0, nil
}

func write(w io.Writer, rounds []*round) error {
	var b strings.Builder
	b.WriteString("| hbkit workload | table kind | batch | threads | Phoenix rows/s | hbkit rows/s | hbkit/Phoenix " +
		"| messages per query | query p50 ms Phoenix | query p50 ms hbkit | query p99 ms Phoenix | query p99 ms hbkit |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var writes, writesMet, queries, queriesMet int
	for _, r := range rounds {
		ratio := "–"
		if r.phoenixWrite != nil && r.hbkitWrite != nil && r.phoenixWrite.RowsPerSec > 0 {
			x := r.hbkitWrite.RowsPerSec / r.phoenixWrite.RowsPerSec
			ratio = fmt.Sprintf("%.2f", x)
			writes++
			if x >= 1.5 {
				writesMet++
			}
		}
		if r.phoenixQuery != nil && r.hbkitQuery != nil {
			queries++
			if r.hbkitQuery.Latency.P50 <= r.phoenixQuery.Latency.P50 && r.hbkitQuery.Latency.P99 <= r.phoenixQuery.Latency.P99 {
				queriesMet++
			}
		}
		workload := r.workload
		if workload == "" {
			workload = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			workload, r.kind, r.batch, r.threads, rate(r.phoenixWrite), rate(r.hbkitWrite), ratio,
			perQuery(r.messagesPerQuery), millis(r.phoenixQuery, 50), millis(r.hbkitQuery, 50),
			millis(r.phoenixQuery, 99), millis(r.hbkitQuery, 99))
	}
	n := int64(0)
	if len(rounds) > 0 {
		n = max(rounds[0].phoenixQueries, rounds[0].hbkitQueries)
	}
	fmt.Fprintf(&b, "\nWrites: records/s of each side's client threads together (the sum of each thread's records over its time). "+
		"Queries: %d per round and side, one thread, an account's messages on the day through the index, newest first.\n", n)
	fmt.Fprintf(&b, "Goals of issue 15: hbkit/Phoenix ≥ 1.5 for both table kinds, met in %d of %d rounds; "+
		"the index query no slower than Phoenix's (p50 and p99), met in %d of %d.\n", writesMet, writes, queriesMet, queries)
	_, err := io.WriteString(w, b.String())
	return err
}

func rate(r *bench.Result) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f", r.RowsPerSec)
}

func millis(r *bench.Result, p int) string {
	if r == nil {
		return "–"
	}
	us := r.Latency.P50
	if p == 99 {
		us = r.Latency.P99
	}
	return fmt.Sprintf("%.1f", us/1000)
}

func perQuery(n float64) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", n)
}
