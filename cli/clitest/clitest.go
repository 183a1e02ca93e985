// Package clitest runs hbkit's commands (package cli) against a real HBase
// over the client a binary connects with: the integration scenarios that
// cmd/hbkit's native client (cli's tests) and contrib/gohbase's
// hbkit-gohbase share, so that the command line behaves the same over
// both, and fails the same way, with a *cli.UnsupportedError, where a
// client cannot serve a command.
//
// # Who should use it
//
// The integration tests of a binary built on package cli. It imports
// testing; nothing else should import it.
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/bench"
	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedcli"
	"github.com/hbkit/hbkit/seeds/seedstore"
	"github.com/hbkit/hbkit/sim"
)

// Harness is the client the scenarios run the commands over.
type Harness struct {
	// Connect opens the client, as cli.Env.Connect.
	Connect cli.ConnectFunc
	// ZK is the ZooKeeper quorum of the HBase under test; empty means
	// $HBKIT_ZK, else 127.0.0.1:2181.
	ZK string
	// Prefix starts the name of every table a scenario makes; a
	// run-unique suffix follows.
	Prefix string
	// Unsupported lists what the client cannot do, by method name:
	// "DescribeTable" and "TruncateTable" (calls it refuses) and
	// "RegionLoads" (request counts it does not report). The scenarios
	// expect the commands that need them to fail with a
	// *cli.UnsupportedError naming them, or to say what they leave out,
	// and everything else to work.
	Unsupported map[string]bool
}

func (h *Harness) zk() string {
	if h.ZK != "" {
		return h.ZK
	}
	if zk := os.Getenv("HBKIT_ZK"); zk != "" {
		return zk
	}
	return "127.0.0.1:2181"
}

// name returns a run-unique table name.
func (h *Harness) name(what string) string {
	return h.Prefix + "_" + what + "_" + strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
}

// result is one run of a command.
type result struct {
	stdout, stderr string
	code           int   // Main's exit status
	err            error // Run's error
}

// main runs args through cli.Main, as the binary does, and returns its
// exit status and output.
func (h *Harness) main(ctx context.Context, args ...string) result {
	var out, errw bytes.Buffer
	code := cli.Main(ctx, h.env(&out, &errw), args)
	return result{stdout: out.String(), stderr: errw.String(), code: code}
}

// run runs args through cli.Run and returns its error, for the scenarios
// that check its type.
func (h *Harness) run(ctx context.Context, args ...string) result {
	var out, errw bytes.Buffer
	err := cli.Run(ctx, h.env(&out, &errw), args)
	return result{stdout: out.String(), stderr: errw.String(), err: err}
}

// env is the Env of a binary that ships the seeds (cmd/hbkit,
// hbkit-gohbase): the scenarios name them.
func (h *Harness) env(out, errw *bytes.Buffer) cli.Env {
	e := cli.Env{Stdout: out, Stderr: errw, Getenv: func(string) string { return "" }, Connect: h.Connect}
	if err := seedcli.Register(&e); err != nil {
		panic(err) // cannot happen: seeds.TestBuiltins builds every seed
	}
	return e
}

// mustMain runs args through cli.Main and fails t unless it exits 0.
func (h *Harness) mustMain(ctx context.Context, t *testing.T, args ...string) result {
	t.Helper()
	r := h.main(ctx, args...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// client opens the harness's client for the scenario's own reads and
// writes, closed when t ends.
func (h *Harness) client(ctx context.Context, t *testing.T) cli.Client {
	t.Helper()
	c, closer, err := h.Connect(ctx, h.zk())
	if err != nil {
		t.Fatalf("connect %s: %v", h.zk(), err)
	}
	t.Cleanup(func() { closer.Close() })
	return c
}

// wantUnsupported fails t unless r failed with a *cli.UnsupportedError
// naming call, and the client's refusal wrapped in it.
func wantUnsupported(t *testing.T, what string, r result, call string) {
	t.Helper()
	var u *cli.UnsupportedError
	if !errors.As(r.err, &u) || u.Call != call || !errors.Is(r.err, errors.ErrUnsupported) {
		t.Errorf("%s: got %v, want a *cli.UnsupportedError naming %s\n%s%s", what, r.err, call, r.stdout, r.stderr)
	}
}

// smsSchema writes a schema file declaring the SMS data table and its
// index (admin/testdata/sms.json, the built-in schema's tables: 20 and
// 10 regions) under the names data and index, and returns its path.
func smsSchema(t *testing.T, data, index string) string {
	t.Helper()
	const file = `{"tables": [
  {"name": %q,
   "families": [{"name": "cf", "options": {"BLOOMFILTER": "ROW", "VERSIONS": 1, "COMPRESSION": "SNAPPY"}}],
   "key": [{"name": "mobile", "kind": "reversed_digits", "width": 11}, {"name": "sent", "kind": "reversed_timestamp"}],
   "splits": {"regions": 20}},
  {"name": %q,
   "families": [{"name": "cf", "options": {"BLOOMFILTER": "ROW", "VERSIONS": 1, "COMPRESSION": "SNAPPY", "DATA_BLOCK_ENCODING": "FAST_DIFF"}}],
   "key": [{"name": "bucket", "kind": "bucket", "buckets": 10, "from": "mobile"}, {"name": "mobile", "kind": "digits", "width": 11}],
   "splits": {"algorithm": "BucketSplit", "buckets": 10, "regions": 10}}
]}`
	path := filepath.Join(t.TempDir(), "sms.json")
	if err := os.WriteFile(path, fmt.Appendf(nil, file, data, index), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// createSMS creates the SMS data and index tables with "table create"
// from a schema file, checks that they are pre-split as declared, and
// drops them with "table drop" when t ends. It returns the schema file.
func (h *Harness) createSMS(ctx context.Context, t *testing.T, c cli.Client, data, index string) string {
	t.Helper()
	file := smsSchema(t, data, index)
	r := h.mustMain(ctx, t, "table", "create", "--schema", file, "--zk", h.zk())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if r := h.main(ctx, "table", "drop", "--schema", file, "--yes", "--zk", h.zk()); r.code != 0 ||
			r.stdout != data+": dropped\n"+index+": dropped\n" {
			t.Errorf("table drop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
	if want := data + ": created\n" + index + ": created\n"; r.stdout != want {
		t.Errorf("table create printed %q, want %q", r.stdout, want)
	}
	for table, want := range map[string]int{data: seeds.SMSRegions, index: seeds.SMSIndexBuckets} {
		regions, err := c.TableRegions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		if len(regions) != want {
			t.Errorf("%s: %d regions, want %d", table, len(regions), want)
		}
	}
	return file
}

// Tables runs the table command: create from a schema file (the SMS
// tables, pre-split), create again (the check that they are as
// declared), describe, truncate and drop. Over a client that cannot
// describe or truncate tables, the check, describe and truncate fail with
// a *cli.UnsupportedError, and truncate leaves the table enabled.
func Tables(t *testing.T, h Harness) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := h.client(ctx, t)
	data, index := h.name("tables"), h.name("tables_index")
	file := h.createSMS(ctx, t, c, data, index)
	if h.Unsupported["DescribeTable"] {
		r := h.run(ctx, "table", "create", "--schema", file, "--zk", h.zk())
		wantUnsupported(t, "table create of existing tables", r, "DescribeTable")
		if !strings.Contains(r.stdout, data+": FAILED\n  exists") {
			t.Errorf("table create of existing tables printed %q", r.stdout)
		}
		wantUnsupported(t, "table describe", h.run(ctx, "table", "describe", "--schema", file, "--zk", h.zk()), "DescribeTable")
		if r := h.main(ctx, "table", "describe", "--schema", file, "--zk", h.zk()); r.code != 1 ||
			!strings.Contains(r.stderr, "table describe needs DescribeTable") {
			t.Errorf("table describe: exit %d, stderr %q; want 1 and the missing call", r.code, r.stderr)
		}
	} else {
		if r := h.mustMain(ctx, t, "table", "create", "--schema", file, "--zk", h.zk()); r.stdout != data+": unchanged\n"+index+": unchanged\n" {
			t.Errorf("table create of existing tables printed %q", r.stdout)
		}
		r := h.mustMain(ctx, t, "table", "describe", "--schema", file, "--zk", h.zk())
		for _, want := range []string{"table " + data + ": enabled, 20 regions", "table " + index + ": enabled, 10 regions", "drift: none"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("table describe lacks %q:\n%s", want, r.stdout)
			}
		}
	}
	if h.Unsupported["TruncateTable"] {
		wantUnsupported(t, "table truncate", h.run(ctx, "table", "truncate", "--schema", file, "--yes", "--zk", h.zk()), "TruncateTable")
		for _, table := range []string{data, index} {
			if on, err := c.IsTableEnabled(ctx, table); err != nil || !on {
				t.Errorf("%s after the refused truncate: enabled %v, %v; want it left enabled", table, on, err)
			}
		}
	} else if r := h.mustMain(ctx, t, "table", "truncate", "--schema", file, "--yes", "--zk", h.zk()); !strings.Contains(r.stdout, data+": truncated, splits kept") {
		t.Errorf("table truncate printed %q", r.stdout)
	}
}

// Index runs the index command on SMS tables made with "table create"
// and written through dao over the harness's client, with an index
// broken behind the protocol's back (an entry dropped, a stray one
// added): verify finds both, repair fixes them, rebuild rewrites every
// entry. Then regions measures the data table.
func Index(t *testing.T, h Harness) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := h.client(ctx, t)
	data, ix := h.name("sms"), h.name("sms_index")
	h.createSMS(ctx, t, c, data, ix)
	s, err := seedstore.NewSMS(c, dao.WithTableNames(map[string]string{seeds.SMSTableName: data, seeds.SMSIndexTableName: ix}))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*seeds.SMS
	for i := range 40 {
		recs = append(recs, &seeds.SMS{Mobile: fmt.Sprintf("1370000%04d", i), SentAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			Seq: uint64(i), Account: "acct", Content: "hi"})
	}
	if _, err := s.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // the writer is done
		t.Fatal(err)
	}
	// Break the index behind the protocol's back: drop one entry (marker
	// at its own timestamp), and add an entry pointing nowhere.
	sc, err := c.Scan(ctx, &hbase.Scan{Table: ix, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range hbase.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, &hbase.Delete{Table: ix, Row: r.Row(), Timestamp: r.Cells[0].Timestamp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Put(ctx, &hbase.Put{Table: ix, Row: []byte("9-stray-entry"), Values: map[string]map[string][]byte{"cf": {"row": []byte("nowhere")}}}); err != nil {
		t.Fatal(err)
	}

	flags := []string{"--schema", "sms", "--rename", "sms=" + data + ",sms_index=" + ix, "--zk", h.zk(), "--grace", "0s", "--batch", "7"}
	cmd := func(args ...string) []string { return append(append([]string{"index"}, args...), flags...) }
	r := h.run(ctx, cmd("verify", "--checkpoint", filepath.Join(t.TempDir(), "cp.json"))...)
	if !errors.Is(r.err, cli.ErrDiverged) {
		t.Fatalf("verify: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	for _, want := range []string{"data rows    40", "entries      40", "missing      1", "orphaned     1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("verify output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "100%") {
		t.Errorf("no progress: %q", r.stderr)
	}
	if r := h.main(ctx, cmd("verify")...); r.code != 1 || !strings.Contains(r.stderr, "the index diverges") {
		t.Errorf("verify: exit %d, stderr %q; want 1 and the divergence", r.code, r.stderr)
	}
	h.mustMain(ctx, t, cmd("repair")...)
	h.mustMain(ctx, t, cmd("verify", "--json")...)
	if r := h.mustMain(ctx, t, cmd("rebuild")...); !strings.Contains(r.stdout, "repaired     40") {
		t.Fatalf("rebuild:\n%s", r.stdout)
	}
	h.mustMain(ctx, t, cmd("verify")...)

	r = h.mustMain(ctx, t, "regions", "--table", data, "--zk", h.zk(), "--json")
	var got sim.Report
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("regions: bad JSON: %v\n%s", err, r.stdout)
	}
	if !got.Measured || got.Rows != 40 || len(got.Regions) != seeds.SMSRegions {
		t.Errorf("regions measured %d rows in %d regions, want 40 in %d", got.Rows, len(got.Regions), seeds.SMSRegions)
	}
	if noted := strings.Contains(r.stderr, "no request counts"); noted != h.Unsupported["RegionLoads"] {
		t.Errorf("regions: said it has no request counts: %v, want %v (stderr %q)", noted, h.Unsupported["RegionLoads"], r.stderr)
	}
}

// Bench runs a short bench: every PE workload and the dao and index
// writes, on tables of its own, from empty tables (--fresh). Over a
// client that cannot describe tables, a write to an existing table
// without --fresh fails with a *cli.UnsupportedError before writing.
func Bench(t *testing.T, h Harness) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	table := h.name("bench")
	flags := []string{"--table", table, "--zk", h.zk()}
	cmd := func(args ...string) []string { return append(append([]string{"bench"}, args...), flags...) }
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if r := h.main(ctx, cmd("--drop-tables")...); r.code != 0 {
			t.Errorf("bench --drop-tables: exit %d\n%s", r.code, r.stderr)
		}
	})
	workloads := []string{"sequentialWrite", "randomWrite", "randomRead", "scan", "scanRange100", "daoWrite", "indexedWrite"}
	r := h.mustMain(ctx, t, cmd("--fresh", "--rows", "100", "--threads", "2", "--value-size", "100", "--seed", "3", "--json",
		"--workloads", strings.Join(workloads, ","))...)
	var rep struct {
		Results []bench.Result `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("bench: bad JSON: %v\n%s", err, r.stdout)
	}
	if len(rep.Results) != len(workloads) {
		t.Fatalf("bench: %d results, want %d\n%s", len(rep.Results), len(workloads), r.stdout)
	}
	for i, res := range rep.Results {
		if res.Workload != workloads[i] || res.Rows <= 0 || res.RowsPerSec <= 0 {
			t.Errorf("bench result %d: %s, %d rows, %.0f rows/s; want %s with rows", i, res.Workload, res.Rows, res.RowsPerSec, workloads[i])
		}
	}
	again := cmd("--rows", "20", "--threads", "1", "--workloads", "randomWrite")
	if h.Unsupported["DescribeTable"] {
		wantUnsupported(t, "bench write to an existing table", h.run(ctx, again...), "DescribeTable")
	} else {
		h.mustMain(ctx, t, again...)
	}
}
