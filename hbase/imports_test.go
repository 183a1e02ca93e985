package hbase_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps the import graph of the README true: hbase
// knows nothing of schemas (it may use internal/ plumbing); its vocabulary,
// hbase/hbapi, uses only the standard library (and hbase/internal/flat);
// and the fake and the conformance suite depend on nothing of hbkit but
// the vocabulary: not on the native client.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	// The internal packages below hbase are its plumbing (the command
	// line, package cli, sits on top).
	internal := func(dep string) bool {
		return strings.HasPrefix(dep, mod+"internal/")
	}
	// The vocabulary and the helper it shares with the client.
	vocab := func(dep string) bool {
		return dep == mod+"hbase/hbapi" || dep == mod+"hbase/internal/flat"
	}
	tests := []struct {
		pkg     string
		allowed func(dep string) bool
		stdOnly bool // no dependency outside the module but the standard library
	}{
		{mod + "hbase", func(dep string) bool {
			return dep == mod+"hbase" || internal(dep) || vocab(dep) || strings.HasPrefix(dep, mod+"hbase/internal/")
		}, false},
		{mod + "hbase/hbapi", vocab, true},
		{mod + "hbase/fake", func(dep string) bool {
			return dep == mod+"hbase/fake" || vocab(dep)
		}, true},
		{mod + "hbase/conformance", func(dep string) bool {
			return dep == mod+"hbase/conformance" || vocab(dep)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", tc.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				if (strings.HasPrefix(dep, mod) || tc.stdOnly) && !tc.allowed(dep) {
					t.Errorf("%s imports %s", tc.pkg, dep)
				}
			}
		})
	}
}
