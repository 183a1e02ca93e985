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

// TestIntegrationLogWide runs the example against the HBase at HBKIT_ZK,
// in a namespace of its own; Run checks every answer against what it
// wrote.
func TestIntegrationLogWide(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := nsclient.Open(ctx, t, "hbkit_exlogwide")
	cfg := DefaultConfig()
	cfg.Events = 5000
	var out bytes.Buffer
	if err := Run(ctx, cfg, c, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	t.Logf("output:\n%s", out.String())
	if !strings.Contains(out.String(), "in time order") {
		t.Errorf("output lacks the range read")
	}
}
