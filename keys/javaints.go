package keys

import "encoding/binary"

// Java's big-endian integers, for tables whose keys Java code writes with HBase's
// Bytes.toBytes(short), Bytes.toBytes(int) and Bytes.toBytes(long): plain big-endian
// two's complement, no sign flip.
//
// Ordering: NegativesLast. Among non-negative values, and among negative values, byte
// order is numeric order; but the sign bit is the top bit of the first byte, so every
// negative value sorts after every non-negative one: 0 < 1 < ... < MaxInt64 < MinInt64
// < ... < -1. Int64 and Int32 flip the sign bit so that byte order is numeric order;
// use them for new tables, and these only to match keys Java already writes.
//
// Consequences for scans and pre-splits:
//   - Layout.Range refuses (ErrDiscontiguousRange) a range whose deciding field is a
//     Java integer with bounds of different signs; scan [lo, -1] and [0, hi] apart.
//   - Split keys computed over numbers must be written in this encoding and sorted
//     by bytes: Bytes.toBytes(-1L) is the largest 8-byte key, not a small one.
//     ValidateSplits rejects a list sorted numerically across zero.

const (
	segJavaShort     = "java short"
	segJavaInt       = "java int"
	segJavaLong      = "java long"
	segJavaPartition = "java partition"
)

// AppendJavaLong appends v as Bytes.toBytes(long) writes it: 8 bytes, big-endian two's
// complement. Ordering: NegativesLast.
func AppendJavaLong(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// DecodeJavaLong reads 8 bytes written by AppendJavaLong (Bytes.toLong). rest aliases
// b. Errors wrap ErrShortInput.
func DecodeJavaLong(b []byte) (v int64, rest []byte, err error) {
	return decodeJava(segJavaLong, b, 8, func(b []byte) int64 { return int64(binary.BigEndian.Uint64(b)) })
}

// AppendJavaInt appends v as Bytes.toBytes(int) writes it: 4 bytes, big-endian two's
// complement. Ordering: NegativesLast.
func AppendJavaInt(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

// DecodeJavaInt reads 4 bytes written by AppendJavaInt (Bytes.toInt). rest aliases b.
// Errors wrap ErrShortInput.
func DecodeJavaInt(b []byte) (v int32, rest []byte, err error) {
	return decodeJava(segJavaInt, b, 4, func(b []byte) int32 { return int32(binary.BigEndian.Uint32(b)) })
}

// AppendJavaShort appends v as Bytes.toBytes(short) writes it: 2 bytes, big-endian
// two's complement. Ordering: NegativesLast.
func AppendJavaShort(dst []byte, v int16) []byte {
	return binary.BigEndian.AppendUint16(dst, uint16(v))
}

// DecodeJavaShort reads 2 bytes written by AppendJavaShort (Bytes.toShort). rest
// aliases b. Errors wrap ErrShortInput.
func DecodeJavaShort(b []byte) (v int16, rest []byte, err error) {
	return decodeJava(segJavaShort, b, 2, func(b []byte) int16 { return int16(binary.BigEndian.Uint16(b)) })
}

// decodeJava reads a Java integer of width bytes with read.
func decodeJava[V int16 | int32 | int64](seg string, b []byte, width int, read func([]byte) V) (V, []byte, error) {
	if len(b) < width {
		return 0, b, bytesError(seg, b, "want "+itoa(width)+" bytes", ErrShortInput)
	}
	return read(b), b[width:], nil
}

// checkSigns is the range check of every field of Order NegativesLast (NewLayout sets
// it): bounds whose encodings differ in the sign bit hold the values across zero, which
// are two byte ranges.
func checkSigns(a, b []byte) error {
	if len(a) == 0 || len(b) == 0 || (a[0]^b[0])&0x80 == 0 {
		return nil
	}
	return &Error{
		Reason: "bounds differ in sign: Java's big-endian encoding sorts negatives after non-negatives, " +
			"so the values between them are two key ranges; scan [lo, -1] and [0, hi] apart",
		Err: ErrDiscontiguousRange,
	}
}

// intField is the Field of an integer of width bytes, encoded by app and
// decoded by dec, whose encodings sort in order: the Java integers and
// Uint64, Int64.
func intField[T any, V int16 | int32 | int64 | uint64](name string, kind Kind, width int, order Order, get func(*T) V, set func(*T, V),
	app func([]byte, V) []byte, dec func([]byte) (V, []byte, error)) Field[T] {
	if get == nil {
		return badField[T](name, kind, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: kind, Width: width, Order: order, Decodable: set != nil},
		enc: func(dst []byte, rec *T) ([]byte, error) { return app(dst, get(rec)), nil },
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := dec(b)
			if err == nil && set != nil {
				set(rec, v)
			}
			return rest, err
		},
	}
}

// JavaLong is a signed integer as Bytes.toBytes(long) writes it (AppendJavaLong), such
// as the id of seed 003's partition keys; Order NegativesLast. Ranges across zero are
// refused (see Layout.Range).
func JavaLong[T any](name string, get func(*T) int64, set func(*T, int64)) Field[T] {
	return intField(name, KindJavaLong, 8, NegativesLast, get, set, AppendJavaLong, DecodeJavaLong)
}

// JavaInt is a signed integer as Bytes.toBytes(int) writes it (AppendJavaInt); Order
// NegativesLast.
func JavaInt[T any](name string, get func(*T) int32, set func(*T, int32)) Field[T] {
	return intField(name, KindJavaInt, 4, NegativesLast, get, set, AppendJavaInt, DecodeJavaInt)
}

// JavaShort is a signed integer as Bytes.toBytes(short) writes it (AppendJavaShort);
// Order NegativesLast.
func JavaShort[T any](name string, get func(*T) int16, set func(*T, int16)) Field[T] {
	return intField(name, KindJavaShort, 2, NegativesLast, get, set, AppendJavaShort, DecodeJavaShort)
}

// JavaPartition is the partition number of seed 003's PartitionRowKeyManager,
// Bytes.toBytes(id % n) for a non-negative long id, 1 <= n <= MaxBuckets: 8 bytes,
// values 0 .. n-1. Its keyspace is those n values, so Layout.Splits(n) gives the
// seed's calcSplitKeys, Bytes.toBytes((long) i) for i = 1 .. n-1, and
// Layout.SpreadRanges can read every partition. A negative id is an *Error wrapping
// ErrOutOfRange: Java would write a negative partition, which sorts after all others.
// set, if not nil, receives the decoded partition. Changing n is a data migration.
func JavaPartition[T any](name string, n int, get func(*T) int64, set func(*T, int64)) Field[T] {
	if n < 1 || n > MaxBuckets {
		return badField[T](name, KindJavaPartition, "partition count must be in [1, 2^31]")
	}
	if get == nil {
		return badField[T](name, KindJavaPartition, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindJavaPartition, Width: 8, Order: Unordered, Decodable: set != nil,
			Keyspace: Keyspace{Radix: 256, Width: 8, Count: uint64(n), Uniform: true},
		},
		enc: func(dst []byte, rec *T) ([]byte, error) {
			id := get(rec)
			if id < 0 {
				return dst, intError(name, id, "negative id: Java's partition would be negative", ErrOutOfRange)
			}
			return AppendJavaLong(dst, id%int64(n)), nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := DecodeJavaLong(b)
			if err != nil {
				return b, err
			}
			if v < 0 || v >= int64(n) {
				return b, bytesError(name, b[:8], "partition outside [0, "+itoa(n)+")", ErrInvalidEncoding)
			}
			if set != nil {
				set(rec, v)
			}
			return rest, nil
		},
	}
}
