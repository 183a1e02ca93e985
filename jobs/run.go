package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Shard is the part of a job's units one process owns: those whose shard
// key (their index in the plan; a unit split off another keeps the
// other's) is I modulo N. The zero Shard owns every unit.
type Shard struct{ I, N int }

// ParseShard parses "i/N", 0 <= i < N.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	sh := Shard{I: i, N: n}
	if !ok || err1 != nil || err2 != nil || n <= 0 || sh.validate() != nil {
		return Shard{}, fmt.Errorf("%w: shard %q (want i/N, 0 <= i < N)", ErrSpec, s)
	}
	return sh, nil
}

func (s Shard) validate() error {
	if s == (Shard{}) || (s.N > 0 && s.I >= 0 && s.I < s.N) {
		return nil
	}
	return fmt.Errorf("%w: shard %d/%d", ErrSpec, s.I, s.N)
}

func (s Shard) owns(key int) bool { return s.N <= 1 || key%s.N == s.I }

func (s Shard) String() string {
	if s.N == 0 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Option configures Run.
type Option func(*runOptions)

type runOptions struct {
	workers  int
	shard    Shard
	store    *Store
	plan     []PlanOption
	owner    string
	progress func(Progress)
	every    time.Duration
	poll     time.Duration
	failures int
}

// WithWorkers sets how many units run at once in this process (default
// GOMAXPROCS).
func WithWorkers(n int) Option { return func(o *runOptions) { o.workers = n } }

// WithShard makes this process run only the units of sh.
func WithShard(sh Shard) Option { return func(o *runOptions) { o.shard = sh } }

// WithStore sets the checkpoint store (default: NewStore(c), the table
// DefaultStoreTable).
func WithStore(s *Store) Option { return func(o *runOptions) { o.store = s } }

// WithPlan sets the options of the plan, when this process is the one
// that plans the job.
func WithPlan(opts ...PlanOption) Option { return func(o *runOptions) { o.plan = opts } }

// WithOwner names this process in the leases it takes (default
// hostname:pid).
func WithOwner(name string) Option { return func(o *runOptions) { o.owner = name } }

// WithProgress calls f with the job's progress every interval (and once
// at the end, Done set). f runs on its own goroutine, one call at a time.
func WithProgress(f func(Progress), every time.Duration) Option {
	return func(o *runOptions) { o.progress, o.every = f, every }
}

// WithMaxFailures sets how many times a unit may fail with a retryable
// error in this process before Run gives up (default 5).
func WithMaxFailures(n int) Option { return func(o *runOptions) { o.failures = n } }

func (o *runOptions) validate() error {
	switch {
	case o.workers <= 0:
		return fmt.Errorf("%w: %d workers", ErrSpec, o.workers)
	case o.progress != nil && o.every <= 0:
		return fmt.Errorf("%w: progress every %v", ErrSpec, o.every)
	case o.failures <= 0:
		return fmt.Errorf("%w: %d failures", ErrSpec, o.failures)
	case o.owner == "":
		return fmt.Errorf("%w: empty owner", ErrSpec)
	}
	return o.shard.validate()
}

func runOpts(c Client, opts []Option) (runOptions, error) {
	host, _ := os.Hostname()
	o := runOptions{workers: runtime.GOMAXPROCS(0), owner: fmt.Sprintf("%s:%d", host, os.Getpid()), failures: 5}
	for _, opt := range opts {
		opt(&o)
	}
	if o.store == nil {
		s, err := NewStore(c)
		if err != nil {
			return o, err
		}
		o.store = s
	}
	o.poll = min(o.store.lease/4, 2*time.Second)
	return o, o.validate()
}

// Report is the state of a job, from the store: every unit's counts,
// whichever process ran it.
type Report struct {
	Job       string `json:"job"`
	Units     int    `json:"units"`
	UnitsDone int    `json:"units_done"`
	Counts    Counts `json:"counts"`
	// Rows is Counts["rows"]: the rows the units read.
	Rows int64 `json:"rows"`
	// Seconds, RowsPerSec: this run's, over the rows it added.
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	Complete   bool    `json:"complete"` // every unit is done
	Finished   bool    `json:"finished"` // and the Task's Finisher ran
}

// Status reports job's state from the store.
func (s *Store) Status(ctx context.Context, job string) (Report, error) {
	js, err := s.Job(ctx, job)
	if err != nil {
		return Report{}, err
	}
	units, err := s.Units(ctx, job)
	if err != nil {
		return Report{}, err
	}
	r := sumUnits(job, units)
	r.Finished = js.Finished
	return r, nil
}

func sumUnits(job string, units []UnitStatus) Report {
	r := Report{Job: job, Units: len(units), Counts: Counts{}}
	for _, u := range units {
		r.Counts.Add(u.Counts)
		if u.State == StateDone {
			r.UnitsDone++
		}
	}
	r.Rows = r.Counts["rows"]
	r.Complete = r.Units > 0 && r.UnitsDone == r.Units
	return r
}

// PlanJob returns the plan of spec's job from the store, or plans it (see
// Plan) and stores it: the first process to store a plan wins.
func PlanJob(ctx context.Context, c Client, s *Store, spec Spec, task Task, opts ...PlanOption) ([]Unit, error) {
	js, err := s.Job(ctx, spec.ID())
	switch {
	case err == nil && js.Ready:
		return js.Plan, nil
	case err == nil:
		return s.SavePlan(ctx, spec, js.Plan)
	case !errors.Is(err, ErrNoPlan):
		return nil, err
	}
	units, err := Plan(ctx, c, spec, task, opts...)
	if err != nil {
		return nil, err
	}
	return s.SavePlan(ctx, spec, units)
}

// Run runs spec's job: NewTask, then RunTask.
func Run(ctx context.Context, c Client, spec Spec, opts ...Option) (Report, error) {
	task, err := NewTask(ctx, c, spec)
	if err != nil {
		return Report{}, err
	}
	return RunTask(ctx, c, spec, task, opts...)
}

// RunTask runs task as spec's job: it reads the job's plan from the store
// (or plans it), then runs the units of its shard on its workers until
// every one of them is done, taking over units whose worker died. When
// the whole job is done it calls the task's Finish, if it has one. The
// report sums every unit's counts, from the store.
func RunTask(ctx context.Context, c Client, spec Spec, task Task, opts ...Option) (Report, error) {
	o, err := runOpts(c, opts)
	if err != nil {
		return Report{}, err
	}
	start, job := time.Now(), spec.ID()
	if _, err := PlanJob(ctx, c, o.store, spec, task, o.plan...); err != nil {
		return Report{}, err
	}
	before, err := o.store.Status(ctx, job)
	if err != nil {
		return Report{}, err
	}
	stop := watchProgress(ctx, o, before, start)
	err = runWorkers(ctx, c, o, job, task)
	r, serr := o.store.Status(ctx, job)
	stop(r)
	if err == nil {
		err = serr
	}
	r.Seconds = time.Since(start).Seconds()
	if r.Seconds > 0 {
		r.RowsPerSec = float64(r.Rows-before.Rows) / r.Seconds
	}
	if err == nil && r.Complete && !r.Finished {
		r.Finished, err = finish(ctx, o.store, job, task, r.Counts, o.owner)
	}
	return r, err
}

// FinishJob reports job's state and, when every unit is done and the
// job's Finisher has not run, runs it (once per job, whoever calls): for
// engines that run units with RunUnit and end with one last step.
func FinishJob(ctx context.Context, s *Store, spec Spec, task Task, owner string) (Report, error) {
	r, err := s.Status(ctx, spec.ID())
	if err != nil || !r.Complete || r.Finished {
		return r, err
	}
	r.Finished, err = finish(ctx, s, spec.ID(), task, r.Counts, owner)
	return r, err
}

// finish calls task's Finish once for job, under a lease on the job row.
// It reports whether the job is finished: false when another process is
// finishing it.
func finish(ctx context.Context, s *Store, job string, task Task, total Counts, owner string) (bool, error) {
	js, err := s.Job(ctx, job)
	if err != nil || js.Finished {
		return js.Finished, err
	}
	if f, ok := task.(Finisher); ok {
		if !s.free(js.finish) {
			return false, nil
		}
		ok, err := s.swap(ctx, jobKey(job), colFinish, js.finish, s.token(owner, s.now().Add(s.lease)), nil)
		if err != nil || !ok {
			return false, err
		}
		if err := f.Finish(ctx, total); err != nil {
			return false, fmt.Errorf("jobs: finish %s: %w", job, err)
		}
	}
	err = s.c.Put(ctx, &hbapi.Put{Table: s.table, Row: jobKey(job), Cells: []hbapi.PutCell{cell(colFinished, []byte("1"))}})
	if err != nil {
		return false, fmt.Errorf("jobs: finish %s: %w", job, err)
	}
	return true, nil
}

// runWorkers runs o.workers workers over the units of o.shard until every
// one of them is done, or a unit fails for good.
func runWorkers(ctx context.Context, c Client, o runOptions, job string, task Task) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &picker{s: o.store, job: job, shard: o.shard, owner: o.owner, poll: o.poll, failed: map[string]int{}, wake: make(chan struct{})}
	lim := &limiter{max: o.workers, limit: o.workers}
	var wg sync.WaitGroup
	for range o.workers {
		wg.Go(func() {
			if err := work(ctx, c, task, p, lim, o.failures); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// work is one worker: it claims units and runs them until none is left.
func work(ctx context.Context, c Client, task Task, p *picker, lim *limiter, maxFailures int) error {
	for {
		if err := lim.acquire(ctx); err != nil {
			return err
		}
		l, err := p.next(ctx)
		if l == nil || err != nil {
			lim.release(true)
			return err
		}
		_, err = runLease(ctx, c, task, l)
		lim.release(!hbapi.IsRetryable(err))
		p.kick()
		switch {
		case err == nil, errors.Is(err, ErrLeaseLost):
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !hbapi.IsRetryable(err):
			return err
		}
		// A retryable error the client's own retries did not get past:
		// the servers are overloaded or moving regions. Give the unit
		// back, run fewer units at once, and wait a little.
		id := l.Status().ID
		_ = l.Release(ctx)
		if p.fail(id) >= maxFailures {
			return fmt.Errorf("jobs: unit %s failed %d times: %w", id, maxFailures, err)
		}
		if err := sleep(ctx, p.poll); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// picker hands the units of a shard to the workers of a process, one
// scan of the store at a time.
type picker struct {
	s     *Store
	job   string
	shard Shard
	owner string
	poll  time.Duration

	mu     sync.Mutex
	queue  []UnitStatus   // units free when last scanned
	failed map[string]int // retryable failures by unit
	wake   chan struct{}  // closed when a worker of this process ends a unit
}

// wait waits for a worker of this process to end a unit, or for poll.
func (p *picker) wait(ctx context.Context) error {
	p.mu.Lock()
	wake := p.wake
	p.mu.Unlock()
	t := time.NewTimer(p.poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	case <-wake:
	}
	return nil
}

// kick wakes the workers waiting for units.
func (p *picker) kick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.wake)
	p.wake = make(chan struct{})
}

// next claims a unit of the shard for the caller: a pending one, or one
// whose lease expired. It returns nil when every unit of the shard is
// done, and waits while the units left are leased by live workers (one of
// which may die, or split its unit).
func (p *picker) next(ctx context.Context) (*Lease, error) {
	for {
		u, ok, err := p.pop(ctx)
		if err != nil || !ok {
			return nil, err
		}
		if u.ID == "" { // nothing free yet
			if err := p.wait(ctx); err != nil {
				return nil, err
			}
			continue
		}
		l, err := p.s.claim(ctx, p.job, u, p.owner)
		if errors.Is(err, ErrUnitBusy) || errors.Is(err, ErrUnitDone) {
			continue
		}
		return l, err
	}
}

// pop returns the next free unit of the queue, scanning the store when it
// is empty: ok false when every unit of the shard is done, a zero unit
// when none is free now.
func (p *picker) pop(ctx context.Context) (UnitStatus, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		units, err := p.s.Units(ctx, p.job)
		if err != nil {
			return UnitStatus{}, false, err
		}
		left := 0
		for _, u := range units {
			if !p.shard.owns(u.Shard) || u.State == StateDone {
				continue
			}
			left++
			if p.s.free(u.lease) {
				p.queue = append(p.queue, u)
			}
		}
		if left == 0 {
			return UnitStatus{}, false, nil
		}
		if len(p.queue) == 0 {
			return UnitStatus{}, true, nil
		}
	}
	u := p.queue[0]
	p.queue = p.queue[1:]
	return u, true, nil
}

func (p *picker) fail(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed[id]++
	return p.failed[id]
}

// limiter bounds the units running at once: max, halved when a unit
// fails with a retryable error (overload), grown back by one per unit
// that ends well.
type limiter struct {
	mu     sync.Mutex
	max    int
	limit  int
	active int
}

func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.active < l.limit {
			l.active++
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

func (l *limiter) release(ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if ok {
		l.limit = min(l.max, l.limit+1)
	} else {
		l.limit = max(1, l.limit/2)
	}
}
