package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/hbkit/hbkit/jobs"
)

// Job is what the pipeline runs: the job's Spec, how its workers connect,
// and the checkpoint store's settings. It is plain data (JSON): Beam
// carries it to every worker.
type Job struct {
	Spec jobs.Spec `json:"spec"`
	Conn Conn      `json:"conn"`
	// StoreTable is the checkpoint table (default jobs.DefaultStoreTable).
	StoreTable string `json:"store_table,omitempty"`
	// Lease is how long a worker's claim on a unit lasts without a commit
	// (default jobs.DefaultLease): a unit whose bundle failed is taken
	// over by the runner's retry once it passes.
	Lease time.Duration `json:"lease,omitempty"`
	// UnitsPerRegion cuts every region into at least this many units
	// (jobs.WithUnitsPerRegion; default 1).
	UnitsPerRegion int `json:"units_per_region,omitempty"`
	// ReportPath, when set, is the file the report is written to, as
	// JSON, by the worker that runs the last stage (a path all workers
	// share, or a local run).
	ReportPath string `json:"report_path,omitempty"`
}

// Report is what a job did: the store's account of it (every unit's
// counts, units done, whether the Task's Finish ran) and the sum of the
// counts the pipeline's units returned. The two agree unless a unit was
// also run outside this pipeline run (units split off a unit in an
// earlier, failed attempt, or a unit finished by another process).
// Seconds and RowsPerSec are zero: the stages run in different workers;
// the runner times the job.
type Report struct {
	jobs.Report
	Pipeline jobs.Counts `json:"pipeline_counts"`
}

func init() {
	beam.RegisterType(reflect.TypeOf((*jobs.Unit)(nil)).Elem())
	register.DoFn3x1[context.Context, []byte, func(jobs.Unit), error](&planFn{})
	register.Emitter1[jobs.Unit]()
	register.DoFn3x1[context.Context, jobs.Unit, func(jobs.Counts), error](&runFn{})
	register.Emitter1[jobs.Counts]()
	register.Combiner1[jobs.Counts](&sumFn{})
	register.DoFn2x1[context.Context, jobs.Counts, error](&reportFn{})
}

// Build adds job's stages to the pipeline at s: plan the units (once, on
// an Impulse; the plan is stored, so a retried planning gets the same
// units), reshuffle them over the workers, run each unit through the
// checkpoint store (jobs.RunUnit), sum the counts, finish the job and
// log its report (and write it to job.ReportPath).
func Build(s beam.Scope, job Job) {
	s = s.Scope("hbkit " + job.Spec.ID())
	units := beam.ParDo(s, &planFn{Job: job}, beam.Impulse(s))
	counts := beam.ParDo(s, &runFn{Job: job}, beam.Reshuffle(s, units))
	beam.ParDo0(s, &reportFn{Job: job}, beam.Combine(s, &sumFn{}, counts))
}

// planFn plans the job's units; it runs once, on the Impulse.
type planFn struct {
	Job Job `json:"job"`
	w   worker
}

func (f *planFn) Setup(ctx context.Context) error { return f.w.setup(ctx, f.Job) }
func (f *planFn) Teardown() error                 { return f.w.teardown() }

func (f *planFn) ProcessElement(ctx context.Context, _ []byte, emit func(jobs.Unit)) error {
	if err := jobs.EnsureStore(ctx, f.w.client, f.w.storeOpts...); err != nil {
		return err
	}
	var opts []jobs.PlanOption
	if f.Job.UnitsPerRegion > 0 {
		opts = append(opts, jobs.WithUnitsPerRegion(f.Job.UnitsPerRegion))
	}
	units, err := jobs.PlanJob(ctx, f.w.client, f.w.store, f.Job.Spec, f.w.task, opts...)
	if err != nil {
		return fmt.Errorf("pipeline: plan %s: %w", f.Job.Spec.ID(), err)
	}
	log.Infof(ctx, "hbkit: %s: %d units", f.Job.Spec.ID(), len(units))
	for _, u := range units {
		emit(u)
	}
	return nil
}

// runFn runs one unit, and the units split off it while it ran, through
// the checkpoint store, and emits their counts.
type runFn struct {
	Job Job `json:"job"`
	w   worker
}

func (f *runFn) Setup(ctx context.Context) error { return f.w.setup(ctx, f.Job) }
func (f *runFn) Teardown() error                 { return f.w.teardown() }

func (f *runFn) ProcessElement(ctx context.Context, u jobs.Unit, emit func(jobs.Counts)) error {
	total := jobs.Counts{}
	for todo := []jobs.Unit{u}; len(todo) > 0; todo = todo[1:] {
		r, err := f.w.runUnit(ctx, f.Job.Spec, todo[0])
		if err != nil {
			return fmt.Errorf("pipeline: %s: unit %s: %w", f.Job.Spec.ID(), todo[0].ID, err)
		}
		total.Add(r.Counts)
		todo = append(todo, r.Split...)
	}
	emit(total)
	return nil
}

// sumFn sums counts.
type sumFn struct{}

func (sumFn) MergeAccumulators(a, b jobs.Counts) jobs.Counts {
	if a == nil {
		a = jobs.Counts{}
	}
	a.Add(b)
	return a
}

// reportFn finishes the job and reports it: jobs.FinishJob runs the
// Task's Finish, once per job, and reads the report from the store. Units
// a failed attempt left to the store (units split off it) are not done
// yet: then the job runs once more in this worker (jobs.RunTask), which
// does them and finishes.
type reportFn struct {
	Job Job `json:"job"`
	w   worker
}

func (f *reportFn) Setup(ctx context.Context) error { return f.w.setup(ctx, f.Job) }
func (f *reportFn) Teardown() error                 { return f.w.teardown() }

func (f *reportFn) ProcessElement(ctx context.Context, summed jobs.Counts) error {
	jr, err := jobs.FinishJob(ctx, f.w.store, f.Job.Spec, f.w.task, f.w.owner)
	if err == nil && !jr.Complete {
		log.Warnf(ctx, "hbkit: %s: %d of %d units done after the run stage; running the others here", jr.Job, jr.UnitsDone, jr.Units)
		jr, err = jobs.RunTask(ctx, f.w.client, f.Job.Spec, f.w.task,
			jobs.WithStore(f.w.store), jobs.WithOwner(f.w.owner), jobs.WithWorkers(1))
	}
	if err != nil {
		return fmt.Errorf("pipeline: finish %s: %w", f.Job.Spec.ID(), err)
	}
	jr.Seconds, jr.RowsPerSec = 0, 0 // the finishing run's, not the job's
	b, err := json.Marshal(Report{Report: jr, Pipeline: summed})
	if err != nil {
		return err
	}
	log.Infof(ctx, "hbkit: report: %s", b)
	if f.Job.ReportPath == "" {
		return nil
	}
	if err := os.WriteFile(f.Job.ReportPath, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("pipeline: report: %w", err)
	}
	return nil
}
