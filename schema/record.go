package schema

import (
	"errors"
	"slices"
)

// ErrInvalidRecord reports a record refused before it was encoded for a
// write: its Spec.Validate check failed, it is nil, or a value an index key
// is computed from is missing. The concrete error is a *Error.
var ErrInvalidRecord = errors.New("schema: invalid record")

// Invalid returns the error a Spec.Validate function reports for a field:
// field names the record field, reason says what is wrong. Keep the value
// itself out of reason: keys hold phone numbers.
func Invalid(field, reason string) error {
	return &Error{Field: field, Reason: reason, Kind: ErrInvalidRecord}
}

// Record is one record encoded for a write: its data row and one entry per
// index of the table, in the order of Table.Indexes. Reusing a Record for
// many records allocates nothing once its buffers have grown.
type Record struct {
	Data    Row
	Entries []Row
	// Token, when set, is the insert's own token: the index protocol
	// writes it with the data row, reads it back to settle a write whose
	// outcome the network hid, and Check reports two rows holding one
	// token (a record stored twice). EncodeRecord leaves it alone.
	Token []byte
}

// EncodeRecord checks v (Spec.Validate, then the values its index keys are
// computed from) and encodes its data row and index entries into r. Every
// error is a *Error naming the table and the field; nothing of r is
// meaningful after an error.
func (t *Table[T]) EncodeRecord(r *Record, v *T) error {
	if v == nil {
		return &Error{Table: t.name.String(), Reason: "nil record", Kind: ErrInvalidRecord}
	}
	if err := t.Check(v); err != nil {
		return err
	}
	if err := t.EncodeRow(&r.Data, v); err != nil {
		return err
	}
	if cap(r.Entries) < len(t.indexes) {
		r.Entries = slices.Grow(r.Entries[:0], len(t.indexes))
	}
	r.Entries = r.Entries[:len(t.indexes)]
	for i, ix := range t.indexes {
		for _, c := range t.required[i] {
			if !slices.ContainsFunc(r.Data.Cells, func(d Cell) bool { return d.Family == c.Family && d.Qualifier == c.Qualifier }) {
				return &Error{Table: t.name.String(), Field: c.Name,
					Reason: "missing; index " + ix.name.String() + " is keyed on it", Kind: ErrInvalidRecord}
			}
		}
		if err := ix.encodeEntry(&r.Entries[i], v, r.Data.Key); err != nil {
			return err
		}
	}
	return nil
}

// Check runs the table's Spec.Validate on v, if it has one. Its error is a
// *Error with Kind ErrInvalidRecord naming the field the check named.
func (t *Table[T]) Check(v *T) error {
	if t.validate == nil {
		return nil
	}
	err := t.validate(v)
	if err == nil {
		return nil
	}
	e := &Error{Table: t.name.String(), Reason: "rejected by the table's check", Kind: ErrInvalidRecord, Err: err}
	var se *Error
	if errors.As(err, &se) && se.Kind == ErrInvalidRecord && se.Err == nil {
		e.Field, e.Reason, e.Err = se.Field, se.Reason, nil
	}
	return e
}

// requiredColumns returns, per index, the columns its key is computed from:
// a record without a cell for one of them has no entry key.
func (t *Table[T]) requiredColumns() [][]ColumnInfo {
	out := make([][]ColumnInfo, len(t.indexes))
	cols := t.Columns()
	for i, ix := range t.indexes {
		for _, seg := range ix.KeySegments() {
			src, ok := ix.Source(seg.Name)
			if !ok {
				continue
			}
			j := slices.IndexFunc(cols, func(c ColumnInfo) bool { return c.Name == src })
			if j >= 0 && !slices.ContainsFunc(out[i], func(c ColumnInfo) bool { return c.Name == src }) {
				out[i] = append(out[i], cols[j])
			}
		}
	}
	return out
}
