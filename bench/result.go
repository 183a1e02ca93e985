package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency summarises the latencies of one run, in microseconds.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_us"`
	P50   float64 `json:"p50_us"`
	P95   float64 `json:"p95_us"`
	P99   float64 `json:"p99_us"`
	P999  float64 `json:"p999_us"`
	Max   float64 `json:"max_us"`
}

// Result is the outcome of one workload.
type Result struct {
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	// Rows is the number of operations in total: rows written or read,
	// scans of scanRange100, records of the layer workloads.
	Rows int64 `json:"rows"`
	// ElapsedMS is the wall time of the whole run, all clients together.
	ElapsedMS float64 `json:"elapsed_ms"`
	// RowsPerSec is PE's "Avg TPS/QPS": the sum over the clients of their
	// rows divided by their own elapsed time.
	RowsPerSec float64 `json:"rows_per_sec"`
	// Latency is the merged histogram of all clients.
	Latency Latency `json:"latency"`
	// PerThread holds each client's own histogram, as PE prints them.
	PerThread []Latency `json:"per_thread,omitempty"`
	// ClientCPUMS is the CPU time, user and system, this process spent
	// while the clients ran (0 where the system cannot tell).
	ClientCPUMS float64 `json:"client_cpu_ms,omitempty"`
	// ServerPID is the process of WithServerPID, whose CPU time in the
	// same window is ServerCPUMS, in steps of 10 ms (0: not measured).
	ServerPID   int     `json:"server_pid,omitempty"`
	ServerCPUMS float64 `json:"server_cpu_ms,omitempty"`
	// Workers and Counts are a job workload's: its job's workers and the
	// counts of the job's report (scanAll: rows and time of each table).
	Workers int              `json:"workers,omitempty"`
	Counts  map[string]int64 `json:"counts,omitempty"`
}

// CPUPerRow returns the client's and the server's CPU time per row (per
// operation: scans of scanRange100, records of the layer workloads) in
// microseconds; 0 for a side that was not measured.
func (r Result) CPUPerRow() (client, server float64) {
	if r.Rows <= 0 {
		return 0, 0
	}
	return r.ClientCPUMS * 1000 / float64(r.Rows), r.ServerCPUMS * 1000 / float64(r.Rows)
}

// ThreadAverage returns the per-client latencies averaged over the
// clients (max: the largest), the way a PE run with several clients is
// read: PE prints one histogram per client and no merged one.
func (r Result) ThreadAverage() Latency {
	if len(r.PerThread) == 0 {
		return r.Latency
	}
	var a Latency
	n := float64(len(r.PerThread))
	for _, l := range r.PerThread {
		a.Count += l.Count
		a.Mean += l.Mean / n
		a.P50 += l.P50 / n
		a.P95 += l.P95 / n
		a.P99 += l.P99 / n
		a.P999 += l.P999 / n
		a.Max = max(a.Max, l.Max)
	}
	return a
}

// String is one line of the report: workload, threads, rows/s and the
// merged latency percentiles.
func (r Result) String() string {
	l := r.Latency
	s := fmt.Sprintf("%-14s threads=%d rows=%d %10.0f rows/s  latency us: mean=%.1f p50=%.0f p95=%.0f p99=%.0f p99.9=%.0f max=%.0f",
		r.Workload, r.Threads, r.Rows, r.RowsPerSec, l.Mean, l.P50, l.P95, l.P99, l.P999, l.Max)
	if r.Counts != nil {
		s = r.jobString()
	}
	client, server := r.CPUPerRow()
	switch {
	case r.ServerPID > 0:
		s += fmt.Sprintf("  cpu us/row: client=%.2f server=%.2f", client, server)
	case r.ClientCPUMS > 0:
		s += fmt.Sprintf("  cpu us/row: client=%.2f", client)
	}
	return s
}

// maxLatencyUS bounds the histograms: an operation slower than a minute is
// recorded as a minute.
const maxLatencyUS = 60_000_000

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, maxLatencyUS, 3)
}

func record(h *hdrhistogram.Histogram, us int64) {
	if us > maxLatencyUS {
		us = maxLatencyUS
	}
	if us < 0 {
		us = 0
	}
	// In range by construction, so RecordValue cannot fail.
	_ = h.RecordValue(us)
}

func summarize(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Count: h.TotalCount(),
		Mean:  h.Mean(),
		P50:   float64(h.ValueAtQuantile(50)),
		P95:   float64(h.ValueAtQuantile(95)),
		P99:   float64(h.ValueAtQuantile(99)),
		P999:  float64(h.ValueAtQuantile(99.9)),
		Max:   float64(h.Max()),
	}
}

// jobString is String's line for a job workload: rows/s, seconds and the
// job's counts in name order.
func (r Result) jobString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s workers=%d rows=%d %10.0f rows/s  %.1f s  counts:", r.Workload, r.Workers, r.Rows, r.RowsPerSec, r.ElapsedMS/1000)
	for _, k := range slices.Sorted(maps.Keys(r.Counts)) {
		fmt.Fprintf(&b, " %s=%d", k, r.Counts[k])
	}
	return b.String()
}
