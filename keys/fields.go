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
		seg: Segment{Name: name, Kind: KindLiteral, Width: len(value), Order: Ascending, Literal: value},
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

// Digits is a fixed-width digit string stored as is (AppendDigits); ascending. Use it
// for a mobile number that must sort naturally, as in the seed index key.
func Digits[T any](name string, width int, get func(*T) string, set func(*T, string)) Field[T] {
	if width < 1 {
		return badField[T](name, KindDigits, "width must be at least 1")
	}
	if get == nil {
		return badField[T](name, KindDigits, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindDigits, Width: width, Order: Ascending, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 10, Width: width},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendDigits(dst, get(rec), width) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			rest, err := skipDigits(name, b, width)
			if err == nil && set != nil {
				set(rec, string(b[:width]))
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

// Date is the calendar date of a time in UTC as yyyyMMdd (AppendDate); ascending.
// The time's own location does not matter: the same instant has one date whatever
// zone the caller's clock or the process runs in, so a time read back from a cell
// (in UTC) derives the key it was written under. Decode sets midnight UTC of the
// date. DateIn writes the date of another zone.
func Date[T any](name string, get func(*T) time.Time, set func(*T, time.Time)) Field[T] {
	return dateField(name, nil, get, set)
}

// DateIn is Date in the calendar of loc (a business day in Asia/Shanghai, say): the
// date of the instant in loc, whatever the time's own location. Decode sets midnight
// in loc. A nil loc is a configuration error. Choosing another zone for an existing
// table is a data migration: about a third of the keys change date.
func DateIn[T any](name string, loc *time.Location, get func(*T) time.Time, set func(*T, time.Time)) Field[T] {
	if loc == nil {
		return badField[T](name, KindDate, "nil location")
	}
	if loc == time.UTC {
		loc = nil
	}
	return dateField(name, loc, get, set)
}

// dateField writes the date of get(rec) in loc (nil: UTC).
func dateField[T any](name string, loc *time.Location, get func(*T) time.Time, set func(*T, time.Time)) Field[T] {
	if get == nil {
		return badField[T](name, KindDate, "nil getter")
	}
	seg := Segment{Name: name, Kind: KindDate, Width: DateWidth, Order: Ascending, Decodable: set != nil, Location: loc}
	zone := seg.Zone()
	return Field[T]{
		seg: seg,
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendDate(dst, get(rec).In(zone)) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			t, rest, err := DecodeDate(b)
			if err == nil && set != nil {
				y, m, d := t.Date()
				set(rec, time.Date(y, m, d, 0, 0, 0, 0, zone))
			}
			return rest, err
		},
	}
}

// ReversedTimeOfDay is 235959999 - HHmmssSSS in 9 digits (AppendReversedTimeOfDay);
// descending within a day. get returns the time since midnight: TimeOfDay of the
// time (its UTC clock), or TimeOfDayIn of the zone of the DateIn beside it, so that
// the day and the clock read one calendar.
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

// MD5Hex is the first width lowercase hex digits of MD5 of a string field
// (AppendMD5Hex), such as the 16-digit md5 of an account in the seed index key. It
// cannot be decoded: Decode checks the digits and skips them. Its keyspace is uniform
// hex. Changing width is a data migration.
func MD5Hex[T any](name string, width int, get func(*T) string) Field[T] {
	if width < 1 || width > 32 {
		return badField[T](name, KindMD5Hex, "width must be in [1, 32]")
	}
	if get == nil {
		return badField[T](name, KindMD5Hex, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindMD5Hex, Width: width, Order: Unordered,
			Keyspace: Keyspace{Radix: 16, Width: width, Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendMD5Hex(dst, get(rec), width) },
		dec: func(b []byte, _ *T) ([]byte, error) {
			_, rest, err := decodeHex(name, b, width)
			return rest, err
		},
	}
}

// MD5 is the first n raw bytes of MD5 of a string field (AppendMD5); n = 16 is the
// whole digest. It cannot be decoded: Decode skips n bytes. Its keyspace is uniform
// bytes. Changing n is a data migration.
func MD5[T any](name string, n int, get func(*T) string) Field[T] {
	if n < 1 || n > 16 {
		return badField[T](name, KindMD5, "width must be in [1, 16]")
	}
	if get == nil {
		return badField[T](name, KindMD5, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindMD5, Width: n, Order: Unordered,
			Keyspace: Keyspace{Radix: 256, Width: n, Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendMD5(dst, get(rec), n) },
		dec: func(b []byte, _ *T) ([]byte, error) {
			if len(b) < n {
				return b, bytesError(name, b, "want "+itoa(n)+" bytes", ErrShortInput)
			}
			return b[n:], nil
		},
	}
}

// HashBucket is Bucket(get(rec), n), the FNV-1a 32 hash of a string field modulo n,
// written as BucketWidth(n) decimal digits (AppendBucket): the seed index key's
// "hash(mobile) % 10" prefix, which gives the '1'..'9' split points. Readers recompute
// the bucket from the field, so a Get or a prefix scan needs one request; a query that
// does not know the field scans every bucket (Layout.SpreadRanges).
//
// set, if not nil, receives the decoded bucket number; Decode cannot recover the hashed
// field from it. Changing n or the hash is a data migration.
func HashBucket[T any](name string, n int, get func(*T) string, set func(*T, int)) Field[T] {
	if n < 1 || n > MaxBuckets {
		return badField[T](name, KindBucket, "bucket count must be in [1, 2^31]")
	}
	if get == nil {
		return badField[T](name, KindBucket, "nil getter")
	}
	return bucketField(name, n, func(rec *T) (int, error) { return Bucket(get(rec), n), nil }, set)
}

// bucketField writes the bucket of a record among n, 1 <= n <= MaxBuckets, as
// BucketWidth(n) zero-padded decimal digits.
func bucketField[T any](name string, n int, bucket func(*T) (int, error), set func(*T, int)) Field[T] {
	w := BucketWidth(n)
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindBucket, Width: w, Order: Unordered, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 10, Width: w, Count: uint64(n), Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) {
			b, err := bucket(rec)
			if err != nil {
				return dst, renamed(err, name)
			}
			return appendDecimal(dst, uint64(b), w), nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := decodeBucket(name, b, n)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
	}
}

// HashBucketByte is HashBucket written as one byte (AppendBucketByte), n <= 256.
func HashBucketByte[T any](name string, n int, get func(*T) string, set func(*T, int)) Field[T] {
	if n < 1 || n > 256 {
		return badField[T](name, KindBucketByte, "bucket count must be in [1, 256]")
	}
	if get == nil {
		return badField[T](name, KindBucketByte, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindBucketByte, Width: 1, Order: Unordered, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 256, Width: 1, Count: uint64(n), Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) {
			return append(dst, byte(Bucket(get(rec), n))), nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := decodeBucketByte(name, b, n)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
	}
}

// Salt is a random bucket among n, written like HashBucket (AppendSalt), drawn from r
// or from crypto/rand when r is nil. It must be the first field of a layout.
//
// Salting spreads monotonically increasing keys over n regions, but a reader cannot
// know the salt of a row: every read of a prefix or range needs n scans, one per salt
// value (Layout.PrefixRanges and Layout.Ranges return them), and a Get becomes n Gets.
// Prefer HashBucket when the hashed field is known at read time.
//
// set, if not nil, receives the decoded salt. r must be safe for concurrent use if the
// layout is shared by goroutines. Changing n is a data migration.
func Salt[T any](name string, n int, r RandSource, set func(*T, int)) Field[T] {
	if n < 1 || n > MaxBuckets {
		return badField[T](name, KindSalt, "bucket count must be in [1, 2^31]")
	}
	w := BucketWidth(n)
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindSalt, Width: w, Order: Unordered, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 10, Width: w, Count: uint64(n), Uniform: true},
		},
		enc: func(dst []byte, _ *T) ([]byte, error) {
			return appendDecimal(dst, uint64(RandomBucket(r, n)), w), nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := decodeBucket(name, b, n)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
		bucket: func(dst []byte, i int) []byte { return appendDecimal(dst, uint64(i), w) },
	}
}

// Fixed is a string right-padded with pad to width bytes (AppendFixed); ascending when
// pad sorts below the bytes of the values. Changing width or pad is a data migration.
func Fixed[T any](name string, width int, pad byte, get func(*T) string, set func(*T, string)) Field[T] {
	if width < 1 {
		return badField[T](name, KindFixed, "width must be at least 1")
	}
	if get == nil {
		return badField[T](name, KindFixed, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindFixed, Width: width, Order: Ascending, Decodable: set != nil, Pad: pad},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendFixed(dst, get(rec), width, pad) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			if set == nil {
				if len(b) < width {
					return b, bytesError(name, b, "want "+itoa(width)+" bytes", ErrShortInput)
				}
				return b[width:], nil
			}
			s, rest, err := decodeFixed(name, b, width, pad)
			if err == nil {
				set(rec, s)
			}
			return rest, err
		},
	}
}

// Uint64 is an unsigned integer as 8 big-endian bytes (AppendUint64); ascending. It is
// the "substituted long" of the HBase book's customer/order keys.
func Uint64[T any](name string, get func(*T) uint64, set func(*T, uint64)) Field[T] {
	return intField(name, KindUint64, 8, Ascending, get, set, AppendUint64, DecodeUint64)
}

// Int64 is a signed integer as 8 big-endian bytes with the sign bit flipped
// (AppendInt64); ascending, negatives first.
func Int64[T any](name string, get func(*T) int64, set func(*T, int64)) Field[T] {
	return intField(name, KindInt64, 8, Ascending, get, set, AppendInt64, DecodeInt64)
}

// String is a variable-length string, escaped and terminated (AppendString), so that
// more fields may follow it; ascending. Prefer a fixed-width field where the values
// allow: variable-length keys cannot be pre-split without sampling.
func String[T any](name string, get func(*T) string, set func(*T, string)) Field[T] {
	if get == nil {
		return badField[T](name, KindString, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindString, Order: Ascending, Decodable: set != nil},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendString(dst, get(rec)), nil },
		dec: func(b []byte, rec *T) ([]byte, error) {
			if set == nil {
				end, _, err := scanString(b)
				if err != nil {
					return b, err
				}
				return b[end+2:], nil
			}
			s, rest, err := DecodeString(b)
			if err == nil {
				set(rec, s)
			}
			return rest, err
		},
	}
}

// Unique is a uint64 written as width lowercase hex digits (AppendUnique), a suffix
// that keeps records with otherwise equal keys apart; ascending. Changing width is a
// data migration.
func Unique[T any](name string, width int, get func(*T) uint64, set func(*T, uint64)) Field[T] {
	if width < 1 || width > 16 {
		return badField[T](name, KindUnique, "width must be in [1, 16]")
	}
	if get == nil {
		return badField[T](name, KindUnique, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindUnique, Width: width, Order: Ascending, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 16, Width: width},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendUnique(dst, get(rec), width) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := decodeUnique(name, b, width)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
	}
}
