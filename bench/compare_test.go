package bench

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A real PE log (tools/pe/run.sh, HBase 2.6.4, 1,000 rows, one client).
func TestParsePEOneClient(t *testing.T) {
	f, err := os.Open("testdata/pe-sequentialWrite-1.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParsePE(f)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Workload: "sequentialWrite", Threads: 1, Rows: 1000, ElapsedMS: 1593, RowsPerSec: 628,
		PerThread: []Latency{{Count: 999, Mean: 138.16, P50: 19, P95: 96, P99: 2339, P999: 41863, Max: 41863}},
	}
	if !equalResults(got, want) {
		t.Fatalf("ParsePE:\n got %+v\nwant %+v", got, want)
	}
}

const peTwoClients = `RandomReadTest test run options={"cmdName":"randomRead","nomapred":true,"perClientRunRows":"500","numClientThreads":2,"totalRows":"1000"}
Start class org.apache.hadoop.hbase.PerformanceEvaluation$RandomReadTest at offset 0 for 500 rows
Latency (us) : mean=300.00, min=100.00, max=900.00, stdDev=1.00, 50th=200.00, 75th=250.00, 95th=400.00, 99th=800.00, 99.9th=900.00, 99.99th=900.00, 99.999th=900.00
Num measures (latency) : 499
Latency (us) : mean=500.00, min=100.00, max=1900.00, stdDev=1.00, 50th=400.00, 75th=450.00, 95th=600.00, 99th=1000.00, 99.9th=1500.00, 99.99th=1900.00, 99.999th=1900.00
Num measures (latency) : 499
[RandomReadTest duration ]	Min: 200ms	Max: 250ms	Avg: 225ms
[ Avg latency (us)]	400
[ Avg TPS/QPS]	4500	 row per second
`

func TestParsePETwoClients(t *testing.T) {
	got, err := ParsePE(strings.NewReader(peTwoClients))
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload != "randomRead" || got.Threads != 2 || got.Rows != 1000 || got.RowsPerSec != 4500 || got.ElapsedMS != 250 {
		t.Fatalf("ParsePE: %+v", got)
	}
	avg := got.ThreadAverage()
	want := Latency{Count: 998, Mean: 400, P50: 300, P95: 500, P99: 900, P999: 1200, Max: 1900}
	if avg != want {
		t.Fatalf("ThreadAverage = %+v, want %+v", avg, want)
	}
}

func TestParsePEErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrNoSummary},
		{"no summary", strings.Split(peTwoClients, "[RandomReadTest duration")[0], ErrNoSummary},
		{"bad latency", strings.Replace(peTwoClients, "50th=200.00", "50th=x", 1), nil},
		{"bad options", strings.Replace(peTwoClients, `"perClientRunRows":"500"`, `"perClientRunRows":"x"`, 1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePE(strings.NewReader(tt.in))
			if err == nil {
				t.Fatal("ParsePE: no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ParsePE: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCompareTable(t *testing.T) {
	java := []Result{
		{Workload: "sequentialWrite", Threads: 1, RowsPerSec: 1000, PerThread: []Latency{{P50: 10, P99: 100}}},
		{Workload: "randomRead", Threads: 1, RowsPerSec: 2000, PerThread: []Latency{{P50: 400, P99: 900}}},
		{Workload: "scan", Threads: 4, RowsPerSec: 1},
	}
	ours := []Result{
		{Workload: "randomRead", Threads: 1, RowsPerSec: 2500, PerThread: []Latency{{P50: 300, P99: 700}}},
		{Workload: "sequentialWrite", Threads: 1, RowsPerSec: 900, PerThread: []Latency{{P50: 8, P99: 120}}},
		{Workload: "daoWrite", Threads: 1, RowsPerSec: 5},
	}
	cs := Compare(java, ours)
	if len(cs) != 2 || cs[0].Workload != "randomRead" || cs[1].Workload != "sequentialWrite" {
		t.Fatalf("Compare = %+v", cs)
	}
	if r := cs[0].Ratio(); r != 1.25 {
		t.Fatalf("ratio %v, want 1.25", r)
	}
	var b strings.Builder
	if err := WriteComparison(&b, cs); err != nil {
		t.Fatal(err)
	}
	want := "| workload | threads | Java rows/s | hbkit rows/s | hbkit/Java | Java p50 µs | hbkit p50 µs | Java p99 µs | hbkit p99 µs |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| randomRead | 1 | 2000 | 2500 | 1.25 | 400 | 300 | 900 | 700 |\n" +
		"| sequentialWrite | 1 | 1000 | 900 | 0.90 | 10 | 8 | 100 | 120 |\n"
	if b.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	if (Comparison{}).Ratio() != 0 {
		t.Fatal("ratio without a Java result is not 0")
	}
}

func equalResults(a, b Result) bool {
	if a.Workload != b.Workload || a.Threads != b.Threads || a.Rows != b.Rows ||
		a.ElapsedMS != b.ElapsedMS || a.RowsPerSec != b.RowsPerSec || a.Latency != b.Latency ||
		len(a.PerThread) != len(b.PerThread) {
		return false
	}
	for i := range a.PerThread {
		if a.PerThread[i] != b.PerThread[i] {
			return false
		}
	}
	return true
}
