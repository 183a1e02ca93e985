package nsclient

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Open is the examples' integration-test setup: it connects to the HBase
// at HBKIT_ZK (skipping t when that is unset), with the Kerberos and TLS
// settings of the environment (SecurityOptions), and returns a client whose
// tables live in a fresh namespace named prefix_N. The namespace, its
// tables and the connection are removed when t ends.
func Open(ctx context.Context, t testing.TB, prefix string) *Namespaced {
	t.Helper()
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		t.Skip("HBKIT_ZK is not set; run with make test")
	}
	hc, err := Dial(ctx, zk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hc.Close() })
	ns := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	c, cleanup, err := Setup(ctx, hc, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cleanup(context.Background()); err != nil {
			t.Errorf("cleanup of namespace %s: %v", ns, err)
		}
	})
	return c
}
