package pipeline

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/jobs"
)

// worker is what a DoFn instance holds from Setup to Teardown: one
// client, the checkpoint store, the job's Task and the owner name of its
// leases.
type worker struct {
	client    *hbase.Client
	store     *jobs.Store
	storeOpts []jobs.StoreOption
	task      jobs.Task
	owner     string
	lease     time.Duration
}

// newTask makes the Task of a Spec; tests replace it to run a Task of
// their own.
var newTask = jobs.NewTask

func (w *worker) setup(ctx context.Context, job Job) error {
	w.lease = jobs.DefaultLease
	if job.Lease > 0 {
		w.lease = job.Lease
	}
	w.storeOpts = []jobs.StoreOption{jobs.WithLease(w.lease)}
	if job.StoreTable != "" {
		w.storeOpts = append(w.storeOpts, jobs.WithStoreTable(job.StoreTable))
	}
	host, _ := os.Hostname()
	w.owner = fmt.Sprintf("beam:%s:%d:%s", host, os.Getpid(), rand.Text()[:8])
	c, err := job.Conn.Dial(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: connect: %w", err)
	}
	if w.store, err = jobs.NewStore(c, w.storeOpts...); err == nil {
		w.task, err = newTask(ctx, c, job.Spec)
	}
	if err != nil {
		c.Close()
		return fmt.Errorf("pipeline: %s: %w", job.Spec.ID(), err)
	}
	w.client = c
	return nil
}

func (w *worker) teardown() error {
	if w.client == nil {
		return nil
	}
	err := w.client.Close()
	*w = worker{}
	return err
}

// runUnit runs u through the store. A unit leased by another owner is
// one whose earlier attempt (a bundle the runner retries) still holds its
// lease, or a zombie worker's: runUnit waits for the lease to pass, up to
// twice its length, and takes the unit over from its checkpoint.
func (w *worker) runUnit(ctx context.Context, spec jobs.Spec, u jobs.Unit) (jobs.UnitResult, error) {
	deadline := time.Now().Add(2 * w.lease)
	poll := min(w.lease/4, 2*time.Second)
	for {
		r, err := jobs.RunUnit(ctx, w.client, w.store, spec, w.task, u, w.owner)
		if !errors.Is(err, jobs.ErrUnitBusy) || time.Now().After(deadline) {
			return r, err
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return r, ctx.Err()
		case <-t.C:
		}
	}
}
