package schema

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Cell is one cell of a record's row: a family, a qualifier and a value.
// It is the client vocabulary's hbapi.PutCell, the cell a Put carries, so
// a record's encoded cells go into a request as they are.
type Cell = hbapi.PutCell

// Column maps one field of the record type T to one cell. There is no
// reflection: Append writes the field's value, Set reads it back. Columns
// are the record-to-cells half of a table; the row key is the other half.
type Column[T any] struct {
	// Name is the record field the column holds. Index declarations refer
	// to columns by this name. It must be unique across the table's
	// columns and key fields.
	Name string
	// Family and Qualifier locate the cell. Family must be one of the
	// table's families.
	Family    string
	Qualifier string
	// Append appends the encoded value of the field of v to dst. It
	// returns ok == false when the record has no value for the column, in
	// which case no cell is written. It must not retain dst.
	Append func(dst []byte, v *T) (out []byte, ok bool)
	// Set decodes value into the field of v. value aliases the caller's
	// buffer: copy what must outlive the call. Errors are wrapped in a
	// *Error with Kind ErrInvalidValue.
	Set func(v *T, value []byte) error
	// Type says how Append encodes the value, so that tools read cells
	// without the record type (RowView); the constructors set it. The
	// zero value, ColumnBytes, shows cells as bytes.
	Type ColumnType
}

// StringColumn returns a column holding a string field as its UTF-8 bytes
// (HBase's Bytes.toBytes(String)). An empty string writes no cell.
func StringColumn[T any](name, family, qualifier string, get func(*T) string, set func(*T, string)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnString,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			s := get(v)
			if s == "" {
				return dst, false
			}
			return append(dst, s...), true
		},
		Set: func(v *T, b []byte) error { set(v, string(b)); return nil },
	}
}

// BytesColumn returns a column holding a byte-slice field as is. A nil or
// empty slice writes no cell. Set copies the value.
func BytesColumn[T any](name, family, qualifier string, get func(*T) []byte, set func(*T, []byte)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnBytes,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			b := get(v)
			if len(b) == 0 {
				return dst, false
			}
			return append(dst, b...), true
		},
		Set: func(v *T, b []byte) error { set(v, append([]byte(nil), b...)); return nil },
	}
}

// Int64Column returns a column holding an int64 as 8 big-endian bytes,
// the bytes of HBase's Bytes.toBytes(long), so HBase's Increment and
// Java readers agree with it. A zero value is written, not omitted.
func Int64Column[T any](name, family, qualifier string, get func(*T) int64, set func(*T, int64)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnInt64,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			return binary.BigEndian.AppendUint64(dst, uint64(get(v))), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 8 {
				return &Error{Field: name, Value: strconv.Itoa(len(b)) + " bytes", Reason: "want 8 bytes for an int64", Kind: ErrInvalidValue}
			}
			set(v, int64(binary.BigEndian.Uint64(b)))
			return nil
		},
	}
}

// Float64Column returns a column holding a float64 as the 8 big-endian
// bytes of its IEEE 754 bits (HBase's Bytes.toBytes(double)).
func Float64Column[T any](name, family, qualifier string, get func(*T) float64, set func(*T, float64)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnFloat64,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			return binary.BigEndian.AppendUint64(dst, math.Float64bits(get(v))), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 8 {
				return &Error{Field: name, Value: strconv.Itoa(len(b)) + " bytes", Reason: "want 8 bytes for a float64", Kind: ErrInvalidValue}
			}
			set(v, math.Float64frombits(binary.BigEndian.Uint64(b)))
			return nil
		},
	}
}

// BoolColumn returns a column holding a bool as one byte, 0xff for true
// and 0x00 for false (HBase's Bytes.toBytes(boolean)); any non-zero byte
// reads as true, as in Bytes.toBoolean.
func BoolColumn[T any](name, family, qualifier string, get func(*T) bool, set func(*T, bool)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnBool,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			if get(v) {
				return append(dst, 0xff), true
			}
			return append(dst, 0), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 1 {
				return &Error{Field: name, Value: strconv.Itoa(len(b)) + " bytes", Reason: "want 1 byte for a bool", Kind: ErrInvalidValue}
			}
			set(v, b[0] != 0)
			return nil
		},
	}
}

// TimeColumn returns a column holding a time as the 8 big-endian bytes of
// its Unix milliseconds (Bytes.toBytes(long) of a Java timestamp). The zero
// time writes no cell; values read back are in UTC, truncated to the
// millisecond: the same instant, so key segments computed from it (keys.Date,
// keys.TimeOfDay: UTC, or a zone they declare) derive the same key from the
// record read back as from the one written.
func TimeColumn[T any](name, family, qualifier string, get func(*T) time.Time, set func(*T, time.Time)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier, Type: ColumnTime,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			t := get(v)
			if t.IsZero() {
				return dst, false
			}
			return binary.BigEndian.AppendUint64(dst, uint64(t.UnixMilli())), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 8 {
				return &Error{Field: name, Value: strconv.Itoa(len(b)) + " bytes", Reason: "want 8 bytes for a timestamp", Kind: ErrInvalidValue}
			}
			set(v, time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC())
			return nil
		},
	}
}

// Row is a record encoded for HBase: its row key and its cells. A Row is
// reusable: Table.EncodeRow and Index.EncodeEntry overwrite it and reuse
// its buffers, so encoding into the same Row allocates nothing once the
// buffers are large enough. Key and the cell values alias those buffers
// until the next encode into the same Row.
type Row struct {
	Key   []byte
	Cells []Cell
	buf   []byte // backing store of the cell values
}

// Values returns r's cells as a map of family to qualifier to value, the
// shape of a Put's values. The values alias r.
func (r *Row) Values() map[string]map[string][]byte {
	vals := make(map[string]map[string][]byte, 1)
	for _, c := range r.Cells {
		fam := vals[c.Family]
		if fam == nil {
			fam = make(map[string][]byte, len(r.Cells))
			vals[c.Family] = fam
		}
		fam[c.Qualifier] = c.Value
	}
	return vals
}

// valueRoom is the bytes per cell a fresh Row makes room for at once.
const valueRoom = 32

// grow gives a Row that has no buffers yet (a fresh one) room for a key
// of keyWidth bytes (0 or less: unknown) and for cells cells, so that
// encoding into it allocates each once instead of growing it segment by
// segment and cell by cell. A Row being reused keeps its own buffers.
func (r *Row) grow(keyWidth, cells int) {
	if cap(r.Key) == 0 && keyWidth > 0 {
		// The key and room for the values, in one allocation.
		b := make([]byte, keyWidth+valueRoom*cells)
		r.Key = b[:0:keyWidth]
		if cap(r.buf) == 0 {
			r.buf = b[keyWidth:keyWidth]
		}
	}
	if cap(r.Cells) == 0 && cells > 0 {
		r.Cells = make([]Cell, 0, cells)
	}
}

// Reset empties r, keeping its buffers.
func (r *Row) Reset() {
	r.Key = r.Key[:0]
	clear(r.Cells)
	r.Cells = r.Cells[:0]
	r.buf = r.buf[:0]
}
