package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// helpCase is one way of asking for help, and the words its text must
// hold: the command (and subcommand) it describes.
type helpCase struct {
	args  []string
	names string
}

// helpCases asks for the help of every command and subcommand in every
// spelling: --help, -h, help CMD, CMD help (table, index).
func helpCases() []helpCase {
	cases := []helpCase{
		{[]string{"--help"}, "usage: hbkit <command>"},
		{[]string{"-h"}, "usage: hbkit <command>"},
		{[]string{"help"}, "usage: hbkit <command>"},
	}
	for _, c := range commands(&Env{}) {
		name := "hbkit " + c.name
		cases = append(cases,
			helpCase{[]string{c.name, "--help"}, name},
			helpCase{[]string{c.name, "-h"}, name},
			helpCase{[]string{"help", c.name}, name})
	}
	subs := map[string][]struct{ name, summary string }{"table": tableSubcommands, "index": indexSubcommands, "job": jobSubcommands}
	for cmd, list := range subs {
		cases = append(cases, helpCase{[]string{cmd, "help"}, "hbkit " + cmd})
		for _, s := range list {
			name := "hbkit " + cmd + " " + s.name + ":"
			cases = append(cases,
				helpCase{[]string{cmd, s.name, "--help"}, name},
				helpCase{[]string{cmd, s.name, "-h"}, name},
				helpCase{[]string{"help", cmd, s.name}, name})
		}
	}
	return cases
}

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = Main(context.Background(), Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }}, args)
	return code, out.String(), errw.String()
}

// TestHelpOnStdout: help asked for, of any command or subcommand, prints
// on stdout, exits 0 and describes what was asked for.
func TestHelpOnStdout(t *testing.T) {
	for _, tt := range helpCases() {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errw := runMain(tt.args...)
			if code != 0 || errw != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing on stderr", code, errw)
			}
			if !strings.Contains(out, tt.names) {
				t.Errorf("stdout lacks %q:\n%s", tt.names, out)
			}
		})
	}
}

// TestSubcommandHelpDescribesIt: "table create --help" describes create,
// not another subcommand.
func TestSubcommandHelpDescribesIt(t *testing.T) {
	_, out, _ := runMain("table", "create", "--help")
	if !strings.Contains(out, "hbkit table create: create the tables of the schema") {
		t.Errorf("table create --help does not describe create:\n%s", out)
	}
	if strings.Contains(out, "disable and delete the tables") {
		t.Errorf("table create --help describes drop too:\n%s", out)
	}
}

// TestUsageErrorsOnStderr: a usage error still prints on stderr and exits
// 2, with nothing on stdout.
func TestUsageErrorsOnStderr(t *testing.T) {
	for _, args := range [][]string{
		{"nope"},
		{"table"},
		{"table", "alter"},
		{"table", "create"},
		{"table", "create", "--colour"},
		{"index", "verify"},
		{"scan"},
		{"get", "--table", "t"},
		{"regions"},
		{"version", "extra"},
		{"table", "ls", "--table", "t"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errw := runMain(args...)
			if code != 2 || out != "" || errw == "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout, the error on stderr", code, out, errw)
			}
		})
	}
}

// TestConnectionFlagsOnce: the connection flags (--zk, Kerberos, TLS)
// show once in a command's help, as a group after the command's own
// flags, each with one default.
func TestConnectionFlagsOnce(t *testing.T) {
	var names []string
	for _, f := range (&Security{}).fields() {
		names = append(names, f.flag)
	}
	names = append(names, "zk")
	for _, args := range [][]string{
		{"table", "--help"}, {"table", "create", "--help"}, {"index", "verify", "--help"},
		{"get", "--help"}, {"scan", "--help"}, {"regions", "--help"}, {"bench", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, out, _ := runMain(args...)
			if n := strings.Count(out, "Connection flags"); n != 1 {
				t.Fatalf("%d Connection flags sections, want 1:\n%s", n, out)
			}
			group := out[strings.Index(out, "Connection flags"):]
			for _, n := range names {
				if c := strings.Count(out, "\n  --"+n+" "); c != 1 {
					t.Errorf("--%s listed %d times, want 1", n, c)
				}
				if !strings.Contains(group, "\n  --"+n+" ") {
					t.Errorf("--%s is not in the Connection flags group", n)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Count(line, "(default") > 1 {
					t.Errorf("two defaults: %q", line)
				}
			}
		})
	}
}
