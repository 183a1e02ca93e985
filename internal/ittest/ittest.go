// Package ittest holds what the integration tests of several hbkit
// packages share. It is imported by tests only.
//
// Dropping a pre-split table takes about 0.7 s of a real HBase's time
// (disable, then delete); a test that waited for the drops of its tables
// before the next test began paid that for every table. DropLater drops
// them in the background instead, and Main waits for every drop before
// the test binary exits:
//
//	func TestMain(m *testing.M) { os.Exit(ittest.Main(m)) }
package ittest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// dropTimeout bounds the drop of one test's tables.
const dropTimeout = 2 * time.Minute

var (
	drops    sync.WaitGroup
	dropErrs atomic.Int64

	mu      sync.Mutex
	dropper *hbase.Client // connected on first use, closed by Main
)

// ZK returns the ZooKeeper quorum of the HBase under test: HBKIT_ZK, or
// 127.0.0.1:2181.
func ZK() string {
	if zk := os.Getenv("HBKIT_ZK"); zk != "" {
		return zk
	}
	return "127.0.0.1:2181"
}

// DropLater drops tables (those that exist) when tb ends, in the
// background, through a client of the package's own: tests close theirs
// when they end. A drop that fails fails the run (see Main).
func DropLater(tb testing.TB, tables ...string) {
	tb.Helper()
	c := client(tb)
	tb.Cleanup(func() {
		drops.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
			defer cancel()
			for _, t := range tables {
				if ok, err := c.TableExists(ctx, t); err != nil || !ok {
					continue
				}
				_ = c.DisableTable(ctx, t) // a disabled table is dropped all the same
				if err := c.DeleteTable(ctx, t); err != nil {
					dropErrs.Add(1)
					fmt.Fprintf(os.Stderr, "ittest: drop %s: %v\n", t, err)
				}
			}
		})
	})
}

// Connect returns a client of the HBase under test (ZK) with opts,
// closed when tb ends.
func Connect(tb testing.TB, opts ...hbase.Option) *hbase.Client {
	tb.Helper()
	c := dial(tb, opts...)
	tb.Cleanup(func() { c.Close() })
	return c
}

// dial connects a client of the HBase under test, or fails tb.
func dial(tb testing.TB, opts ...hbase.Option) *hbase.Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
	defer cancel()
	c, err := hbase.New(ctx, ZK(), opts...)
	if err != nil {
		tb.Fatalf("ittest: hbase.New(%s): %v", ZK(), err)
	}
	return c
}

// client returns the client that drops tables, connecting it on first
// use; Main closes it.
func client(tb testing.TB) *hbase.Client {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if dropper == nil {
		dropper = dial(tb)
	}
	return dropper
}

// Main runs the tests of m, waits for the drops DropLater started, and
// returns the exit code: m's, or 1 if a drop failed.
func Main(m *testing.M) int {
	code := m.Run()
	drops.Wait()
	mu.Lock()
	if dropper != nil {
		dropper.Close()
		dropper = nil
	}
	mu.Unlock()
	if n := dropErrs.Load(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: ittest: %d tables could not be dropped\n", n)
		code = 1
	}
	return code
}
