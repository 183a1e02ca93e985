package index

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

const (
	// maxQueuedVerifications bounds the phase-3 writes waiting to be sent;
	// a write that finds the queue full waits for room.
	maxQueuedVerifications = 20_000
	// validationLinger is how long a mutable table's queued validations
	// wait for the next write to take them (verifier.linger).
	validationLinger = 2 * time.Millisecond
	// verifyTimeout bounds one background Batch of verifications.
	verifyTimeout = time.Minute
)

// verifier sends the phase-3 writes (verifications and deletions of
// dropped entries, or a mutable table's validation reads) of a Table in
// the background, so that a write returns once its data row is written.
// One sender runs while there is work; it sends everything queued in one
// Batch, so the writes of concurrent calls share round trips. A writer may
// also take the queue and send it with its own writes (take, then settle
// or putBack), saving the round trip altogether.
//
// Each enqueue is a job; a flush waits for every job enqueued before it,
// including the actions their answers call for (derived work, such as a
// validation's cleanup), whoever sends them and in whatever order.
type verifier struct {
	// send sends acts and returns the actions their answers call for,
	// which go back on the queue as part of the same work.
	send  func(ctx context.Context, acts []hbapi.Action) (derived []hbapi.Action, err error)
	limit int // queued actions beyond which enqueue waits
	// linger is how long the sender leaves a fresh queue for a writer to
	// take and send with its own writes; a flush or a full queue cuts it
	// short (kick). Zero sends at once.
	linger time.Duration
	kick   chan struct{} // a token (buffer 1) ends the sender's linger

	mu       sync.Mutex
	queue    []queued
	jobs     []*verifyJob  // jobs with work outstanding, oldest first
	seq      uint64        // the last job's number
	waiters  int           // flushes waiting: new work is sent without lingering
	running  bool          // a sender goroutine runs
	progress chan struct{} // closed and replaced after each send and when the queue is taken
	err      error         // first failure since the last flush
	closed   bool          // close was called: enqueue queues nothing
	// base is the parent of every background send's context; close
	// cancels it when its own context ends before the queue is sent.
	base   context.Context
	cancel context.CancelFunc
}

// verifyJob is one enqueue: its number, and its actions (with the work
// derived from them) not yet sent.
type verifyJob struct {
	seq  uint64
	open int
}

// queued is an action on the queue and the job it belongs to.
type queued struct {
	act hbapi.Action
	job *verifyJob
}

// takenWork is what take hands a writer: the actions, and their jobs.
type takenWork struct {
	acts    []hbapi.Action
	entries []queued
}

func newVerifier(send func(ctx context.Context, acts []hbapi.Action) ([]hbapi.Action, error)) *verifier {
	base, cancel := context.WithCancel(context.Background())
	return &verifier{send: send, limit: maxQueuedVerifications, progress: make(chan struct{}), kick: make(chan struct{}, 1),
		base: base, cancel: cancel}
}

// enqueue queues acts as a new job, waiting for room while the queue is
// full. After close it queues nothing: the entries of a write that was
// still running then stay unverified, which readers check and Check
// repairs.
func (v *verifier) enqueue(ctx context.Context, acts []hbapi.Action) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.waitLocked(ctx, func() bool { return v.closed || len(v.queue) < v.limit }); err != nil {
		return err
	}
	if len(acts) == 0 || v.closed {
		return nil
	}
	v.seq++
	j := &verifyJob{seq: v.seq, open: len(acts)}
	v.jobs = append(v.jobs, j)
	v.appendLocked(j, acts)
	return nil
}

// appendLocked puts acts of job j on the queue and makes sure a sender
// runs; v.mu is held.
func (v *verifier) appendLocked(j *verifyJob, acts []hbapi.Action) {
	for _, a := range acts {
		v.queue = append(v.queue, queued{a, j})
	}
	if len(v.queue) >= v.limit || v.waiters > 0 {
		v.hurry()
	}
	v.startLocked()
}

func (v *verifier) startLocked() {
	if !v.running && len(v.queue) > 0 {
		v.running = true
		go v.run()
	}
}

// hurry ends the sender's linger, now or at its next one.
func (v *verifier) hurry() {
	select {
	case v.kick <- struct{}{}:
	default:
	}
}

// take removes up to max queued actions for a writer to send with its own
// Batch; the writer must report their outcome with settle, or give them
// back with putBack.
func (v *verifier) take(max int) takenWork {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := min(max, len(v.queue))
	if n == 0 {
		return takenWork{}
	}
	w := takenWork{entries: v.queue[:n:n], acts: make([]hbapi.Action, n)}
	for i, e := range w.entries {
		w.acts[i] = e.act
	}
	v.queue = v.queue[n:]
	v.signal()
	return w
}

// settle records the outcome of work from take: the actions their answers
// call for and err, the first failure among them, if any.
func (v *verifier) settle(w takenWork, derived []hbapi.Action, err error) {
	if len(w.entries) == 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.doneLocked(w.entries, derived, err)
}

// putBack returns work from take that was not sent, or whose answers were
// lost, to the front of the queue, for the sender to send under its own
// context.
func (v *verifier) putBack(w takenWork) {
	if len(w.entries) == 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.queue = append(w.entries, v.queue...)
	v.startLocked()
	v.signal()
}

// doneLocked records that entries were sent: derived goes on the queue as
// work of the oldest job among them (every flush that waits for any of
// them waits for that one), and jobs with nothing left are done; v.mu is
// held.
func (v *verifier) doneLocked(entries []queued, derived []hbapi.Action, err error) {
	oldest := entries[0].job
	for _, e := range entries {
		e.job.open--
		if e.job.seq < oldest.seq {
			oldest = e.job
		}
	}
	if len(derived) > 0 && v.base.Err() == nil {
		oldest.open += len(derived)
		v.appendLocked(oldest, derived)
	}
	for len(v.jobs) > 0 && v.jobs[0].open <= 0 {
		v.jobs = v.jobs[1:]
	}
	if err != nil && v.err == nil {
		v.err = err
	}
	v.signal()
}

// run sends the queue until it finds it empty, first leaving it to the
// writers for v.linger unless hurried.
func (v *verifier) run() {
	for {
		if v.linger > 0 {
			t := time.NewTimer(v.linger)
			select {
			case <-t.C:
			case <-v.kick:
				t.Stop()
			}
		}
		v.mu.Lock()
		entries := v.queue
		v.queue = nil
		if len(entries) == 0 {
			v.running = false
			v.signal()
			v.mu.Unlock()
			return
		}
		v.signal()
		v.mu.Unlock()

		acts := make([]hbapi.Action, len(entries))
		for i, e := range entries {
			acts[i] = e.act
		}
		ctx, cancel := context.WithTimeout(v.base, verifyTimeout)
		derived, err := v.send(ctx, acts)
		cancel()

		v.mu.Lock()
		v.doneLocked(entries, derived, err)
		v.mu.Unlock()
	}
}

// signal wakes the waiters of flush and enqueue; v.mu is held.
func (v *verifier) signal() {
	close(v.progress)
	v.progress = make(chan struct{})
}

// wait waits until every job enqueued before the call, with the work
// derived from it, has been sent.
func (v *verifier) wait(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	target := v.seq
	v.waiters++
	defer func() { v.waiters-- }()
	v.hurry()
	return v.waitLocked(ctx, func() bool { return len(v.jobs) == 0 || v.jobs[0].seq > target })
}

// flush waits as wait does, then returns and clears the first failure
// since the last flush.
func (v *verifier) flush(ctx context.Context) error {
	if err := v.wait(ctx); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	err := v.err
	v.err = nil
	return err
}

// close stops the verifier: later enqueues queue nothing. It waits until
// the work queued before it is sent, as flush does, or until ctx ends;
// then it cancels the sends still in flight, drops what is left (those
// entries stay unverified) and waits for the sender to return. It returns
// flush's error, or ctx's when the queue could not be sent in time.
func (v *verifier) close(ctx context.Context) error {
	v.mu.Lock()
	v.closed = true
	v.signal() // enqueues waiting for room stop waiting
	v.mu.Unlock()
	err := v.flush(ctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	if ctx.Err() != nil {
		v.cancel()
		v.queue, v.jobs = nil, nil
		v.signal()
	}
	_ = v.waitLocked(context.Background(), func() bool { return !v.running })
	v.cancel()
	return err
}

// waitLocked waits until done holds or ctx ends, rechecking after every
// signal. v.mu is held on entry and on return.
func (v *verifier) waitLocked(ctx context.Context, done func() bool) error {
	for !done() {
		ch := v.progress
		v.mu.Unlock()
		select {
		case <-ch:
			v.mu.Lock()
		case <-ctx.Done():
			v.mu.Lock()
			return ctx.Err()
		}
	}
	return nil
}

// sendVerifications is the verifier's Batch: verifications and deletions
// that do not wait for the WAL sync, under a span of their own.
func (t *Table[T]) sendVerifications(ctx context.Context, acts []hbapi.Action) (_ []hbapi.Action, err error) {
	ctx, span := t.span(ctx, "verify", t.name, attribute.Int("db.operation.batch.size", len(acts)))
	defer func() { end(span, err) }()
	_, err = t.c.Batch(ctx, acts)
	return nil, err
}

// Flush waits until the verifications of the writes that returned before
// the call have been sent (see Config.SyncVerify) and returns the first
// error a background verification of this Table met since the last Flush
// (with concurrent Flushes, one of them returns it; it may belong to a
// write that returned after this Flush began). Such an error loses
// nothing: the entries stay unverified, which readers check and Check
// repairs. Call Flush before a process exits, or before another process
// runs Check, for the entries to be found verified.
func (t *Table[T]) Flush(ctx context.Context) error {
	if t.ver == nil {
		return nil
	}
	var err error
	if t.val != nil {
		err = t.val.flush(ctx) // validations queue verifications: first
	}
	if ferr := t.ver.flush(ctx); err == nil {
		err = ferr
	}
	return err
}

// Close stops the background verification (see Config.SyncVerify): it
// waits, until ctx ends, for the verifications of the writes that returned
// before the call to be sent, then cancels the sends still in flight and
// waits for the sender to return. Entries left unsent stay unverified,
// which readers check and Check repairs. It returns Flush's error, or
// ctx's error when the queue could not be sent in time. Writes after
// Close queue no verification; calling Close again does no harm. The
// client is not closed.
func (t *Table[T]) Close(ctx context.Context) error {
	if t.ver == nil {
		return nil
	}
	var err error
	if t.val != nil {
		err = t.val.close(ctx) // validations queue verifications: first
	}
	if cerr := t.ver.close(ctx); err == nil {
		err = cerr
	}
	return err
}
