package hbapi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreLinksNoClient keeps the promise of package hbapi: the packages
// built on the client's vocabulary (schema, admin, index, dao) link
// neither the native client nor its wire code, so a program that stores
// data through them does not carry protobuf, ZooKeeper or Kerberos unless
// it connects with package hbase itself.
func TestCoreLinksNoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hbkit/hbkit/"
	forbidden := []string{
		mod + "hbase", // the native client itself (its subpackages are listed below)
		mod + "hbase/fake", mod + "hbase/conformance", mod + "hbase/hbasemock",
		mod + "internal/rpc", mod + "internal/pb", mod + "internal/zk", mod + "internal/cellblock",
		"google.golang.org/protobuf/", "github.com/go-zookeeper/", "github.com/jcmturner/",
	}
	for _, pkg := range []string{"schema", "admin", "index", "dao"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list -deps %s listed %q; is go list working?", pkg, deps)
		}
		for _, dep := range deps {
			for _, f := range forbidden {
				if dep == strings.TrimSuffix(f, "/") || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
