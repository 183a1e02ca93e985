//go:build integration

package index_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
)

// TestIntegrationIndexStall stops HBase's JVM (SIGSTOP) for twice the
// client's operation timeout while writers load SMS records through dao in
// every write mode, as TestIntegrationIndexRestart does around a kill: new
// messages, and in the modes that rewrite, updates in place, moves and
// deletes. A stopped server keeps its sockets open and answers nothing, so
// the writers learn of it only from their timeouts, and the calls they
// gave up on may still run when it resumes.
//
//   - Every writer's call running while the server is stopped returns
//     within the time its operations may take (stallCallLimit): none waits
//     for the server. A call made after the stop acknowledges no record
//     before the server resumes, and every record that fails, fails with
//     hbase.ErrTimeout (or hbase.ErrOutcomeUnknown, a conditional write
//     that may have been applied); every mode has such failures.
//   - Once it resumes, every mode has a write acknowledged within 30s, on
//     the same stores and client.
//   - Afterwards, as after the restart: every acknowledged record reads
//     back through the data table and through the index, readers return
//     only what the data table holds, and Check in ModeRepair then
//     ModeVerify finds nothing missing, orphaned or stale.
//   - No goroutine of the writers' stores is left behind once they stopped
//     and flushed.
//
// make test-stall (tools/test-stall.sh) runs it against an HBase of its
// own.
func TestIntegrationIndexStall(t *testing.T) {
	pid, _ := ittest.StallJVM(t)
	const (
		writersPerMode = 2
		batch          = 20
		opTimeout      = 6 * time.Second
		rpcTimeout     = 2 * time.Second
		before         = 5 * time.Second // writing before the stop
		stall          = 2 * opTimeout
		after          = 5 * time.Second // writing after every mode had a write acknowledged again
		resumeLimit    = 30 * time.Second
	)
	ittest.StopWithinSession(t, stall)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The tables are created with the default timeouts; the writers' client
	// has the short ones.
	admin := itConnect(t)
	tables := outageTables(t, ctx, admin)
	c := itConnect(t, hbase.WithOperationTimeout(opTimeout), hbase.WithRPCTimeout(rpcTimeout))
	backends := func(tb testing.TB, mode schema.WriteMode) backend {
		b := tables(tb, mode)
		b.c = c
		return b
	}
	// The writers' client connects before the goroutines are counted: its
	// connections' are not the stores'. That includes the master's, which
	// the stores call to read their index tables' state (DescribeTable).
	for _, mc := range modeCases {
		b := backends(t, mc.mode)
		for _, table := range []string{b.data, b.index} {
			if _, err := c.Get(ctx, &hbase.Get{Table: table, Row: []byte("warm-up")}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.DescribeTable(ctx, b.index); err != nil {
			t.Fatal(err)
		}
	}
	baseGoroutines := ittest.SettledGoroutines()

	il := startIndexLoad(t, ctx, backends, writersPerMode, batch)
	time.Sleep(before)
	resume := ittest.StopJVM(t, pid)
	stoppedAt := time.Now()
	t.Logf("HBase (pid %d) stopped", pid)
	time.Sleep(stall)
	resumingAt := time.Now() // before SIGCONT: no answer came before it
	resume()
	t.Logf("HBase resumed after %.1fs", time.Since(stoppedAt).Seconds())

	il.waitResumed(t, resumingAt, resumeLimit)
	t.Logf("every mode writing again %.1fs after HBase resumed", time.Since(resumingAt).Seconds())
	time.Sleep(after)
	il.stop()
	checkStallCalls(t, il, stoppedAt, resumingAt, opTimeout)
	il.finish(t, ctx, backends, stoppedAt)

	// The writers' stores started nothing that outlives them: the
	// goroutines are back to what the client had before they started (its
	// connections replaced after the stall, as many as before).
	ittest.SettleGoroutines(t, baseGoroutines, 15*time.Second)
}

// stallCallLimit bounds a writer's call in mode while the server does not
// answer, as a number of operations that time out one after the other,
// each after the operation timeout plus a tenth (as the client's own
// stall test allows). A client call that times out fails every record it
// carries, so a write goes on after one only where the next call is for
// other records: a strict write sends a blind first attempt and then
// conditional writes (and rewrites that lost, with their reads) one after
// another, so two can time out in a row (12.04s measured); the limit
// allows it three. A mutable write sends its rows, entries and the
// validations riding on them in one Batch, and the cleanup they call for
// after it; the limit allows two. The other modes send one Batch.
func stallCallLimit(mode schema.WriteMode, opTimeout time.Duration) time.Duration {
	ops := 1
	switch mode {
	case schema.Strict:
		ops = 3
	case schema.Mutable:
		ops = 2
	}
	return time.Duration(ops) * (opTimeout + opTimeout/10)
}

// checkStallCalls checks the writers' calls that ran while the server was
// stopped (between stoppedAt and resumingAt, just before SIGCONT): each
// returned within its mode's stallCallLimit; none made after the stop
// acknowledged a record before the server resumed; every record that
// failed, failed with hbase.ErrTimeout or hbase.ErrOutcomeUnknown; and
// every mode had failures.
func checkStallCalls(t *testing.T, il *indexLoad, stoppedAt, resumingAt time.Time, opTimeout time.Duration) {
	t.Helper()
	type stat struct {
		calls, failed int
		longest       time.Duration
	}
	stats := map[schema.WriteMode]*stat{}
	for _, l := range il.loads {
		st := stats[l.mode]
		if st == nil {
			st = &stat{}
			stats[l.mode] = st
		}
		limit := stallCallLimit(l.mode, opTimeout)
		for _, call := range l.calls {
			end := call.start.Add(call.took)
			if end.Before(stoppedAt) || call.start.After(resumingAt) {
				continue // not while the server was stopped
			}
			st.calls++
			st.longest = max(st.longest, call.took)
			if call.took > limit {
				t.Errorf("%v: a call made %v after the stop took %v, over %v", l.mode, call.start.Sub(stoppedAt).Round(time.Millisecond), call.took.Round(time.Millisecond), limit)
			}
			// An answer on its way when the server stopped may still
			// arrive; a call made after that cannot get one.
			if call.acked > 0 && call.start.After(stoppedAt.Add(50*time.Millisecond)) && end.Before(resumingAt) {
				t.Errorf("%v: a call made %v after the stop acknowledged %d records before the server resumed", l.mode, call.start.Sub(stoppedAt).Round(time.Millisecond), call.acked)
			}
			if len(call.errs) > 0 {
				st.failed++
			}
			for _, err := range call.errs {
				if !errors.Is(err, hbase.ErrTimeout) && !errors.Is(err, hbase.ErrOutcomeUnknown) {
					t.Errorf("%v: a record failed during the stall with %v, neither hbase.ErrTimeout nor hbase.ErrOutcomeUnknown", l.mode, err)
				}
			}
		}
	}
	for _, mc := range modeCases {
		st := stats[mc.mode]
		if st == nil || st.failed == 0 {
			t.Errorf("%v: no call failed while the server was stopped (%+v)", mc.mode, st)
			continue
		}
		t.Logf("%v: %d calls while the server was stopped, %d failed, the longest %v (limit %v)",
			mc.mode, st.calls, st.failed, st.longest.Round(time.Millisecond), stallCallLimit(mc.mode, opTimeout))
	}
}
