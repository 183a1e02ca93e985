package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

func runCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errw bytes.Buffer
	e := *withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }})
	code = Main(context.Background(), e, args)
	return out.String(), errw.String(), code
}

func TestSimulateCommand(t *testing.T) {
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "sms.svg"), filepath.Join(dir, "sms.html")
	out, errOut, code := runCmd(t, "simulate", "--schema", "sms", "--records", "20000", "--servers", "3",
		"--slices", "4", "--split-size", "1MiB", "--svg", svg, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"simulated sms: 20000 rows", "skew: max/mean", "time slices", "region splits", "rs3", "keys in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []struct{ name, prefix string }{{svg, "<svg"}, {page, "<!DOCTYPE html>"}} {
		b, err := os.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(f.prefix)) {
			t.Errorf("%s starts with %.40q, want %q", f.name, b, f.prefix)
		}
	}
}

// The naive key's JSON report shows one active region per time slice.
func TestSimulateJSONHotspot(t *testing.T) {
	out, errOut, code := runCmd(t, "simulate", "--schema", "sms_naive", "--records", "20000", "--slices", "20", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r sim.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON: %v\n%.500s", err, out)
	}
	if len(r.Regions) != 20 || len(r.Slices) != 20 {
		t.Fatalf("got %d regions and %d slices, want 20 and 20", len(r.Regions), len(r.Slices))
	}
	for i, s := range r.Slices {
		if s.Active != 1 {
			t.Errorf("slice %d: %d active regions, want 1", i, s.Active)
		}
	}
}

func TestSimulateSampleFile(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join(dir, "keys.txt")
	content := "a1\t1000\nb2\t2000\n\nc3\t3000\n\\x00\\xFFz\t4000\n"
	if err := os.WriteFile(sample, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "simulate", "--sample", sample, "--splits", "keys:b,c", "--slices", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r sim.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, g := range r.Regions {
		rows = append(rows, g.Rows)
	}
	if want := []int64{2, 1, 1}; !reflect.DeepEqual(rows, want) {
		t.Errorf("rows per region %v, want %v", rows, want)
	}
	if r.Slices[0].Rows != 2 || r.Slices[1].Rows != 2 {
		t.Errorf("slices hold %d and %d rows, want 2 and 2", r.Slices[0].Rows, r.Slices[1].Rows)
	}
}

func TestSimulateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no schema", []string{"simulate"}, 2, "need --schema"},
		{"stray argument", []string{"simulate", "--schema", "sms", "extra"}, 2, "unexpected argument"},
		{"unknown schema", []string{"simulate", "--schema", "nope", "--records", "10"}, 1, "no built-in workload"},
		{"bad splits", []string{"simulate", "--schema", "sms", "--records", "10", "--splits", "hex:x"}, 1, "--splits"},
		{"unknown split kind", []string{"simulate", "--schema", "sms", "--records", "10", "--splits", "magic:3"}, 1, "unknown kind"},
		{"bad size", []string{"simulate", "--schema", "sms", "--records", "10", "--split-size", "12 parsecs"}, 1, "--split-size"},
		{"zero servers", []string{"simulate", "--schema", "sms", "--records", "10", "--servers", "0"}, 1, "servers"},
		{"no records", []string{"simulate", "--schema", "sms", "--records", "0"}, 1, "Records"},
		{"bad policy", []string{"simulate", "--schema", "sms", "--records", "10", "--split-policy", "random"}, 1, "--split-policy"},
		{"bad zipf", []string{"simulate", "--schema", "sms", "--records", "10", "--zipf", "0.5"}, 1, "Zipf"},
		{"bad start", []string{"simulate", "--schema", "sms", "--start", "yesterday"}, 1, "--start"},
		{"missing sample", []string{"simulate", "--sample", "/nonexistent/keys"}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestSimulateList(t *testing.T) {
	out, _, code := runCmd(t, "simulate", "--list")
	if code != 0 || !strings.Contains(out, "sms_naive\n") || !strings.Contains(out, "sms_index\n") {
		t.Errorf("exit %d, list:\n%s", code, out)
	}
}

func TestParseSplits(t *testing.T) {
	src, err := seedsim.Builtin("sms", sim.Config{Records: 5000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		want []string // nil: only check the count
		n    int
	}{
		{"none", []string{}, 0},
		{"hex:4", []string{"40000000", "80000000", "c0000000"}, 3},
		{"decimal:2", []string{"50000000"}, 1},
		{"uniform:2", []string{"\x80\x00\x00\x00\x00\x00\x00\x00"}, 1},
		{"prefix:10:1", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, 9},
		{`keys:b,\x00c`, nil, -1}, // not ascending
		{"keys:a,b", []string{"a", "b"}, 2},
		{"sample:8", nil, 7},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := parseSplits(tc.spec, src)
			if tc.n < 0 {
				if err == nil {
					t.Fatalf("got %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("got %d keys %q, want %d", len(got), got, tc.n)
			}
			for i, w := range tc.want {
				if string(got[i]) != w {
					t.Errorf("key %d = %q (%x), want %q", i, got[i], got[i], w)
				}
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"512", 512, true}, {"64k", 64 << 10, true}, {"256MiB", 256 << 20, true},
		{"10GB", 10 << 30, true}, {"1.5 GiB", 3 << 29, true}, {"1T", 1 << 40, true},
		{"", 0, false}, {"-1", 0, false}, {"5 parsecs", 0, false}, {"MiB", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseBinaryKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []byte
		ok   bool
	}{
		{"abc", []byte("abc"), true},
		{`\x00\xFFa`, []byte{0, 0xff, 'a'}, true},
		{`a\x5Cb`, []byte(`a\b`), true},
		{`tail\x`, []byte(`tail\x`), true},
		{`\xZZ`, nil, false},
	} {
		got, err := parseBinaryKey(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !bytes.Equal(got, tc.want)) {
			t.Errorf("parseBinaryKey(%q) = %x, %v; want %x", tc.in, got, err, tc.want)
		}
		if tc.ok && sim.Key(got).String() != strings.ReplaceAll(tc.in, `\xff`, `\xFF`) && tc.in != `tail\x` {
			t.Errorf("round trip of %q gives %q", tc.in, sim.Key(got).String())
		}
	}
}

func TestSimulateHelp(t *testing.T) {
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }})
	if err := runSimulate(context.Background(), e, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("got %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(errw.String(), "--splits SPEC") {
		t.Errorf("help lacks the splits documentation:\n%s", errw.String())
	}
}

// By default regions split as HBase 2 splits them: with four servers, a
// table written at its end (a timestamp-first key) splits early, past
// twice the flush size, while its last region is alone on its server:
// four times, until the fifth region lands on a server with another.
func TestSimulateDefaultSplitPolicy(t *testing.T) {
	out, errOut, code := runCmd(t, "simulate", "--schema", "sms_naive", "--records", "100000", "--splits", "none",
		"--servers", "4", "--flush-size", "256KiB", "--slices", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r sim.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.SplitPolicy != "stepping" || r.SplitSize != 10<<30 || len(r.Splits) != 4 || len(r.Final) != 5 {
		t.Errorf("policy %q past %d bytes: %d splits, %d regions; want stepping past 10 GiB, 4 splits, 5 regions",
			r.SplitPolicy, r.SplitSize, len(r.Splits), len(r.Final))
	}
	for i, g := range r.Final[:len(r.Final)-1] {
		if g.Rows == 0 {
			t.Errorf("final region %d is empty", i)
		}
	}
}
