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

// TestIntegrationDemo runs the demo with a small workload against the
// HBase at HBKIT_ZK, in a namespace of its own (so that it never touches
// the demo's own sms tables), and checks what it measured.
func TestIntegrationDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := nsclient.Open(ctx, t, "hbkit_exsms")

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
	for _, name := range []string{"sms", "sms_index"} {
		if ok, err := c.TableExists(ctx, name); err != nil || !ok {
			t.Errorf("TableExists(%s:%s) = %v, %v; want true", c.Namespace(), name, ok, err)
		}
	}
}
