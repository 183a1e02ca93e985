//go:build integration

package integration_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/integration/hbasetest"
	"github.com/hbkit/hbkit/internal/zk"
)

// This package shows the harness in use: TestMain gets an HBase for the
// package (a container when an engine answers; see hbasetest.Choose), and the
// tests read its quorum, as every hbkit integration test reads HBKIT_ZK.

func TestMain(m *testing.M) { os.Exit(hbasetest.Main(m)) }

func client(t *testing.T) *hbase.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := hbase.New(ctx, hbasetest.ZK(t))
	if err != nil {
		t.Fatalf("hbase.New(%s): %v", hbasetest.ZK(t), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestHarnessConformance runs the client conformance suite, the one the
// in-memory fake and hbase's own integration tests run, against the HBase the
// harness gave this package.
func TestHarnessConformance(t *testing.T) {
	c := client(t)
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("harness"),
		Timeout:      3 * time.Minute,
	})
}

// TestHarnessAdvertisedAddress checks what the servers publish: the master
// and the region server holding hbase:meta must be at addresses this host
// can dial (a container must not advertise its own host name).
func TestHarnessAdvertisedAddress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := zk.Locate(ctx, strings.Split(hbasetest.ZK(t), ","))
	if err != nil {
		t.Fatalf("zk.Locate(%s): %v", hbasetest.ZK(t), err)
	}
	for _, s := range []struct {
		what string
		addr string
	}{{"master", b.Master.Server.Addr()}, {"hbase:meta", b.Meta.Server.Addr()}} {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", s.addr)
		if err != nil {
			t.Errorf("%s advertised at %s, which does not answer here: %v", s.what, s.addr, err)
			continue
		}
		conn.Close()
		t.Logf("%s at %s", s.what, s.addr)
	}
	c := client(t)
	if _, err := c.ListTables(ctx, "default"); err != nil {
		t.Fatalf("ListTables: %v", err)
	}
}
