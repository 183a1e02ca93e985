//go:build integration

package hbase_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// The two scenarios below need an HBase of their own, so they skip unless
// the script that started one asks for them:
//
//	make test-restart   TestIntegrationRestart (tools/test-restart.sh)
//	make test-rs3       TestIntegrationThreeServers (tools/test-rs3.sh)

// restartRegions is the number of regions of the restart test's table:
// rows start with a digit 0-7, split at "1".."7".
const restartRegions = 8

// restartRow is the row of write seq of writer w. The leading digit
// spreads consecutive writes over every region.
func restartRow(w, seq int) []byte {
	return fmt.Appendf(nil, "%d-w%02d-%07d", (seq*7+w)%restartRegions, w, seq)
}

// restartWrite is one acknowledged write: its row and when its Put
// returned.
type restartWrite struct {
	row []byte
	at  time.Time
}

// restartWriter is one goroutine of the write loop and what it saw.
type restartWriter struct {
	acked  []restartWrite
	failed []error // the error of each Put that did not succeed
}

// TestIntegrationRestart kills HBase (SIGKILL: no flush, no clean
// shutdown) and starts it again, keeping its state, while several writers
// keep putting rows through a client with a generous retry budget. Every
// write the client acknowledged must be readable afterwards: the restarted
// master replays the dead server's WAL. Writes that failed may or may not
// be there, but must have failed with an error the caller may retry.
//
// HBKIT_RESTART_CMD is the shell command that kills and restarts the
// HBase at HBKIT_ZK; it returns when HBase is ready again.
func TestIntegrationRestart(t *testing.T) {
	restartCmd := os.Getenv("HBKIT_RESTART_CMD")
	if restartCmd == "" {
		t.Skip("HBKIT_RESTART_CMD not set: make test-restart runs this test against an HBase of its own")
	}
	const (
		writers     = 6
		before      = 5 * time.Second // writing before the kill
		after       = 5 * time.Second // writing after the first write acked by the restarted HBase
		callBudget  = 90 * time.Second
		resumeLimit = 90 * time.Second // from HBase being ready to a write acknowledged after it
	)
	c := itClient(t,
		hbase.WithRetryBudget(callBudget),
		hbase.WithMaxRetries(200),
		hbase.WithBackoff(100*time.Millisecond, 2*time.Second),
		hbase.WithRPCTimeout(15*time.Second))
	var splits [][]byte
	for i := 1; i < restartRegions; i++ {
		splits = append(splits, []byte{byte('0' + i)})
	}
	table := itTable(t, c, "restart", splits)
	ctx := itCtx(t, 5*time.Minute)

	// The write loop: each writer puts its rows one by one until stop is
	// closed, each Put with its own bound a little above the retry budget.
	stop := make(chan struct{})
	var mu sync.Mutex // guards results while the writers run
	results := make([]restartWriter, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				row := restartRow(w, seq)
				pctx, cancel := context.WithTimeout(ctx, callBudget+30*time.Second)
				err := c.Put(pctx, &hbase.Put{Table: table, Row: row,
					Values: map[string]map[string][]byte{"cf": {"q": row}}})
				cancel()
				mu.Lock()
				if err != nil {
					res.failed = append(res.failed, err)
				} else {
					res.acked = append(res.acked, restartWrite{row: row, at: time.Now()})
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(200 * time.Millisecond) // as a caller would before trying again
				}
			}
		}()
	}
	stopWriters := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopWriters()

	time.Sleep(before)
	killedAt := time.Now()
	cmd := exec.CommandContext(ctx, "sh", "-c", restartCmd)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	t.Logf("running HBKIT_RESTART_CMD: %s", restartCmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("HBKIT_RESTART_CMD %q: %v", restartCmd, err)
	}
	readyAt := time.Now()
	t.Logf("HBase killed and ready again after %.1fs", readyAt.Sub(killedAt).Seconds())

	// Wait (bounded) for writes acknowledged by the restarted HBase, then
	// keep writing a while.
	for {
		mu.Lock()
		resumed := !firstAckAfter(results, readyAt).IsZero()
		mu.Unlock()
		if resumed {
			break
		}
		if time.Since(readyAt) > resumeLimit {
			stopWriters()
			t.Fatalf("no write acknowledged within %v of HBase being ready again", resumeLimit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(after)
	stopWriters()

	var acked []restartWrite
	var failed []error
	for _, r := range results {
		acked = append(acked, r.acked...)
		failed = append(failed, r.failed...)
	}
	// The outage, as the writers saw it: the longest pause between two
	// acknowledgements around the restart.
	times := make([]time.Time, len(acked))
	for i, a := range acked {
		times[i] = a.at
	}
	slices.SortFunc(times, time.Time.Compare)
	var lastBefore, resumedAt time.Time
	for i := 1; i < len(times); i++ {
		if times[i].After(killedAt) && times[i-1].Before(readyAt) && times[i].Sub(times[i-1]) > resumedAt.Sub(lastBefore) {
			lastBefore, resumedAt = times[i-1], times[i]
		}
	}
	var ackedAfter int
	for _, a := range acked {
		if a.at.After(killedAt) {
			ackedAfter++
		}
	}
	t.Logf("writes: %d acknowledged (%d before the kill, %d after), %d failed; %d writers",
		len(acked), len(acked)-ackedAfter, ackedAfter, len(failed), writers)
	t.Logf("outage: no write acknowledged for %.1fs; writes resumed %.1fs after the kill, %+.1fs after HBase reported ready",
		resumedAt.Sub(lastBefore).Seconds(), resumedAt.Sub(killedAt).Seconds(), resumedAt.Sub(readyAt).Seconds())
	if ackedAfter == len(acked) {
		t.Fatalf("no write acknowledged before the kill: nothing for the WAL replay to recover")
	}
	for w, r := range results {
		if firstAckAfter([]restartWriter{r}, killedAt).IsZero() {
			t.Errorf("writer %d: no write acknowledged after the restart (%d failed)", w, len(r.failed))
		}
	}
	for i, err := range failed {
		if !hbase.IsRetryable(err) {
			t.Errorf("failed write %d: %v: not retryable, but the outage was transient", i, err)
		} else if i < 5 {
			t.Logf("failed write %d (retryable): %v", i, err)
		}
	}

	// Every acknowledged row is readable, with its value.
	start := time.Now()
	rctx := itCtx(t, 2*time.Minute)
	var missing int
	for chunk := range slices.Chunk(acked, 1000) {
		gets := make([]hbase.Action, len(chunk))
		for i, a := range chunk {
			gets[i] = &hbase.Get{Table: table, Row: a.row}
		}
		res, err := c.Batch(rctx, gets)
		if err != nil {
			t.Fatalf("Batch of %d gets after the restart: %v", len(gets), err)
		}
		for i, r := range res {
			if got := r.Result.Value([]byte("cf"), []byte("q")); !bytes.Equal(got, chunk[i].row) {
				if missing++; missing <= 10 {
					t.Errorf("acknowledged row %q (acked %.1fs after the kill): value %q, want %q",
						chunk[i].row, chunk[i].at.Sub(killedAt).Seconds(), got, chunk[i].row)
				}
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged writes lost across the restart", missing, len(acked))
	}
	// A scan sees the same rows, plus perhaps some of the failed writes.
	var scanned int
	for r, err := range hbase.ScanAll(rctx, c, &hbase.Scan{Table: table}) {
		if err != nil {
			t.Fatalf("scan after the restart: %v", err)
		}
		if !bytes.Equal(r.Value([]byte("cf"), []byte("q")), r.Row()) {
			t.Errorf("row %q: value %q", r.Row(), r.Value([]byte("cf"), []byte("q")))
		}
		scanned++
	}
	if scanned < len(acked) || scanned > len(acked)+len(failed) {
		t.Errorf("scan after the restart: %d rows, want between %d (acknowledged) and %d (attempted)",
			scanned, len(acked), len(acked)+len(failed))
	}
	t.Logf("read back: all %d acknowledged rows present; the scan found %d rows (%.1fs)",
		len(acked), scanned, time.Since(start).Seconds())
}

// firstAckAfter returns the earliest time after t at which a write was
// acknowledged, or the zero time.
func firstAckAfter(rs []restartWriter, t time.Time) time.Time {
	var first time.Time
	for _, r := range rs {
		for _, a := range r.acked {
			if a.at.After(t) && (first.IsZero() || a.at.Before(first)) {
				first = a.at
			}
		}
	}
	return first
}

// TestIntegrationThreeServers checks that a pre-split table's regions are
// spread over every region server of HBKIT_EXPECT_SERVERS (make hbase-up
// RS=3), and that a 10,000-action batch over all of them succeeds action by
// action.
func TestIntegrationThreeServers(t *testing.T) {
	env := os.Getenv("HBKIT_EXPECT_SERVERS")
	if env == "" {
		t.Skip("HBKIT_EXPECT_SERVERS not set: make test-rs3 runs this test against three region servers")
	}
	want, err := strconv.Atoi(env)
	if err != nil || want < 1 {
		t.Fatalf("HBKIT_EXPECT_SERVERS=%q: want a number of region servers", env)
	}
	c := itClient(t)
	const n = 10000
	table := itTable(t, c, "servers", splitsEvery(n/12, n)) // 13 regions
	ctx := itCtx(t, 4*time.Minute)

	// New regions are assigned round-robin; allow the master a little time
	// should any still be in transition.
	var regions []hbase.RegionInfo
	var servers map[string]int
	deadline := time.Now().Add(60 * time.Second)
	for {
		regions, err = c.TableRegions(ctx, table)
		if err != nil {
			t.Fatalf("TableRegions: %v", err)
		}
		servers = map[string]int{}
		assigned := true
		for _, r := range regions {
			if r.Server == "" {
				assigned = false
			}
			servers[r.Server]++
		}
		if assigned && len(servers) >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("%d regions over %d servers: %v", len(regions), len(servers), servers)
	if len(regions) < 9 {
		t.Fatalf("%d regions, want >= 9", len(regions))
	}
	if len(servers) != want || servers[""] > 0 {
		t.Fatalf("regions on %d servers %v, want %d, every region assigned", len(servers), servers, want)
	}

	// Which server each action goes to, by the regions just read.
	perServer := map[string]int{}
	for i := range n {
		for _, r := range regions {
			if r.ContainsRow(rowKey(i)) {
				perServer[r.Server]++
				break
			}
		}
	}
	if len(perServer) != want {
		t.Fatalf("the batch reaches %d servers %v, want %d", len(perServer), perServer, want)
	}

	checkAll := func(what string, res []hbase.BatchResult, err error) {
		t.Helper()
		if err != nil {
			var be *hbase.BatchError
			if errors.As(err, &be) {
				t.Fatalf("%s: %d of %d actions failed: %v", what, len(be.Unwrap()), n, err)
			}
			t.Fatalf("%s: %v", what, err)
		}
		if len(res) != n {
			t.Fatalf("%s: %d results, want %d", what, len(res), n)
		}
		for i, r := range res {
			if r.Err != nil || r.Result == nil {
				t.Fatalf("%s: action %d: result %v, error %v", what, i, r.Result, r.Err)
			}
		}
	}
	start := time.Now()
	puts := make([]hbase.Action, n)
	for i := range puts {
		puts[i] = &hbase.Put{Table: table, Row: rowKey(i), Values: map[string]map[string][]byte{"cf": {"q": fmt.Appendf(nil, "v%d", i)}}}
	}
	res, err := c.Batch(ctx, puts)
	checkAll("batch of puts", res, err)
	putTime := time.Since(start)

	start = time.Now()
	gets := make([]hbase.Action, n)
	for i := range gets {
		gets[i] = &hbase.Get{Table: table, Row: rowKey(i)}
	}
	res, err = c.Batch(ctx, gets)
	checkAll("batch of gets", res, err)
	for i, r := range res {
		if got, want := string(r.Result.Value([]byte("cf"), []byte("q"))), fmt.Sprintf("v%d", i); got != want {
			t.Fatalf("get %d: %q, want %q", i, got, want)
		}
	}
	t.Logf("batch of %d puts in %v, of %d gets in %v; actions per server %v",
		n, putTime.Round(time.Millisecond), n, time.Since(start).Round(time.Millisecond), perServer)
	checkSequence(t, "scan after batch", scanRows(t, ctx, c, &hbase.Scan{Table: table}), 0, n, false)
}
