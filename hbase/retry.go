package hbase

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// backoffSteps are the Java client's multipliers of hbase.client.pause
// (HConstants.RETRY_BACKOFF).
var backoffSteps = [...]int64{1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200}

// retrier bounds the retries of one call: at most maxRetries retries, no
// retry starting after the budget is spent, and never past ctx.
type retrier struct {
	o        *options
	retries  int
	deadline time.Time
	onRetry  func(reason string) // counts retries; may be nil
}

func (c *Client) newRetrier(onRetry func(string)) *retrier {
	return &retrier{o: &c.opts, deadline: time.Now().Add(c.opts.retryBudget), onRetry: onRetry}
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
// retry, or the error to give the caller: lastErr (converted) when the
// retries or the budget are spent or kind is retryNever, or the context's
// error, wrapping lastErr, when ctx ends first.
func (r *retrier) wait(ctx context.Context, lastErr error, kind retryKind) error {
	if kind == retryNever {
		return convertError(lastErr)
	}
	if r.retries >= r.o.maxRetries {
		return &retriesExhaustedError{retries: r.retries, err: convertError(lastErr)}
	}
	d := r.backoff(r.retries, kind)
	if time.Now().Add(d).After(r.deadline) {
		return &retriesExhaustedError{retries: r.retries, budget: true, err: convertError(lastErr)}
	}
	r.retries++
	if r.onRetry != nil {
		r.onRetry(errorType(lastErr))
	}
	if err := ctx.Err(); err != nil {
		return &ctxError{ctx: err, last: convertError(lastErr)}
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return &ctxError{ctx: ctx.Err(), last: convertError(lastErr)}
	}
}

// retriesExhaustedError is returned when a call failed with retryable
// errors until its retries or budget ran out. It unwraps to the last
// error, so errors.Is still finds the sentinel and IsRetryable says the
// caller may try again later.
type retriesExhaustedError struct {
	retries int
	budget  bool
	err     error
}

func (e *retriesExhaustedError) Error() string {
	why := "retries"
	if e.budget {
		why = "retry budget"
	}
	return fmt.Sprintf("%v (gave up after %d retries: %s exhausted)", e.err, e.retries, why)
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

// attemptContext bounds one attempt by WithRPCTimeout, if set. The
// attempt's deadline error is marked with errAttemptTimeout (see
// attemptError) so that it is retried while ctx lives.
func (c *Client) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.rpcTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, c.opts.rpcTimeout, errAttemptTimeout)
}

// attemptError tells an attempt's own timeout apart from the caller's
// context ending.
func attemptError(ctx, actx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || actx.Err() == nil {
		return err
	}
	if context.Cause(actx) == errAttemptTimeout {
		return &attemptTimeoutError{err: err}
	}
	return err
}

// attemptTimeoutError: one attempt ran out of its WithRPCTimeout.
type attemptTimeoutError struct{ err error }

func (e *attemptTimeoutError) Error() string   { return "hbase: attempt timed out: " + e.err.Error() }
func (e *attemptTimeoutError) Unwrap() []error { return []error{errAttemptTimeout, e.err} }
func (e *attemptTimeoutError) Retryable() bool { return true }
