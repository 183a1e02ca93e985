package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"phoenix-mutable-b100-t1-write.json":   `{"workload":"phoenixUpsert","kind":"mutable","threads":1,"batch":100,"rows":2000,"rows_per_sec":1000.0,"rows_read":0,"latency":{"count":19,"p50_us":50000,"p99_us":90000}}`,
		"phoenix-mutable-b100-t1-query.json":   `{"workload":"phoenixAccountDayQuery","kind":"mutable","threads":1,"batch":0,"rows":50,"rows_per_sec":20.0,"rows_read":1000,"latency":{"count":49,"p50_us":40000,"p99_us":120000}}`,
		"hbkit-mutable-b100-t1-write.json":     `{"rows_per_thread":2000,"threads":1,"write_mode":"mutable","results":[{"workload":"indexedWrite","threads":1,"rows":2000,"rows_per_sec":2500,"latency":{"p50_us":20000,"p99_us":40000}}]}`,
		"hbkit-mutable-b100-t1-query.json":     `{"rows_per_thread":50,"threads":1,"results":[{"workload":"accountDayQuery","threads":1,"rows":50,"rows_per_sec":150,"latency":{"p50_us":6000,"p99_us":30000}}]}`,
		"phoenix-immutable-b100-t1-write.json": `{"workload":"phoenixUpsert","kind":"immutable","threads":1,"batch":100,"rows":2000,"rows_per_sec":2000.0,"latency":{}}`,
		"hbkit-immutable-b100-t1-write.json":   `{"results":[{"workload":"indexedWrite","threads":1,"rows":2000,"rows_per_sec":2500,"latency":{}}]}`,
		"records-t1.tsv":                       "not a report",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rounds, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := write(&b, rounds); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| indexedWrite (mutable) | mutable | 100 | 1 | 1000 | 2500 | 2.50 | 20 | 40.0 | 6.0 | 120.0 | 30.0 |",
		"| indexedWrite | immutable | 100 | 1 | 2000 | 2500 | 1.25 | – | – | – | – | – |",
		"met in 1 of 2 rounds",
		"met in 1 of 1.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "| mutable |") > strings.Index(out, "| immutable |") {
		t.Errorf("mutable rows must come first:\n%s", out)
	}
}

func TestTableErrors(t *testing.T) {
	if _, err := load(t.TempDir()); err == nil {
		t.Fatal("load of an empty directory succeeded")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hbkit-mutable-b1-t1-write.json"), []byte(`{"results":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(dir); err == nil || !strings.Contains(err.Error(), "hbkit-mutable-b1-t1-write.json") {
		t.Fatalf("load of a report without results: %v", err)
	}
}
