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

// TestIntegrationDemo runs the demo with a small workload against the
// HBase at HBKIT_ZK, in a namespace of its own (so that it never touches
// the demo's own sms tables), and checks what it measured.
func TestIntegrationDemo(t *testing.T) {
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
	ns := fmt.Sprintf("hbkit_exsms_%d", time.Now().UnixNano()%1e9)
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
	cfg.Messages, cfg.Mobiles, cfg.Accounts, cfg.Days = 3000, 1500, 30, 5
	cfg.Batch, cfg.Keep = 300, true
	var out bytes.Buffer
	d, err := newDemo(cfg, c, &out)
	if err != nil {
		t.Fatal(err)
	}
	// run checks every query's answer against the workload.
	if err := d.run(ctx); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	t.Logf("demo output:\n%s", out.String())
	r, err := d.measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, g := range r.measured {
		total += g.Rows
	}
	if len(r.measured) != 20 || total != cfg.Messages {
		t.Errorf("measured %d rows in %d regions, want %d in 20", total, len(r.measured), cfg.Messages)
	}
	if r.skew.MaxOverMean > MaxOverMean {
		t.Errorf("max/mean %.2f > %.1f", r.skew.MaxOverMean, MaxOverMean)
	}
	if !strings.Contains(out.String(), "messages/s with the index") {
		t.Errorf("no throughput line in the output")
	}
	// The tables were created in the test's namespace, not as sms.
	for _, name := range []string{ns + ":sms", ns + ":sms_index"} {
		if ok, err := hc.TableExists(ctx, name); err != nil || !ok {
			t.Errorf("TableExists(%s) = %v, %v; want true", name, ok, err)
		}
	}
}
