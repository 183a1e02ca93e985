package hbasetest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// Main starts an HBase (see [Start]), exports its quorum as HBKIT_ZK, runs
// the package's tests, stops the HBase, and returns the exit code for
// os.Exit. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(hbasetest.Main(m)) }
//
// An interrupt (SIGINT, SIGTERM) stops the HBase before the process exits.
func Main(m *testing.M, opts ...Option) int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	h, err := Start(ctx, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			// Interrupted while the tests run: do not leave the server behind.
			stop(h)
			os.Exit(1)
		case <-stopped:
		}
	}()
	if err := os.Setenv(EnvZK, h.ZK); err != nil {
		fmt.Fprintln(os.Stderr, "hbasetest:", err)
		stop(h)
		return 1
	}
	code := m.Run()
	if code != 0 {
		if tail := h.Logs(context.Background()); tail != "" {
			fmt.Fprintf(os.Stderr, "hbasetest: tests failed; last lines of the HBase log:\n%s\n", lastLines(tail, 40))
		}
	}
	if err := stop(h); err != nil && code == 0 {
		code = 1
	}
	return code
}

func stop(h *HBase) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := h.Stop(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return err
}

// ZK returns the ZooKeeper quorum of the HBase the tests run against
// (HBKIT_ZK, which [Main] sets), and fails the test when there is none.
func ZK(tb testing.TB) string {
	tb.Helper()
	zk := os.Getenv(EnvZK)
	if zk == "" {
		tb.Fatalf("hbasetest: %s is unset: call hbasetest.Main from TestMain, or set it", EnvZK)
	}
	return zk
}
