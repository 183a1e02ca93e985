//go:build integration

package hbase_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/ittest"
)

// The stall tests stop the HBase JVM with SIGSTOP (ittest.StallJVM says
// which, and when they run).

const (
	stallOpTimeout  = 6 * time.Second
	stallRPCTimeout = 2 * time.Second
	stallRows       = 200
)

// stallOp is one kind of call the workers make, always with
// context.Background().
type stallOp struct {
	name string
	call func(i int) error
}

func stallOps(c *hbase.Client, table string) []stallOp {
	ctx := context.Background()
	put := func(i int) *hbase.Put {
		return &hbase.Put{Table: table, Row: rowKey(i % stallRows),
			Values: map[string]map[string][]byte{"cf": {"q": fmt.Appendf(nil, "v%d", i%stallRows)}}}
	}
	return []stallOp{
		{"get", func(i int) error {
			_, err := c.Get(ctx, &hbase.Get{Table: table, Row: rowKey(i % stallRows)})
			return err
		}},
		{"put", func(i int) error { return c.Put(ctx, put(i)) }},
		{"scan", func(i int) error {
			start := i % (stallRows - 20)
			sc, err := c.Scan(ctx, &hbase.Scan{Table: table, StartRow: rowKey(start), Limit: 20, Caching: 20})
			if err != nil {
				return err
			}
			defer sc.Close()
			n := 0
			for sc.Next() {
				n++
			}
			if err := sc.Err(); err != nil {
				return err
			}
			if n != 20 {
				return fmt.Errorf("scan from %d: %d rows, want 20", start, n)
			}
			return nil
		}},
		{"batch", func(i int) error {
			var actions []hbase.Action
			for j := range 5 {
				actions = append(actions, put(i+j), &hbase.Get{Table: table, Row: rowKey((i + j + 50) % stallRows)})
			}
			_, err := c.Batch(ctx, actions)
			return err
		}},
	}
}

type stallCall struct {
	op    string
	start time.Time
	took  time.Duration
	err   error
}

// checkStallError checks that a call that failed during a stall failed
// with a typed, retryable timeout.
func checkStallError(t *testing.T, call stallCall) {
	t.Helper()
	var be *hbase.BatchError
	if errors.As(call.err, &be) {
		for _, f := range be.Failed {
			if !errors.Is(f.Err, hbase.ErrTimeout) || !hbase.IsRetryable(f.Err) {
				t.Errorf("%s action %d: %v (retryable %v), want a retryable hbase.ErrTimeout", call.op, f.Index, f.Err, hbase.IsRetryable(f.Err))
			}
		}
		return
	}
	if !errors.Is(call.err, hbase.ErrTimeout) || !hbase.IsRetryable(call.err) {
		t.Errorf("%s: %v (retryable %v), want a retryable hbase.ErrTimeout", call.op, call.err, hbase.IsRetryable(call.err))
	}
}

// runUntilFailure runs every op in its own goroutine, in a loop, until
// the op's first failure; it returns every call made.
func runUntilFailure(ops []stallOp, started chan<- struct{}) []stallCall {
	var mu sync.Mutex
	var calls []stallCall
	var wg sync.WaitGroup
	var startOnce sync.WaitGroup
	startOnce.Add(len(ops))
	for _, op := range ops {
		wg.Go(func() {
			first := true
			for i := 0; ; i++ {
				t0 := time.Now()
				err := op.call(i)
				took := time.Since(t0)
				mu.Lock()
				calls = append(calls, stallCall{op: op.name, start: t0, took: took, err: err})
				mu.Unlock()
				if first {
					first = false
					startOnce.Done()
				}
				if err != nil {
					return
				}
			}
		})
	}
	startOnce.Wait()
	close(started)
	wg.Wait()
	return calls
}

// untilAllSucceed runs every op once per round until a round in which all
// succeed, and returns how long that took.
func untilAllSucceed(t *testing.T, ops []stallOp, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var last []string
	for round := 0; time.Since(start) < limit; round++ {
		last = last[:0]
		for _, op := range ops {
			if err := op.call(round); err != nil {
				last = append(last, fmt.Sprintf("%s: %v", op.name, err))
			}
		}
		if len(last) == 0 {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("calls still failing %v after the server resumed: %s", limit, strings.Join(last, "; "))
	return 0
}

func stallSetup(t *testing.T) (c *hbase.Client, table string, ops []stallOp, baseGoroutines int) {
	t.Helper()
	admin := itClient(t) // default timeouts, for the table
	table = itTable(t, admin, "stall", [][]byte{rowKey(stallRows / 2)})
	putRows(t, itCtx(t, time.Minute), admin, table, 0, stallRows)
	c = itClient(t, hbase.WithOperationTimeout(stallOpTimeout), hbase.WithRPCTimeout(stallRPCTimeout))
	ops = stallOps(c, table)
	// Warm up: connections, region locations.
	untilAllSucceed(t, ops, 30*time.Second)
	return c, table, ops, ittest.SettledGoroutines()
}

// TestIntegrationStall: the JVM stopped for twice the operation timeout
// (within ZooKeeper's session timeout, so HBase carries on when it
// resumes). Every call under context.Background() returns within the
// operation timeout plus 10% with a retryable hbase.ErrTimeout; no
// goroutine is left behind; after SIGCONT the same client serves calls
// again within 10s.
func TestIntegrationStall(t *testing.T) {
	pid, _ := ittest.StallJVM(t)
	ittest.StopWithinSession(t, 2*stallOpTimeout)
	_, _, ops, base := stallSetup(t)

	started := make(chan struct{})
	done := make(chan []stallCall, 1)
	go func() { done <- runUntilFailure(ops, started) }()
	<-started // every op has completed one call
	stopAt := time.Now()
	resume := ittest.StopJVM(t, pid)
	t.Logf("SIGSTOP %d", pid)

	var calls []stallCall
	select {
	case calls = <-done:
	case <-time.After(2 * stallOpTimeout):
		resume()
		t.Fatalf("calls still running %v into the stop", 2*stallOpTimeout)
	}
	returned := time.Since(stopAt)
	limit := stallOpTimeout + stallOpTimeout/10
	var failed int
	for _, call := range calls {
		if call.err == nil {
			continue
		}
		failed++
		if call.took > limit {
			t.Errorf("%s took %v, more than the operation timeout %v + 10%%", call.op, call.took.Round(time.Millisecond), stallOpTimeout)
		}
		checkStallError(t, call)
		t.Logf("%s failed after %v: %v", call.op, call.took.Round(time.Millisecond), call.err)
	}
	if failed != len(ops) {
		t.Errorf("%d calls failed during the stop, want one per op (%d)", failed, len(ops))
	}
	t.Logf("%d calls; all returned %v after SIGSTOP", len(calls), returned.Round(time.Millisecond))

	// Still stopped: what runs now besides the connections' own loops is
	// bounded background work (abandoned ZooKeeper reads, scanner
	// closes); it must be gone once the server answers again.
	t.Logf("goroutines during the stop: %d (before: %d)", runtime.NumGoroutine(), base)
	time.Sleep(time.Until(stopAt.Add(2 * stallOpTimeout)))
	resume()
	resumed := time.Now()
	t.Logf("SIGCONT %d after %v", pid, resumed.Sub(stopAt).Round(time.Millisecond))

	took := untilAllSucceed(t, ops, 10*time.Second)
	t.Logf("the same client served Get, Put, Scan and Batch again %v after SIGCONT", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("calls succeeded again only %v after SIGCONT, want within 10s", took)
	}
	n := ittest.SettleGoroutines(t, base, 15*time.Second)
	t.Logf("goroutines: %d before the stall, %d after", base, n)
}

// TestIntegrationStallPastSession: the JVM stopped for longer than its
// ZooKeeper session timeout. A standalone HBase aborts when it resumes
// (its sessions expired); HBKIT_STALL_RESTART_CMD waits for that and
// starts it again on the same state and ports. The client made before
// the stop serves calls again without being recreated, and reads the
// rows written before.
func TestIntegrationStallPastSession(t *testing.T) {
	pid, _ := ittest.StallJVM(t)
	restartCmd := os.Getenv("HBKIT_STALL_RESTART_CMD")
	session, _ := strconv.Atoi(os.Getenv("HBKIT_STALL_ZK_SESSION"))
	if restartCmd == "" || session <= 0 {
		t.Skip("HBKIT_STALL_RESTART_CMD or HBKIT_STALL_ZK_SESSION not set: make test-stall runs this test")
	}
	c, table, ops, base := stallSetup(t)
	stop := time.Duration(session)*time.Second + 10*time.Second

	started := make(chan struct{})
	done := make(chan []stallCall, 1)
	go func() { done <- runUntilFailure(ops, started) }()
	<-started
	stopAt := time.Now()
	resume := ittest.StopJVM(t, pid)
	t.Logf("SIGSTOP %d for %v (ZooKeeper session timeout %ds)", pid, stop, session)
	calls := <-done
	limit := stallOpTimeout + stallOpTimeout/10
	for _, call := range calls {
		if call.err != nil {
			if call.took > limit {
				t.Errorf("%s took %v, more than the operation timeout %v + 10%%", call.op, call.took.Round(time.Millisecond), stallOpTimeout)
			}
			checkStallError(t, call)
		}
	}
	time.Sleep(time.Until(stopAt.Add(stop)))
	resume()
	t.Logf("SIGCONT %d after %v; restarting", pid, time.Since(stopAt).Round(time.Millisecond))

	cmd := exec.Command("sh", "-c", restartCmd)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v", restartCmd, err)
	}
	took := untilAllSucceed(t, ops, 90*time.Second)
	t.Logf("the same client served Get, Put, Scan and Batch again %v after HBase was ready", took.Round(time.Millisecond))
	// Rows written before the stop survived the abort (WAL replay).
	res, err := c.Get(itCtx(t, 30*time.Second), &hbase.Get{Table: table, Row: rowKey(stallRows - 1)})
	if err != nil || string(res.Value([]byte("cf"), []byte("q"))) != fmt.Sprintf("v%d", stallRows-1) {
		t.Errorf("row written before the stop: %v, %v", res, err)
	}
	n := ittest.SettleGoroutines(t, base, 15*time.Second)
	t.Logf("goroutines: %d before the stall, %d after", base, n)
}
