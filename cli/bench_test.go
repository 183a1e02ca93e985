package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/bench"
	"github.com/hbkit/hbkit/hbase/fake"
)

// fakeBench connects every run to the same in-memory fake and records
// the ZooKeeper address asked for.
func fakeBench(t *testing.T) (connectFunc[Client], *string) {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var zk string
	return func(_ context.Context, addr string) (Client, io.Closer, error) {
		zk = addr
		return c, io.NopCloser(nil), nil
	}, &zk
}

func runBenchTest(t *testing.T, connect connectFunc[Client], vars map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(k string) string { return vars[k] }})
	err = runBenchWith(context.Background(), e, args, connect)
	return out.String(), errw.String(), err
}

func TestBenchRunsWorkloads(t *testing.T) {
	connect, zk := fakeBench(t)
	out, _, err := runBenchTest(t, connect, map[string]string{"HBKIT_ZK": "zk.example:2181"},
		"--rows", "30", "--threads", "2", "--value-size", "10", "--seed", "5")
	if err != nil {
		t.Fatal(err)
	}
	if *zk != "zk.example:2181" {
		t.Fatalf("connected to %q, want $HBKIT_ZK", *zk)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"sequentialWrite", "randomWrite", "randomRead", "scan", "scanRange100"}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s\nwant one line per workload %v", out, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w+" ") || !strings.Contains(lines[i], "threads=2 rows=60") || !strings.Contains(lines[i], "rows/s") {
			t.Fatalf("line %d = %q, want the %s result", i, lines[i], w)
		}
	}
}

func TestBenchJSONAndCompare(t *testing.T) {
	connect, _ := fakeBench(t)
	dir := t.TempDir()
	out, _, err := runBenchTest(t, connect, nil, "--zk", "x:1", "--rows", "20", "--workloads", "all", "--batch", "5", "--json", "--fresh")
	if err != nil {
		t.Fatal(err)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("JSON output: %v\n%s", err, out)
	}
	if rep.Rows != 20 || rep.Threads != 1 || len(rep.Results) != len(bench.Workloads()) {
		t.Fatalf("report: %+v", rep)
	}
	if err := os.WriteFile(filepath.Join(dir, "hbkit-1.json"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	pe, err := os.ReadFile("../bench/testdata/pe-sequentialWrite-1.log")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pe-sequentialWrite-1.log"), pe, 0o644); err != nil {
		t.Fatal(err)
	}
	table, _, err := runBenchTest(t, nil, nil, "--compare", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| sequentialWrite | 1 | 628 |", "| plainWrite | 1 |", "| daoWrite | 1 |", "| indexedWrite | 1 |"} {
		if !strings.Contains(table, want) {
			t.Fatalf("comparison lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "| randomRead |") {
		t.Fatalf("comparison lists a workload PE did not run:\n%s", table)
	}
}

func TestBenchDropTables(t *testing.T) {
	connect, _ := fakeBench(t)
	if _, _, err := runBenchTest(t, connect, nil, "--rows", "5", "--workloads", "sequentialWrite"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runBenchTest(t, connect, nil, "--drop-tables")
	if err != nil || !strings.Contains(stderr, "dropped TestTable") {
		t.Fatalf("--drop-tables: %v, %q", err, stderr)
	}
	_, _, err = runBenchTest(t, connect, nil, "--rows", "5", "--workloads", "randomRead")
	if err == nil || !strings.Contains(err.Error(), "run a write workload first") {
		t.Fatalf("randomRead after drop: %v", err)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	connect, _ := fakeBench(t)
	tests := []struct {
		name string
		args []string
	}{
		{"unknown workload", []string{"--workloads", "sequentialWrite,nope"}},
		{"empty workloads", []string{"--workloads", ","}},
		{"extra argument", []string{"now"}},
		{"unknown write mode", []string{"--workloads", "indexedWrite", "--write-mode", "sometimes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := runBenchTest(t, connect, nil, tt.args...); !errors.Is(err, ErrUsage) {
				t.Fatalf("got %v, want a usage error", err)
			}
		})
	}
	if _, _, err := runBenchTest(t, connect, nil, "--rows", "0"); err == nil {
		t.Fatal("--rows 0 accepted")
	}
	if _, _, err := runBenchTest(t, nil, nil, "--compare", t.TempDir()); err == nil {
		t.Fatal("--compare of an empty directory succeeded")
	}
}

func TestBenchRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.tsv")
	// No HBase: connect is nil.
	if _, _, err := runBenchTest(t, nil, nil, "--records", path, "--seed", "3", "--start", "2026-11-22T10:00:00Z",
		"--rows", "4", "--threads", "2"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[1], "0\t13900000000\t1795341600000\t0\tacct000\t") ||
		!strings.HasPrefix(lines[5], "1\t13900000004\t1795341600004\t4\tacct004\t") {
		t.Fatalf("records file:\n%s", b)
	}
	if _, _, err := runBenchTest(t, nil, nil, "--records", path, "--seed", "3"); err == nil {
		t.Fatal("--records without --start succeeded")
	}
	if _, _, err := runBenchTest(t, nil, nil, "--records", path, "--seed", "3", "--start", "yesterday"); !errors.Is(err, ErrUsage) {
		t.Fatalf("--start yesterday: got %v, want a usage error", err)
	}
}
