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
		ids = append(ids, describeUnit(u.Unit))
	}
	if len(units) != 5 || units[4].ID != "u000003.1" || !bytes.Equal(units[4].Start, []byte{14}) {
		t.Errorf("units: got\n%s\nwant u000003 re-split at \\x0E", strings.Join(ids, "\n"))
	}
}

// TestLeaseTakeoverIntegration: a worker dies mid-unit (its context is
// cancelled, its lease stays); another process's run waits for the lease
// to expire, resumes the unit from its checkpoint and finishes the job:
// every row counted once.
func TestLeaseTakeoverIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	const n = 3000
	j, sum := newItJob(t, c, n)
	const lease = 2 * time.Second
	store := j.store(t, c, lease)
	dead := j.task(c, 50)
	dctx, kill := context.WithCancel(ctx)
	dead.hook = func(u Unit, batches int) error {
		if batches == 3 {
			kill()
		}
		return nil
	}
	_, err := RunTask(dctx, c, j.spec(), dead, WithStore(store), WithWorkers(2), WithOwner("dead"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("dead run: got %v, want context.Canceled", err)
	}
	start := time.Now()
	r, err := RunTask(ctx, c, j.spec(), j.task(c, 50), WithStore(store), WithWorkers(2), WithOwner("second"))
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
		if u.Attempts > 1 {
			resumed++
		}
	}
	if resumed == 0 {
		t.Errorf("no unit was taken over: %+v", units)
	}
	t.Logf("%d units resumed after the lease; second run %.1fs", resumed, time.Since(start).Seconds())
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
