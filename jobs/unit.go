package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
)

// Finisher is implemented by a Task with a last step once every unit is
// done (a built index made to answer, say). Run calls Finish once per job,
// with the sum of every unit's counts; a Finish that failed, or whose
// process died, is called again by the next Run of the job.
type Finisher interface {
	Finish(ctx context.Context, total Counts) error
}

// UnitResult is what RunUnit did.
type UnitResult struct {
	Counts Counts `json:"counts"` // the unit's cumulative counts, over every attempt
	// Split lists the units cut off this one because its range now spans
	// several regions; they are in the store, pending, for any worker.
	Split []Unit `json:"split,omitempty"`
}

// RunUnit claims unit of spec's job for owner and runs task on it, from
// its checkpoint, to the end of its range, then marks it done. A unit
// that is done already returns its counts; one leased by a live worker
// returns ErrUnitBusy. This is the call of each worker, and of the Beam
// pipeline's DoFn.
func RunUnit(ctx context.Context, c Client, store *Store, spec Spec, task Task, unit Unit, owner string) (UnitResult, error) {
	l, err := store.Claim(ctx, spec.ID(), unit.ID, owner)
	if errors.Is(err, ErrUnitDone) {
		st, err := store.Unit(ctx, spec.ID(), unit.ID)
		return UnitResult{Counts: st.Counts}, err
	}
	if err != nil {
		return UnitResult{}, err
	}
	return runLease(ctx, c, task, l)
}

// runLease runs the unit l holds: it creates the rows of units split off
// it earlier, splits off the part of its range past its region, runs the
// task with a renewal ticker, and marks the unit done. Stopped by ctx at
// any step, it gives the unit back.
func runLease(ctx context.Context, c Client, task Task, l *Lease) (res UnitResult, err error) {
	defer func() {
		if err != nil && ctx.Err() != nil {
			releaseStopped(ctx, l)
		}
	}()
	if err := l.ensureChildren(ctx); err != nil {
		return UnitResult{}, err
	}
	split, err := resplit(ctx, c, l)
	if err != nil {
		return UnitResult{}, err
	}
	st := l.Status()
	err = withRenewal(ctx, l, func(ctx context.Context) error {
		return task.Run(ctx, st.Unit, st.After, func(last []byte, delta Counts) error {
			return l.Commit(ctx, last, delta)
		})
	})
	if err != nil {
		return UnitResult{Split: split}, fmt.Errorf("jobs: unit %s: %w", st.ID, err)
	}
	if err := l.Done(ctx); err != nil {
		return UnitResult{Split: split}, err
	}
	return UnitResult{Counts: l.Status().Counts, Split: split}, nil
}

// releaseTimeout bounds the release of a unit whose run was stopped.
const releaseTimeout = 5 * time.Second

// releaseStopped gives back the unit of a run stopped by its context (a
// SIGTERM, a cancelled job), so that the next run resumes it at once
// instead of waiting for the lease to expire. A process that dies
// releases nothing: its leases expire.
func releaseStopped(ctx context.Context, l *Lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	_ = l.Release(ctx) // best effort: the lease expires anyway
}

// withRenewal runs f while renewing l's lease every third of the lease
// when no commit did; a lost lease cancels f.
func withRenewal(ctx context.Context, l *Lease, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	every := l.s.lease / 3
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				l.mu.Lock()
				due := l.s.now().Sub(l.renewed) >= every
				l.mu.Unlock()
				if !due {
					continue
				}
				if err := l.Renew(ctx); errors.Is(err, ErrLeaseLost) {
					cancel(err)
					return
				} // another error: the next tick tries again
			}
		}
	}()
	err := f(ctx)
	close(stop)
	<-done
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// resplit cuts off the part of l's remaining range [after, Stop) that
// lies past the region holding its next row: a region that split since
// the plan (or since the last worker) becomes units of its own. The unit
// keeps the first part; the others are recorded in its row (under its
// lease) before their own rows are created, so a worker dying in between
// leaves nothing out: the next one to claim the unit creates them.
func resplit(ctx context.Context, c Client, l *Lease) ([]Unit, error) {
	st := l.Status()
	from := st.Start
	if st.After != nil {
		from = append(bytes.Clone(st.After), 0)
	}
	regions, err := c.TableRegions(ctx, st.Table)
	if err != nil {
		return nil, fmt.Errorf("jobs: regions of %s: %w", st.Table, err)
	}
	var bounds [][]byte
	for _, r := range regions {
		if bytes.Compare(r.StartKey, from) > 0 && (len(st.Stop) == 0 || bytes.Compare(r.StartKey, st.Stop) < 0) {
			bounds = append(bounds, r.StartKey)
		}
	}
	if len(bounds) == 0 {
		return nil, nil
	}
	keep := st.Unit
	keep.Stop = bounds[0]
	children := make([]Unit, len(bounds))
	for i, b := range bounds {
		stop := st.Stop
		if i+1 < len(bounds) {
			stop = bounds[i+1]
		}
		children[i] = Unit{ID: fmt.Sprintf("%s.%d", st.ID, len(st.Children)+i+1), Table: st.Table, Start: b, Stop: stop}
	}
	if err := l.split(ctx, keep, children); err != nil {
		return nil, err
	}
	return children, nil
}
