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
	// verifyTimeout bounds one background Batch of verifications.
	verifyTimeout = time.Minute
)

// verifier sends the phase-3 writes (verifications and deletions of
// dropped entries) of a Table in the background, so that a write returns
// once its data row is written. One sender runs while there is work; it
// sends everything queued in one Batch, so the writes of concurrent calls
// share round trips.
type verifier struct {
	send  func(ctx context.Context, acts []hbase.Action) error
	limit int // queued actions beyond which enqueue waits

	mu       sync.Mutex
	queue    []hbase.Action
	queued   uint64        // actions ever queued
	sent     uint64        // actions ever sent (successfully or not)
	running  bool          // a sender goroutine runs
	progress chan struct{} // closed and replaced after each send and when the queue is taken
	err      error         // first failure since the last flush
}

func newVerifier(send func(ctx context.Context, acts []hbase.Action) error) *verifier {
	return &verifier{send: send, limit: maxQueuedVerifications, progress: make(chan struct{})}
}

// enqueue queues acts, waiting for room while the queue is full.
func (v *verifier) enqueue(ctx context.Context, acts []hbase.Action) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.waitLocked(ctx, func() bool { return len(v.queue) < v.limit }); err != nil {
		return err
	}
	v.queue = append(v.queue, acts...)
	v.queued += uint64(len(acts))
	if !v.running {
		v.running = true
		go v.run()
	}
	return nil
}

// run sends the queue until it finds it empty.
func (v *verifier) run() {
	for {
		v.mu.Lock()
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
		err := v.send(ctx, acts)
		cancel()

		v.mu.Lock()
		v.sent += uint64(len(acts))
		if err != nil && v.err == nil {
			v.err = err
		}
		v.signal()
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
	return v.waitLocked(ctx, func() bool { return v.sent >= target })
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
func (t *Table[T]) sendVerifications(ctx context.Context, acts []hbase.Action) (err error) {
	ctx, span := t.span(ctx, "verify", t.name, attribute.Int("db.operation.batch.size", len(acts)))
	defer func() { end(span, err) }()
	_, err = t.c.Batch(ctx, acts)
	return err
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
