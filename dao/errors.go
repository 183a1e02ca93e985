package dao

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Sentinel errors. Errors returned by this package wrap one of them (or an
// error of package hbase, schema or keys), so callers branch with errors.Is
// and errors.As and never match strings.
var (
	// ErrInvalidRecord reports a record rejected before anything was
	// written: its row key or cells cannot be encoded, or a validator
	// refused it. The concrete error is a *ValidationError.
	ErrInvalidRecord = errors.New("dao: invalid record")
	// ErrInvalidQuery reports a query that cannot be turned into scans:
	// bounds that do not encode, ranges out of order or overlapping, a
	// negative limit. The concrete error is a *QueryError.
	ErrInvalidQuery = errors.New("dao: invalid query")
	// ErrInvalidToken reports a resume token that is not one this package
	// produced (bad encoding, unknown version, a key outside the query).
	ErrInvalidToken = errors.New("dao: invalid resume token")
	// ErrTokenMismatch reports a well-formed resume token produced by a
	// different query (another table, other bounds, the other direction).
	ErrTokenMismatch = errors.New("dao: resume token belongs to another query")
	// ErrNotAttempted is the per-record result of a batch record that was
	// not sent: another record of the batch was invalid (validation is
	// all-or-nothing), or the context ended before its chunk was sent.
	ErrNotAttempted = errors.New("dao: record not written")
	// ErrDecode reports a row that cannot be decoded into a record. The
	// concrete error is a *DecodeError.
	ErrDecode = errors.New("dao: cannot decode row")
)

// ValidationError reports a record rejected before any write. It names the
// field and says why; the cause (a *schema.Error, itself wrapping a
// *keys.Error, or the error of a validator) stays reachable through
// errors.As.
//
// Error() never quotes the offending value: row keys hold phone numbers.
// The cause's message may; keep it out of logs that leave the process.
type ValidationError struct {
	Table  string // table name
	Field  string // record field or key segment; empty when the record as a whole is refused
	Reason string // what is wrong, in words
	Err    error  // cause, may be nil
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("dao: ")
	if e.Table != "" {
		b.WriteString("table " + strconv.Quote(e.Table) + ": ")
	}
	b.WriteString("invalid record: ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrInvalidRecord and the cause.
func (e *ValidationError) Unwrap() []error { return nonNil(ErrInvalidRecord, e.Err) }

// Invalid returns a *ValidationError for validators (see WithValidator):
// field names the record field and reason says what is wrong with it. Do
// not put the value itself in reason.
func Invalid(field, reason string) error {
	return &ValidationError{Field: field, Reason: reason}
}

// QueryError reports a query rejected before any scan was opened.
type QueryError struct {
	Table  string
	Field  string // query field ("Limit", "Ranges", …) or key segment
	Reason string
	Err    error // cause, may be nil (a *schema.Error or *keys.Error for bounds)
}

func (e *QueryError) Error() string {
	s := "dao: table " + strconv.Quote(e.Table) + ": invalid query: "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Reason
}

// Unwrap returns ErrInvalidQuery and the cause.
func (e *QueryError) Unwrap() []error { return nonNil(ErrInvalidQuery, e.Err) }

// DecodeError reports a stored row that the table's schema cannot decode.
// Like ValidationError, its message names the field and reason, not the
// bytes.
type DecodeError struct {
	Table  string
	Field  string
	Reason string
	Err    error // the *schema.Error
}

func (e *DecodeError) Error() string {
	s := "dao: table " + strconv.Quote(e.Table) + ": cannot decode row: "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Reason
}

// Unwrap returns ErrDecode and the cause.
func (e *DecodeError) Unwrap() []error { return nonNil(ErrDecode, e.Err) }

// ItemError is the failure of one record of a batch.
type ItemError struct {
	Index int // position of the record in the slice given to the batch call
	Err   error
}

func (e ItemError) Error() string { return "record " + strconv.Itoa(e.Index) + ": " + e.Err.Error() }

// Unwrap returns the record's error.
func (e ItemError) Unwrap() error { return e.Err }

// BatchError is returned by the batch calls when some records failed. The
// per-record results returned with it say what happened to every record;
// Failed lists the failed ones in index order.
//
// When Rejected is true the batch failed validation: Failed lists the
// invalid records and nothing at all was written (the other records'
// results are ErrNotAttempted). Otherwise the records not in Failed were
// written.
type BatchError struct {
	Table    string
	Op       string // "put" or "delete"
	Rejected bool
	Failed   []ItemError
}

func (e *BatchError) Error() string {
	var b strings.Builder
	b.WriteString("dao: table " + strconv.Quote(e.Table) + ": " + e.Op + " batch: ")
	if e.Rejected {
		b.WriteString("rejected, nothing written: ")
	}
	b.WriteString(strconv.Itoa(len(e.Failed)))
	if len(e.Failed) == 1 {
		b.WriteString(" record failed")
	} else {
		b.WriteString(" records failed")
	}
	if len(e.Failed) > 0 {
		b.WriteString("; first: " + e.Failed[0].Error())
	}
	return b.String()
}

// Unwrap returns the error of every failed record, so errors.Is and
// errors.As look through all of them.
func (e *BatchError) Unwrap() []error {
	out := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f
	}
	return out
}

// Indexes returns the positions of the failed records.
func (e *BatchError) Indexes() []int {
	out := make([]int, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f.Index
	}
	return out
}

func nonNil(errs ...error) []error {
	out := errs[:0:0]
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// describe extracts a field and a reason from a schema or keys error,
// without the offending value.
func describe(err error) (field, reason string) {
	var se *schema.Error
	if errors.As(err, &se) {
		return se.Field, se.Reason
	}
	var ke *keys.Error
	if errors.As(err, &ke) {
		return ke.Segment, ke.Reason
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Field, ve.Reason
	}
	return "", err.Error()
}

// Errors of the store's writes and index reads, shared with package index
// so that errors.Is holds whichever layer returned them.
var (
	// ErrExists reports an Insert whose row key a live record holds;
	// nothing was written for it.
	ErrExists = index.ErrExists
	// ErrInsertOnly reports a Put over a live record with other values
	// (a rewrite, or a move of its index entries) on a table whose write
	// mode is schema.InsertOnly; nothing was written for it. Delete the
	// record first, or declare the table Strict, Mutable or VerifyOnRead.
	ErrInsertOnly = index.ErrInsertOnly
	// ErrUnknownIndex reports an index name the schema does not declare.
	ErrUnknownIndex = index.ErrUnknownIndex
	// ErrInvalidOption reports an option with a value New (or Check)
	// refuses.
	ErrInvalidOption = index.ErrInvalidOption
	// ErrUnsupportedSchema reports a schema whose indexes the protocol
	// cannot serve: an index that carries neither the data row key nor
	// an inverted entry, or a column using a reserved qualifier.
	ErrUnsupportedSchema = index.ErrUnsupportedSchema
	// ErrConflict reports a write that lost the race for its data row on
	// every attempt.
	ErrConflict = index.ErrConflict
	// ErrAborted reports a write stopped between two of its writes by the
	// fault-injection hook (WithHook); readers and Check repair what
	// it left.
	ErrAborted = index.ErrAborted
	// ErrBadCheckpoint reports a Check checkpoint given to another run.
	ErrBadCheckpoint = index.ErrBadCheckpoint
	// ErrNoIndex reports an index operation (Check) on a table that
	// declares no index.
	ErrNoIndex = errors.New("dao: table declares no index")
	// ErrClosed reports a call on a store after its Close.
	ErrClosed = errors.New("dao: store closed")
)
