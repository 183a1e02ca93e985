package keys

import (
	"go/build"
	"strings"
	"testing"
)

// TestStandardLibraryOnly enforces the house rule that keys imports nothing but the
// standard library (pebble's TestForbiddenImports, for one package). Standard import
// paths have no dot in their first element.
func TestStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := append(append(append([]string(nil), pkg.Imports...), pkg.TestImports...), pkg.XTestImports...)
	for _, path := range imports {
		if path == "github.com/hbkit/hbkit/keys" {
			continue // the external test package imports keys itself
		}
		first, _, _ := strings.Cut(path, "/")
		if strings.Contains(first, ".") {
			t.Errorf("keys imports %q; it may use only the standard library", path)
		}
	}
}
