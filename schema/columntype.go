package schema

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// ColumnType says how a column encodes its value in a cell, so that the cell can be
// read without the record type (ColumnInfo, RowView). StringColumn, Int64Column and
// the other constructors set it; a Column built otherwise has ColumnBytes, the zero
// value, and its cells show as bytes.
type ColumnType uint8

// Column types: the encodings of the column constructors.
const (
	ColumnBytes   ColumnType = iota // raw bytes (BytesColumn, or unknown)
	ColumnString                    // UTF-8 text (StringColumn)
	ColumnInt64                     // 8 bytes big-endian, Bytes.toBytes(long) (Int64Column)
	ColumnFloat64                   // 8 bytes IEEE 754, Bytes.toBytes(double) (Float64Column)
	ColumnBool                      // 1 byte, Bytes.toBytes(boolean) (BoolColumn)
	ColumnTime                      // Unix milliseconds as Bytes.toBytes(long) (TimeColumn)
)

var columnTypeNames = [...]string{
	ColumnBytes:   "bytes",
	ColumnString:  "string",
	ColumnInt64:   "int64",
	ColumnFloat64: "float64",
	ColumnBool:    "bool",
	ColumnTime:    "time",
}

// String returns the type's name as schema files spell it: "bytes", "string",
// "int64", "float64", "bool" or "time".
func (t ColumnType) String() string {
	if int(t) < len(columnTypeNames) {
		return columnTypeNames[t]
	}
	return "column type " + strconv.Itoa(int(t))
}

// ParseColumnType returns the type String names; an unknown name is a *Error with
// Kind ErrInvalidTable.
func ParseColumnType(name string) (ColumnType, error) {
	for t, n := range columnTypeNames {
		if n == name {
			return ColumnType(t), nil
		}
	}
	return 0, &Error{Field: "type", Value: name, Reason: "unknown column type (want bytes, string, int64, float64, bool or time)", Kind: ErrInvalidTable}
}

// Value decodes a cell of the type: string, int64, float64, bool, time.Time (UTC,
// milliseconds) or, for ColumnBytes, a copy of b. A cell of the wrong width is a
// *Error with Kind ErrInvalidValue.
func (t ColumnType) Value(b []byte) (any, error) {
	width := map[ColumnType]int{ColumnInt64: 8, ColumnFloat64: 8, ColumnTime: 8, ColumnBool: 1}[t]
	if width != 0 && len(b) != width {
		return nil, &Error{Value: strconv.Itoa(len(b)) + " bytes", Reason: "want " + strconv.Itoa(width) + " bytes for a " + t.String(), Kind: ErrInvalidValue}
	}
	switch t {
	case ColumnString:
		return string(b), nil
	case ColumnInt64:
		return int64(binary.BigEndian.Uint64(b)), nil
	case ColumnFloat64:
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	case ColumnBool:
		return b[0] != 0, nil
	case ColumnTime:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC(), nil
	}
	return append([]byte(nil), b...), nil
}

// AppendText parses text as a value of the type and appends its cell encoding to dst:
// numbers in decimal, bools as strconv.ParseBool reads them, times as
// keys.ParseTime reads them, strings and bytes as they are. On error dst is returned
// unchanged with a *Error of Kind ErrInvalidValue.
func (t ColumnType) AppendText(dst []byte, text string) ([]byte, error) {
	bad := func(want string) ([]byte, error) {
		return dst, &Error{Value: text, Reason: "want " + want, Kind: ErrInvalidValue}
	}
	switch t {
	case ColumnInt64:
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return bad("a decimal int64")
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v)), nil
	case ColumnFloat64:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad("a number")
		}
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(v)), nil
	case ColumnBool:
		v, err := strconv.ParseBool(text)
		if err != nil {
			return bad("true or false")
		}
		if v {
			return append(dst, 0xff), nil
		}
		return append(dst, 0), nil
	case ColumnTime:
		v, ok := keys.ParseTime(text)
		if !ok {
			return bad("a time: RFC 3339, yyyy-MM-dd or Unix milliseconds")
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v.UnixMilli())), nil
	}
	return append(dst, text...), nil
}
