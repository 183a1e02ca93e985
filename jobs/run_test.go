package jobs

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/hbase/hbapi"
)

// clock is a settable clock for lease expiries.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeJob is a fake HBase holding n parcels in four regions, an empty
// marker table and a checkpoint store.
type fakeJob struct {
	c     *fake.Client
	store *Store
	task  *markerTask
	spec  Spec
	sum   int64
}

func newFakeJob(t *testing.T, n int, opts ...StoreOption) *fakeJob {
	t.Helper()
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name, family string
		splits       [][]byte
	}{{"parcels", "p", parcelSplits()}, {"parcels_marker", "m", nil}} {
		if err := c.CreateTable(ctx, hbapi.TableDescriptor{Name: d.name, Families: []hbapi.FamilyDescriptor{{Name: d.family}}}, d.splits); err != nil {
			t.Fatal(err)
		}
	}
	if err := EnsureStore(ctx, c, opts...); err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	j := &fakeJob{c: c, store: s, spec: Spec{Kind: KindCopy, Table: "parcels", Target: "parcels_marker"},
		task: &markerTask{c: c, src: "parcels", marker: "parcels_marker", batch: 7}}
	j.sum = loadParcels(t, ctx, c, "parcels", n)
	return j
}

func (j *fakeJob) check(t *testing.T, r Report, n int) {
	t.Helper()
	if !r.Complete || r.UnitsDone != r.Units {
		t.Errorf("report: %d/%d units done, complete %v", r.UnitsDone, r.Units, r.Complete)
	}
	if r.Rows != int64(n) || r.Counts["amount"] != j.sum {
		t.Errorf("report: rows %d, amount %d; want %d, %d", r.Rows, r.Counts["amount"], n, j.sum)
	}
	countMarkers(t, context.Background(), j.c, "parcels_marker", n)
}

func TestPlanRegions(t *testing.T) {
	ctx := context.Background()
	j := newFakeJob(t, 400)
	units, err := Plan(ctx, j.c, j.spec, j.task)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2][]byte{{nil, {4}}, {{4}, {8}}, {{8}, {12}}, {{12}, nil}}
	if len(units) != len(want) {
		t.Fatalf("units: got %d, want %d: %v", len(units), len(want), units)
	}
	for i, u := range units {
		if u.ID != planUnitID(i) || u.Table != "parcels" || !bytes.Equal(u.Start, want[i][0]) || !bytes.Equal(u.Stop, want[i][1]) {
			t.Errorf("unit %d: got %s, want %s [%x, %x)", i, u.String(), planUnitID(i), want[i][0], want[i][1])
		}
	}
	more, err := Plan(ctx, j.c, j.spec, j.task, WithUnitsPerRegion(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(more) != 12 {
		t.Fatalf("3 units per region: got %d units", len(more))
	}
	for i := 1; i < len(more); i++ {
		if !bytes.Equal(more[i].Start, more[i-1].Stop) || bytes.Compare(more[i].Start, more[i-1].Start) <= 0 {
			t.Errorf("units %d and %d do not tile: %s, %s", i-1, i, more[i-1].String(), more[i].String())
		}
	}
	again, err := Plan(ctx, j.c, j.spec, j.task, WithUnitsPerRegion(3))
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].String() != more[i].String() {
			t.Errorf("plan not deterministic: %s, then %s", more[i].String(), again[i].String())
		}
	}
}

func TestInterpolate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first, last []byte
		parts       int
		want        int
	}{
		{"even", []byte{0}, []byte{100}, 4, 3},
		{"longer last", []byte("a"), []byte("b\x80"), 2, 1},
		{"equal", []byte("x"), []byte("x"), 4, 0},
		{"adjacent", []byte{1}, []byte{2}, 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := interpolate(tc.first, tc.last, tc.parts)
			if len(keys) != tc.want {
				t.Errorf("got %d keys %x, want %d", len(keys), keys, tc.want)
			}
			prev := tc.first
			for _, k := range keys {
				if bytes.Compare(k, prev) <= 0 || bytes.Compare(k, tc.last) > 0 {
					t.Errorf("key %x not in (%x, %x]", k, prev, tc.last)
				}
				prev = k
			}
		})
	}
}

func TestRunCountsOnce(t *testing.T) {
	ctx := context.Background()
	const n = 1000
	j := newFakeJob(t, n)
	j.task.finished = make(chan Counts, 2)
	var progress []Progress
	var mu sync.Mutex
	r, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithWorkers(3), WithPlan(WithUnitsPerRegion(2)),
		WithProgress(func(p Progress) { mu.Lock(); progress = append(progress, p); mu.Unlock() }, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
	if r.Units != 8 || !r.Finished {
		t.Errorf("report: %d units, finished %v; want 8, true", r.Units, r.Finished)
	}
	if got := <-j.task.finished; got["rows"] != n {
		t.Errorf("Finish got rows %d, want %d", got["rows"], n)
	}
	mu.Lock()
	last := progress[len(progress)-1]
	mu.Unlock()
	if !last.Done || last.Rows != n || last.UnitsDone != 8 {
		t.Errorf("last progress: %+v", last)
	}
	// Running the finished job again does nothing and calls no Finish.
	r2, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Rows != n || !r2.Finished || len(j.task.finished) != 0 {
		t.Errorf("second run: rows %d, finished %v, Finish calls %d", r2.Rows, r2.Finished, len(j.task.finished))
	}
	// After Reset the job runs anew: the same counts, Finish again.
	if err := j.store.Reset(ctx, j.spec.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := j.store.Status(ctx, j.spec.ID()); !errors.Is(err, ErrNoPlan) {
		t.Errorf("status after Reset: got %v, want ErrNoPlan", err)
	}
	r3, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	if r3.Rows != n || r3.Units != 4 || !r3.Finished || len(j.task.finished) != 1 {
		t.Errorf("run after Reset: rows %d, units %d, finished %v, Finish calls %d", r3.Rows, r3.Units, r3.Finished, len(j.task.finished))
	}
}

func TestRunShards(t *testing.T) {
	ctx := context.Background()
	const n = 500
	j := newFakeJob(t, n)
	r, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithShard(Shard{0, 2}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || r.UnitsDone != 2 || r.Units != 4 {
		t.Errorf("shard 0/2: %d/%d units done, complete %v; want 2/4, false", r.UnitsDone, r.Units, r.Complete)
	}
	units, err := j.store.Units(ctx, j.spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if want := u.Shard%2 == 0; (u.State == StateDone) != want {
			t.Errorf("shard 0/2: unit %s (shard key %d) state %s", u.ID, u.Shard, u.State)
		}
	}
	r, err = RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithShard(Shard{1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true}, {"3/4", Shard{3, 4}, true},
		{"4/4", Shard{}, false}, {"-1/2", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false}, {"0/0", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrSpec) {
			t.Errorf("ParseShard(%q): error %v is not ErrSpec", tc.in, err)
		}
	}
}

// TestLeaseTakeover: a worker dies mid-unit (its context ends, its lease
// stays); while the lease lasts no one else may claim the unit; once it
// expired another worker resumes from the checkpoint, the dead worker's
// late commit is refused, and the unit's rows are counted once.
func TestLeaseTakeover(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	const n = 400
	j := newFakeJob(t, n, WithClock(clk.Now), WithLease(time.Minute))
	units, err := PlanJob(ctx, j.c, j.store, j.spec, j.task)
	if err != nil {
		t.Fatal(err)
	}
	u := units[1]
	dead := &markerTask{c: j.c, src: "parcels", marker: "parcels_marker", batch: 7,
		hook: func(u Unit, batches int) error {
			if batches == 3 {
				return errKilled
			}
			return nil
		}}
	l, err := j.store.Claim(ctx, j.spec.ID(), u.ID, "dead")
	if err != nil {
		t.Fatal(err)
	}
	st := l.Status()
	if err := dead.Run(ctx, st.Unit, st.After, func(last []byte, d Counts) error { return l.Commit(ctx, last, d) }); !errors.Is(err, errKilled) {
		t.Fatalf("dead worker: %v", err)
	}
	if _, err := RunUnit(ctx, j.c, j.store, j.spec, j.task, u, "second"); !errors.Is(err, ErrUnitBusy) {
		t.Fatalf("claim of a leased unit: got %v, want ErrUnitBusy", err)
	}
	clk.Add(2 * time.Minute)
	res, err := RunUnit(ctx, j.c, j.store, j.spec, j.task, u, "second")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx, []byte{7}, Counts{"rows": 1000}); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("dead worker's late commit: got %v, want ErrLeaseLost", err)
	}
	got, err := j.store.Unit(ctx, j.spec.ID(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := int64(n / 4) // salts 4..7 hold a quarter of the parcels
	if res.Counts["rows"] != wantRows || got.Counts["rows"] != wantRows || got.Attempts != 2 || got.State != StateDone || got.Owner != "second" {
		t.Errorf("unit after takeover: result %v, row %+v; want rows %d, 2 attempts, done by second", res.Counts, got, wantRows)
	}
	r, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
}

var errKilled = errors.New("killed")

// TestResplit: regions split after the plan (before a unit's claim, and
// past a dead worker's checkpoint): the units claimed afterwards keep
// their first region and hand the rest to new units; every row is
// counted once.
func TestResplit(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	const n = 800
	j := newFakeJob(t, n, WithClock(clk.Now), WithLease(time.Minute))
	units, err := PlanJob(ctx, j.c, j.store, j.spec, j.task)
	if err != nil {
		t.Fatal(err)
	}
	// Unit 0 [, 4): split at salts 1 and 2 before anyone claims it.
	for _, k := range [][]byte{{1}, {2}} {
		if err := j.c.SplitRegion(ctx, "parcels", k); err != nil {
			t.Fatal(err)
		}
	}
	// Unit 2 [8, 12): a worker dies after 2 batches (in salt 8); then
	// the region splits at salt 10.
	l, err := j.store.Claim(ctx, j.spec.ID(), units[2].ID, "dead")
	if err != nil {
		t.Fatal(err)
	}
	dead := &markerTask{c: j.c, src: "parcels", marker: "parcels_marker", batch: 5,
		hook: func(Unit, int) error { return errKilled }}
	st := l.Status()
	_ = dead.Run(ctx, st.Unit, st.After, func(last []byte, d Counts) error { return l.Commit(ctx, last, d) })
	if err := j.c.SplitRegion(ctx, "parcels", []byte{10}); err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Minute)
	r, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
	all, err := j.store.Units(ctx, j.spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, u := range all {
		ids = append(ids, u.ID)
	}
	want := []string{"u000000", "u000000.1", "u000000.2", "u000001", "u000002", "u000002.1", "u000003"}
	if len(ids) != len(want) {
		t.Fatalf("units: got %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("units: got %v, want %v", ids, want)
			break
		}
	}
	if c := all[5]; !bytes.Equal(c.Start, []byte{10}) || !bytes.Equal(c.Stop, []byte{12}) || c.Shard != 2 {
		t.Errorf("unit split off u000002: %s shard %d", c.Unit.String(), c.Shard)
	}
}

// TestConcurrentRuns: three processes (RunTask calls with their own
// owners) run one job at once, planning it together: one plan wins and
// every row is counted once.
func TestConcurrentRuns(t *testing.T) {
	ctx := context.Background()
	const n = 2000
	j := newFakeJob(t, n, WithLease(200*time.Millisecond))
	var calls atomic.Int32
	j.task.finished = make(chan Counts, 3)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Go(func() {
			_, errs[i] = RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithWorkers(2),
				WithOwner("p"+string(rune('0'+i))), WithPlan(WithUnitsPerRegion(4)))
			calls.Add(1)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := j.store.Status(ctx, j.spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
	if len(j.task.finished) != 1 {
		t.Errorf("Finish called %d times, want 1", len(j.task.finished))
	}
}

// sizeLoader reports every region of a table as mb megabytes.
type sizeLoader struct {
	c  *fake.Client
	mb map[string]uint32 // by region start key
}

func (l sizeLoader) RegionLoads(ctx context.Context, table string) ([]hbapi.RegionLoad, error) {
	regions, err := l.c.TableRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	var out []hbapi.RegionLoad
	for _, r := range regions {
		out = append(out, hbapi.RegionLoad{RegionName: r.RegionName, StoreFileSizeMB: l.mb[string(r.StartKey)]})
	}
	return out, nil
}

// TestPlanRegionSizes: a region bigger than the unit size is cut into
// as many units as it holds unit sizes; the others stay whole.
func TestPlanRegionSizes(t *testing.T) {
	ctx := context.Background()
	j := newFakeJob(t, 400)
	loader := sizeLoader{c: j.c, mb: map[string]uint32{"\x04": 2500, "\x08": 900}}
	units, err := Plan(ctx, j.c, j.spec, j.task, WithRegionLoader(loader), WithUnitMB(1000))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range units {
		got = append(got, u.String())
	}
	if len(units) != 6 || !bytes.Equal(units[1].Start, []byte{4}) || !bytes.Equal(units[3].Stop, []byte{8}) {
		t.Errorf("units: got\n%s\nwant the region at \\x04 cut in 3", strings.Join(got, "\n"))
	}
	if _, err := Plan(ctx, j.c, j.spec, j.task, WithUnitMB(0)); !errors.Is(err, ErrSpec) {
		t.Errorf("WithUnitMB(0): got %v, want ErrSpec", err)
	}
}

// overloaded is a retryable error, as the client returns when a server
// stayed overloaded past its retries.
type overloaded struct{}

func (overloaded) Error() string   { return "server too busy" }
func (overloaded) Retryable() bool { return true }

// flakyTask fails the first Run of every unit with a retryable error
// after one commit, or every Run when always is set.
type flakyTask struct {
	*markerTask
	mu     sync.Mutex
	failed map[string]bool
	always bool
}

func (t *flakyTask) Run(ctx context.Context, u Unit, after []byte, commit func([]byte, Counts) error) error {
	t.mu.Lock()
	fail := t.always || !t.failed[u.ID]
	t.failed[u.ID] = true
	t.mu.Unlock()
	if !fail {
		return t.markerTask.Run(ctx, u, after, commit)
	}
	inner := *t.markerTask
	inner.hook = func(Unit, int) error { return overloaded{} }
	return inner.Run(ctx, u, after, commit)
}

// TestRetryableFailures: a unit that fails with a retryable error is
// given back and run again (from its checkpoint: counts stay exact); one
// that keeps failing stops the run after WithMaxFailures attempts.
func TestRetryableFailures(t *testing.T) {
	ctx := context.Background()
	const n = 600
	j := newFakeJob(t, n, WithLease(2*time.Second)) // back-off after a failure: a quarter of it
	task := &flakyTask{markerTask: j.task, failed: map[string]bool{}}
	r, err := RunTask(ctx, j.c, j.spec, task, WithStore(j.store), WithWorkers(4))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
	units, err := j.store.Units(ctx, j.spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if u.Attempts != 2 {
			t.Errorf("unit %s: %d attempts, want 2", u.ID, u.Attempts)
		}
	}

	j2 := newFakeJob(t, 100, WithLease(2*time.Second))
	bad := &flakyTask{markerTask: j2.task, failed: map[string]bool{}, always: true}
	_, err = RunTask(ctx, j2.c, j2.spec, bad, WithStore(j2.store), WithWorkers(2), WithMaxFailures(2))
	if !hbapi.IsRetryable(err) || !strings.Contains(err.Error(), "failed 2 times") {
		t.Errorf("always failing: got %v, want the retryable error after 2 failures", err)
	}
}

func TestLimiter(t *testing.T) {
	l := &limiter{max: 8, limit: 8}
	ctx := context.Background()
	for range 8 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l.release(false)
	if l.limit != 4 || l.active != 7 {
		t.Errorf("after an overload: limit %d, active %d; want 4, 7", l.limit, l.active)
	}
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := l.acquire(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("acquire over the limit: got %v, want to wait until the deadline", err)
	}
	for range 7 {
		l.release(true)
	}
	if l.limit != 8 || l.active != 0 {
		t.Errorf("after 7 good units: limit %d, active %d; want 8, 0", l.limit, l.active)
	}
}

// TestCancelReleases: a run stopped by its context (SIGTERM in the CLI)
// gives its units back, so the next run resumes them at once, without
// waiting for the leases (an hour here) to expire; counts stay exact.
func TestCancelReleases(t *testing.T) {
	ctx := context.Background()
	const n = 800
	j := newFakeJob(t, n, WithLease(time.Hour))
	stopped := &markerTask{c: j.c, src: "parcels", marker: "parcels_marker", batch: 7}
	cctx, cancel := context.WithCancel(ctx)
	var commits atomic.Int32
	stopped.hook = func(Unit, int) error {
		if commits.Add(1) == 6 {
			cancel()
		}
		return nil
	}
	if _, err := RunTask(cctx, j.c, j.spec, stopped, WithStore(j.store), WithWorkers(2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: got %v, want context.Canceled", err)
	}
	units, err := j.store.Units(ctx, j.spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if u.State == StateRunning || !j.store.free(u.lease) {
			t.Fatalf("unit %s after the cancel: %s, lease %q", u.ID, u.State, u.lease)
		}
	}
	r, err := RunTask(ctx, j.c, j.spec, j.task, WithStore(j.store), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	j.check(t, r, n)
}

// TestRunUnitThenFinishJob: an engine of its own runs every unit with
// RunUnit (twice: the second call of a done unit returns its counts),
// then FinishJob calls the Finisher once.
func TestRunUnitThenFinishJob(t *testing.T) {
	ctx := context.Background()
	const n = 300
	j := newFakeJob(t, n)
	j.task.finished = make(chan Counts, 2)
	units, err := PlanJob(ctx, j.c, j.store, j.spec, j.task)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := FinishJob(ctx, j.store, j.spec, j.task, "engine"); err != nil || r.Complete || r.Finished {
		t.Fatalf("FinishJob before the units: %+v, %v", r, err)
	}
	var rows int64
	for range 2 {
		rows = 0
		for _, u := range units {
			res, err := RunUnit(ctx, j.c, j.store, j.spec, j.task, u, "engine")
			if err != nil {
				t.Fatal(err)
			}
			rows += res.Counts["rows"]
		}
	}
	if rows != n {
		t.Errorf("RunUnit counts: %d rows, want %d", rows, n)
	}
	for range 2 {
		r, err := FinishJob(ctx, j.store, j.spec, j.task, "engine")
		if err != nil || !r.Finished || r.Rows != n {
			t.Fatalf("FinishJob: %+v, %v", r, err)
		}
	}
	if len(j.task.finished) != 1 {
		t.Errorf("Finish called %d times, want 1", len(j.task.finished))
	}
}
