//go:build integration

package hbase

import (
	"context"
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestIntegrationBootstrapWithoutZooKeeper (issue 36): a client given
// bootstrap servers (NewFromBootstrap, HBase's RPC connection registry)
// creates a table, writes, reads, scans and drops it with every dial to
// ZooKeeper refused: the master and then a region server serve the
// registry. The addresses come from a ZooKeeper client first, as an
// operator would copy them from the cluster's hbase-site.xml.
func TestIntegrationBootstrapWithoutZooKeeper(t *testing.T) {
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	zkAddrs, err := parseQuorum(zkq)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	viaZK := adminITClient(t)
	master, err := viaZK.masterAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := viaZK.metaAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct{ name, servers string }{
		{"master", master},
		{"region server, after a dead address", "127.0.0.1:1," + meta},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var dialled []string
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				dialled = append(dialled, addr)
				mu.Unlock()
				if slices.Contains(zkAddrs, addr) {
					return nil, errors.New("ZooKeeper is unreachable for this client")
				}
				var d net.Dialer
				return d.DialContext(ctx, network, addr)
			}
			c, err := NewFromBootstrap(ctx, tt.servers, WithDialer(dial), WithOperationTimeout(30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			table := adminITName("bootstrap")
			if err := c.CreateTable(ctx, TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "cf"}}}, [][]byte{[]byte("m")}); err != nil {
				t.Fatalf("CreateTable: %v", err)
			}
			defer func() {
				dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
				defer dcancel()
				_ = c.DisableTable(dctx, table)
				if err := c.DeleteTable(dctx, table); err != nil {
					t.Errorf("DeleteTable: %v", err)
				}
			}()
			for _, row := range []string{"a", "z"} {
				if err := c.Put(ctx, &Put{Table: table, Row: []byte(row), Values: map[string]map[string][]byte{"cf": {"q": []byte("v" + row)}}}); err != nil {
					t.Fatalf("Put(%s): %v", row, err)
				}
			}
			res, err := c.Get(ctx, &Get{Table: table, Row: []byte("z")})
			if err != nil || string(res.Value([]byte("cf"), []byte("q"))) != "vz" {
				t.Fatalf("Get(z) = %v, %v; want vz", res, err)
			}
			sc, err := c.Scan(ctx, &Scan{Table: table})
			if err != nil {
				t.Fatalf("Scan: %v", err)
			}
			var rows []string
			for sc.Next() {
				rows = append(rows, string(sc.Result().Row()))
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("Scan: %v", err)
			}
			sc.Close()
			if !slices.Equal(rows, []string{"a", "z"}) {
				t.Errorf("Scan rows = %q, want a, z", rows)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, addr := range dialled {
				if slices.Contains(zkAddrs, addr) {
					t.Errorf("dialled ZooKeeper at %s", addr)
				}
			}
		})
	}
}

// TestIntegrationBootstrapNoServer: bootstrap servers that all refuse
// fail the first call with ErrNoBootstrapServer, naming each address.
func TestIntegrationBootstrapNoServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := NewFromBootstrap(ctx, "127.0.0.1:1,127.0.0.1:2", WithOperationTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.TableExists(ctx, "anything")
	if !errors.Is(err, ErrNoBootstrapServer) || !strings.Contains(err.Error(), "127.0.0.1:2") {
		t.Errorf("TableExists = %v, want ErrNoBootstrapServer naming 127.0.0.1:2", err)
	}
}

// TestIntegrationConfigRPCRegistry: NewFromConfig on an hbase-site.xml
// that names the RPC connection registry and a ZooKeeper quorum nobody
// serves reaches HBase through the bootstrap servers alone.
func TestIntegrationConfigRPCRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	master, err := adminITClient(t).masterAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	site := `<?xml version="1.0"?>
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1:1</value></property>
  <property><name>hbase.client.registry.impl</name><value>org.apache.hadoop.hbase.client.RpcConnectionRegistry</value></property>
  <property><name>hbase.client.bootstrap.servers</name><value>` + master + `</value></property>
  <property><name>hbase.client.operation.timeout</name><value>20000</value></property>
</configuration>`
	path := t.TempDir() + "/hbase-site.xml"
	if err := os.WriteFile(path, []byte(site), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewFromConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, err := c.TableExists(ctx, "hbase:meta"); err != nil || !ok {
		t.Fatalf("TableExists(hbase:meta) = %v, %v; want true", ok, err)
	}
	if c.opts.retryBudget != 20*time.Second {
		t.Errorf("operation timeout %v, want 20s from hbase.client.operation.timeout", c.opts.retryBudget)
	}
}
