package hbapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Callers test for them with errors.Is; implementations
// (the real client, the fake) wrap them with context about the call.
var (
	// Schema and state errors reported by the cluster. The comments name
	// the HBase exceptions an implementation maps to each sentinel.

	// ErrTableNotFound: TableNotFoundException, or no region of the table
	// in hbase:meta.
	ErrTableNotFound = errors.New("hbase: table not found")
	// ErrTableExists: TableExistsException.
	ErrTableExists = errors.New("hbase: table already exists")
	// ErrTableDisabled: a data call on a disabled table (the server answers
	// NotServingRegionException; the table state says why), or
	// DisableTable of a table that is not enabled (TableNotEnabledException).
	ErrTableDisabled = errors.New("hbase: table is disabled")
	// ErrTableNotDisabled: TableNotDisabledException (EnableTable,
	// DeleteTable or TruncateTable of an enabled table).
	ErrTableNotDisabled = errors.New("hbase: table is not disabled")
	// ErrNoSuchFamily: NoSuchColumnFamilyException.
	ErrNoSuchFamily = errors.New("hbase: no such column family")
	// ErrNamespaceNotFound: NamespaceNotFoundException.
	ErrNamespaceNotFound = errors.New("hbase: namespace not found")
	// ErrNamespaceExists: NamespaceExistException.
	ErrNamespaceExists = errors.New("hbase: namespace already exists")
	// ErrNamespaceNotEmpty: ConstraintException from DeleteNamespace of a
	// namespace that still has tables.
	ErrNamespaceNotEmpty = errors.New("hbase: namespace is not empty")
	// ErrNotCounter: Increment of a value that is not 8 bytes long
	// (DoNotRetryIOException "Field is not a long").
	ErrNotCounter = errors.New("hbase: value is not an 8-byte counter")

	// Request validation errors, reported before any RPC is sent. They are
	// wrapped in an *InvalidRequestError naming the operation and field.
	ErrInvalidRequest    = errors.New("hbase: invalid request")
	ErrEmptyTableName    = errors.New("hbase: empty table name")
	ErrInvalidTableName  = errors.New("hbase: invalid table name")
	ErrInvalidNamespace  = errors.New("hbase: invalid namespace name")
	ErrEmptyRow          = errors.New("hbase: empty row key")
	ErrRowTooLong        = errors.New("hbase: row key longer than 32767 bytes")
	ErrEmptyFamily       = errors.New("hbase: empty column family")
	ErrFamilyTooLong     = errors.New("hbase: column family longer than 127 bytes")
	ErrInvalidFamily     = errors.New("hbase: invalid column family name")
	ErrNilValue          = errors.New("hbase: nil value")
	ErrNegativeTimestamp = errors.New("hbase: negative timestamp")
	ErrEmptyMutation     = errors.New("hbase: mutation has no columns")
	ErrRowMismatch       = errors.New("hbase: mutation row differs from the request row")
	ErrInvalidTimeRange  = errors.New("hbase: invalid time range")
	ErrInvalidFilter     = errors.New("hbase: invalid filter")
	ErrInvalidSplitKeys  = errors.New("hbase: invalid split keys")
	// ErrCellTooLarge: a cell larger than the maximum cell size
	// (WithMaxCellSize, CellSize): refused before sending, or by a server
	// (hbase.server.keyvalue.maxsize), as a *RemoteError that names the
	// column but not the row.
	ErrCellTooLarge = errors.New("hbase: cell larger than the maximum cell size")
	// ErrRequestTooLarge: one mutation larger than MaxRequestSize, or a
	// request a server refused as larger than its
	// hbase.ipc.max.request.size (RequestTooBigException).
	ErrRequestTooLarge = errors.New("hbase: request larger than the server accepts")

	// ErrClosed is returned by calls on a closed client or scanner.
	ErrClosed = errors.New("hbase: client closed")

	// ErrTimeout: the operation did not complete within its operation
	// timeout (WithOperationTimeout), or, inside a retryable error, an
	// attempt ran out of its RPC timeout (WithRPCTimeout). It is
	// retryable unless wrapped with ErrOutcomeUnknown. The end of the
	// caller's own context is reported as the context's error instead.
	ErrTimeout = errors.New("hbase: timeout")
	// ErrOutcomeUnknown: a write that is not idempotent (see IsRetryable)
	// failed after one of its attempts may have reached the server, which
	// may have applied it (a connection that broke or stalled, a timeout).
	// Sending it again may apply it twice: read the row back first.
	// errors.Is still finds the underlying error (ErrTimeout, ...).
	ErrOutcomeUnknown = errors.New("hbase: outcome unknown: the write may have been applied")
)

// InvalidRequestError reports a request rejected by client-side validation,
// before anything was sent. Err is one of the sentinel errors above (often
// ErrInvalidRequest for rules without a dedicated sentinel).
type InvalidRequestError struct {
	Op     string // "get", "put", "scan", "create table", ...; empty for name checks
	Field  string // "Row", "Values[cf]", "Filter", ...
	Reason string // human-readable detail; may be empty
	Err    error
}

func (e *InvalidRequestError) Error() string {
	var b strings.Builder
	b.WriteString("hbase: ")
	if e.Op != "" {
		b.WriteString("invalid ")
		b.WriteString(e.Op)
		b.WriteString(" request: ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	msg := "invalid request"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "hbase: ")
	}
	b.WriteString(msg)
	if e.Reason != "" {
		b.WriteString(" (")
		b.WriteString(e.Reason)
		b.WriteString(")")
	}
	return b.String()
}

func (e *InvalidRequestError) Unwrap() error { return e.Err }

func invalid(op, field string, sentinel error, reason string) error {
	return &InvalidRequestError{Op: op, Field: field, Reason: reason, Err: sentinel}
}

func invalidf(op, field string, sentinel error, format string, args ...any) error {
	return invalid(op, field, sentinel, fmt.Sprintf(format, args...))
}

// ActionError is the failure of one action of a Batch.
type ActionError struct {
	Index  int    // position of the action in the slice given to Batch
	Action Action // the action itself
	Err    error
}

func (e ActionError) Error() string {
	return fmt.Sprintf("action %d (%s): %v", e.Index, actionName(e.Action), e.Err)
}

func (e ActionError) Unwrap() error { return e.Err }

// BatchError is returned by Batch when some actions failed. The results of
// the other actions are still valid. errors.Is and errors.As look through
// every failed action's error.
type BatchError struct {
	Failed []ActionError // in increasing Index order
}

func (e *BatchError) Error() string {
	switch len(e.Failed) {
	case 0:
		return "hbase: batch: no failed actions"
	case 1:
		return "hbase: batch: 1 action failed: " + e.Failed[0].Error()
	}
	return fmt.Sprintf("hbase: batch: %d actions failed; first: %v", len(e.Failed), e.Failed[0])
}

// Unwrap returns the error of every failed action.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// Retryable reports whether every failed action may be retried.
func (e *BatchError) Retryable() bool {
	if len(e.Failed) == 0 {
		return false
	}
	for _, f := range e.Failed {
		if !IsRetryable(f.Err) {
			return false
		}
	}
	return true
}

// Retryable is implemented by errors that know whether the failed call may
// be sent again (the real client's remote and transport errors do).
type Retryable interface {
	Retryable() bool
}

// IsRetryable reports whether the call that returned err may safely be
// retried by the caller, after a backoff, without changing the request.
// Context cancellation and deadline errors, validation errors and
// schema/state errors are not retryable. An error is retryable only when
// something in its chain implements Retryable and says so.
//
// Timeouts (ErrTimeout), broken or stalled connections and answers
// corrupted on the way (they did not decode, or held cells of another row
// than the one asked for: docs/timeouts.md) are retryable for reads and
// idempotent writes. A write that is not idempotent and may
// have reached the server fails with ErrOutcomeUnknown, which is never
// retryable. Idempotent: Get, Scan, Put (a resend writes the same cells
// again), Delete of a row, a family, all versions of a column, or one
// version named by its timestamp, and MutateRow of such mutations. Not
// idempotent: Delete of the newest version of a column (Timestamp 0,
// AllVersions false), Increment and Append (the client's own resends carry
// a nonce the server recognises; a caller's new call does not),
// CheckAndMutate (the client's own resend may find its own write: "condition
// failed" after an attempt that may have reached the server is reported as
// ErrOutcomeUnknown, never as false), MutateRow containing such a Delete. In a Batch, each
// action is judged on its own. Admin calls are treated as idempotent: the
// master rejects a repeated create or delete with ErrTableExists or
// ErrTableNotFound rather than applying it twice.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrOutcomeUnknown) {
		return false
	}
	var r Retryable
	if errors.As(err, &r) {
		return r.Retryable()
	}
	return false
}
