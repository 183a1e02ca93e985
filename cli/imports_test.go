package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the command line on top of the library: cli
// wires admin, dao, index, bench and sim to a client, and never depends on
// the fake, the test suites, the examples or a binary; clitest adds only
// cli. Nothing of gohbase comes in: that stays in contrib/gohbase.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	forbidden := []string{
		mod + "hbase/fake", mod + "hbase/conformance", mod + "hbase/hbasemock",
		mod + "cmd/", mod + "examples", mod + "integration", mod + "contrib/", "github.com/tsuna/gohbase",
	}
	for _, tc := range []struct{ pkg, alsoForbidden string }{
		{mod + "cli", mod + "cli/clitest"},
		{mod + "cli/clitest", ""},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list -deps %s listed %q; is go list working?", tc.pkg, deps)
		}
		for _, dep := range deps {
			for _, f := range append(forbidden, tc.alsoForbidden) {
				if f != "" && (dep == strings.TrimSuffix(f, "/") || strings.HasPrefix(dep, f)) {
					t.Errorf("%s depends on %s", tc.pkg, dep)
				}
			}
		}
	}
}

// TestCobraOnlyInCLI: the CLI library (docs/cli-library.md) stays in the
// command line: no library package links cobra or pflag.
func TestCobraOnlyInCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	var pkgs []string
	for _, p := range []string{"keys", "schema", "hbase", "hbase/hbapi", "admin", "index", "dao", "sim", "bench", "jobs"} {
		pkgs = append(pkgs, mod+p)
	}
	out, err := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/spf13/") {
			t.Errorf("a library package depends on %s", dep)
		}
	}
}
