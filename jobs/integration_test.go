//go:build integration

package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/internal/ittest"
)

// The integration tests run jobs of the marker Task against the real
// HBase at HBKIT_ZK, on tables (and checkpoint tables) of their own.

var itNames = conformance.NameGenerator("itjobs")

func TestMain(m *testing.M) { os.Exit(ittest.Main(m)) }

// itJob names the tables of one test's job.
type itJob struct {
	Parcels, Marker, Store string
}

// newItJob creates a parcels table pre-split in four, a marker table and
// a checkpoint table, and loads n parcels.
func newItJob(t *testing.T, c *hbase.Client, n int) (itJob, int64) {
	t.Helper()
	ctx := context.Background()
	j := itJob{Parcels: itNames("parcels"), Marker: itNames("marker"), Store: itNames("jobs")}
	ittest.DropLater(t, j.Parcels, j.Marker, j.Store)
	for _, d := range []struct {
		name, family string
		splits       [][]byte
	}{{j.Parcels, "p", parcelSplits()}, {j.Marker, "m", nil}} {
		if err := c.CreateTable(ctx, hbapi.TableDescriptor{Name: d.name, Families: []hbapi.FamilyDescriptor{{Name: d.family}}}, d.splits); err != nil {
			t.Fatal(err)
		}
	}
	if err := EnsureStore(ctx, c, WithStoreTable(j.Store)); err != nil {
		t.Fatal(err)
	}
	return j, loadParcels(t, ctx, c, j.Parcels, n)
}

func (j itJob) spec() Spec { return Spec{Kind: KindCopy, Table: j.Parcels, Target: j.Marker} }

func (j itJob) task(c hbapi.DataClient, batch int) *markerTask {
	return &markerTask{c: c, src: j.Parcels, marker: j.Marker, batch: batch}
}

func (j itJob) store(t *testing.T, c hbapi.DataClient, lease time.Duration) *Store {
	t.Helper()
	s, err := NewStore(c, WithStoreTable(j.Store), WithLease(lease))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkReport(t *testing.T, r Report, n int, sum int64) {
	t.Helper()
	if !r.Complete || r.Rows != int64(n) || r.Counts["amount"] != sum {
		t.Errorf("report: %d/%d units, complete %v, rows %d, amount %d; want rows %d, amount %d",
			r.UnitsDone, r.Units, r.Complete, r.Rows, r.Counts["amount"], n, sum)
	}
}

// TestRunIntegration: a job over four regions on four workers, planned
// with the region sizes the real client reports: every row counted once,
// every marker written.
func TestRunIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	const n = 5000
	j, sum := newItJob(t, c, n)
	task := j.task(c, 200)
	task.finished = make(chan Counts, 1)
	var ticks atomic.Int32
	r, err := RunTask(ctx, c, j.spec(), task, WithStore(j.store(t, c, 10*time.Second)), WithWorkers(4),
		WithProgress(func(Progress) { ticks.Add(1) }, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r, n, sum)
	if r.Units != 4 || !r.Finished || len(task.finished) != 1 || ticks.Load() == 0 {
		t.Errorf("report: %d units, finished %v, Finish calls %d, progress calls %d", r.Units, r.Finished, len(task.finished), ticks.Load())
	}
	countMarkers(t, ctx, c, j.Marker, n)
	t.Logf("%d rows in %.2fs: %.0f rows/s", r.Rows, r.Seconds, r.RowsPerSec)
}

// TestSplitMidJobIntegration: while a job runs on one worker, HBase
// splits the region of the running unit (the scan goes on across the
// split) and the region of a unit not claimed yet (which is re-split
// into two units when claimed): the job completes with exact counts.
func TestSplitMidJobIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	const n = 4000
	j, sum := newItJob(t, c, n)
	task := j.task(c, 100)
	var split atomic.Bool
	task.hook = func(u Unit, batches int) error {
		if u.ID != "u000000" || batches != 2 || !split.CompareAndSwap(false, true) {
			return nil
		}
		for _, k := range [][]byte{{2}, {14}} { // in u000000 [, 4), running; in u000003 [12, ), pending
			if err := c.SplitRegion(ctx, j.Parcels, k); err != nil {
				return fmt.Errorf("split at %x: %w", k, err)
			}
		}
		return nil
	}
	store := j.store(t, c, 10*time.Second)
	r, err := RunTask(ctx, c, j.spec(), task, WithStore(store), WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if !split.Load() {
		t.Fatal("the hook never split")
	}
	checkReport(t, r, n, sum)
	countMarkers(t, ctx, c, j.Marker, n)
	units, err := store.Units(ctx, j.spec().ID())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, u := range units {
		ids = append(ids, u.Unit.String())
	}
	if len(units) != 5 || units[4].ID != "u000003.1" || !bytes.Equal(units[4].Start, []byte{14}) {
		t.Errorf("units: got\n%s\nwant u000003 re-split at \\x0E", strings.Join(ids, "\n"))
	}
}

// TestLeaseTakeoverIntegration: two workers die mid-unit (they stop
// after 3 commits without giving their units back); another process's run
// waits for the leases to expire, resumes the units from their
// checkpoints and finishes the job: every row counted once.
func TestLeaseTakeoverIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	const n = 3000
	j, sum := newItJob(t, c, n)
	const lease = 2 * time.Second
	store := j.store(t, c, lease)
	units, err := PlanJob(ctx, c, store, j.spec(), j.task(c, 50))
	if err != nil {
		t.Fatal(err)
	}
	dead := j.task(c, 50)
	dead.hook = func(u Unit, batches int) error {
		if batches == 3 {
			return errKilled
		}
		return nil
	}
	for _, u := range units[1:3] {
		l, err := store.Claim(ctx, j.spec().ID(), u.ID, "dead")
		if err != nil {
			t.Fatal(err)
		}
		st := l.Status()
		if err := dead.Run(ctx, st.Unit, st.After, func(last []byte, d Counts) error { return l.Commit(ctx, last, d) }); !errors.Is(err, errKilled) {
			t.Fatalf("dead worker on %s: %v", u.ID, err)
		}
	}
	start := time.Now()
	r, err := RunTask(ctx, c, j.spec(), j.task(c, 50), WithStore(store), WithWorkers(2), WithOwner("second"))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r, n, sum)
	countMarkers(t, ctx, c, j.Marker, n)
	after, err := store.Units(ctx, j.spec().ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range after[1:3] {
		if u.Attempts != 2 || u.Owner != "second" {
			t.Errorf("unit %s: %d attempts, owner %q; want taken over by second", u.ID, u.Attempts, u.Owner)
		}
	}
	t.Logf("second run %.1fs (lease %v)", time.Since(start).Seconds(), lease)
}

// killChildEnv carries the job of TestKilledProcessIntegration to its
// child process.
const killChildEnv = "HBKIT_JOBS_KILL_CHILD"

// TestKilledProcessIntegration: a worker process is SIGKILLed mid-unit,
// after it committed a few batches; a second process takes its units
// over once their leases expire and finishes the job: the counts equal
// the row count, and the units the dead process held were resumed.
func TestKilledProcessIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	const n = 3000
	j, sum := newItJob(t, c, n)
	cfg, _ := json.Marshal(j)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.v")
	cmd.Env = append(os.Environ(), killChildEnv+"="+string(cfg))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	commits := 0
	for sc := bufio.NewScanner(out); sc.Scan() && commits < 5; {
		if strings.HasPrefix(sc.Text(), "committed") {
			commits++
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if commits < 5 {
		t.Fatalf("the child committed %d batches before it ended", commits)
	}
	store := j.store(t, c, 2*time.Second)
	before, err := store.Status(ctx, j.spec().ID())
	if err != nil {
		t.Fatal(err)
	}
	if before.Rows == 0 || before.Complete {
		t.Fatalf("after the kill: %+v; want some rows, not complete", before)
	}
	r, err := RunTask(ctx, c, j.spec(), j.task(c, 50), WithStore(store), WithWorkers(2), WithOwner("survivor"))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r, n, sum)
	countMarkers(t, ctx, c, j.Marker, n)
	units, err := store.Units(ctx, j.spec().ID())
	if err != nil {
		t.Fatal(err)
	}
	resumed := 0
	for _, u := range units {
		if u.Attempts > 1 && u.Owner == "survivor" {
			resumed++
		}
	}
	if resumed == 0 {
		t.Errorf("no unit of the killed process was taken over")
	}
	t.Logf("killed after %d commits (%d rows counted); %d units taken over", commits, before.Rows, resumed)
}

// TestKillChild is the child process of TestKilledProcessIntegration: a
// slow run (lease 2 s) that prints a line per commit, until it is killed.
func TestKillChild(t *testing.T) {
	cfg := os.Getenv(killChildEnv)
	if cfg == "" {
		t.Skip("the child of TestKilledProcessIntegration")
	}
	var j itJob
	if err := json.Unmarshal([]byte(cfg), &j); err != nil {
		t.Fatal(err)
	}
	c := ittest.Connect(t)
	task := j.task(c, 50)
	task.hook = func(u Unit, batches int) error {
		fmt.Printf("committed %s batch %d\n", u.ID, batches)
		time.Sleep(100 * time.Millisecond)
		return nil
	}
	_, err := RunTask(context.Background(), c, j.spec(), task, WithStore(j.store(t, c, 2*time.Second)), WithWorkers(2), WithOwner("child"))
	t.Fatalf("the child's run ended before it was killed: %v", err)
}

// TestJobRestartIntegration: HBase is killed (SIGKILL) and started again
// while a job runs (tools/test-restart.sh runs it against an HBase of its
// own, HBKIT_RESTART_CMD restarting it). The run rides the restart out on
// the client's retries, or fails and is run again, as an operator or a
// Kubernetes Job would: the job completes, every row counted once.
func TestJobRestartIntegration(t *testing.T) {
	restartCmd := os.Getenv("HBKIT_RESTART_CMD")
	if restartCmd == "" {
		t.Skip("HBKIT_RESTART_CMD not set: make test-restart runs this test against an HBase of its own")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := ittest.Connect(t, hbase.WithRetryBudget(90*time.Second), hbase.WithMaxRetries(200),
		hbase.WithBackoff(100*time.Millisecond, 2*time.Second), hbase.WithRPCTimeout(15*time.Second))
	const n = 20000
	j, sum := newItJob(t, c, n)
	task := j.task(c, 100)
	var commits atomic.Int64
	task.hook = func(Unit, int) error {
		commits.Add(1)
		time.Sleep(20 * time.Millisecond) // a job long enough to be cut by the restart
		return nil
	}
	store := j.store(t, c, 10*time.Second)
	type result struct {
		r   Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := RunTask(ctx, c, j.spec(), task, WithStore(store), WithWorkers(2), WithMaxFailures(20))
		done <- result{r, err}
	}()
	for commits.Load() < 20 {
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("restarting HBase after %d commits: %s", commits.Load(), restartCmd)
	cmd := exec.CommandContext(ctx, "sh", "-c", restartCmd)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("HBKIT_RESTART_CMD: %v", err)
	}
	res := <-done
	for runs := 1; res.err != nil && runs < 3; runs++ {
		t.Logf("run %d ended with %v; running the job again", runs, res.err)
		r, err := RunTask(ctx, c, j.spec(), task, WithStore(store), WithWorkers(2), WithMaxFailures(20))
		res = result{r, err}
	}
	if res.err != nil {
		t.Fatal(res.err)
	}
	checkReport(t, res.r, n, sum)
	countMarkers(t, ctx, c, j.Marker, n)
	units, err := store.Units(ctx, j.spec().ID())
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for _, u := range units {
		attempts += u.Attempts
	}
	t.Logf("%d rows in %d units (%d claims), %d commits", res.r.Rows, len(units), attempts, commits.Load())
}

// BenchmarkCommitIntegration measures the store's cost per committed
// batch on the real HBase: one Lease.Commit (a CheckAndMutate of the unit
// row) per op.
//
//	go test -tags integration -run '^$' -bench CommitIntegration -benchtime 2000x ./jobs/
func BenchmarkCommitIntegration(b *testing.B) {
	ctx := context.Background()
	c := ittest.Connect(b)
	table := itNames("jobs")
	ittest.DropLater(b, table)
	if err := EnsureStore(ctx, c, WithStoreTable(table)); err != nil {
		b.Fatal(err)
	}
	s, err := NewStore(c, WithStoreTable(table))
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Kind: KindVerify, Table: "bench"}
	if _, err := s.SavePlan(ctx, spec, []Unit{{ID: planUnitID(0), Table: "bench"}}); err != nil {
		b.Fatal(err)
	}
	l, err := s.Claim(ctx, spec.ID(), planUnitID(0), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := l.Commit(ctx, fmt.Appendf(nil, "row-%09d", i), Counts{"rows": 500}); err != nil {
			b.Fatal(err)
		}
	}
}
