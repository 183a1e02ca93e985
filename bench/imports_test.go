package bench_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps bench on the narrow interfaces: it drives
// hbase.DataClient and hbase.AdminClient (and dao and index above them),
// never the command line, the admin layer or the test doubles.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/hbkit/hbkit/bench").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{
		"github.com/hbkit/hbkit/admin",
		"github.com/hbkit/hbkit/cmd/",
		"github.com/hbkit/hbkit/cli",
		"github.com/hbkit/hbkit/examples/",
		"github.com/hbkit/hbkit/hbase/fake",
		"github.com/hbkit/hbkit/hbase/hbasemock",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
				t.Errorf("bench imports %s", dep)
			}
		}
	}
}
