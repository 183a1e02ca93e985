package index

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers branch with errors.Is.
var (
	// ErrExists reports an insert over a live record: the data row's
	// conditional write found the key taken. Package dao returns the same
	// value as dao.ErrExists.
	ErrExists = errors.New("record already exists")
	// ErrInsertOnly reports a put, on a table whose write mode is
	// schema.InsertOnly, over a live record holding other values: a
	// rewrite or a move, which that mode does not make (its entries would
	// stay behind). Nothing is left of the put. Delete the record first,
	// or declare the table Strict, Mutable or VerifyOnRead. Putting the
	// same record again succeeds. Package dao returns the same value as
	// dao.ErrInsertOnly.
	ErrInsertOnly = errors.New("index: insert-only table: a live record holds the key with other values " +
		"(a rewrite or a move); delete it first, or declare the table strict, mutable or verify-on-read")
	// ErrConflict reports a write that lost the race for its data row on
	// every attempt (another writer kept changing the row).
	ErrConflict = errors.New("index: too many concurrent updates of the row")
	// ErrAborted reports a write stopped by the hook between two of its
	// writes. The state left behind is the one the protocol is designed to
	// survive: readers detect it and repair it.
	ErrAborted = errors.New("index: write aborted between two writes")
	// ErrInvalidOption reports an option or Config value that cannot be
	// used. Package dao returns the same value as dao.ErrInvalidOption.
	ErrInvalidOption = errors.New("invalid option")
	// ErrUnknownIndex reports an index name the table does not declare.
	ErrUnknownIndex = errors.New("index: unknown index")
	// ErrUnsupportedSchema reports a table declaration the protocol cannot
	// serve: an index whose entries do not carry the data row key, or a
	// column using one of the qualifiers the protocol reserves.
	ErrUnsupportedSchema = errors.New("index: unsupported schema")
	// ErrBadCheckpoint reports a checkpoint that does not belong to the
	// run it is given to.
	ErrBadCheckpoint = errors.New("index: checkpoint does not match the run")
)

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
