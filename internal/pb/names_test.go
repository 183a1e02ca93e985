package pb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/hbkit/hbkit/internal/pb"
)

// Package is the protobuf package of every .proto file of ours. Other
// HBase clients register HBase's messages under their own names (gohbase:
// files "Client.proto"… in package "pb"; HBase's Java classes:
// "hbase.pb"), and a program linking two clients that register one file
// path or full name twice panics at start: ours must be unclaimable.
const Package = "hbkit.internal.pb"

func TestRegisteredNamesCannotCollide(t *testing.T) {
	protos, err := filepath.Glob("../../proto/hbkit/*.proto")
	if err != nil || len(protos) == 0 {
		t.Fatalf("no .proto files found: %v", err)
	}
	ours := 0
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		path, pkg := fd.Path(), string(fd.Package())
		for _, claimed := range []string{"pb", "hbase.pb"} {
			if pkg == claimed || strings.HasPrefix(pkg, claimed+".") {
				t.Errorf("file %s registers package %q, which other HBase clients use", path, pkg)
			}
		}
		if pkg != Package {
			return true
		}
		ours++
		if !strings.HasPrefix(path, "hbkit/") {
			t.Errorf("file %s of package %s is registered at a path another client may use", path, pkg)
		}
		checkNames(t, path, fd.Messages())
		for i := range fd.Enums().Len() {
			checkName(t, path, fd.Enums().Get(i).FullName())
		}
		for i := range fd.Services().Len() {
			checkName(t, path, fd.Services().Get(i).FullName())
		}
		return true
	})
	if ours != len(protos) {
		t.Errorf("%d files registered in package %s, want one per proto/hbkit/*.proto (%d)", ours, Package, len(protos))
	}
	if _, err := os.Stat("../../proto/Client.proto"); err == nil {
		t.Errorf("proto/Client.proto exists: the protos live in proto/hbkit so their registered paths are hbkit/…")
	}
}

func checkNames(t *testing.T, path string, ms protoreflect.MessageDescriptors) {
	for i := range ms.Len() {
		m := ms.Get(i)
		checkName(t, path, m.FullName())
		for j := range m.Enums().Len() {
			checkName(t, path, m.Enums().Get(j).FullName())
		}
		checkNames(t, path, m.Messages())
	}
}

func checkName(t *testing.T, path string, name protoreflect.FullName) {
	if !strings.HasPrefix(string(name), Package+".") {
		t.Errorf("%s registers %s outside package %s", path, name, Package)
	}
}
