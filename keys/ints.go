package keys

import "encoding/binary"

// Order-preserving integers.
//
// Unsigned integers are written big-endian, so byte order is numeric order. Signed
// integers are written big-endian with the sign bit flipped, which maps math.MinInt64 to
// 00..00, -1 to 7F..FF, 0 to 80..00 and math.MaxInt64 to FF..FF: byte order is again
// numeric order. Java's Bytes.toBytes(long) does not flip the sign bit, so its negative
// numbers sort after its positive ones; these encodings differ from it for signed values
// (AppendJavaLong, AppendJavaInt and AppendJavaShort write Java's form).

const (
	segUint64 = "uint64"
	segInt64  = "int64"
	segUint32 = "uint32"
	segInt32  = "int32"
)

// AppendUint64 appends v as 8 big-endian bytes. Ascending.
func AppendUint64(dst []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, v)
}

// DecodeUint64 reads 8 big-endian bytes. rest aliases b. Errors wrap ErrShortInput.
func DecodeUint64(b []byte) (v uint64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, b, bytesError(segUint64, b, "want 8 bytes", ErrShortInput)
	}
	return binary.BigEndian.Uint64(b), b[8:], nil
}

// AppendInt64 appends v as 8 big-endian bytes with the sign bit flipped. Ascending:
// bytes.Compare of encodings equals the numeric order, negatives included.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// DecodeInt64 reads 8 bytes written by AppendInt64. rest aliases b. Errors wrap
// ErrShortInput.
func DecodeInt64(b []byte) (v int64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, b, bytesError(segInt64, b, "want 8 bytes", ErrShortInput)
	}
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), b[8:], nil
}

// AppendUint32 appends v as 4 big-endian bytes. Ascending.
func AppendUint32(dst []byte, v uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, v)
}

// DecodeUint32 reads 4 big-endian bytes. rest aliases b. Errors wrap ErrShortInput.
func DecodeUint32(b []byte) (v uint32, rest []byte, err error) {
	if len(b) < 4 {
		return 0, b, bytesError(segUint32, b, "want 4 bytes", ErrShortInput)
	}
	return binary.BigEndian.Uint32(b), b[4:], nil
}

// AppendInt32 appends v as 4 big-endian bytes with the sign bit flipped. Ascending.
func AppendInt32(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v)^(1<<31))
}

// DecodeInt32 reads 4 bytes written by AppendInt32. rest aliases b. Errors wrap
// ErrShortInput.
func DecodeInt32(b []byte) (v int32, rest []byte, err error) {
	if len(b) < 4 {
		return 0, b, bytesError(segInt32, b, "want 4 bytes", ErrShortInput)
	}
	return int32(binary.BigEndian.Uint32(b) ^ (1 << 31)), b[4:], nil
}
