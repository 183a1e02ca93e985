package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// runSeeds runs Main with the seeds registered, as cmd/hbkit does.
func runSeeds(name string, args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }, Name: name})
	code = Main(context.Background(), *e, args)
	return code, out.String(), errw.String()
}

// TestSingleDashLongFlags: long flags given with one dash, as the flag
// package took them before the move to cobra, mean what they mean with
// two; values that start with a dash are left alone.
func TestSingleDashLongFlags(t *testing.T) {
	for _, tc := range []struct{ name, one, two string }{
		{"simulate", "simulate -schema sms_naive -records 200 -seed 3 -json", "simulate --schema sms_naive --records 200 --seed 3 --json"},
		{"table dry run", "table create -schema=sms -dry-run -json", "table create --schema=sms --dry-run --json"},
		{"help", "regions -help", "regions --help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code1, out1, err1 := runSeeds("", strings.Fields(tc.one)...)
			code2, out2, err2 := runSeeds("", strings.Fields(tc.two)...)
			if code1 != 0 || code2 != 0 {
				t.Fatalf("exit %d (%s) and %d (%s), want 0", code1, err1, code2, err2)
			}
			if !strings.Contains(tc.name, "simulate") && out1 != out2 {
				t.Errorf("%q printed\n%s\n%q printed\n%s", tc.one, out1, tc.two, out2)
			}
			if strings.Contains(tc.name, "simulate") && firstLines(out1, 3) != firstLines(out2, 3) {
				t.Errorf("%q printed\n%s\n%q printed\n%s", tc.one, out1, tc.two, out2)
			}
		})
	}
	if code, _, errw := runSeeds("", "table", "create", "-t"); code != 2 || !strings.Contains(errw, "flag provided but not defined: -t") {
		t.Errorf("an unknown shorthand: exit %d, stderr %q", code, errw)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestCompletion: hbkit completion SHELL prints the shell's script under
// the program's name, and the completions it calls back for list the
// commands, the subcommands and the flags.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errw := runSeeds("mytool", "completion", shell)
		if code != 0 || errw != "" || !strings.Contains(out, "mytool") || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, stderr %q, script without mytool or __complete:\n%.300s", shell, code, errw, out)
		}
	}
	_, bash, _ := runSeeds("", "completion", "bash")
	for _, want := range []string{"# bash completion V2 for hbkit", "complete -o default -F __start_hbkit hbkit"} {
		if !strings.Contains(bash, want) {
			t.Errorf("bash script lacks %q", want)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{""}, []string{"version", "table", "simulate", "regions", "index", "get", "scan", "bench", "completion"}},
		{[]string{"table", ""}, []string{"create", "ensure", "describe", "truncate", "drop", "ls", "schemas"}},
		{[]string{"index", ""}, []string{"verify", "repair", "rebuild", "build"}},
		{[]string{"scan", "--"}, []string{"--table", "--limit", "--eq", "--zk", "--tls-ca"}},
		{[]string{"completion", ""}, nil},
	} {
		code, out, errw := runSeeds("", append([]string{"__complete"}, tc.args...)...)
		if code != 0 {
			t.Errorf("__complete %q: exit %d, stderr %q", tc.args, code, errw)
		}
		var words []string
		for _, line := range strings.Split(out, "\n") {
			words = append(words, strings.SplitN(line, "\t", 2)[0])
		}
		for _, w := range tc.want {
			if !strings.Contains("\n"+strings.Join(words, "\n")+"\n", "\n"+w+"\n") {
				t.Errorf("__complete %q lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, out, errw := runSeeds("", args...); code != 2 || out != "" || errw == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, out, errw)
		}
	}
}

// TestVersionJSON: version --json prints the name, the version and the
// client the commands run over.
func TestVersionJSON(t *testing.T) {
	var out, errw bytes.Buffer
	e := Env{Stdout: &out, Stderr: &errw, Name: "hbkit-gohbase", Over: "gohbase v1"}
	if code := Main(context.Background(), e, []string{"version", "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	var got versionReport
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if want := (versionReport{Name: "hbkit-gohbase", Version: version, Over: "gohbase v1"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
