package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// tableHarness runs "hbkit table" against one fake shared by its runs.
type tableHarness struct {
	t       *testing.T
	c       *fake.Client
	connect connectFunc[admin.Client]
	zk      string // the quorum the last run connected to
	dialed  int
}

func newTableHarness(t *testing.T) *tableHarness {
	c, err := fake.New(fake.WithServer("rs1:16020"))
	if err != nil {
		t.Fatal(err)
	}
	h := &tableHarness{t: t, c: c}
	h.connect = func(ctx context.Context, zk string) (admin.Client, io.Closer, error) {
		h.zk = zk
		h.dialed++
		return c, nopCloser{}, nil
	}
	return h
}

func (h *tableHarness) run(vars map[string]string, args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(k string) string { return vars[k] }})
	err = runTableWith(context.Background(), e, args, h.connect)
	return out.String(), errw.String(), err
}

func TestTableDryRun(t *testing.T) {
	h := newTableHarness(t)
	out, _, err := h.run(nil, "create", "--schema", "sms", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"would create table sms (20 regions); HBase not contacted",
		"family cf: BLOOMFILTER=ROW VERSIONS=1 MIN_VERSIONS=0 COMPRESSION=SNAPPY",
		`1      "05"  3035`,
		`19     "95"  3935`,
		"shell: create 'sms'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if h.dialed != 0 {
		t.Error("--dry-run connected to HBase")
	}

	out, _, err = h.run(nil, "create", "--schema", "../admin/testdata/seed001.json", "--dry-run", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var plans []struct {
		Table     string                       `json:"table"`
		Regions   int                          `json:"regions"`
		Families  map[string]map[string]string `json:"families"`
		SplitKeys []struct{ Key, Hex string }  `json:"split_keys"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(plans) != 1 || plans[0].Table != "seed001" || plans[0].Regions != 16 || plans[0].Families["CF1"]["TTL"] != "3600" ||
		plans[0].SplitKeys[0].Hex != "31" {
		t.Errorf("plan = %+v", plans)
	}
	if h.dialed != 0 {
		t.Error("--dry-run connected to HBase")
	}
}

func TestTableCreateDescribeDrop(t *testing.T) {
	h := newTableHarness(t)
	out, _, err := h.run(map[string]string{"HBKIT_ZK": "zk1:2181"}, "create", "--schema", "sms,sms_index")
	if err != nil {
		t.Fatal(err)
	}
	if out != "sms: created\nsms_index: created\n" || h.zk != "zk1:2181" {
		t.Errorf("create printed %q, connected to %q", out, h.zk)
	}
	out, _, err = h.run(nil, "ensure", "--schema", "sms", "--schema", "sms_index", "--zk", "zk2")
	if err != nil || out != "sms: unchanged\nsms_index: unchanged\n" || h.zk != "zk2" {
		t.Errorf("second create: %q, %v, zk %q", out, err, h.zk)
	}
	if h.run(nil, "create", "--schema", "sms"); h.zk != "127.0.0.1:2181" {
		t.Errorf("default quorum %q", h.zk)
	}

	out, _, err = h.run(nil, "describe", "--schema", "sms_index", "--rows")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"table sms_index: enabled, 10 regions",
		"DATA_BLOCK_ENCODING=FAST_DIFF",
		`2       "1"    "2"  rs1:16020  -      -       0`,
		"drift: none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	out, _, err = h.run(nil, "describe", "--schema", "sms", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var desc []struct {
		Table   string `json:"table"`
		Regions []struct {
			Start struct{ Key, Hex string } `json:"start"`
			Rows  *int64                    `json:"rows"`
		} `json:"regions"`
		Drift []string `json:"drift"`
	}
	if err := json.Unmarshal([]byte(out), &desc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// sms comes with its index table (issue 33, item 10).
	if len(desc) != 2 || desc[1].Table != "sms_index" || len(desc[1].Regions) != 10 || len(desc[0].Regions) != 20 || desc[0].Regions[1].Start.Key != `"05"` ||
		desc[0].Regions[1].Start.Hex != "3035" || desc[0].Regions[1].Rows != nil || len(desc[0].Drift) != 0 {
		t.Errorf("describe --json = %+v", desc)
	}

	if _, stderr, err := h.run(nil, "drop", "--schema", "sms"); !errors.Is(err, ErrUsage) || !strings.Contains(stderr, "--yes") {
		t.Errorf("drop without --yes: %v, %q", err, stderr)
	}
	if out, _, err = h.run(nil, "truncate", "--schema", "sms", "--yes"); err != nil || out != "sms: truncated, splits kept\nsms_index: truncated, splits kept\n" {
		t.Errorf("truncate: %q, %v", out, err)
	}
	if out, _, err = h.run(nil, "drop", "--schema", "sms", "--yes"); err != nil || out != "sms: dropped\nsms_index: dropped\n" {
		t.Errorf("drop: %q, %v", out, err)
	}
	if _, _, err = h.run(nil, "drop", "--schema", "sms", "--yes"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("second drop: %v, want ErrTableNotFound", err)
	}
}

func TestTableDrift(t *testing.T) {
	h := newTableHarness(t)
	err := h.c.CreateTable(context.Background(), hbase.TableDescriptor{
		Name: "TestTable", Families: []hbase.FamilyDescriptor{{Name: "CF1"}},
	}, [][]byte{[]byte("80")})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := h.run(nil, "create", "--schema", "TestTable")
	if !errors.Is(err, admin.ErrDrift) {
		t.Fatalf("create over a drifted table: %v", err)
	}
	for _, want := range []string{
		"TestTable: FAILED",
		`drift: family "CF1": VERSIONS: declared 3, actual 1`,
		`unexpected ["80"] (hex 3830)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = h.run(nil, "describe", "--schema", "TestTable")
	if err != nil || !strings.Contains(out, `drift: family "CF1": COMPRESSION: declared SNAPPY, actual NONE`) {
		t.Errorf("describe: %v\n%s", err, out)
	}
}

func TestTableUsageErrors(t *testing.T) {
	h := newTableHarness(t)
	tests := []struct {
		name string
		args []string
		want error  // errors.Is target
		msg  string // in stderr or the error
	}{
		{"no subcommand", nil, ErrUsage, "usage: hbkit table"},
		{"help", []string{"--help"}, nil, "usage: hbkit table"},
		{"unknown subcommand", []string{"alter", "--schema", "sms"}, ErrUsage, `unknown subcommand "alter"`},
		{"no schema", []string{"create"}, ErrUsage, "--schema is required"},
		{"unknown schema", []string{"create", "--schema", "nope"}, nil, "neither a built-in schema"},
		{"bad schema file", []string{"create", "--schema", "testdata_bad.json", "--dry-run"}, nil, "neither a built-in"},
		{"extra argument", []string{"create", "--schema", "sms", "extra"}, ErrUsage, `unexpected argument "extra"`},
		{"json on create", []string{"create", "--schema", "sms", "--json"}, ErrUsage, "--json applies"},
		{"dry-run describe", []string{"describe", "--schema", "sms", "--dry-run"}, ErrUsage, "does not apply"},
		{"unknown flag", []string{"create", "--colour"}, nil, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := h.run(nil, tt.args...)
			if err == nil && tt.name != "help" {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if msg := stderr + " " + errString(err); !strings.Contains(msg, tt.msg) {
				t.Errorf("output %q lacks %q", msg, tt.msg)
			}
		})
	}
	if h.dialed != 0 {
		t.Errorf("usage errors connected %d times", h.dialed)
	}
	out, _, err := h.run(nil, "schemas")
	if err != nil || !strings.Contains(out, "sms_index\n") {
		t.Errorf("schemas: %q, %v", out, err)
	}
}

func TestTableInvalidSchemaFile(t *testing.T) {
	h := newTableHarness(t)
	dir := t.TempDir()
	path := dir + "/bad.json"
	if err := os.WriteFile(path, []byte(`{"tables": [{"name": "t", "families": [{"name": "cf", "options": {"VERSIONS": 0}}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := h.run(nil, "create", "--schema", path)
	if !errors.Is(err, admin.ErrInvalidSchema) || !strings.Contains(err.Error(), "VERSIONS") {
		t.Errorf("error %v, want ErrInvalidSchema naming VERSIONS", err)
	}
	if h.dialed != 0 {
		t.Error("an invalid schema connected to HBase")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
