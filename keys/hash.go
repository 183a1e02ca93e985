package keys

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"math/bits"
)

// Hash prefixes, hash buckets and salts.
//
// A hash prefix (MD5Hex, MD5) or a hash bucket (HashBucket) is computed from a field
// of the record, so a reader who knows the field can compute it again and Get or Scan
// the row directly. A salt (Salt) is random: the same record may land in any bucket,
// so reading it back costs one scan per bucket. Prefer a hash bucket unless the field
// to hash is not known at read time.
//
// The hash functions are part of the storage format. The bucket hash is FNV-1a 32
// (Fowler-Noll-Vo, as in hash/fnv.New32a): a published, seedless, byte-oriented function
// with a fixed definition that any language can reimplement in a few lines, unlike
// Go's hash/maphash (seeded per process) or Java's String.hashCode (defined on UTF-16
// code units, so not on bytes; JavaHashBucket computes it for tables Java code already
// writes). It must never change: changing the hash, the bucket count or a width moves
// every row and is a data migration.

const (
	segMD5Hex     = "md5 hex"
	segMD5        = "md5"
	segBucket     = "hash bucket"
	segBucketByte = "hash bucket (byte)"
	segSalt       = "salt"
)

const lowerHex = "0123456789abcdef"

// AppendMD5Hex appends the first width lowercase hex digits of MD5(data), 1 <= width <=
// 32. The seed index key uses width 16 for an account name. It returns dst unchanged
// with an *Error wrapping ErrBadConfig for a bad width.
//
// Ordering: unordered; hex digits are uniform, so the keyspace is Radix 16.
func AppendMD5Hex(dst []byte, data string, width int) ([]byte, error) {
	if width < 1 || width > 2*md5.Size {
		return dst, configError(segMD5Hex, "width must be in [1, 32]")
	}
	sum := md5.Sum([]byte(data))
	for i := 0; i < width; i++ {
		c := sum[i/2]
		if i%2 == 0 {
			c >>= 4
		}
		dst = append(dst, lowerHex[c&0xF])
	}
	return dst, nil
}

// DecodeMD5Hex reads width lowercase hex digits written by AppendMD5Hex and returns
// them; a hash cannot be inverted. hex and rest alias b. Errors wrap ErrShortInput or
// ErrInvalidEncoding (a byte that is not a lowercase hex digit).
func DecodeMD5Hex(b []byte, width int) (hex, rest []byte, err error) {
	if width < 1 || width > 2*md5.Size {
		return nil, b, configError(segMD5Hex, "width must be in [1, 32]")
	}
	return decodeHex(segMD5Hex, b, width)
}

// decodeHex checks width lowercase hex digits at the front of b.
func decodeHex(seg string, b []byte, width int) (hex, rest []byte, err error) {
	if len(b) < width {
		return nil, b, bytesError(seg, b, "want "+itoa(width)+" hex digits", ErrShortInput)
	}
	for i := 0; i < width; i++ {
		if hexVal(b[i]) < 0 {
			return nil, b, bytesError(seg, b[:width], "not a lowercase hex digit at offset "+itoa(i), ErrInvalidEncoding)
		}
	}
	return b[:width:width], b[width:], nil
}

// hexVal returns the value of a lowercase hex digit, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// AppendMD5 appends the first n raw bytes of MD5(data), 1 <= n <= 16; n = 16 is the
// whole digest the HBase book uses for hostnames and event types. Ordering: unordered,
// uniform over Radix 256.
func AppendMD5(dst []byte, data string, n int) ([]byte, error) {
	if n < 1 || n > md5.Size {
		return dst, configError(segMD5, "width must be in [1, 16]")
	}
	sum := md5.Sum([]byte(data))
	return append(dst, sum[:n]...), nil
}

// DecodeMD5 returns the n digest bytes at the front of b; any bytes are valid.
// digest and rest alias b. Errors wrap ErrShortInput.
func DecodeMD5(b []byte, n int) (digest, rest []byte, err error) {
	if n < 1 || n > md5.Size {
		return nil, b, configError(segMD5, "width must be in [1, 16]")
	}
	if len(b) < n {
		return nil, b, bytesError(segMD5, b, "want "+itoa(n)+" bytes", ErrShortInput)
	}
	return b[:n:n], b[n:], nil
}

// FNV-1a 32 parameters (http://www.isthe.com/chongo/tech/comp/fnv/).
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// Hash32 returns the FNV-1a 32-bit hash of s, the hash behind HashBucket. It equals
// hash/fnv.New32a over the bytes of s, and never changes.
func Hash32(s string) uint32 {
	h := uint32(fnvOffset32)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

// Bucket returns Hash32(s) % n, the deterministic bucket of s among n buckets. n must
// be positive; Bucket returns 0 otherwise.
func Bucket(s string, n int) int {
	if n <= 0 {
		return 0
	}
	return int(Hash32(s) % uint32(n))
}

// MaxBuckets is the largest bucket count: bucket numbers are computed on 32 bits.
const MaxBuckets = 1 << 31

// BucketWidth returns the number of decimal digits AppendBucket uses for n buckets:
// the number of digits of n-1 (1 for 10 buckets: '0'..'9'; 2 for 100 buckets).
func BucketWidth(n int) int {
	w := 1
	for v := uint64(n - 1); v >= 10; v /= 10 {
		w++
	}
	return w
}

// AppendBucket appends bucket, 0 <= bucket < n, as BucketWidth(n) zero-padded decimal
// digits. It returns dst unchanged with an *Error wrapping ErrInvalidValue for a bucket
// outside [0, n), or ErrBadConfig for n outside [1, MaxBuckets].
//
// Ordering: ascending in the bucket number. Bucket splits over these prefixes come from
// BucketSplits.
func AppendBucket(dst []byte, bucket, n int) ([]byte, error) {
	if n < 1 || n > MaxBuckets {
		return dst, configError(segBucket, "bucket count must be in [1, 2^31]")
	}
	if bucket < 0 || bucket >= n {
		return dst, intError(segBucket, int64(bucket), "bucket outside [0, "+itoa(n)+")", ErrInvalidValue)
	}
	return appendDecimal(dst, uint64(bucket), BucketWidth(n)), nil
}

// DecodeBucket reads a bucket written by AppendBucket for n buckets. rest aliases b.
// Errors wrap ErrShortInput, ErrInvalidEncoding (a non-digit) or ErrInvalidValue (a
// bucket >= n).
func DecodeBucket(b []byte, n int) (bucket int, rest []byte, err error) {
	if n < 1 || n > MaxBuckets {
		return 0, b, configError(segBucket, "bucket count must be in [1, 2^31]")
	}
	return decodeBucket(segBucket, b, n)
}

func decodeBucket(seg string, b []byte, n int) (int, []byte, error) {
	w := BucketWidth(n)
	v, rest, err := decodeDecimal(seg, b, w)
	if err != nil {
		return 0, b, err
	}
	if v >= uint64(n) {
		return 0, b, bytesError(seg, b[:w], "bucket not below "+itoa(n), ErrInvalidValue)
	}
	return int(v), rest, nil
}

// AppendBucketByte appends bucket, 0 <= bucket < n <= 256, as a single byte. It is the
// compact form of AppendBucket; ascending in the bucket number.
func AppendBucketByte(dst []byte, bucket, n int) ([]byte, error) {
	if n < 1 || n > 256 {
		return dst, configError(segBucketByte, "bucket count must be in [1, 256]")
	}
	if bucket < 0 || bucket >= n {
		return dst, intError(segBucketByte, int64(bucket), "bucket outside [0, "+itoa(n)+")", ErrInvalidValue)
	}
	return append(dst, byte(bucket)), nil
}

// DecodeBucketByte reads a bucket byte written by AppendBucketByte for n buckets. rest
// aliases b. Errors wrap ErrShortInput or ErrInvalidValue (a bucket >= n).
func DecodeBucketByte(b []byte, n int) (bucket int, rest []byte, err error) {
	if n < 1 || n > 256 {
		return 0, b, configError(segBucketByte, "bucket count must be in [1, 256]")
	}
	return decodeBucketByte(segBucketByte, b, n)
}

func decodeBucketByte(seg string, b []byte, n int) (int, []byte, error) {
	if len(b) < 1 {
		return 0, b, bytesError(seg, b, "want 1 byte", ErrShortInput)
	}
	if int(b[0]) >= n {
		return 0, b, bytesError(seg, b[:1], "bucket not below "+itoa(n), ErrInvalidValue)
	}
	return int(b[0]), b[1:], nil
}

// RandSource is a source of random numbers for salts. *rand.Rand, *rand.PCG and
// *rand.ChaCha8 from math/rand/v2 satisfy it. A source shared by goroutines must be
// safe for concurrent use; those three are not.
type RandSource interface {
	Uint64() uint64
}

// RandomBucket returns a uniformly chosen bucket in [0, n), drawing from r, or from
// crypto/rand when r is nil. n must be positive; RandomBucket returns 0 otherwise.
func RandomBucket(r RandSource, n int) int {
	if n <= 1 {
		return 0
	}
	var x uint64
	if r != nil {
		x = r.Uint64()
	} else {
		x = cryptoUint64()
	}
	// Lemire's multiply-shift: the high word of x*n is uniform in [0, n) up to a bias
	// of n/2^64, negligible for any bucket count.
	hi, _ := bits.Mul64(x, uint64(n))
	return int(hi)
}

// cryptoUint64 returns 8 bytes from crypto/rand as a uint64.
func cryptoUint64() uint64 {
	var buf [8]byte
	// crypto/rand.Read never returns an error (it crashes the program irrecoverably
	// instead, since Go 1.24).
	_, _ = rand.Read(buf[:])
	return binary.LittleEndian.Uint64(buf[:])
}

// AppendSalt appends a random bucket among n, chosen by RandomBucket(r, n), in the
// format of AppendBucket. Keys salted this way spread writes over n key ranges, and a
// reader who knows the rest of the key must scan all n of them (Layout.PrefixRanges).
func AppendSalt(dst []byte, r RandSource, n int) ([]byte, error) {
	if n < 1 || n > MaxBuckets {
		return dst, configError(segSalt, "bucket count must be in [1, 2^31]")
	}
	return appendDecimal(dst, uint64(RandomBucket(r, n)), BucketWidth(n)), nil
}
