//go:build integration

package hbasecontainer_test

import (
	"context"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbasecontainer"
)

// TestIntegrationRun starts the image HBKIT_IMAGE names on published
// ports and checks that ZooKeeper, the master and the region server answer
// on the host ports the container reports. The store round trip through
// it is tools/scratch-module.sh's test.
func TestIntegrationRun(t *testing.T) {
	image := os.Getenv("HBKIT_IMAGE")
	if image == "" {
		t.Skip("HBKIT_IMAGE is unset (tools/image/build.sh builds the image)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ctr, err := hbasecontainer.Run(ctx, image, hbasecontainer.WithHeap("512m"))
	if ctr != nil {
		t.Cleanup(func() {
			if err := ctr.Terminate(context.Background()); err != nil {
				t.Errorf("terminate: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	p := ctr.Ports()
	for name, port := range map[string]int{"ZooKeeper": p.ZK, "master": p.Master, "region server": p.RegionServer} {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 5*time.Second)
		if err != nil {
			t.Errorf("%s on host port %d: %v", name, port, err)
			continue
		}
		conn.Close()
	}
	zk, err := ctr.ConnectionString(ctx)
	if err != nil || zk != net.JoinHostPort("127.0.0.1", strconv.Itoa(p.ZK)) {
		t.Errorf("ConnectionString = %q, %v", zk, err)
	}
	st, err := ctr.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mode := string(st.HostConfig.NetworkMode); mode == "host" {
		t.Errorf("network mode %q, want published ports", mode)
	}
}
