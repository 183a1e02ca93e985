package hbase

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// backoffSteps are the Java client's multipliers of hbase.client.pause
// (HConstants.RETRY_BACKOFF).
var backoffSteps = [...]int64{1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200}

// Timeouts (docs/timeouts.md):
//
//   - An operation (one call with its region lookups, attempts and
//     backoffs) runs under operationContext: a context that ends after
//     WithOperationTimeout with cause errOperationTimeout. Nested retry
//     loops (a meta lookup inside a Get) share the outer deadline.
//   - Each attempt runs under attemptContext, which ends after
//     WithRPCTimeout with cause attemptTimeoutCause. internal/rpc reads
//     that cause as the call's per-RPC timeout (rpc.ErrCallTimeout) and
//     closes a connection that sent nothing in that time.
//   - retrier.wait turns the end of either into the error callers see:
//     *timeoutError (ErrTimeout, retryable) for the operation timeout,
//     *ctxError for the caller's own context.

// timeoutCause is the cause of a context ended by one of the client's own
// timeouts, as opposed to the caller's context.
type timeoutCause struct {
	msg string
	rpc bool // the per-RPC timeout
}

func (e *timeoutCause) Error() string { return e.msg }

func (e *timeoutCause) Unwrap() []error {
	if e.rpc {
		return []error{ErrTimeout, errAttemptTimeout, rpc.ErrCallTimeout}
	}
	return []error{ErrTimeout}
}

var (
	errOperationTimeout = &timeoutCause{msg: "hbase: operation timeout"}
	attemptTimeoutCause = &timeoutCause{msg: "hbase: RPC timeout", rpc: true}
)

// opDeadlineKey marks a context made by operationContext; its value is the
// operation's deadline (a time.Time).
type opDeadlineKey struct{}

// opPacedKey's value, in a context made by operationContext, is an
// *atomic.Int64: the nanoseconds the operation spent waiting on the
// pacing of region lookups (locate), for its timeout error.
type opPacedKey struct{}

// operationContext bounds one operation by WithOperationTimeout. Called
// inside an operation (ctx made by operationContext), it returns ctx: the
// outer operation's deadline holds.
func (c *Client) operationContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Value(opDeadlineKey{}).(time.Time); ok {
		return ctx, func() {}
	}
	dl := time.Now().Add(c.opts.retryBudget)
	ctx, cancel := context.WithDeadlineCause(ctx, dl, errOperationTimeout)
	ctx = context.WithValue(ctx, opPacedKey{}, new(atomic.Int64))
	return context.WithValue(ctx, opDeadlineKey{}, dl), cancel
}

// notePaced adds the time since start to the pacing waits of the
// operation of ctx, if any.
func notePaced(ctx context.Context, start time.Time) {
	if p, ok := ctx.Value(opPacedKey{}).(*atomic.Int64); ok {
		p.Add(int64(time.Since(start)))
	}
}

// pacedIn returns the time the operation of ctx spent on lookup pacing.
func pacedIn(ctx context.Context) time.Duration {
	if p, ok := ctx.Value(opPacedKey{}).(*atomic.Int64); ok {
		return time.Duration(p.Load())
	}
	return 0
}

// attemptContext bounds one attempt by WithRPCTimeout, if set. The
// attempt's own timeout is marked with attemptTimeoutCause (see
// attemptError) so that it is retried while ctx lives.
func (c *Client) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.rpcTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, c.opts.rpcTimeout, attemptTimeoutCause)
}

// attemptError tells an attempt's own timeout apart from the caller's
// context (or the operation's) ending.
func attemptError(ctx, actx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if actx.Err() == nil {
		// A context derived from actx (with its deadline) may report
		// the deadline a moment before actx does.
		d, ok := actx.Deadline()
		if !ok || time.Now().Before(d) || !isContextError(err) {
			return err
		}
		<-actx.Done()
		if ctx.Err() != nil {
			return err
		}
	}
	if errors.Is(context.Cause(actx), errAttemptTimeout) {
		return &attemptTimeoutError{err: err, sent: rpc.RequestSent(err)}
	}
	return err
}

// attemptTimeoutError: one attempt ran out of its WithRPCTimeout. If the
// server sent nothing in that time, internal/rpc closed the connection and
// err holds its *rpc.ConnError.
type attemptTimeoutError struct {
	err  error
	sent bool // the request may have reached the server
}

func (e *attemptTimeoutError) Error() string {
	if errors.Is(e.err, rpc.ErrCallTimeout) {
		return e.err.Error() // it names the timeout already
	}
	return "hbase: RPC timed out: " + e.err.Error()
}

// Unwrap hides the attempt's context error, which is not the caller's: a
// timed-out attempt is retryable.
func (e *attemptTimeoutError) Unwrap() []error {
	var ce *rpc.ConnError
	if errors.As(e.err, &ce) {
		return []error{attemptTimeoutCause, ce}
	}
	return []error{attemptTimeoutCause}
}

func (e *attemptTimeoutError) Retryable() bool { return true }

// requestSent reports whether the attempt that failed with err may have
// reached the server, so that a write which is not idempotent may have
// been applied.
func requestSent(err error) bool {
	var ate *attemptTimeoutError
	if errors.As(err, &ate) {
		return ate.sent
	}
	return rpc.RequestSent(err)
}

// mutationIdempotent reports whether applying m twice leaves the row as
// applying it once: a Put (a second copy of the same cells), or a Delete
// of all versions, or of one version named by its timestamp. A Delete of
// the newest version of a column would remove the next one too, and
// Increment and Append add twice.
func mutationIdempotent(m *pb.MutationProto) bool {
	switch m.GetMutateType() {
	case pb.MutationProto_PUT:
		return true
	case pb.MutationProto_DELETE:
		for _, cv := range m.GetColumnValue() {
			for _, qv := range cv.GetQualifierValue() {
				if qv.GetDeleteType() == pb.MutationProto_DELETE_ONE_VERSION &&
					(qv.Timestamp == nil || qv.GetTimestamp() >= uint64(LatestTimestamp)) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// retrier bounds the retries of one call: at most maxRetries retries, no
// retry starting after the operation timeout, and never past ctx. It also
// remembers whether a write that is not idempotent may have been applied
// by a failed attempt, so that its final error says so.
type retrier struct {
	o        *options
	retries  int
	deadline time.Time           // the operation timeout, for loops not under operationContext
	onRetry  func(reason string) // counts retries; may be nil

	// idempotent is false for writes that must not be applied twice
	// (Increment, Append, CheckAndMutate, ...).
	idempotent bool
	applied    bool  // an attempt's request may have reached the server
	prev       error // the last error that was not a context's

	attempts  int           // tries that failed, other than by a context
	resent    bool          // a lost answer was resent at once (lostAnswer)
	backedOff time.Duration // time slept in backoffs
}

func (c *Client) newRetrier(onRetry func(string)) *retrier {
	return &retrier{o: &c.opts, deadline: time.Now().Add(c.opts.retryBudget), onRetry: onRetry, idempotent: true}
}

// attempted records the error of one attempt's RPC and returns it.
func (r *retrier) attempted(err error) error {
	if err != nil && requestSent(err) {
		r.applied = true
	}
	return err
}

// backoff returns the wait before retry number n (0-based) with ±25%
// jitter; overloaded servers get three times as long.
func (r *retrier) backoff(n int, kind retryKind) time.Duration {
	if kind == retryNow || kind == retryMoved {
		return 0
	}
	step := backoffSteps[min(n, len(backoffSteps)-1)]
	d := time.Duration(step) * r.o.backoffBase
	if kind == retryOverloaded {
		d *= 3
	}
	if d > r.o.backoffMax || d <= 0 {
		d = r.o.backoffMax
	}
	// Jitter in [0.75d, 1.25d).
	return d*3/4 + rand.N(d/2+1)
}

// wait decides whether the call may be retried after lastErr, which the
// caller classified as kind, and sleeps for the backoff. It returns nil to
// retry, or the error to give the caller: lastErr (converted) when kind is
// retryNever or the retries are spent; a *timeoutError when the operation
// timeout has passed or would pass during the backoff; a *ctxError,
// wrapping lastErr, when the caller's ctx ends first. A write that is not
// idempotent and may have been applied gets its error wrapped with
// ErrOutcomeUnknown.
func (r *retrier) wait(ctx context.Context, lastErr error, kind retryKind) error {
	if !isContextError(lastErr) {
		r.attempts++
		r.prev = lastErr
	}
	if kind == retryNever && !isContextError(lastErr) {
		return r.final(convertError(lastErr))
	}
	if ctx.Err() != nil {
		return r.ctxDone(ctx, lastErr)
	}
	if kind == retryNever {
		return r.final(convertError(lastErr))
	}
	if r.retries >= r.o.maxRetries {
		err := &retriesExhaustedError{retries: r.retries, err: convertError(lastErr)}
		r.o.log().Warn("hbase: call gave up: retries exhausted", "retries", r.retries, "error", err.err)
		return r.final(err)
	}
	d := r.backoff(r.retries, kind)
	if !r.resent && lostAnswer(lastErr) {
		// The server was there a moment ago: resend at once, on a new
		// connection, before backing off.
		r.resent, d = true, 0
	}
	end := time.Now().Add(d)
	if dl, ok := ctx.Value(opDeadlineKey{}).(time.Time); (ok && !end.Before(dl)) || end.After(r.deadline) {
		return r.final(r.timeout(ctx, lastErr))
	}
	r.retries++
	if r.onRetry != nil {
		r.onRetry(errorType(lastErr))
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	start := time.Now()
	defer func() { r.backedOff += time.Since(start) }()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return r.ctxDone(ctx, lastErr)
	}
}

// lostAnswer reports whether err says an answer was lost or garbled on
// the way from a server that took the request: the connection broke after
// the request was sent (reset, closed), or the answer was corrupt. The
// server was up: the first retry goes at once (see wait). Stalls,
// timeouts and refused dials are not lost answers.
func lostAnswer(err error) bool {
	if errors.Is(err, rpc.ErrCorruptAnswer) {
		return true
	}
	var ce *rpc.ConnError
	return errors.As(err, &ce) && ce.Sent && !errors.Is(err, rpc.ErrConnStalled) && !errors.Is(err, errAttemptTimeout)
}

// ctxDone is the error once ctx ended: the operation timeout, or the
// caller's context.
func (r *retrier) ctxDone(ctx context.Context, lastErr error) error {
	if errors.Is(context.Cause(ctx), errOperationTimeout) {
		return r.final(r.timeout(ctx, lastErr))
	}
	last := lastErr
	if isContextError(last) && r.prev != nil {
		last = r.prev
	}
	return r.final(&ctxError{ctx: ctx.Err(), last: convertError(last)})
}

// timeout is the error of an operation (of ctx) that ran out of its
// timeout: where the time went, and the last error.
func (r *retrier) timeout(ctx context.Context, lastErr error) *timeoutError {
	var te *timeoutError
	if errors.As(lastErr, &te) {
		return te // a nested loop (a lookup) timed out first
	}
	last := r.prev
	var ce *ctxError
	switch {
	case !isContextError(lastErr):
		last = lastErr
	case last == nil && errors.As(lastErr, &ce):
		last = ce.last // why a wait (lookup pacing) held the operation
	}
	te = &timeoutError{after: r.o.retryBudget, elapsed: time.Since(r.deadline.Add(-r.o.retryBudget)), attempts: r.attempts,
		paced: pacedIn(ctx), backedOff: r.backedOff, last: convertError(last)}
	r.o.log().Warn("hbase: call gave up: operation timeout", "timeout", r.o.retryBudget, "attempts", te.attempts,
		"paced", te.paced, "backed_off", te.backedOff, "error", te.last)
	return te
}

// errConditionFailed is the answer of one attempt of a conditional write
// whose condition did not hold.
var errConditionFailed = errors.New("hbase: condition failed")

// errResentConditionFailed: a conditional write was answered "condition
// failed" after an earlier attempt may have reached the server, whose
// write may be what failed the condition.
var errResentConditionFailed = errors.New("hbase: condition failed on a resend, after an earlier attempt may have been applied")

// elsewhereError stops the resend of a nonced write (Increment, Append)
// to another server than the one an earlier attempt may have reached. A
// server drops a resend it has seen the nonce of, but only that server
// knows the nonce: a region that moved brings none along, so the new
// server would apply the write again. The call ends with
// ErrOutcomeUnknown instead (retrier.final).
type elsewhereError struct{ from, to string }

func (e *elsewhereError) Error() string {
	return "hbase: not resent to " + e.to + ": the region moved from " + e.from +
		", where an earlier attempt may have been applied, and only that server knows the write's nonce"
}

// conditionFailed is the verdict on a conditional write answered
// "condition failed" (errConditionFailed): a clean no when no earlier
// attempt may have reached the server, else an outcome unknown.
func conditionFailed(applied bool) error {
	if applied {
		return &outcomeUnknownError{err: errResentConditionFailed}
	}
	return errConditionFailed
}

// conditionFailed is conditionFailed for the attempts r has seen.
func (r *retrier) conditionFailed() error { return conditionFailed(r.applied) }

// final marks the error of a write that is not idempotent and may have
// been applied.
func (r *retrier) final(err error) error {
	if r.idempotent || !r.applied {
		return err
	}
	return &outcomeUnknownError{err: err}
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// timeoutError is an operation that did not complete within its operation
// timeout. It matches ErrTimeout and, unless the last attempt's error was
// a context's, unwraps to that error too. It is retryable: the caller may
// try again later (see IsRetryable for writes whose outcome is unknown).
type timeoutError struct {
	after   time.Duration // the operation timeout
	elapsed time.Duration // since the operation started (0: after)
	last    error         // the last attempt's error; may be nil
	// Where the time went: the tries that failed (attempts, and region
	// lookups that failed), and the time spent waiting on the pacing of
	// region lookups and in backoffs.
	attempts         int
	paced, backedOff time.Duration
}

func (e *timeoutError) Error() string {
	var b strings.Builder
	b.WriteString("hbase: operation timed out after ")
	if el := e.elapsed.Round(time.Millisecond); el > 0 && el < e.after.Round(time.Millisecond) {
		// The next backoff would have ended past the timeout.
		fmt.Fprintf(&b, "%v (timeout %v)", el, e.after)
	} else {
		b.WriteString(e.after.String())
	}
	fmt.Fprintf(&b, ": %d attempts", e.attempts)
	if e.last != nil {
		b.WriteString(", last error: ")
		b.WriteString(e.last.Error())
	}
	sep := "; "
	for _, w := range []struct {
		d    time.Duration
		what string
	}{{e.paced, "waiting on region lookup pacing"}, {e.backedOff, "backing off between retries"}} {
		if w.d >= time.Millisecond {
			fmt.Fprintf(&b, "%s%v %s", sep, w.d.Round(time.Millisecond), w.what)
			sep = ", "
		}
	}
	return b.String()
}

func (e *timeoutError) Unwrap() []error {
	if e.last == nil || isContextError(e.last) {
		return []error{ErrTimeout}
	}
	return []error{ErrTimeout, e.last}
}

func (e *timeoutError) Retryable() bool { return true }

// outcomeUnknownError wraps the final error of a write that is not
// idempotent after one of its attempts may have reached the server.
type outcomeUnknownError struct{ err error }

func (e *outcomeUnknownError) Error() string {
	return e.err.Error() + " (outcome unknown: the write may have been applied)"
}

func (e *outcomeUnknownError) Unwrap() []error { return []error{ErrOutcomeUnknown, e.err} }
func (e *outcomeUnknownError) Retryable() bool { return false }

// retriesExhaustedError is returned when a call failed with retryable
// errors until its retries ran out. It unwraps to the last error, so
// errors.Is still finds the sentinel and IsRetryable says the caller may
// try again later.
type retriesExhaustedError struct {
	retries int
	err     error
}

func (e *retriesExhaustedError) Error() string {
	return fmt.Sprintf("%v (gave up after %d retries)", e.err, e.retries)
}

func (e *retriesExhaustedError) Unwrap() error { return e.err }

// ctxError is the caller's context ending while a call was being retried:
// errors.Is finds the context error (so IsRetryable is false) and, for
// diagnosis, the last attempt's error.
type ctxError struct {
	ctx  error
	last error
}

func (e *ctxError) Error() string {
	if e.last == nil {
		return "hbase: " + e.ctx.Error()
	}
	return fmt.Sprintf("hbase: %v (last error: %v)", e.ctx, e.last)
}

func (e *ctxError) Unwrap() []error {
	if e.last == nil {
		return []error{e.ctx}
	}
	return []error{e.ctx, e.last}
}
