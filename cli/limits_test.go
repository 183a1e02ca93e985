package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/sim"
)

// limitedFake is the fake refusing DescribeTable and TruncateTable, and
// saying so up front, as the gohbase adapter does. It counts the admin
// calls that change tables.
type limitedFake struct {
	*fake.Client
	disables int
}

var _ Limited = (*limitedFake)(nil)

var errRefused = fmt.Errorf("limited fake: %w", errors.ErrUnsupported)

func (c *limitedFake) Unsupported(method string) error {
	switch method {
	case "DescribeTable", "TruncateTable":
		return fmt.Errorf("%s: %w", method, errRefused)
	}
	return nil
}

func (c *limitedFake) DescribeTable(context.Context, string) (hbase.TableDescriptor, error) {
	return hbase.TableDescriptor{}, c.Unsupported("DescribeTable")
}

func (c *limitedFake) TruncateTable(context.Context, string, bool) error {
	return c.Unsupported("TruncateTable")
}

func (c *limitedFake) DisableTable(ctx context.Context, table string) error {
	c.disables++
	return c.Client.DisableTable(ctx, table)
}

func newLimitedFake(t *testing.T) *limitedFake {
	t.Helper()
	c, err := fake.New(fake.WithServer("rs1:16020"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &limitedFake{Client: c}
}

// limitedEnv runs commands over c, as hbkit-gohbase runs them over the
// adapter.
func limitedEnv(c Client, out, errw io.Writer) Env {
	return *withSeeds(&Env{Stdout: out, Stderr: errw, Name: "hbkit-x", Over: "x 1.0",
		Connect: func(context.Context, string) (Client, io.Closer, error) { return c, io.NopCloser(nil), nil }})
}

func runLimited(c Client, args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	err = Run(context.Background(), limitedEnv(c, &out, &errw), args)
	return out.String(), errw.String(), err
}

func wantUnsupported(t *testing.T, what string, err error, call string) {
	t.Helper()
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Call != call || !errors.Is(err, errRefused) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("%s: got %v, want an *UnsupportedError naming %s and wrapping the client's refusal", what, err, call)
	}
}

// Over a client that cannot describe or truncate tables, table creates
// what is missing, and refuses, before changing anything, what needs the
// calls it lacks.
func TestTableOverLimitedClient(t *testing.T) {
	c := newLimitedFake(t)
	ctx := context.Background()
	out, errOut, err := runLimited(c, "table", "create", "--schema", "sms,sms_index")
	if err != nil || out != "sms: created\nsms_index: created\n" {
		t.Fatalf("create: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "hbkit-x table create: this client cannot describe tables") {
		t.Errorf("create does not say it cannot read the tables back: %q", errOut)
	}
	if regions, err := c.TableRegions(ctx, "sms"); err != nil || len(regions) != 20 {
		t.Errorf("sms: %d regions, %v; want 20", len(regions), err)
	}

	out, _, err = runLimited(c, "table", "ensure", "--schema", "sms,sms_index")
	wantUnsupported(t, "create of existing tables", err, "DescribeTable")
	if out != "sms: FAILED\n  exists, and cannot be compared with the schema over this client\n"+
		"sms_index: FAILED\n  exists, and cannot be compared with the schema over this client\n" {
		t.Errorf("create of existing tables printed %q", out)
	}
	if !strings.Contains(err.Error(), "to compare the existing table sms_index with the schema") {
		t.Errorf("create of existing tables: %v, want the table named", err)
	}

	_, _, err = runLimited(c, "table", "describe", "--schema", "sms")
	wantUnsupported(t, "describe", err, "DescribeTable")
	_, _, err = runLimited(c, "table", "truncate", "--schema", "sms", "--yes")
	wantUnsupported(t, "truncate", err, "TruncateTable")
	if on, err := c.IsTableEnabled(ctx, "sms"); err != nil || !on || c.disables != 0 {
		t.Errorf("after the refused truncate: enabled %v (%v), %d disables; want the table left enabled", on, err, c.disables)
	}
	if out, _, err := runLimited(c, "table", "drop", "--schema", "sms", "--yes"); err != nil || out != "sms: dropped\nsms_index: dropped\n" {
		t.Errorf("drop: %q, %v", out, err)
	}
}

// Over a client that cannot describe tables, bench writes to tables it
// creates itself (--fresh), and refuses a write to an existing table,
// which it cannot check, before writing.
func TestBenchOverLimitedClient(t *testing.T) {
	c := newLimitedFake(t)
	if _, _, err := runLimited(c, "bench", "--fresh", "--rows", "20", "--workloads", "sequentialWrite,randomWrite,randomRead"); err != nil {
		t.Fatal(err)
	}
	_, _, err := runLimited(c, "bench", "--rows", "20", "--workloads", "randomRead,randomWrite")
	wantUnsupported(t, "write to an existing table", err, "DescribeTable")
	if _, _, err := runLimited(c, "bench", "--rows", "20", "--workloads", "randomRead,daoWrite"); err != nil {
		t.Errorf("reads and layer writes on existing tables: %v", err)
	}
	if _, _, err := runLimited(c, "bench", "--rows", "20", "--table", "other", "--workloads", "sequentialWrite"); err != nil {
		t.Errorf("a write that creates its table: %v", err)
	}
}

// regions says when it has no request counts rather than leaving them out
// silently.
func TestRegionsWithoutRequestCounts(t *testing.T) {
	c, err := fake.New(fake.WithServer("rs1:16020"))
	if err != nil {
		t.Fatal(err)
	}
	loadSMS(t, c, sim.Config{Records: 100, Seed: 1})
	_, errOut, err := runRegionsOn(t, c, "--table", "sms")
	if err != nil || !strings.Contains(errOut, "hbkit regions: no request counts: this client does not report region loads") {
		t.Errorf("without RegionLoads: %v, stderr %q", err, errOut)
	}
	if _, errOut, err := runRegionsOn(t, requestCountingFake{c}, "--table", "sms"); err != nil || errOut != "" {
		t.Errorf("with RegionLoads: %v, stderr %q", err, errOut)
	}
}

func TestMainExitStatus(t *testing.T) {
	c := newLimitedFake(t)
	tests := []struct {
		name     string
		env      func(out, errw io.Writer) Env
		args     []string
		code     int
		out, err string // substrings of stdout and stderr
	}{
		{"native version", func(out, errw io.Writer) Env { return *withSeeds(&Env{Stdout: out, Stderr: errw}) },
			[]string{"version"}, 0, "hbkit " + version + "\n", ""},
		{"version over another client", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			[]string{"version"}, 0, "hbkit-x " + version + " over x 1.0\n", ""},
		{"usage names the program and the client", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			nil, 2, "usage: hbkit-x <command>", ""},
		{"bench's summary names the client", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			[]string{"help"}, 0, "dao/index writes) with x 1.0:", ""},
		{"unknown command", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			[]string{"nope"}, 2, "", `hbkit-x: unknown command "nope"`},
		{"a command's usage error names the program", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			[]string{"regions"}, 2, "", "hbkit-x regions: need --table T"},
		{"unsupported", func(out, errw io.Writer) Env { return limitedEnv(c, out, errw) },
			[]string{"table", "describe", "--schema", "sms"}, 1, "",
			"hbkit-x table: table describe needs DescribeTable to read the tables' families and options, which this client cannot do: DescribeTable: limited fake: unsupported operation\n"},
		{"no client", func(out, errw io.Writer) Env { return *withSeeds(&Env{Stdout: out, Stderr: errw}) },
			[]string{"table", "describe", "--schema", "sms"}, 1, "", "hbkit table: connect to HBase via ZooKeeper 127.0.0.1:2181: no HBase client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			code := Main(context.Background(), tt.env(&out, &errw), tt.args)
			if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errw.String(), tt.err) {
				t.Errorf("exit %d, want %d\nstdout %q, want %q in it\nstderr %q, want %q in it", code, tt.code, out.String(), tt.out, errw.String(), tt.err)
			}
		})
	}
}

// TestUsageNamesTheProgram: a command's usage text names the program it
// runs in (hbkit-gohbase prints "usage: hbkit-gohbase table ...").
func TestUsageNamesTheProgram(t *testing.T) {
	for _, cmd := range []string{"table", "index", "regions", "simulate", "bench"} {
		_, stderr, err := runLimited(nil, cmd, "-h")
		if err == nil || !strings.Contains(stderr, "usage: hbkit-x "+cmd) || strings.Contains(stderr, "usage: hbkit "+cmd) {
			t.Errorf("%s -h: %v, stderr:\n%s\nwant the usage under the name hbkit-x", cmd, err, stderr)
		}
	}
}
