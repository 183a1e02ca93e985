package dao

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import graph of the README true (pebble's
// TestForbiddenImports): dao builds on keys, schema and the client's
// interfaces (hbase/hbapi). Nothing it depends on, directly or not, may be the index
// package (index never imports dao, and dao plugs an index in through
// Indexer), the admin layer, the command line, examples or integration
// code; and dao itself imports neither hbkit's internal packages (the
// client's wire code may, behind package hbase) nor the fake. (dao's
// tests may import index and the fake: ExampleWithWriter wires dao to
// index the way an application does.)
func TestForbiddenImports(t *testing.T) {
	list := func(format string) []string {
		out, err := exec.Command("go", "list", "-f", format, ".").Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		return strings.Fields(string(out))
	}
	check := func(what string, deps, forbidden []string) {
		for _, dep := range deps {
			for _, f := range forbidden {
				if dep == strings.TrimSuffix(f, "/") || strings.HasPrefix(dep, f) {
					t.Errorf("dao %s %s", what, dep)
				}
			}
		}
	}
	const mod = "github.com/hbkit/hbkit/"
	check("depends on", list(`{{join .Deps "\n"}}`), []string{
		mod + "admin/", mod + "admin", mod + "cmd/", mod + "cli",
		mod + "examples/", mod + "examples", mod + "integration/", mod + "integration",
	})
	check("imports", list(`{{join .Imports "\n"}}`), []string{
		mod + "internal/", mod + "hbase/fake", mod + "hbase/conformance",
	})
	imports := list(`{{join .Imports "\n"}}`)
	for _, want := range []string{mod + "schema", mod + "hbase/hbapi"} {
		found := false
		for _, imp := range imports {
			found = found || imp == want
		}
		if !found {
			t.Errorf("dao does not import %s; is go list working?", want)
		}
	}
}
