package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

// Sentinel errors. Every error returned by this package is a *Error whose
// Kind is one of these, so callers can branch with errors.Is without looking
// at strings.
var (
	// ErrInvalidName reports a table, namespace or family name HBase would
	// refuse.
	ErrInvalidName = errors.New("schema: invalid name")
	// ErrInvalidOption reports a column-family option with a value HBase
	// would refuse or does not know.
	ErrInvalidOption = errors.New("schema: invalid family option")
	// ErrInvalidTable reports a table declaration that does not hang
	// together: no families, a duplicate family or column, a column in an
	// undeclared family, a missing mapping function.
	ErrInvalidTable = errors.New("schema: invalid table")
	// ErrIndexNotUnique reports an index whose row key does not determine
	// one record of the data table, so that two records would share an
	// index row. It wraps ErrInvalidTable.
	ErrIndexNotUnique = fmt.Errorf("schema: index key does not determine a record: %w", ErrInvalidTable)
	// ErrUnknownField reports a reference to a record field (key field or
	// column) that the table does not declare.
	ErrUnknownField = errors.New("schema: unknown field")
	// ErrInvalidSplits reports split keys that are empty, unsorted or
	// duplicated, or that cannot be computed from the row-key layout.
	ErrInvalidSplits = errors.New("schema: invalid split keys")
	// ErrInvalidKey reports a record whose row key or index key cannot be
	// encoded or decoded; the *keys.Error that caused it is wrapped too.
	ErrInvalidKey = errors.New("schema: invalid key")
	// ErrInvalidValue reports a cell value a column's decoder refused.
	ErrInvalidValue = errors.New("schema: invalid cell value")
	// ErrUnknownSchema reports a Builtin lookup for a name that is not
	// built in.
	ErrUnknownSchema = errors.New("schema: unknown built-in schema")
)

// Error is the validation error of this package. It names where the problem
// is (table, family, field) and why, and wraps both a sentinel (Kind) and,
// when there is one, the underlying cause (Err), typically a *keys.Error.
//
// Field holds whatever the problem is attached to: a family option's
// attribute name ("VERSIONS"), a record field or column, an index name or a
// row-key segment.
//
// For key errors (Kind ErrInvalidKey) Field and Reason come from the
// wrapped *keys.Error and Value is left empty, but the message of the
// wrapped error quotes the offending value, and row keys hold personal
// data such as phone numbers: keep Error() strings of key errors out of
// logs, metrics and span attributes that leave the process, and report
// Field and Reason instead.
type Error struct {
	Table  string // table name, empty when the problem is not tied to one
	Family string // column family, empty when not relevant
	Field  string // option, field, column, index or segment name
	Value  string // the offending value in readable form, may be empty
	Reason string // what is wrong, in words
	Kind   error  // one of the Err* sentinels of this package
	Err    error  // underlying cause, may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("schema: ")
	if e.Table != "" {
		b.WriteString("table ")
		b.WriteString(strconv.Quote(e.Table))
		b.WriteString(": ")
	}
	if e.Family != "" {
		b.WriteString("family ")
		b.WriteString(strconv.Quote(e.Family))
		b.WriteString(": ")
	}
	// A wrapped *keys.Error already says segment, reason and value; do
	// not say it twice.
	var ke *keys.Error
	if errors.As(e.Err, &ke) && ke.Segment == e.Field && ke.Reason == e.Reason {
		b.WriteString(e.Err.Error())
		return b.String()
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Value != "" {
		b.WriteString(" (got ")
		b.WriteString(strconv.Quote(e.Value))
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the sentinel kind and the cause, so that errors.Is matches
// the sentinel and errors.As reaches a wrapped *keys.Error.
func (e *Error) Unwrap() []error {
	out := make([]error, 0, 2)
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// invalidTable is an ErrInvalidTable of a declaration's field, without
// the table's name (see withTable).
func invalidTable(field, reason string) error {
	return &Error{Field: field, Reason: reason, Kind: ErrInvalidTable}
}

// withTable fills in the table name of a *Error that does not have one yet
// and returns err unchanged otherwise.
func withTable(err error, table string) error {
	if se, ok := err.(*Error); ok && se.Table == "" {
		cp := *se
		cp.Table = table
		return &cp
	}
	return err
}
