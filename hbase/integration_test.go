//go:build integration

package hbase_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
)

// The data-path integration tests run against a real HBase (make
// hbase-up, or tools/with-hbase.sh). HBKIT_ZK names the ZooKeeper quorum
// (default 127.0.0.1:2181).

func itClient(t testing.TB, opts ...hbase.Option) *hbase.Client {
	t.Helper()
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := hbase.New(ctx, zkq, opts...)
	if err != nil {
		t.Fatalf("New(%s): %v", zkq, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestIntegrationConformance(t *testing.T) {
	c := itClient(t)
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("it"),
		Timeout:      3 * time.Minute,
	})
}
