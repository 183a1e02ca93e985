package cli

import (
	"strings"
	"testing"
)

// TestShellUsageErrors: the key-byte flags and --shell refuse what they
// cannot mean, before connecting: exit 2, the reason on stderr.
func TestShellUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scan", "--table", "t", "--prefix", "a", "--start", "b"}, "--prefix gives the whole range"},
		{[]string{"count", "--table", "t", "--prefix", "a", "--stop", "b"}, "--prefix gives the whole range"},
		{[]string{"scan", "--table", "t", "--start", "a", "--eq", "f=1"}, "--start gives the key as bytes"},
		{[]string{"get", "--table", "t", "--row", "a", "f=1"}, "--row gives the key as bytes"},
		{[]string{"get", "--schema", "sms", "--shell", "--row", "a"}, "--shell reads --table T without a schema"},
		{[]string{"scan", "--table", "t", "--shell", "--index", "i"}, "--shell reads --table T without a schema"},
		{[]string{"get", "--table", "t"}, "or the row key with --row KEY"},
		{[]string{"get", "--table", "t", "--row", `\xZZ`}, `bad escape "\\xZZ"`},
		{[]string{"count"}, "name the table with --table T"},
		{[]string{"count", "--table", "t", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errw := runSeeds("", tc.args...)
			if code != 2 || out != "" || !strings.Contains(errw, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errw, tc.want)
			}
		})
	}
}
