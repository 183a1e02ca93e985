package index

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hbkit/hbkit/hbase"
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
// also take the queue and send it with its own writes (take, settle),
// saving the round trip altogether.
type verifier struct {
	// send sends acts and returns the actions their answers call for
	// (a validation's cleanup), which go back on the queue as part of
	// the same work: a flush waits for them too.
	send  func(ctx context.Context, acts []hbase.Action) (derived []hbase.Action, err error)
	limit int // queued actions beyond which enqueue waits
	// linger is how long the sender leaves a fresh queue for a writer to
	// take and send with its own writes; a flush or a full queue cuts it
	// short. Zero sends at once.
	linger time.Duration

	mu    sync.Mutex
	queue []hbase.Action
	// queued counts actions ever enqueued; sent counts those sent, less
	// the derived actions they put back on the queue, so that sent
	// reaches a flush's target only once the derived ones are sent too.
	queued, sent int64
	running      bool          // a sender goroutine runs
	progress     chan struct{} // closed and replaced after each send and when the queue is taken
	hurry        chan struct{} // closed when a flush or a full queue wants the sender not to linger
	err          error         // first failure since the last flush
}

func newVerifier(send func(ctx context.Context, acts []hbase.Action) ([]hbase.Action, error)) *verifier {
	return &verifier{send: send, limit: maxQueuedVerifications, progress: make(chan struct{}), hurry: make(chan struct{})}
}

// enqueue queues acts, waiting for room while the queue is full.
func (v *verifier) enqueue(ctx context.Context, acts []hbase.Action) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.waitLocked(ctx, func() bool { return len(v.queue) < v.limit }); err != nil {
		return err
	}
	v.queued += int64(len(acts))
	v.appendLocked(acts)
	return nil
}

// appendLocked puts acts on the queue and makes sure a sender runs; v.mu
// is held.
func (v *verifier) appendLocked(acts []hbase.Action) {
	if len(acts) == 0 {
		return
	}
	v.queue = append(v.queue, acts...)
	if len(v.queue) >= v.limit {
		v.hurryLocked()
	}
	if !v.running {
		v.running = true
		go v.run()
	}
}

// take removes up to max queued actions for a writer to send with its own
// Batch; the writer must report their outcome with settle.
func (v *verifier) take(max int) []hbase.Action {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := min(max, len(v.queue))
	if n == 0 {
		return nil
	}
	acts := v.queue[:n:n]
	v.queue = v.queue[n:]
	v.signal()
	return acts
}

// settle records the outcome of n actions from take: the actions their
// answers call for (queued as part of the same work) and err, the first
// failure among them, if any.
func (v *verifier) settle(n int, derived []hbase.Action, err error) {
	if n == 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.doneLocked(n, derived, err)
}

func (v *verifier) doneLocked(n int, derived []hbase.Action, err error) {
	v.appendLocked(derived)
	v.sent += int64(n - len(derived))
	if err != nil && v.err == nil {
		v.err = err
	}
	v.signal()
}

// hurryLocked tells a lingering sender to send now; v.mu is held.
func (v *verifier) hurryLocked() {
	select {
	case <-v.hurry:
	default:
		close(v.hurry)
	}
}

// run sends the queue until it finds it empty, first leaving it to the
// writers for v.linger unless hurried.
func (v *verifier) run() {
	for {
		if v.linger > 0 {
			v.mu.Lock()
			hurry := v.hurry
			v.mu.Unlock()
			t := time.NewTimer(v.linger)
			select {
			case <-t.C:
			case <-hurry:
				t.Stop()
			}
		}
		v.mu.Lock()
		select {
		case <-v.hurry:
			v.hurry = make(chan struct{})
		default:
		}
		acts := v.queue
		v.queue = nil
		if len(acts) == 0 {
			v.running = false
			v.mu.Unlock()
			return
		}
		v.signal()
		v.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
		derived, err := v.send(ctx, acts)
		cancel()

		v.mu.Lock()
		v.doneLocked(len(acts), derived, err)
		v.mu.Unlock()
	}
}

// signal wakes the waiters of flush and enqueue; v.mu is held.
func (v *verifier) signal() {
	close(v.progress)
	v.progress = make(chan struct{})
}

// wait waits until everything queued before the call has been sent.
func (v *verifier) wait(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	target := v.queued
	return v.waitLocked(ctx, func() bool {
		if v.sent >= target {
			return true
		}
		v.hurryLocked() // again after each send: derived work may linger
		return false
	})
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
func (t *Table[T]) sendVerifications(ctx context.Context, acts []hbase.Action) (_ []hbase.Action, err error) {
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
