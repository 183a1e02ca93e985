//go:build integration

package zk

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestLocalHBase reads both znodes from the local HBase (see
// tools/hbase; `make hbase-up`). HBKIT_ZK overrides the ZooKeeper address.
func TestLocalHBase(t *testing.T) {
	addr := os.Getenv("HBKIT_ZK")
	if addr == "" {
		addr = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Locate(ctx, strings.Split(addr, ","))
	if err != nil {
		t.Fatalf("Locate(%s): %v", addr, err)
	}
	t.Logf("master %v (info port %d), meta %v %v", b.Master.Server, b.Master.InfoPort, b.Meta.Server, b.Meta.State)
	if b.Meta.State != StateOpen {
		t.Errorf("meta state = %v, want OPEN", b.Meta.State)
	}
	c, err := Dial(ctx, strings.Split(addr, ","))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if registered, _, err := c.RegionServer(ctx, b.Meta.Server); err != nil || !registered {
		t.Errorf("RegionServer(%v) = %v, %v; want the meta server registered", b.Meta.Server, registered, err)
	}
	gone := b.Meta.Server
	gone.StartCode--
	if registered, _, err := c.RegionServer(ctx, gone); err != nil || registered {
		t.Errorf("RegionServer(%v) = %v, %v; want an earlier process not registered", gone, registered, err)
	}
	for name, s := range map[string]ServerName{"master": b.Master.Server, "meta": b.Meta.Server} {
		if s.Host != "127.0.0.1" {
			t.Errorf("%s advertises host %q, want 127.0.0.1", name, s.Host)
		}
		if s.StartCode == 0 {
			t.Errorf("%s has no start code", name)
		}
		conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", s.Addr())
		if err != nil {
			t.Errorf("%s: dial %s: %v", name, s.Addr(), err)
			continue
		}
		conn.Close()
	}
}
