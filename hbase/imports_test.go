package hbase_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import graph of the README true: hbase
// knows nothing of schemas (it may use internal/ plumbing), and the fake
// and the conformance suite depend on nothing of hbkit but hbase (and,
// through it, the internal/ plumbing of the real client).
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	// The internal packages below hbase are its plumbing; the command
	// line (internal/cli) sits on top.
	internal := func(dep string) bool {
		return strings.HasPrefix(dep, mod+"internal/") && !strings.HasPrefix(dep, mod+"internal/cli")
	}
	tests := []struct {
		pkg     string
		allowed func(dep string) bool
	}{
		{mod + "hbase", func(dep string) bool {
			return dep == mod+"hbase" || internal(dep)
		}},
		{mod + "hbase/fake", func(dep string) bool {
			return dep == mod+"hbase/fake" || dep == mod+"hbase" || internal(dep)
		}},
		{mod + "hbase/conformance", func(dep string) bool {
			return dep == mod+"hbase/conformance" || dep == mod+"hbase" || internal(dep)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", tc.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				if strings.HasPrefix(dep, mod) && !tc.allowed(dep) {
					t.Errorf("%s imports %s", tc.pkg, dep)
				}
			}
		})
	}
}
