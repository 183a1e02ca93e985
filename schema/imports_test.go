package schema

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import picture of the README true: schema
// builds on keys, the client's vocabulary (hbase/hbapi, itself standard
// library only) and the standard library, and never on the client.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	allowed := map[string]bool{
		"github.com/hbkit/hbkit/schema": true,
		"github.com/hbkit/hbkit/keys":   true,
		// the client's vocabulary (TableName), standard library only
		"github.com/hbkit/hbkit/hbase/hbapi":         true,
		"github.com/hbkit/hbkit/hbase/internal/flat": true,
	}
	for _, dep := range strings.Fields(string(out)) {
		if !allowed[dep] {
			t.Errorf("schema depends on %s; it may only import the standard library, keys and hbase/hbapi", dep)
		}
	}
}
