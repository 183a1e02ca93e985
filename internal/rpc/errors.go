package rpc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hbkit/hbkit/internal/pb"
)

// ErrClosed is returned by calls on a Conn or Pool that the caller closed.
// It is not retryable.
var ErrClosed = errors.New("rpc: connection closed by client")

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
	// Err is the cause: a net or io error, a protocol violation, or a
	// *RemoteError for a fatal server exception (response call id -1).
	Err error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("rpc: connection to %s (%s): %v", e.Addr, e.Service, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }

// Retryable reports whether the failed call may be retried on a new
// connection. It is false only when the server said the connection attempt
// itself can never succeed (a fatal exception marked do-not-retry, such as
// an unsupported codec or a denied user).
func (e *ConnError) Retryable() bool {
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
//     executed by the server before the connection broke.
//   - a *RemoteError: unless the server marked it do-not-retry. Higher layers
//     refine this per exception class (e.g. re-locating a region first).
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
	return false
}
