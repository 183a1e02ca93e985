package zk

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports: this package reads znodes on its own and must not
// depend on generated protobuf code (internal/pb) or anything else of
// hbkit.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const self = "github.com/hbkit/hbkit/internal/zk"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", self).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/hbkit/hbkit/") && dep != self {
			t.Errorf("%s imports %s", self, dep)
		}
		if strings.HasPrefix(dep, "google.golang.org/protobuf/") && dep != "google.golang.org/protobuf/encoding/protowire" &&
			!strings.HasPrefix(dep, "google.golang.org/protobuf/internal/") {
			t.Errorf("%s imports %s; only protowire is expected", self, dep)
		}
	}
}
