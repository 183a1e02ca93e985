package integration_test

import (
	"os"
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

// TestContainerDepsOutOfModule: testcontainers-go and the Docker client
// are not in hbkit's module graph at all (go list -m all), only in the
// module github.com/hbkit/hbkit/hbasecontainer, so a program that imports
// hbkit never downloads them.
func TestContainerDepsOutOfModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, h := range []string{"github.com/testcontainers/", "github.com/moby/", "github.com/docker/"} {
			if strings.HasPrefix(line, h) {
				t.Errorf("hbkit's module graph holds %s: it belongs to the hbasecontainer module", line)
			}
		}
	}
}
