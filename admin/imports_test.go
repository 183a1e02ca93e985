package admin_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps admin where the README puts it: on schema,
// keys and the narrow interfaces of hbase (whose internal plumbing comes
// along), never on dao, index, the fake or the command line.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	allowed := func(dep string) bool {
		switch dep {
		case mod + "admin", mod + "schema", mod + "keys", mod + "hbase", mod + "hbase/hbapi", mod + "hbase/internal/flat":
			return true
		}
		return strings.HasPrefix(dep, mod+"internal/")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+"admin").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, mod) && !allowed(dep) {
			t.Errorf("admin imports %s", dep)
		}
	}
}
