package hbase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Operation starts one operation of c that spans several of its calls,
// for code that makes several calls on behalf of one call of its own
// (dao's and index's calls: a batch written in steps, a query over
// several ranges). Every call of c made under the returned context shares
// one operation timeout (WithOperationTimeout), counted from now, instead
// of each having its own; a call running when it passes fails with an
// error matching ErrTimeout. Called under an operation already started,
// it returns ctx: the outer deadline holds.
//
// end must be called when the work is over, with its error: it releases
// the context and returns err, or, when err matches ErrTimeout and the
// operation's deadline has passed, err with the calls the time went to
// (an *OperationTimeoutError).
func (c *Client) Operation(ctx context.Context) (_ context.Context, end func(error) error) {
	if _, ok := ctx.Value(opDeadlineKey{}).(time.Time); ok {
		return ctx, func(err error) error { return err }
	}
	start := time.Now()
	l := &opLog{}
	octx, cancel := c.operationContext(context.WithValue(ctx, opLogKey{}, l))
	return octx, func(err error) error {
		cancel()
		// A call under the operation fails with a *timeoutError when the
		// deadline passed, or would have during its next backoff; code
		// between the calls sees the context's error.
		var te *timeoutError
		var ote *OperationTimeoutError
		switch {
		case err == nil || errors.As(err, &ote):
			return err
		case errors.As(err, &te):
		case isContextError(err) && errors.Is(context.Cause(octx), errOperationTimeout) && !errors.Is(err, ErrTimeout):
			err = &timeoutError{after: c.opts.retryBudget, last: err}
		default:
			return err
		}
		return &OperationTimeoutError{After: c.opts.retryBudget, Took: time.Since(start), Calls: l.calls(), Err: err}
	}
}

// OperationTimeoutError is an operation started by Operation that ran out
// of its operation timeout. It says where the time went: the client calls
// made under it, in the order they ended, with the time each took and
// whether it failed. It unwraps to the error of the call that
// failed, which matches ErrTimeout.
type OperationTimeoutError struct {
	After time.Duration // the operation timeout
	Took  time.Duration // from Operation to end
	Calls []OperationCall
	Err   error
}

// OperationCall is one client call of an operation.
type OperationCall struct {
	Name   string // "{operation} {table}", as the call's span
	Took   time.Duration
	Failed bool // it returned an error
}

func (e *OperationTimeoutError) Error() string {
	var b strings.Builder
	calls := "calls"
	if len(e.Calls) == 1 {
		calls = "call"
	}
	fmt.Fprintf(&b, "hbase: operation timed out after %v (%v in %d %s", e.After, e.Took.Round(time.Millisecond), len(e.Calls), calls)
	for i, c := range e.Calls {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s %v", sep, c.Name, c.Took.Round(time.Millisecond))
		if c.Failed {
			b.WriteString(" failed")
		}
	}
	b.WriteString("): ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *OperationTimeoutError) Unwrap() error { return e.Err }

// Retryable: like any ErrTimeout, the operation may be tried again later.
func (e *OperationTimeoutError) Retryable() bool { return IsRetryable(e.Err) }

type opLogKey struct{}

// opLog records the calls of an operation (op.end adds them).
type opLog struct {
	mu  sync.Mutex
	log []OperationCall
}

// maxOpLog bounds the calls an operation remembers; the last one notes
// how many more there were.
const maxOpLog = 32

func (l *opLog) add(name string, took time.Duration, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case len(l.log) < maxOpLog:
		l.log = append(l.log, OperationCall{Name: name, Took: took, Failed: failed})
	case len(l.log) == maxOpLog:
		l.log = append(l.log, OperationCall{Name: "…", Took: took, Failed: failed})
	default:
		last := &l.log[maxOpLog]
		last.Took += took
		last.Failed = last.Failed || failed
	}
}

func (l *opLog) calls() []OperationCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]OperationCall(nil), l.log...)
}
