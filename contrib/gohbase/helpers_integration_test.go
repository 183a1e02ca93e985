//go:build integration

package gohbase_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/tsuna/gohbase"

	hbgohbase "github.com/hbkit/hbkit/contrib/gohbase"
	"github.com/hbkit/hbkit/hbase"
)

// The integration tests run against a real HBase (make test-gohbase, or
// tools/with-hbase.sh). HBKIT_ZK names the ZooKeeper quorum (default
// 127.0.0.1:2181). Every test creates run-unique tables and drops them.

func zkQuorum() string {
	if zk := os.Getenv("HBKIT_ZK"); zk != "" {
		return zk
	}
	return "127.0.0.1:2181"
}

// gohbaseClients returns a gohbase data and admin client, closed when tb
// ends.
func gohbaseClients(tb testing.TB) (gohbase.Client, gohbase.AdminClient) {
	tb.Helper()
	// gohbase logs every region it locates at INFO.
	quiet := gohbase.Logger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	gc := gohbase.NewClient(zkQuorum(), quiet)
	tb.Cleanup(gc.Close)
	return gc, gohbase.NewAdminClient(zkQuorum(), quiet)
}

// adapter returns the adapter over fresh gohbase clients.
func adapter(tb testing.TB) *hbgohbase.Client {
	tb.Helper()
	gc, ac := gohbaseClients(tb)
	c, err := hbgohbase.New(gc, hbgohbase.WithAdminClient(ac))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// nativeClient returns hbkit's own client, closed when tb ends.
func nativeClient(tb testing.TB) *hbase.Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, zkQuorum())
	if err != nil {
		tb.Fatalf("hbase.New(%s): %v", zkQuorum(), err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
