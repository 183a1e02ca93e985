package schema

import (
	"encoding/binary"
	"strconv"
)

// Int32Column returns a column holding an int32 as 4 big-endian bytes, the
// bytes of HBase's Bytes.toBytes(int), so Java readers (Bytes.toInt) agree
// with it. A zero value is written, not omitted.
func Int32Column[T any](name, family, qualifier string, get func(*T) int32, set func(*T, int32)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			return binary.BigEndian.AppendUint32(dst, uint32(get(v))), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 4 {
				return widthError(name, b, "want 4 bytes for an int32")
			}
			set(v, int32(binary.BigEndian.Uint32(b)))
			return nil
		},
	}
}

// Int16Column returns a column holding an int16 as 2 big-endian bytes, the
// bytes of HBase's Bytes.toBytes(short) (Bytes.toShort reads them). A zero
// value is written, not omitted.
func Int16Column[T any](name, family, qualifier string, get func(*T) int16, set func(*T, int16)) Column[T] {
	return Column[T]{
		Name: name, Family: family, Qualifier: qualifier,
		Append: func(dst []byte, v *T) ([]byte, bool) {
			return binary.BigEndian.AppendUint16(dst, uint16(get(v))), true
		},
		Set: func(v *T, b []byte) error {
			if len(b) != 2 {
				return widthError(name, b, "want 2 bytes for an int16")
			}
			set(v, int16(binary.BigEndian.Uint16(b)))
			return nil
		},
	}
}

// widthError is the *Error of a fixed-width column value of the wrong length.
func widthError(name string, b []byte, reason string) error {
	return &Error{Field: name, Value: strconv.Itoa(len(b)) + " bytes", Reason: reason, Kind: ErrInvalidValue}
}
