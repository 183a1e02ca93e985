package keys

import (
	"time"
)

// Field constructors. Each binds one codec of this package to accessors on T. A nil
// getter is a configuration error reported by NewLayout; a nil setter makes the field
// write-only (Layout.Decode checks and skips it).

// badField returns a Field carrying a configuration error.
func badField[T any](name string, kind Kind, reason string) Field[T] {
	return Field[T]{seg: Segment{Name: name, Kind: kind}, err: configError(name, reason)}
}

// Literal is a constant segment, such as the record-type tag of the HBase book's
// CUSTOMER++ table ('1' for customers, '2' for orders) or the 'x' of an index key.
// Decode checks that the bytes match. Its keyspace is a single value.
func Literal[T any](name, value string) Field[T] {
	if value == "" {
		return badField[T](name, KindLiteral, "empty literal")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindLiteral, Width: len(value), Order: Ascending},
		enc: func(dst []byte, _ *T) ([]byte, error) { return append(dst, value...), nil },
		dec: func(b []byte, _ *T) ([]byte, error) {
			if len(b) < len(value) {
				return b, bytesError(name, b, "want literal "+value, ErrShortInput)
			}
			if string(b[:len(value)]) != value {
				return b, bytesError(name, b[:len(value)], "want literal "+value, ErrInvalidEncoding)
			}
			return b[len(value):], nil
		},
	}
}

// ReversedDigits is a fixed-width digit string stored reversed (AppendReversedDigits),
// such as a mobile number: 13812345678 is stored as 87654321831. The keyspace of the
// leading bytes is decimal and roughly uniform for phone numbers, whose last digits
// are well spread. Changing width is a data migration.
func ReversedDigits[T any](name string, width int, get func(*T) string, set func(*T, string)) Field[T] {
	if width < 1 {
		return badField[T](name, KindReversedDigits, "width must be at least 1")
	}
	if get == nil {
		return badField[T](name, KindReversedDigits, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindReversedDigits, Width: width, Order: Unordered, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 10, Width: width, Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendReversedDigits(dst, get(rec), width) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			if set == nil {
				return skipDigits(name, b, width)
			}
			s, rest, err := DecodeReversedDigits(b, width)
			if err == nil {
				set(rec, s)
			}
			return rest, err
		},
	}
}

// skipDigits checks that b starts with width digits and returns the rest.
func skipDigits(name string, b []byte, width int) ([]byte, error) {
	if len(b) < width {
		return b, bytesError(name, b, "want "+itoa(width)+" digits", ErrShortInput)
	}
	for i := 0; i < width; i++ {
		if b[i] < '0' || b[i] > '9' {
			return b, bytesError(name, b[:width], "non-digit at offset "+itoa(i), ErrInvalidEncoding)
		}
	}
	return b[width:], nil
}

// Decimal is an unsigned number written as width zero-padded decimal digits
// (AppendDecimal); ascending. Changing width is a data migration.
func Decimal[T any](name string, width int, get func(*T) uint64, set func(*T, uint64)) Field[T] {
	if width < 1 || width > 20 {
		return badField[T](name, KindDecimal, "width must be in [1, 20]")
	}
	if get == nil {
		return badField[T](name, KindDecimal, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindDecimal, Width: width, Order: Ascending, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 10, Width: width},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendDecimal(dst, get(rec), width) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := decodeDecimal(name, b, width)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
	}
}

// ReversedTimestamp is Long.MAX_VALUE - ms in 19 decimal digits
// (AppendReversedTimestamp); descending, newest first. get returns milliseconds since
// the Unix epoch (time.Time.UnixMilli).
func ReversedTimestamp[T any](name string, get func(*T) int64, set func(*T, int64)) Field[T] {
	if get == nil {
		return badField[T](name, KindReversedTimestamp, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindReversedTimestamp, Width: ReversedTimestampWidth,
			Order: Descending, Decodable: set != nil,
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendReversedTimestamp(dst, get(rec)) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			ms, rest, err := DecodeReversedTimestamp(b)
			if err == nil && set != nil {
				set(rec, ms)
			}
			return rest, err
		},
	}
}

// ReversedTimestampBinary is Long.MAX_VALUE - ms as 8 big-endian bytes
// (AppendReversedTimestampBinary); descending, newest first.
func ReversedTimestampBinary[T any](name string, get func(*T) int64, set func(*T, int64)) Field[T] {
	if get == nil {
		return badField[T](name, KindReversedTimestampBinary, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindReversedTimestampBinary, Width: 8,
			Order: Descending, Decodable: set != nil,
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendReversedTimestampBinary(dst, get(rec)) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			ms, rest, err := DecodeReversedTimestampBinary(b)
			if err == nil && set != nil {
				set(rec, ms)
			}
			return rest, err
		},
	}
}

// Date is the calendar date of a time as yyyyMMdd (AppendDate), in the time's own
// location; ascending. Decode sets midnight UTC of the date.
func Date[T any](name string, get func(*T) time.Time, set func(*T, time.Time)) Field[T] {
	if get == nil {
		return badField[T](name, KindDate, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindDate, Width: DateWidth, Order: Ascending, Decodable: set != nil},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendDate(dst, get(rec)) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			t, rest, err := DecodeDate(b)
			if err == nil && set != nil {
				set(rec, t)
			}
			return rest, err
		},
	}
}

// ReversedTimeOfDay is 235959999 - HHmmssSSS in 9 digits (AppendReversedTimeOfDay);
// descending within a day. get returns the time since midnight (see TimeOfDay).
func ReversedTimeOfDay[T any](name string, get func(*T) time.Duration, set func(*T, time.Duration)) Field[T] {
	if get == nil {
		return badField[T](name, KindReversedTimeOfDay, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindReversedTimeOfDay, Width: ReversedTimeOfDayWidth,
			Order: Descending, Decodable: set != nil,
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendReversedTimeOfDay(dst, get(rec)) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			d, rest, err := DecodeReversedTimeOfDay(b)
			if err == nil && set != nil {
				set(rec, d)
			}
			return rest, err
		},
	}
}
