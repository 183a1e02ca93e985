package gohbase

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tsuna/gohbase"

	"github.com/hbkit/hbkit/hbase"
)

// ErrUnsupported is wrapped by every *UnsupportedError: a call, or a form
// of a call, that gohbase does not offer. errors.Is(err,
// errors.ErrUnsupported) holds too.
var ErrUnsupported = fmt.Errorf("gohbase adapter: %w", errors.ErrUnsupported)

// ErrNoAdminClient is returned by the admin calls of a Client made without
// WithAdminClient (except those served by the data client).
var ErrNoAdminClient = errors.New("gohbase adapter: no gohbase.AdminClient (see WithAdminClient)")

// UnsupportedError reports a request the adapter cannot send through
// gohbase. Nothing was sent. It wraps ErrUnsupported.
type UnsupportedError struct {
	Op     string // the hbkit call: "mutate row", "check and mutate", "describe table", ...
	Reason string // what gohbase lacks
}

func (e *UnsupportedError) Error() string {
	return "gohbase adapter: " + e.Op + " unsupported: " + e.Reason
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

func unsupported(op, reason string) error { return &UnsupportedError{Op: op, Reason: reason} }

// Error is a call that gohbase answered with an error. Err is gohbase's
// error. When the server threw a Java exception that has an hbase
// sentinel (TableNotFoundException → hbase.ErrTableNotFound,
// NoSuchColumnFamilyException → hbase.ErrNoSuchFamily, ...), or gohbase
// reported the table missing (gohbase.TableNotFound), errors.Is finds
// that sentinel as well as Err.
//
// gohbase retries what it considers transient by itself, until the
// call's context ends, so an Error is never retryable (hbase.IsRetryable
// reports false); the context's own errors are returned unchanged
// (wrapped), so errors.Is(err, context.DeadlineExceeded) works.
type Error struct {
	Op    string // the hbkit call: "get", "put", "create table", ...
	Table string // may be empty
	// Class is the Java exception class when the server threw one, e.g.
	// "org.apache.hadoop.hbase.TableNotFoundException".
	Class    string
	Err      error
	sentinel error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("gohbase adapter: ")
	b.WriteString(e.Op)
	if e.Table != "" {
		fmt.Fprintf(&b, " %q", e.Table)
	}
	b.WriteString(": ")
	if e.sentinel != nil {
		b.WriteString(strings.TrimPrefix(e.sentinel.Error(), "hbase: "))
		b.WriteString(": ")
	}
	b.WriteString(firstLines(e.Err.Error()))
	return b.String()
}

// Unwrap returns the hbase sentinel, if any, and gohbase's error.
func (e *Error) Unwrap() []error {
	if e.sentinel != nil {
		return []error{e.sentinel, e.Err}
	}
	return []error{e.Err}
}

// Java exception classes with an hbase sentinel (the same mapping as the
// native client's).
var sentinels = map[string]error{
	"org.apache.hadoop.hbase.TableNotFoundException":                   hbase.ErrTableNotFound,
	"org.apache.hadoop.hbase.TableExistsException":                     hbase.ErrTableExists,
	"org.apache.hadoop.hbase.TableNotEnabledException":                 hbase.ErrTableDisabled,
	"org.apache.hadoop.hbase.TableNotDisabledException":                hbase.ErrTableNotDisabled,
	"org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException": hbase.ErrNoSuchFamily,
	"org.apache.hadoop.hbase.InvalidFamilyOperationException":          hbase.ErrNoSuchFamily,
	"org.apache.hadoop.hbase.NamespaceNotFoundException":               hbase.ErrNamespaceNotFound,
	"org.apache.hadoop.hbase.NamespaceExistException":                  hbase.ErrNamespaceExists,
}

// wrapErr turns an error from gohbase into what callers see. gohbase
// reports server exceptions only as text ("HBase Java exception CLASS:"
// for RPCs, "procedure exception: CLASS:" for admin procedures), so the
// class is read from the message; that is the one place the adapter reads
// error strings.
func wrapErr(op, table string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if table == "" {
			return fmt.Errorf("gohbase adapter: %s: %w", op, err)
		}
		return fmt.Errorf("gohbase adapter: %s %q: %w", op, table, err)
	}
	e := &Error{Op: op, Table: table, Err: err}
	if errors.Is(err, gohbase.TableNotFound) {
		e.sentinel = hbase.ErrTableNotFound
		return e
	}
	msg := err.Error()
	e.Class = javaClass(msg)
	e.sentinel = sentinels[e.Class]
	if e.sentinel == nil && strings.Contains(msg, "Field is not a long") {
		e.sentinel = hbase.ErrNotCounter
	}
	return e
}

// javaClass finds the Java exception class in a gohbase error message.
func javaClass(msg string) string {
	for _, marker := range []string{"HBase Java exception ", "procedure exception: "} {
		i := strings.Index(msg, marker)
		if i < 0 {
			continue
		}
		rest := msg[i+len(marker):]
		end := strings.IndexAny(rest, ": \n")
		if end < 0 {
			end = len(rest)
		}
		return rest[:end]
	}
	return ""
}

// firstLines shortens a gohbase error message carrying a Java exception,
// "... HBase Java exception CLASS:\nCLASS: message\n\tat ...", to
// "... HBase Java exception CLASS: message".
func firstLines(msg string) string {
	head, rest, ok := strings.Cut(msg, ":\n")
	if !ok {
		head, _, _ = strings.Cut(msg, "\n")
		return head
	}
	line, _, _ := strings.Cut(rest, "\n")
	if i := strings.LastIndexByte(head, ' '); i >= 0 {
		line = strings.TrimPrefix(line, head[i+1:]+":")
	}
	return head + ": " + strings.TrimSpace(line)
}
