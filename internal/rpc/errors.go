package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
)

// ErrClosed is returned by calls on a Conn or Pool that the caller closed.
// It is not retryable.
var ErrClosed = errors.New("rpc: connection closed by client")

// ErrCallTimeout gives a call a per-RPC timeout when used as the cause of
// its context (see CallTimeout). A call whose context ends with this cause
// fails with an error wrapping ErrCallTimeout; if the connection made no
// progress while the call waited (no answer reached any waiting call, and
// no bytes came of an answer for one), the server is taken to have
// stopped answering and the connection is closed (ErrConnStalled).
var ErrCallTimeout = errors.New("rpc: call timed out")

// ErrConnStalled is the cause (ConnError.Err wraps it) of a connection
// closed because the server stopped answering: a call ran out of its
// per-RPC timeout with no progress on the connection since it was sent
// (see ErrCallTimeout), or a write, the writer goroutine's or a caller's own, stayed blocked past
// the write timeout. Every call pending on the connection fails with that
// ConnError; the next call through a Pool dials a fresh connection.
var ErrConnStalled = errors.New("rpc: connection stalled: the server stopped answering")

// ErrAnswerCutOff is the cause (ConnError.Err wraps it) of a connection
// closed because a call's per-RPC timeout passed while its answer was
// still arriving: the rest of that answer would hold up every later
// answer on the connection (at a slow link, for seconds). The call and
// every call pending on the connection fail with that ConnError; the next
// call through a Pool dials a fresh connection. A caller that sees it
// knows the answer did not fit the timeout, and may ask for a smaller one.
var ErrAnswerCutOff = errors.New("rpc: answer cut off by the call's timeout")

// RemoteError is an exception thrown by the server for one call (or, wrapped
// in a ConnError, for the whole connection). Dispatch on Class, never on
// Message.
type RemoteError struct {
	// Class is the fully-qualified Java class name, e.g.
	// "org.apache.hadoop.hbase.NotServingRegionException".
	Class string
	// Message is the exception message: the first part of StackTrace with the
	// "Class: " prefix and the stack frames removed.
	Message string
	// StackTrace is the stringified Java exception as sent by the server.
	StackTrace string
	// Hostname and Port are set for RegionMovedException: the region's new
	// location.
	Hostname string
	Port     int32
	// DoNotRetry is true for DoNotRetryIOException subclasses.
	DoNotRetry bool
	// ServerOverloaded is true for overload exceptions (CallQueueTooBig,
	// CallDropped): back off longer before retrying.
	ServerOverloaded bool
}

func (e *RemoteError) Error() string {
	if e.Message == "" {
		return "rpc: remote " + e.Class
	}
	return "rpc: remote " + e.Class + ": " + e.Message
}

// newRemoteError converts the wire form. It never returns nil.
func newRemoteError(x *pb.ExceptionResponse) *RemoteError {
	e := &RemoteError{
		Class:            x.GetExceptionClassName(),
		StackTrace:       x.GetStackTrace(),
		Hostname:         x.GetHostname(),
		Port:             x.GetPort(),
		DoNotRetry:       x.GetDoNotRetry(),
		ServerOverloaded: x.GetServerOverloaded(),
	}
	e.Message = exceptionMessage(e.Class, e.StackTrace)
	return e
}

// exceptionMessage extracts the message from a Java stack trace of the form
// "Class: message\n\tat frame\n...". Messages may span several lines; the
// first "\n\tat " starts the frames.
func exceptionMessage(class, trace string) string {
	msg := trace
	if i := strings.Index(msg, "\n\tat "); i >= 0 {
		msg = msg[:i]
	}
	if class != "" {
		if rest, ok := strings.CutPrefix(msg, class); ok {
			msg = strings.TrimPrefix(rest, ":")
		}
	}
	return strings.TrimSpace(msg)
}

// ConnError reports that a connection failed: the dial or handshake failed,
// the server closed or reset it, it sent a malformed frame, or it reported a
// connection-level (fatal) exception. Every call pending on the connection
// fails with the same ConnError; the next call through a Pool reconnects.
type ConnError struct {
	Addr    string
	Service string
	// Err is the cause: a net or io error, a protocol violation,
	// ErrConnStalled (wrapped), or a *RemoteError for a fatal server
	// exception (response call id -1).
	Err error
	// Sent is set on the error of a call whose request had been handed
	// to the socket when the connection broke: the server may have
	// received and executed it. It is false for calls that never left
	// (dial errors, calls on a connection already broken, requests still
	// queued), which are safe to send again whatever they do.
	Sent bool
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("rpc: connection to %s (%s): %v", e.Addr, e.Service, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }

// Retryable reports whether the failed call may be retried on a new
// connection. It is false only when the server said the connection attempt
// itself can never succeed (a fatal exception marked do-not-retry, such as
// an unsupported codec or a denied user, or a failed Kerberos handshake:
// see AuthError.Retryable).
func (e *ConnError) Retryable() bool {
	var te *TLSError
	if errors.As(e.Err, &te) || errors.Is(e.Err, ErrTLSRequired) {
		// Certificates and server settings do not change between attempts.
		return false
	}
	var ae *AuthError
	if errors.As(e.Err, &ae) {
		return ae.Retryable()
	}
	var re *RemoteError
	if errors.As(e.Err, &re) {
		return !re.DoNotRetry
	}
	return true
}

// IsRetryable reports whether a call that failed with err may be retried
// (with backoff, within the caller's budget):
//
//   - a *ConnError: see ConnError.Retryable; retry on a new connection.
//     Non-idempotent calls (Increment, Append without nonce) may have been
//     executed by the server before the connection broke: see
//     RequestSent.
//   - a *RemoteError: unless the server marked it do-not-retry. Higher layers
//     refine this per exception class (e.g. re-locating a region first).
//   - a *CorruptError: yes; the answer may arrive intact next time.
//   - anything else (ErrClosed, context errors, marshalling errors): no.
func IsRetryable(err error) bool {
	var ce *ConnError
	if errors.As(err, &ce) {
		return ce.Retryable()
	}
	var re *RemoteError
	if errors.As(err, &re) {
		return !re.DoNotRetry
	}
	var xe *CorruptError
	return errors.As(err, &xe)
}

// CorruptError is the failure of one call whose answer arrived whole but
// did not decode, or failed the caller's check (WithCheck): see
// ErrCorruptAnswer. The connection stays. The request reached the server,
// which acted on it; sending it again is as safe as the request is
// idempotent.
type CorruptError struct {
	Addr   string
	Method string
	Err    error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("rpc: corrupt answer to %s from %s: %v", e.Method, e.Addr, e.Err)
}

func (e *CorruptError) Unwrap() []error { return []error{ErrCorruptAnswer, e.Err} }

// Retryable is true: the next answer may well arrive intact.
func (e *CorruptError) Retryable() bool { return true }

// sentError is the error of a call that ended (its context ended, or it
// timed out) after its request was queued for the server: the server may
// still execute it.
type sentError struct{ err error }

func (e *sentError) Error() string { return e.err.Error() }
func (e *sentError) Unwrap() error { return e.err }

// RequestSent reports whether a call that failed with err may have
// reached the server, which may then have executed it: the connection
// broke after the request was handed to the socket (ConnError.Sent), or
// the call's context ended, or its per-RPC timeout passed, while it was
// outstanding. Whether a resend is safe then depends on the request: a
// read or an idempotent write may be sent again; a write that is not
// idempotent may be applied twice. Server exceptions (*RemoteError) and
// calls that never left report false.
func RequestSent(err error) bool {
	var ce *ConnError
	if errors.As(err, &ce) {
		return ce.Sent
	}
	var se *sentError
	var xe *CorruptError
	return errors.As(err, &se) || errors.As(err, &xe)
}

// CallTimeout returns a context for one call that ends after d with cause
// ErrCallTimeout (see ErrCallTimeout), or when ctx ends. With d <= 0 it
// only follows ctx.
func CallTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, ErrCallTimeout)
}
