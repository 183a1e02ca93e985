package jobs_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps jobs where docs/jobs.md puts it: on the
// narrow client interfaces (hbase/hbapi), schema, admin, and the dao and
// index packages the tasks use; never on the native client (a Beam worker
// or a team's binary brings its own), the fake, the command line, bench,
// sim or contrib.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	forbidden := []string{mod + "hbase", mod + "hbase/fake", mod + "hbase/conformance", mod + "hbase/hbasemock",
		mod + "cli", mod + "cmd/", mod + "bench", mod + "sim", mod + "contrib/", mod + "examples", mod + "integration", mod + "seeds"}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+"jobs").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == strings.TrimSuffix(f, "/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
				t.Errorf("jobs depends on %s", dep)
			}
		}
	}
}
