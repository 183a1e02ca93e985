//go:build integration

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/jobs"
)

// markTask is the tests' Task: for each row of its source it writes a
// marker cell (m:n = the row's p:n) to the marker table and counts rows
// and the sum of n, committing every batch rows. Redoing a row writes the
// same marker, so a resumed unit comes out the same.
type markTask struct {
	c      hbapi.DataClient
	src    string
	marker string
	batch  int
	// failAt, when > 0, makes the Run that commits its failAt-th batch
	// (counted over all Runs) fail right after the commit.
	failAt  int64
	batches *atomic.Int64
	// finished counts the calls of Finish.
	finished *atomic.Int64
	// running and peak, when set, count the Runs under way and the most
	// at once.
	running, peak *atomic.Int64
}

func (t *markTask) Sources() []string { return []string{t.src} }

func (t *markTask) Run(ctx context.Context, u jobs.Unit, after []byte, commit func([]byte, jobs.Counts) error) error {
	if t.running != nil {
		n := t.running.Add(1)
		defer t.running.Add(-1)
		for p := t.peak.Load(); n > p && !t.peak.CompareAndSwap(p, n); p = t.peak.Load() {
		}
	}
	start := u.Start
	if after != nil {
		start = append(bytes.Clone(after), 0)
	}
	var puts []hbapi.Action
	var sum int64
	flush := func(last []byte) error {
		if _, err := t.c.Batch(ctx, puts); err != nil {
			return err
		}
		if err := commit(last, jobs.Counts{"rows": int64(len(puts)), "sum": sum}); err != nil {
			return err
		}
		puts, sum = puts[:0], 0
		if t.batches.Add(1) == t.failAt {
			return errors.New("markTask: the failure the test asked for")
		}
		return nil
	}
	scan := &hbapi.Scan{Table: u.Table, StartRow: start, StopRow: u.Stop, Caching: t.batch}
	var last []byte
	for r, err := range hbapi.ScanAll(ctx, t.c, scan) {
		if err != nil {
			return err
		}
		v := r.Value([]byte("p"), []byte("n"))
		var n int64
		fmt.Sscan(string(v), &n)
		sum += n
		last = bytes.Clone(r.Row())
		puts = append(puts, &hbapi.Put{Table: t.marker, Row: last, Cells: []hbapi.PutCell{{Family: "m", Qualifier: "n", Value: bytes.Clone(v)}}})
		if len(puts) == t.batch {
			if err := flush(last); err != nil {
				return err
			}
		}
	}
	if len(puts) > 0 {
		return flush(last)
	}
	return nil
}

func (t *markTask) Finish(ctx context.Context, total jobs.Counts) error {
	t.finished.Add(1)
	return nil
}

// itJob is a job of the tests on tables of their own: a source of n rows
// over four regions, a marker table and a checkpoint table.
type itJob struct {
	src, marker, store string
	n                  int
	sum                int64
}

func newItJob(t *testing.T, c *hbase.Client, n int) itJob {
	t.Helper()
	ctx := context.Background()
	p := fmt.Sprintf("g4beam_%s_%d", t.Name(), time.Now().UnixNano()%1e9)
	j := itJob{src: p + "_src", marker: p + "_marker", store: p + "_jobs", n: n}
	ittest.DropLater(t, j.src, j.marker, j.store)
	splits := [][]byte{{4}, {8}, {12}}
	for _, d := range []struct {
		name, family string
		splits       [][]byte
	}{{j.src, "p", splits}, {j.marker, "m", nil}} {
		if err := c.CreateTable(ctx, hbapi.TableDescriptor{Name: d.name, Families: []hbapi.FamilyDescriptor{{Name: d.family}}}, d.splits); err != nil {
			t.Fatal(err)
		}
	}
	var actions []hbapi.Action
	for i := range n {
		row := fmt.Appendf([]byte{byte(i % 16)}, "row-%07d", i)
		actions = append(actions, &hbapi.Put{Table: j.src, Row: row, Cells: []hbapi.PutCell{{Family: "p", Qualifier: "n", Value: fmt.Append(nil, i)}}})
		j.sum += int64(i)
		if len(actions) == 1000 || i == n-1 {
			if _, err := c.Batch(ctx, actions); err != nil {
				t.Fatal(err)
			}
			actions = actions[:0]
		}
	}
	return j
}

func (j itJob) job(report string) Job {
	return Job{
		Spec:       jobs.Spec{Kind: jobs.KindCopy, Table: j.src, Target: j.marker},
		Conn:       Conn{Quorum: ittest.ZK()},
		StoreTable: j.store,
		Lease:      3 * time.Second,
		ReportPath: report,
	}
}

// useTask makes the pipeline's workers (in this process: Prism's
// loopback) run t's copies until the test ends.
func useTask(t *testing.T, mk func(c jobs.Client) *markTask) {
	old := newTask
	newTask = func(ctx context.Context, c jobs.Client, spec jobs.Spec) (jobs.Task, error) { return mk(c), nil }
	t.Cleanup(func() { newTask = old })
}

// runPrism runs job on Prism and returns its report.
func runPrism(t *testing.T, job Job) (Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, s := beam.NewPipelineWithRoot()
	Build(s, job)
	if _, err := prism.Execute(ctx, p); err != nil {
		return Report{}, err
	}
	var r Report
	b, err := os.ReadFile(job.ReportPath)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	return r, err
}

// checkDone checks the report and the store: every unit done, each row
// counted once, a marker per row.
func checkDone(t *testing.T, c *hbase.Client, j itJob, r Report) {
	t.Helper()
	if !r.Complete || !r.Finished || r.Units == 0 || r.UnitsDone != r.Units {
		t.Errorf("report: complete %v finished %v units %d done %d, want all done and finished", r.Complete, r.Finished, r.Units, r.UnitsDone)
	}
	want := jobs.Counts{"rows": int64(j.n), "sum": j.sum}
	for _, got := range []jobs.Counts{r.Counts, r.Pipeline} {
		if got["rows"] != want["rows"] || got["sum"] != want["sum"] {
			t.Errorf("report counts: got %v, want %v (store %v, pipeline %v)", got, want, r.Counts, r.Pipeline)
		}
	}
	st, err := jobs.NewStore(c, jobs.WithStoreTable(j.store))
	if err != nil {
		t.Fatal(err)
	}
	units, err := st.Units(context.Background(), r.Job)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, u := range units {
		if u.State != jobs.StateDone {
			t.Errorf("unit %s: state %s, want %s", u.ID, u.State, jobs.StateDone)
		}
		rows += u.Counts["rows"]
	}
	if len(units) != r.Units || rows != int64(j.n) {
		t.Errorf("store: %d units with %d rows, want %d units with %d rows", len(units), rows, r.Units, j.n)
	}
	markers := 0
	for _, err := range hbapi.ScanAll(context.Background(), c, &hbapi.Scan{Table: j.marker}) {
		if err != nil {
			t.Fatal(err)
		}
		markers++
	}
	if markers != j.n {
		t.Errorf("markers: got %d, want %d", markers, j.n)
	}
}

// TestPrismJobIntegration runs a job through the pipeline on Prism against
// the real HBase: four regions, two units each, a batch of 100 rows.
func TestPrismJobIntegration(t *testing.T) {
	c := ittest.Connect(t)
	j := newItJob(t, c, 5000)
	var batches, finished atomic.Int64
	useTask(t, func(c jobs.Client) *markTask {
		return &markTask{c: c, src: j.src, marker: j.marker, batch: 100, batches: &batches, finished: &finished}
	})
	job := j.job(filepath.Join(t.TempDir(), "report.json"))
	job.UnitsPerRegion = 2
	r, err := runPrism(t, job)
	if err != nil {
		t.Fatal(err)
	}
	checkDone(t, c, j, r)
	if r.Units != 8 {
		t.Errorf("units: got %d, want 8 (4 regions, 2 units each)", r.Units)
	}
	if got := finished.Load(); got != 1 {
		t.Errorf("Finish: called %d times, want 1", got)
	}
}

// TestPrismResumeIntegration fails a unit's bundle mid-unit (Prism does
// not retry a bundle: the job fails, as a runner's last retry would), then
// runs the same job again: the unit resumes from its checkpoint once its
// lease passes, the others are done already, and no row is counted twice.
func TestPrismResumeIntegration(t *testing.T) {
	c := ittest.Connect(t)
	j := newItJob(t, c, 3000)
	var batches, finished atomic.Int64
	fail := int64(5)
	useTask(t, func(c jobs.Client) *markTask {
		return &markTask{c: c, src: j.src, marker: j.marker, batch: 100, failAt: fail, batches: &batches, finished: &finished}
	})
	job := j.job(filepath.Join(t.TempDir(), "report.json"))
	if _, err := runPrism(t, job); err == nil {
		t.Fatal("first run: got no error, want the task's failure")
	}
	st, err := jobs.NewStore(c, jobs.WithStoreTable(j.store))
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Status(context.Background(), job.Spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if before.Complete || before.Rows == 0 {
		t.Fatalf("after the failed run: %+v, want some rows checkpointed and the job not complete", before)
	}
	t.Logf("after the failed run: %d of %d units done, %d rows checkpointed", before.UnitsDone, before.Units, before.Rows)
	fail = 0 // the second run's tasks do not fail
	r, err := runPrism(t, job)
	if err != nil {
		t.Fatal(err)
	}
	checkDone(t, c, j, r)
	units, err := st.Units(context.Background(), r.Job)
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
		t.Errorf("no unit was claimed twice: the failed unit was not resumed")
	}
	if got := finished.Load(); got != 1 {
		t.Errorf("Finish: called %d times, want 1", got)
	}
}

// TestPrismSplitIntegration plans a job, splits a planned unit's region in
// two, then runs the job on Prism: the pipeline reads the stored plan, the
// unit's claim cuts off the new region's part, and the run stage runs it
// too. Every row is counted once.
func TestPrismSplitIntegration(t *testing.T) {
	ctx := context.Background()
	c := ittest.Connect(t)
	j := newItJob(t, c, 3000)
	var batches, finished atomic.Int64
	mk := func(c jobs.Client) *markTask {
		return &markTask{c: c, src: j.src, marker: j.marker, batch: 100, batches: &batches, finished: &finished}
	}
	useTask(t, mk)
	job := j.job(filepath.Join(t.TempDir(), "report.json"))
	if err := jobs.EnsureStore(ctx, c, jobs.WithStoreTable(j.store)); err != nil {
		t.Fatal(err)
	}
	st, err := jobs.NewStore(c, jobs.WithStoreTable(j.store))
	if err != nil {
		t.Fatal(err)
	}
	planned, err := jobs.PlanJob(ctx, c, st, job.Spec, mk(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SplitRegion(ctx, j.src, []byte{2}); err != nil { // inside the first unit, [, 4)
		t.Fatal(err)
	}
	r, err := runPrism(t, job)
	if err != nil {
		t.Fatal(err)
	}
	checkDone(t, c, j, r)
	if r.Units != len(planned)+1 {
		t.Errorf("units: got %d, want the %d planned and one split off", r.Units, len(planned))
	}
}
