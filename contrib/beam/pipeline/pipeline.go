package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/jobs"
)

// Job is what the pipeline runs: the job's Spec and how its workers
// connect. It is plain data (JSON): Beam carries it to every worker.
type Job struct {
	Spec jobs.Spec `json:"spec"`
	Conn Conn      `json:"conn"`
	// ReportPath, when set, is the file the report is written to, as
	// JSON, by the worker that runs the last stage (a path all workers
	// share, or a local run).
	ReportPath string `json:"report_path,omitempty"`
}

// Report is what a job did: the sum of its units' counts.
type Report struct {
	Job    string      `json:"job"` // jobs.Spec.ID
	Spec   jobs.Spec   `json:"spec"`
	Counts jobs.Counts `json:"counts"`
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

// Build adds job's stages to the pipeline at s: plan the units (once),
// reshuffle them over the workers, run each unit through the checkpoint
// store, sum the counts, and log the report (and write it to
// job.ReportPath).
func Build(s beam.Scope, job Job) {
	s = s.Scope("hbkit " + job.Spec.ID())
	units := beam.ParDo(s, &planFn{Job: job}, beam.Impulse(s))
	counts := beam.ParDo(s, &runFn{Job: job}, beam.Reshuffle(s, units))
	beam.ParDo0(s, &reportFn{Job: job}, beam.Combine(s, &sumFn{}, counts))
}

// worker is what the plan and run stages hold per DoFn instance: one
// client and the job's Task, made in Setup and closed in Teardown.
type worker struct {
	client *hbase.Client
	task   jobs.Task
}

func (w *worker) setup(ctx context.Context, job Job) error {
	c, err := job.Conn.Dial(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: connect: %w", err)
	}
	t, err := newTask(ctx, c, job.Spec)
	if err != nil {
		c.Close()
		return fmt.Errorf("pipeline: %s: %w", job.Spec.ID(), err)
	}
	w.client, w.task = c, t
	return nil
}

func (w *worker) teardown() error {
	if w.client == nil {
		return nil
	}
	err := w.client.Close()
	w.client, w.task = nil, nil
	return err
}

// newTask makes the Task of a Spec; tests replace it to run a Task of
// their own.
var newTask = func(ctx context.Context, c jobs.Client, spec jobs.Spec) (jobs.Task, error) {
	return jobs.NewTask(ctx, c, spec)
}

// planFn plans the job's units; it runs once, on the Impulse.
type planFn struct {
	Job Job `json:"job"`
	w   worker
}

func (f *planFn) Setup(ctx context.Context) error { return f.w.setup(ctx, f.Job) }
func (f *planFn) Teardown() error                 { return f.w.teardown() }

func (f *planFn) ProcessElement(ctx context.Context, _ []byte, emit func(jobs.Unit)) error {
	units, err := plan(ctx, f.w.client, f.Job.Spec, f.w.task)
	if err != nil {
		return err
	}
	log.Infof(ctx, "hbkit: %s: %d units", f.Job.Spec.ID(), len(units))
	for _, u := range units {
		emit(u)
	}
	return nil
}

// runFn runs one unit through the checkpoint store and emits the unit's
// counts.
type runFn struct {
	Job Job `json:"job"`
	w   worker
}

func (f *runFn) Setup(ctx context.Context) error { return f.w.setup(ctx, f.Job) }
func (f *runFn) Teardown() error                 { return f.w.teardown() }

func (f *runFn) ProcessElement(ctx context.Context, u jobs.Unit, emit func(jobs.Counts)) error {
	c, err := runUnit(ctx, f.w.client, f.Job.Spec, f.w.task, u)
	if err != nil {
		return fmt.Errorf("pipeline: %s: unit %s: %w", f.Job.Spec.ID(), u.ID, err)
	}
	emit(c)
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

// reportFn logs the job's report and writes it to Job.ReportPath.
type reportFn struct {
	Job Job `json:"job"`
}

func (f *reportFn) ProcessElement(ctx context.Context, c jobs.Counts) error {
	r := Report{Job: f.Job.Spec.ID(), Spec: f.Job.Spec, Counts: c}
	b, err := json.Marshal(r)
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
