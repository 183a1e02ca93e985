package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hbkit/hbkit/seeds"
)

// TestJSONLists: the commands that print lists of names print a JSON
// array with --json: table schemas, simulate --list.
func TestJSONLists(t *testing.T) {
	for _, args := range [][]string{{"table", "schemas", "--json"}, {"simulate", "--list", "--json"}} {
		code, out, errw := runSeeds("", args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errw)
		}
		var names []string
		if err := json.Unmarshal([]byte(out), &names); err != nil {
			t.Fatalf("%q: %v: %s", args, err, out)
		}
		if !slices.Contains(names, seeds.SMSTableName) || !slices.IsSorted(names) {
			t.Errorf("%q = %q, want the sorted seeds, sms among them", args, names)
		}
	}
}

// TestBenchCompareJSON: bench --compare DIR --json pairs the PE log and
// hbkit's report of the same workload and thread count.
func TestBenchCompareJSON(t *testing.T) {
	connect, _ := fakeBench(t)
	out, _, err := runBenchTest(t, connect, nil, "--rows", "20", "--threads", "1", "--workloads", "sequentialWrite", "--json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pe, err := os.ReadFile("../bench/testdata/pe-sequentialWrite-1.log")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"hbkit-1.json": []byte(out), "pe-sequentialWrite-1.log": pe} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, err := runBenchTest(t, nil, nil, "--compare", dir, "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var got struct {
		Comparisons []comparisonJSON
		Results     []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Comparisons) != 1 || len(got.Results) != 1 {
		t.Fatalf("%d comparisons and %d results, want 1 and 1:\n%s", len(got.Comparisons), len(got.Results), out)
	}
	c := got.Comparisons[0]
	if c.Workload != "sequentialWrite" || c.Threads != 1 || c.Java.RowsPerSec == 0 || c.Hbkit.RowsPerSec == 0 ||
		c.Ratio != c.Hbkit.RowsPerSec/c.Java.RowsPerSec {
		t.Errorf("comparison %+v", c)
	}
}
