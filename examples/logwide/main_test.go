package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/fake"
)

// TestRunFake runs the example on the fake; Run checks every answer
// against what it wrote and fails otherwise.
func TestRunFake(t *testing.T) {
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	cfg := DefaultConfig()
	cfg.Events = 3000
	if err := Run(context.Background(), cfg, f, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"16 regions", "in time order", "columns per row", "replaced"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, name := range []string{"log_types", "log_data_wide"} {
		if ok, err := f.TableExists(context.Background(), name); err != nil || ok {
			t.Errorf("TableExists(%s) = %v, %v after the run; want false, nil", name, ok, err)
		}
	}
}

func TestRunMainFlags(t *testing.T) {
	var out, errs bytes.Buffer
	if err := runMain(context.Background(), []string{"--fake", "--events", "0"}, func(string) string { return "" }, &out, &errs); err == nil {
		t.Error("--events 0 accepted")
	}
	if err := runMain(context.Background(), []string{"extra"}, func(string) string { return "" }, &out, &errs); err == nil {
		t.Error("an extra argument accepted")
	}
}
