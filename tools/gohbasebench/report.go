package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// printReport reads the JSON lines of compare.sh (in run order) and prints
// one markdown row per workload and goroutine count: every run of each
// side, the ratio hbkit/gohbase of each pair of runs (the k-th run of hbkit
// with the k-th run of that gohbase setting; the runs alternate), and the
// median ratio. Throughput is ops/s, except fullscan: rows/s.
// cell is one workload at one goroutine count.
type cell struct {
	workload   string
	goroutines int
}

func printReport(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var (
		cells []cell
		sides []string
		runs  = map[cell]map[string][]float64{}
		p50   = map[cell]map[string][]float64{}
		// CPU time per row of each run, client and server, when the
		// runs measured the server's.
		clientCPU = map[cell]map[string][]float64{}
		serverCPU = map[cell]map[string][]float64{}
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return err
		}
		c := cell{r.Workload, r.Goroutines}
		side := r.Client
		if r.Flush != "" {
			side += " (flush " + r.Flush + ")"
		}
		if r.Reuse {
			side += " " + reuseSide
		}
		if runs[c] == nil {
			cells = append(cells, c)
			runs[c], p50[c] = map[string][]float64{}, map[string][]float64{}
			clientCPU[c], serverCPU[c] = map[string][]float64{}, map[string][]float64{}
		}
		if !slices.Contains(sides, side) {
			sides = append(sides, side)
		}
		v := r.OpsPerS
		if r.Workload == "fullscan" {
			v = r.RowsPerS
		}
		if r.Errors > 0 {
			v = 0
		}
		runs[c][side] = append(runs[c][side], v)
		p50[c][side] = append(p50[c][side], r.P50Ms)
		if r.ServerCPUS > 0 && r.Rows > 0 && r.Errors == 0 {
			clientCPU[c][side] = append(clientCPU[c][side], r.CPUS/float64(r.Rows)*1e6)
			serverCPU[c][side] = append(serverCPU[c][side], r.ServerCPUS/float64(r.Rows)*1e6)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var peers, ours []string
	for _, s := range sides {
		if strings.HasPrefix(s, "hbkit") {
			ours = append(ours, s)
		} else {
			peers = append(peers, s)
		}
	}
	for i, o := range ours {
		if i > 0 {
			fmt.Fprintf(w, "\nThe scans again with hbkit's `Scan.ReuseMemory` (each response read into the memory of the one before; a Result valid until the next row), in the same rounds:\n\n")
		}
		printTable(w, cells, o, peers, runs, p50)
	}
	printCPU(w, cells, sides, clientCPU, serverCPU)
	return nil
}

// reuseSide marks the runs of hbkit with Scan.ReuseMemory.
const reuseSide = "(ReuseMemory)"

// printTable prints the ratio table of hbkit side o against the peers, a
// row for each cell that o ran.
func printTable(w io.Writer, cells []cell, o string, peers []string, runs, p50 map[cell]map[string][]float64) {
	fmt.Fprintf(w, "| workload | goroutines | %s (each run) |", o)
	for _, p := range peers {
		fmt.Fprintf(w, " %s (each run) | hbkit / %s (each run) | median |", p, p)
	}
	fmt.Fprintf(w, " p50 ms: %s |", o)
	for _, p := range peers {
		fmt.Fprintf(w, " %s |", p)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---:|---:|")
	for range peers {
		fmt.Fprint(w, "---:|---:|---:|")
	}
	fmt.Fprint(w, "---:|")
	for range peers {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, c := range cells {
		h := runs[c][o]
		if len(h) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %s |", c.workload, c.goroutines, nums(h, "%.0f"))
		for _, p := range peers {
			g := runs[c][p]
			var ratios []float64
			for i := range min(len(h), len(g)) {
				if g[i] > 0 {
					ratios = append(ratios, h[i]/g[i])
				}
			}
			fmt.Fprintf(w, " %s | %s | **%.2f** |", nums(g, "%.0f"), nums(ratios, "%.2f"), median(ratios))
		}
		fmt.Fprintf(w, " %.2f |", median(p50[c][o]))
		for _, p := range peers {
			fmt.Fprintf(w, " %.2f |", median(p50[c][p]))
		}
		fmt.Fprintln(w)
	}
}

// printCPU prints, when the runs measured the server's CPU, the CPU time
// per row of each side, client and server (medians of the runs). Where
// client and server share the machine's cores and the runs keep them busy,
// throughput is bound by cores / (client + server) per row: the last
// column is what hbkit would reach over each peer if its client cost
// nothing, (peer client + peer server) / hbkit server.
func printCPU(w io.Writer, cells []cell, sides []string, client, server map[cell]map[string][]float64) {
	if !slices.ContainsFunc(cells, func(c cell) bool { return len(server[c]["hbkit"]) > 0 }) {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "CPU time per row, µs (medians of the runs; client = the benchmark process, server = the HBase JVM, in the same window):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | goroutines | side | client | server | client + server | ceiling of hbkit / side with a free client |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|")
	for _, c := range cells {
		hs := median(server[c]["hbkit"])
		for _, s := range sides {
			if len(server[c][s]) == 0 {
				continue
			}
			cl, sv := median(client[c][s]), median(server[c][s])
			ceiling := "-"
			if !strings.HasPrefix(s, "hbkit") && hs > 0 {
				ceiling = fmt.Sprintf("%.2f", (cl+sv)/hs)
			}
			fmt.Fprintf(w, "| %s | %d | %s | %.2f | %.2f | %.2f | %s |\n", c.workload, c.goroutines, s, cl, sv, cl+sv, ceiling)
		}
	}
}

func nums(v []float64, format string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, ", ")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
