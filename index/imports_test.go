package index_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import direction of the house: index
// builds on keys, schema and the hbase interfaces, never on dao, admin,
// the command line or the test doubles.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/hbkit/hbkit/index").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{
		"github.com/hbkit/hbkit/dao",
		"github.com/hbkit/hbkit/admin",
		"github.com/hbkit/hbkit/cmd/",
		"github.com/hbkit/hbkit/cli",
		"github.com/hbkit/hbkit/hbase/fake",
		"github.com/hbkit/hbkit/hbase/hbasemock",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
				t.Errorf("index imports %s", dep)
			}
		}
	}
}
