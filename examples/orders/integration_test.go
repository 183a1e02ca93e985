//go:build integration

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/examples/internal/nsclient"
)

// TestIntegrationOrders runs the example with a small workload against
// the HBase at HBKIT_ZK, in a namespace of its own; Run checks every
// query's answer against what it wrote.
func TestIntegrationOrders(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := nsclient.Open(ctx, t, "hbkit_exorders")
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
	for _, name := range []string{"customer_order", "customer_order_by_date"} {
		if ok, err := c.TableExists(ctx, name); err != nil || ok {
			t.Errorf("TableExists(%s:%s) = %v, %v after the run; want false, nil", c.Namespace(), name, ok, err)
		}
	}
}
