package keys

import (
	"bytes"
	"time"
)

// Kind names the codec of a segment.
type Kind uint8

// Segment kinds. The numeric values are not part of the encoding and may change; compare
// kinds by name, never persist them.
const (
	KindLiteral                 Kind = iota + 1 // constant bytes, such as a record-type tag
	KindReversedDigits                          // AppendReversedDigits
	KindDecimal                                 // AppendDecimal
	KindReversedTimestamp                       // AppendReversedTimestamp
	KindReversedTimestampBinary                 // AppendReversedTimestampBinary
	KindDate                                    // AppendDate
	KindReversedTimeOfDay                       // AppendReversedTimeOfDay
	KindMD5Hex                                  // AppendMD5Hex
	KindMD5                                     // AppendMD5
	KindBucket                                  // AppendBucket, hash bucket as decimal
	KindBucketByte                              // AppendBucketByte, hash bucket as one byte
	KindSalt                                    // AppendBucket of a random bucket
	KindFixed                                   // AppendFixed, padded string
	KindUint64                                  // AppendUint64
	KindInt64                                   // AppendInt64
	KindString                                  // AppendString, escaped and terminated
	KindUnique                                  // AppendUnique, hex suffix
	KindDigits                                  // AppendDigits
	KindTrailingString                          // raw bytes to the end of the key
	KindJavaShort                               // AppendJavaShort, Bytes.toBytes(short)
	KindJavaInt                                 // AppendJavaInt, Bytes.toBytes(int)
	KindJavaLong                                // AppendJavaLong, Bytes.toBytes(long)
	KindJavaPartition                           // Bytes.toBytes(id % n), seed 003's partition
	KindText                                    // a string in a delimiter-joined group
	KindDecimalText                             // a number as Java's String.valueOf, in a joined group
	KindCustom                                  // a Codec of the user's own
	KindTimeBase                                // AppendTimeBase, start of a time range (wide rows)
	KindTimeOffset                              // AppendTimeOffset, offset inside a time range (wide rows)
)

var kindNames = [...]string{
	KindLiteral:                 "literal",
	KindReversedDigits:          "reversed digits",
	KindDecimal:                 "decimal",
	KindReversedTimestamp:       "reversed timestamp",
	KindReversedTimestampBinary: "reversed timestamp (binary)",
	KindDate:                    "date",
	KindReversedTimeOfDay:       "reversed time of day",
	KindMD5Hex:                  "md5 hex",
	KindMD5:                     "md5",
	KindBucket:                  "hash bucket",
	KindBucketByte:              "hash bucket (byte)",
	KindSalt:                    "salt",
	KindFixed:                   "fixed",
	KindUint64:                  "uint64",
	KindInt64:                   "int64",
	KindString:                  "string",
	KindUnique:                  "unique suffix",
	KindDigits:                  "digits",
	KindTrailingString:          "trailing string",
	KindJavaShort:               "java short",
	KindJavaInt:                 "java int",
	KindJavaLong:                "java long",
	KindJavaPartition:           "java partition",
	KindText:                    "text",
	KindDecimalText:             "decimal text",
	KindCustom:                  "custom",
	KindTimeBase:                "time base",
	KindTimeOffset:              "time offset",
}

// String returns the name of the kind, such as "reversed digits".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + itoa(int(k)) + ")"
}

// Order says how the bytes of a segment sort relative to its values.
type Order uint8

// Orders of a segment's encoding.
const (
	// Ascending: bytes.Compare of encodings equals the order of the values.
	Ascending Order = iota + 1
	// Descending: bytes.Compare of encodings is the reverse of the order of the values
	// (reversed timestamps and times of day: newest first).
	Descending
	// Unordered: the encoding keeps no useful order of the source value (hashes, salts,
	// reversed digit strings, whose order is that of the reversed string).
	Unordered
	// NegativesLast: ascending among values of one sign, but every negative value
	// sorts after every non-negative one: Java's Bytes.toBytes of a signed integer,
	// plain big-endian two's complement. Ranges whose bounds differ in sign are not
	// one byte range (see Layout.Range).
	NegativesLast
)

// String returns "ascending", "descending" or "unordered".
func (o Order) String() string {
	switch o {
	case Ascending:
		return "ascending"
	case Descending:
		return "descending"
	case Unordered:
		return "unordered"
	case NegativesLast:
		return "negatives last"
	}
	return "order(" + itoa(int(o)) + ")"
}

// Keyspace describes the values the leading bytes of a segment take, so that split
// calculators can cut a table into regions without sampling.
//
// A segment whose Radix is zero has no keyspace a calculator can use (timestamps,
// free-form strings): split such tables from samples (SampleSplits).
type Keyspace struct {
	// Radix is the alphabet of each leading position: 10 for ASCII decimal digits,
	// 16 for lowercase hex digits, 256 for raw bytes, 0 when unknown.
	Radix int
	// Width is the number of leading positions (bytes) that carry the keyspace.
	Width int
	// Count is the number of values in use, 0 .. Count-1, each written as Width
	// digits of Radix (a bucket count). Zero means all Radix^Width values.
	Count uint64
	// Uniform reports that values spread evenly over the keyspace: hashes, salts,
	// and the reversed last digits of phone numbers.
	Uniform bool
}

// Segment describes one part of a key layout. Schema tooling and split calculators
// read it; it carries no behaviour.
type Segment struct {
	Name     string   // field name, unique within a layout
	Kind     Kind     // codec
	Width    int      // encoded width in bytes; 0 for variable-length segments
	Order    Order    // how encodings sort relative to values
	Keyspace Keyspace // leading-byte keyspace, for split calculation
	// Decodable reports whether Layout.Decode writes this segment's value back into
	// the record. Hash and salt segments are checked but cannot be inverted.
	Decodable bool
	// Trailing reports a segment that takes the rest of the key (TrailingString, the
	// last part of Joined, a Codec with Trailing set); it must be the last field.
	Trailing bool
	// Codec names the encoding of a KindCustom segment (Codec.Name).
	Codec string
	// Span is the length of the time range of a KindTimeBase or KindTimeOffset
	// segment (TimeBase, TimeOffset); zero for other kinds.
	Span time.Duration
	// Pad is the padding byte of a KindFixed segment.
	Pad byte
	// Delimiter is the text that ends a part of a Joined group other than the
	// last; its bytes (Layout.Parts) include it.
	Delimiter string
	// Location is the zone whose calendar a KindDate segment writes (DateIn); nil
	// means UTC (Date). See Segment.Zone.
	Location *time.Location
	// Literal is the constant text of a KindLiteral segment.
	Literal string
	// Rule is the Java bucket rule of a KindBucket segment built by
	// JavaHashBucket; zero for HashBucket's FNV-1a buckets.
	Rule JavaBucketRule
}

// Zone returns the zone whose calendar a KindDate segment writes: Location, or UTC
// when it is nil.
func (s Segment) Zone() *time.Location {
	if s.Location == nil {
		return time.UTC
	}
	return s.Location
}

// Field binds a segment codec to accessor functions on a record type T. Build fields
// with the constructors in this package (ReversedDigits, ReversedTimestamp, HashBucket,
// ...) and combine them with NewLayout. A Field is immutable and safe for concurrent
// use once built, provided its accessors are.
//
// Accessors receive a pointer to the record, so encoding a record boxes nothing and
// uses no reflection. Setters may be nil: Layout.Decode then checks the segment's bytes
// and skips the value.
type Field[T any] struct {
	seg Segment
	// enc appends the segment of rec to dst; on error it returns dst unchanged.
	enc func(dst []byte, rec *T) ([]byte, error)
	// dec consumes the segment from the front of b, stores it in rec if it can,
	// and returns the rest of b.
	dec func(b []byte, rec *T) ([]byte, error)
	// bucket appends the given bucket value; set only for salt fields, whose value
	// a reader cannot recompute.
	bucket func(dst []byte, i int) []byte
	// rangeCheck, if set, is given the encodings of a range's bounds when this is
	// the first field in which they differ; it reports a range that is not one byte
	// range (Java signed integers of different signs).
	rangeCheck func(a, b []byte) error
	// err records a configuration error from the constructor, reported by NewLayout.
	err error
}

// Segment describes the field.
func (f Field[T]) Segment() Segment { return f.seg }

// Layout is an ordered list of fields that together form a row key for records of
// type T, for example a message key [reversed mobile][reversed timestamp]:
//
//	type Msg struct {
//		Mobile string
//		SentMs int64
//	}
//	msgKey, err := keys.NewLayout(
//		keys.ReversedDigits("mobile", 11,
//			func(m *Msg) string { return m.Mobile }, func(m *Msg, v string) { m.Mobile = v }),
//		keys.ReversedTimestamp("sent",
//			func(m *Msg) int64 { return m.SentMs }, func(m *Msg, v int64) { m.SentMs = v }),
//	)
//
// Byte order of keys is field order: keys compare by their first field, then by the
// second, and so on, each field in its own Order. Variable-length fields (String) are
// self-delimiting, so this holds for them too. A trailing field (TrailingString, the
// last part of Joined) is not, and may only come last; the parts of a Joined group
// before it end at their delimiter, which need not sort below the values' bytes.
//
// A Layout is immutable and safe for concurrent use, provided the accessors and any
// random source given to Salt are.
//
// The layout is the on-disk format of the table: adding, removing or reordering fields,
// changing a width, a hash or a bucket count is a data migration.
type Layout[T any] struct {
	fields []Field[T]
	segs   []Segment
	width  int  // total fixed width, or -1 if some field is variable-length
	checks bool // some field has a rangeCheck
}

// NewLayout builds a layout from fields, in key order. It reports the first
// configuration error of a field (wrapping ErrBadConfig), a duplicate or empty field
// name, a salt field anywhere but first, a trailing field anywhere but last, or an
// empty field list.
func NewLayout[T any](fields ...Field[T]) (*Layout[T], error) {
	if len(fields) == 0 {
		return nil, configError("layout", "no fields")
	}
	l := &Layout[T]{
		fields: append([]Field[T](nil), fields...),
		segs:   make([]Segment, len(fields)),
	}
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		if f.err != nil {
			return nil, f.err
		}
		if f.enc == nil || f.dec == nil {
			return nil, configError("layout", "field "+itoa(i)+" was not built by a keys constructor")
		}
		name := f.seg.Name
		if name == "" {
			return nil, configError("layout", "field "+itoa(i)+" has no name")
		}
		if seen[name] {
			return nil, configError(name, "duplicate field name")
		}
		seen[name] = true
		if f.seg.Kind == KindSalt && i != 0 {
			return nil, configError(name, "a salt field must come first")
		}
		if f.seg.Trailing && i != len(fields)-1 {
			return nil, configError(name, "a "+f.seg.Kind.String()+" segment takes the rest of the key and must come last")
		}
		if f.rangeCheck == nil && f.seg.Order == NegativesLast {
			// Every field that sorts negatives last (the Java integers, and
			// a Codec declaring that order) has the same hole at zero.
			l.fields[i].rangeCheck = checkSigns
		}
		l.checks = l.checks || l.fields[i].rangeCheck != nil
		l.segs[i] = f.seg
		if l.width >= 0 {
			if f.seg.Width == 0 {
				l.width = -1
			} else {
				l.width += f.seg.Width
			}
		}
	}
	return l, nil
}

// Segments returns a description of each field, in key order. The slice is a copy.
func (l *Layout[T]) Segments() []Segment {
	return append([]Segment(nil), l.segs...)
}

// Width returns the total width of a key in bytes, or -1 if the layout has a
// variable-length field.
func (l *Layout[T]) Width() int { return l.width }

// Len returns the number of fields.
func (l *Layout[T]) Len() int { return len(l.fields) }

// Append appends the key of rec to dst. On error, it returns dst unchanged (same
// length and contents; fields encoded before the failing one may have been written
// into its spare capacity) and an *Error naming the field. It does not allocate when
// dst has enough capacity (see Width), except for what the accessors themselves
// allocate.
func (l *Layout[T]) Append(dst []byte, rec *T) ([]byte, error) {
	return l.appendN(dst, rec, len(l.fields), -1)
}

// AppendPrefix appends the encoding of the first n fields of rec to dst, for building
// prefix scans and lookups. n must lie in [0, Len()].
func (l *Layout[T]) AppendPrefix(dst []byte, rec *T, n int) ([]byte, error) {
	if n < 0 || n > len(l.fields) {
		return dst, configError("layout", "prefix length "+itoa(n)+" outside [0, "+itoa(len(l.fields))+"]")
	}
	return l.appendN(dst, rec, n, -1)
}

// appendN encodes the first n fields. If salt >= 0, the salt field (always first) is
// written with that bucket instead of a random one.
func (l *Layout[T]) appendN(dst []byte, rec *T, n, salt int) ([]byte, error) {
	out := dst
	for i := 0; i < n; i++ {
		f := &l.fields[i]
		if salt >= 0 && f.bucket != nil {
			out = f.bucket(out, salt)
			continue
		}
		var err error
		out, err = f.enc(out, rec)
		if err != nil {
			return dst, renamed(err, f.seg.Name)
		}
	}
	return out, nil
}

// Decode decodes a whole key into rec. Fields without a setter (hashes, salts) are
// checked and skipped. Strings are copied, so rec never aliases b. Bytes left after the
// last field are an error wrapping ErrTrailingBytes. On error, rec may be partly
// written.
func (l *Layout[T]) Decode(b []byte, rec *T) error {
	rest, err := l.DecodePrefix(b, rec, len(l.fields))
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return bytesError("layout", rest, itoa(len(rest))+" bytes after the last field", ErrTrailingBytes)
	}
	return nil
}

// DecodePrefix decodes the first n fields of b into rec and returns the rest of b,
// which aliases b.
func (l *Layout[T]) DecodePrefix(b []byte, rec *T, n int) (rest []byte, err error) {
	if n < 0 || n > len(l.fields) {
		return b, configError("layout", "prefix length "+itoa(n)+" outside [0, "+itoa(len(l.fields))+"]")
	}
	rest = b
	for i := 0; i < n; i++ {
		f := &l.fields[i]
		rest, err = f.dec(rest, rec)
		if err != nil {
			return b, renamed(err, f.seg.Name)
		}
	}
	return rest, nil
}

// KeyRange is a half-open row range [Start, Stop), the pair a Scan takes. An empty
// Start means the start of the table; a nil Stop means its end.
type KeyRange struct {
	Start, Stop []byte
}

// Contains reports whether key lies in [Start, Stop).
func (r KeyRange) Contains(key []byte) bool {
	return bytes.Compare(key, r.Start) >= 0 && (r.Stop == nil || bytes.Compare(key, r.Stop) < 0)
}

// PrefixRange returns the scan range of all keys whose first n fields equal those of
// rec: Start is the encoded prefix and Stop is PrefixEnd(Start). With n == 0 it is the
// whole table. For a salted layout (and n >= 1) it fails; use PrefixRanges.
func (l *Layout[T]) PrefixRange(rec *T, n int) (start, stop []byte, err error) {
	rs, err := l.PrefixRanges(rec, n)
	if err != nil {
		return nil, nil, err
	}
	if len(rs) != 1 {
		return nil, nil, configError(l.segs[0].Name, "salted layout needs one scan per salt value; use PrefixRanges")
	}
	return rs[0].Start, rs[0].Stop, nil
}

// PrefixRanges is PrefixRange for any layout. If the first field is a salt with N
// buckets and n >= 1, the salt cannot be recomputed from rec, so the result holds N
// ranges, one per salt value, in key order: reading salted data costs N scans.
func (l *Layout[T]) PrefixRanges(rec *T, n int) ([]KeyRange, error) {
	return l.Ranges(rec, rec, n)
}

// Range returns the scan range of all keys whose first n fields, as encoded, sort
// between those of lo and of hi, both inclusive: every key k with
// prefix(lo) <= k[:len(prefix)] <= prefix(hi) in byte order. Start is the smaller
// encoded prefix and Stop is PrefixEnd of the larger one, so the order of lo and hi does
// not matter.
//
// Descending fields flip the picture: for the key [reversed mobile][reversed
// timestamp], lo and hi with the same mobile and instants t1 < t2 give
// Start = rev(mobile) + rev(t2) and Stop = rev(mobile) + rev(t1) + 1 (PrefixEnd), which
// covers every message sent in [t1, t2], both ends included, newest first. For a
// half-open [t1, t2) pass t2-1 (one millisecond earlier) as the upper instant.
//
// A trailing string bounds the range as a plain byte prefix: the range of "u1" to
// "u1" holds "u1", "u10" and "u1x". Java signed integers (JavaLong, JavaInt,
// JavaShort; Order NegativesLast) sort negatives after non-negatives: when the first
// field in which lo and hi differ is one of them and the two values differ in sign,
// the values between them are two byte ranges, and Range fails with an *Error
// wrapping ErrDiscontiguousRange rather than return the complement. Scan [lo, -1]
// and [0, hi] as two ranges instead; the non-negative one comes first in the table.
// In fields after that first difference, bounds count in byte order, negatives above
// non-negatives.
//
// Fields after the first n play no part. For a salted layout it fails; use Ranges.
func (l *Layout[T]) Range(lo, hi *T, n int) (start, stop []byte, err error) {
	rs, err := l.Ranges(lo, hi, n)
	if err != nil {
		return nil, nil, err
	}
	if len(rs) != 1 {
		return nil, nil, configError(l.segs[0].Name, "salted layout needs one scan per salt value; use Ranges")
	}
	return rs[0].Start, rs[0].Stop, nil
}

// Ranges is Range for any layout; for a salted layout and n >= 1 it returns one range
// per salt value, in key order. The ranges are new slices. For leading hash buckets
// the bounds do not determine, use SpreadRanges.
func (l *Layout[T]) Ranges(lo, hi *T, n int) ([]KeyRange, error) {
	if n < 0 || n > len(l.fields) {
		return nil, configError("layout", "prefix length "+itoa(n)+" outside [0, "+itoa(len(l.fields))+"]")
	}
	if err := l.checkRange(lo, hi, 0, n); err != nil {
		return nil, err
	}
	salts := 1
	salted := n >= 1 && l.fields[0].bucket != nil
	if salted {
		salts = int(l.segs[0].Keyspace.Count)
	}
	width := 0
	for i := 0; i < n; i++ {
		width += max(l.segs[i].Width, 16)
	}
	out := make([]KeyRange, 0, salts)
	for s := 0; s < salts; s++ {
		salt := -1
		if salted {
			salt = s
		}
		// Both prefixes share one buffer; each is clipped to its length so that
		// appending to the returned Start cannot overwrite anything.
		a, err := l.appendN(make([]byte, 0, 2*width), lo, n, salt)
		if err != nil {
			return nil, err
		}
		spare := a[len(a):cap(a)]
		a = a[:len(a):len(a)]
		b, err := l.appendN(spare[:0], hi, n, salt)
		if err != nil {
			return nil, err
		}
		b = b[:len(b):len(b)]
		if bytes.Compare(a, b) > 0 {
			a, b = b, a
		}
		out = append(out, KeyRange{Start: a, Stop: PrefixEnd(b)})
	}
	return out, nil
}

// checkRange lets the first field among from .. n-1 whose encodings differ between lo
// and hi check that the values between them form one byte range (rangeCheck). Salt
// fields are skipped: both bounds get the same salt.
func (l *Layout[T]) checkRange(lo, hi *T, from, n int) error {
	if !l.checks {
		return nil
	}
	var a, b []byte
	for i := from; i < n; i++ {
		f := &l.fields[i]
		if f.bucket != nil {
			continue
		}
		var err error
		if a, err = f.enc(a[:0], lo); err != nil {
			return renamed(err, f.seg.Name)
		}
		if b, err = f.enc(b[:0], hi); err != nil {
			return renamed(err, f.seg.Name)
		}
		if bytes.Equal(a, b) {
			continue
		}
		if f.rangeCheck == nil {
			return nil
		}
		if err := f.rangeCheck(a, b); err != nil {
			return renamed(err, f.seg.Name)
		}
		return nil
	}
	return nil
}

// PrefixEnd returns the smallest key that is greater than every key starting with
// prefix: prefix with trailing 0xFF bytes removed and its last byte incremented. It
// returns nil, meaning the end of the table, when prefix is empty or all 0xFF. The
// result is a new slice.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := append([]byte(nil), prefix[:i+1]...)
			end[i]++
			return end
		}
	}
	return nil
}

// Parts cuts a whole key into the bytes of each field, in key order, without writing a
// record: for display, debugging and tooling. The parts alias key (with capacity
// clipped, so appending to one cannot overwrite the next). Bytes left after the last
// field are an error wrapping ErrTrailingBytes; other errors name the failing field.
func (l *Layout[T]) Parts(key []byte) ([][]byte, error) {
	var scratch T
	parts := make([][]byte, 0, len(l.fields))
	rest := key
	for i := range l.fields {
		f := &l.fields[i]
		next, err := f.dec(rest, &scratch)
		if err != nil {
			return parts, renamed(err, f.seg.Name)
		}
		n := len(rest) - len(next)
		parts = append(parts, rest[:n:n])
		rest = next
	}
	if len(rest) != 0 {
		return parts, bytesError("layout", rest, itoa(len(rest))+" bytes after the last field", ErrTrailingBytes)
	}
	return parts, nil
}
