package jobs

import (
	"context"
	"time"
)

// Progress is a job's state while it runs, read from the store: the units
// and counts of every process, the rate of this one.
type Progress struct {
	Job       string        `json:"job"`
	Units     int           `json:"units"`
	UnitsDone int           `json:"units_done"`
	Rows      int64         `json:"rows"` // Counts["rows"], every process's
	Counts    Counts        `json:"counts"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	// RowsPerSec is the rate of the rows this process's run added.
	RowsPerSec float64 `json:"rows_per_sec"`
	// ETA extrapolates the units done during this run to the units left
	// (0: not known yet). Units differ in size: it is a rough guide.
	ETA  time.Duration `json:"eta_ns"`
	Done bool          `json:"done"` // the last call: the run ended
}

// progressOf turns a report read at elapsed into a Progress, given the
// rows and units done when the run began.
func progressOf(r Report, elapsed time.Duration, rows0 int64, done0 int) Progress {
	p := Progress{Job: r.Job, Units: r.Units, UnitsDone: r.UnitsDone, Rows: r.Rows, Counts: r.Counts, Elapsed: elapsed}
	if s := elapsed.Seconds(); s > 0 {
		p.RowsPerSec = float64(r.Rows-rows0) / s
	}
	if n := r.UnitsDone - done0; n > 0 {
		p.ETA = time.Duration(float64(elapsed) / float64(n) * float64(r.Units-r.UnitsDone))
	}
	return p
}

// watchProgress calls o.progress every o.every with the job's state until
// the returned function is called with the final report, which it passes
// on, Done set. before is the job's state when the run began.
func watchProgress(ctx context.Context, o runOptions, before Report, start time.Time) func(Report) {
	if o.progress == nil {
		return func(Report) {}
	}
	job, rows0, done0 := before.Job, before.Rows, before.UnitsDone
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(o.every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			units, err := o.store.Units(ctx, job)
			if err != nil {
				continue // the next tick tries again; progress is advisory
			}
			o.progress(progressOf(sumUnits(job, units), time.Since(start), rows0, done0))
		}
	}()
	return func(r Report) {
		close(stop)
		<-stopped
		p := progressOf(r, time.Since(start), rows0, done0)
		p.ETA, p.Done = 0, true
		o.progress(p)
	}
}
