package integration_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestContainerDepsStayHere keeps testcontainers-go and the Docker client
// where they belong: only packages under integration/ may depend on them,
// with or without the integration build tag.
func TestContainerDepsStayHere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit"
	heavy := []string{"github.com/testcontainers/", "github.com/moby/", "github.com/docker/"}
	for _, tags := range []string{"", "integration"} {
		out, err := exec.Command("go", "list", "-tags", tags, "-test",
			"-f", `{{.ImportPath}} {{join .Deps " "}}`, mod+"/...").Output()
		if err != nil {
			t.Fatalf("go list (tags %q): %v", tags, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			// Test variants read "p [p.test] deps…"; the bracket is no dep.
			pkg, deps, _ := strings.Cut(line, " ")
			if strings.HasPrefix(pkg, mod+"/integration") { // also integration.test, integration_test
				continue
			}
			for _, dep := range strings.Fields(deps) {
				for _, h := range heavy {
					if strings.HasPrefix(dep, h) {
						t.Errorf("%s (tags %q) depends on %s: container code belongs under integration/", pkg, tags, dep)
					}
				}
			}
		}
	}
}
