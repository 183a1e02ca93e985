package sim

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import direction keys ← schema ← sim: the
// simulator works on keys alone and never depends on the HBase client (only
// on its vocabulary, hbase/hbapi, which schema names tables with).
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/hbkit/hbkit/") &&
			dep != "github.com/hbkit/hbkit/keys" && dep != "github.com/hbkit/hbkit/schema" && dep != "github.com/hbkit/hbkit/sim" &&
			dep != "github.com/hbkit/hbkit/hbase/hbapi" && dep != "github.com/hbkit/hbkit/hbase/internal/flat" {
			t.Errorf("sim depends on %s; it may use only keys, schema and hbase/hbapi", dep)
		}
	}
}
