package index

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Callers branch with errors.Is.
var (
	// ErrInvalidRecord reports a record rejected before anything was
	// written: a key that cannot be encoded (an invalid mobile, a
	// timestamp out of range), a missing value an index key is computed
	// from, or a failed validator. The concrete error is a *RecordError.
	ErrInvalidRecord = errors.New("index: invalid record")
	// ErrConflict reports a write that lost the race for its data row on
	// every attempt (another writer kept changing the row).
	ErrConflict = errors.New("index: too many concurrent updates of the row")
	// ErrAborted reports a write stopped by the hook between two of its
	// writes. The state left behind is the one the protocol is designed to
	// survive: readers detect it and repair it.
	ErrAborted = errors.New("index: write aborted between two writes")
	// ErrInvalidOption reports an option value that cannot be used.
	ErrInvalidOption = errors.New("index: invalid option")
	// ErrUnknownIndex reports an index name the table does not declare.
	ErrUnknownIndex = errors.New("index: unknown index")
	// ErrUnsupportedSchema reports a table declaration the protocol cannot
	// serve: an index whose entries do not carry the data row key, or a
	// column using one of the qualifiers the protocol reserves.
	ErrUnsupportedSchema = errors.New("index: unsupported schema")
	// ErrInvalidQuery reports query arguments that select nothing
	// meaningful: an empty account, a date range that ends before it
	// starts.
	ErrInvalidQuery = errors.New("index: invalid query")
	// ErrBadCheckpoint reports a checkpoint that does not belong to the
	// run it is given to.
	ErrBadCheckpoint = errors.New("index: checkpoint does not match the run")
)

// RecordError is a record rejected before any write. Field names the record
// field or key segment; Err is the cause (often a *schema.Error wrapping a
// *keys.Error). Errors of key fields quote values that may be personal
// data (phone numbers): log Field and Reason, not Error().
type RecordError struct {
	Field  string
	Reason string
	Err    error
}

func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString("index: invalid record")
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalidRecord) hold.
func (e *RecordError) Is(target error) bool { return target == ErrInvalidRecord }

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

// StepError is a write that failed, or was aborted by the hook, at one
// step of the protocol. The data and index tables are left in a state the
// readers and Check tolerate (see the package documentation).
type StepError struct {
	Step Step
	Err  error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("index: %s, before %s: %v", e.Step.Op, e.Step.Phase, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// ItemError is the failure of one record of a batch.
type ItemError struct {
	Index int // position in the slice given to the call
	Err   error
}

func (e ItemError) Error() string { return fmt.Sprintf("record %d: %v", e.Index, e.Err) }

func (e ItemError) Unwrap() error { return e.Err }

// BatchError is returned by PutBatch and DeleteBatch when some records
// failed; the others were written. errors.Is and errors.As look through
// every failed record's error.
type BatchError struct {
	Failed []ItemError // in increasing Index order
}

func (e *BatchError) Error() string {
	switch len(e.Failed) {
	case 0:
		return "index: batch: no failed records"
	case 1:
		return "index: batch: 1 record failed: " + e.Failed[0].Error()
	}
	return fmt.Sprintf("index: batch: %d records failed; first: %v", len(e.Failed), e.Failed[0])
}

// Unwrap returns the error of every failed record.
func (e *BatchError) Unwrap() []error {
	out := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f.Err
	}
	return out
}
