//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/examples/internal/nsclient"
	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationOrders runs the example with a small workload against
// the HBase at HBKIT_ZK, in a namespace of its own; Run checks every
// query's answer against what it wrote.
func TestIntegrationOrders(t *testing.T) {
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		t.Skip("HBKIT_ZK is not set; run with make test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	hc, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	ns := fmt.Sprintf("hbkit_exorders_%d", time.Now().UnixNano()%1e9)
	c, cleanup, err := nsclient.Setup(ctx, hc, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cleanup(context.Background()); err != nil {
			t.Errorf("cleanup of namespace %s: %v", ns, err)
		}
	}()
	cfg := DefaultConfig()
	cfg.Rows, cfg.Days, cfg.Batch = 2000, 10, 250
	var out bytes.Buffer
	if err := Run(ctx, cfg, c, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	t.Logf("output:\n%s", out.String())
	if !strings.Contains(out.String(), "through the index customer_order_by_date") {
		t.Errorf("output lacks the query by date")
	}
	for _, name := range []string{ns + ":customer_order", ns + ":customer_order_by_date"} {
		if ok, err := hc.TableExists(ctx, name); err != nil || ok {
			t.Errorf("TableExists(%s) = %v, %v after the run; want false, nil", name, ok, err)
		}
	}
}
