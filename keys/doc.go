// Package keys builds HBase row keys out of typed segments, decodes them back, computes
// scan ranges over them and calculates region split points for pre-split tables.
//
// HBase stores rows sorted by the bytes of their key and splits tables into regions by
// key range, so the key decides both what a scan can read cheaply and which region
// server takes each write. This package gives the classic row-key techniques a tested,
// allocation-free form:
//
//   - reversal: ReversedDigits (a mobile number stored back to front, so that its
//     well-spread last digits lead), ReversedTimestamp and ReversedTimestampBinary
//     (Long.MAX_VALUE - ms, newest first), ReversedTimeOfDay;
//   - hashing and salting: MD5Hex and MD5 prefixes, HashBucket (FNV-1a 32 of a field,
//     modulo N; deterministic, so readers can recompute it), JavaHashBucket (Java's
//     String.hashCode by the formula Java code used, for tables Java already writes)
//     and Salt (random, so readers need one scan per bucket);
//   - ordered encodings: Digits and Decimal (fixed-width), Date (yyyyMMdd of the UTC
//     day; DateIn for a zone the segment declares), Uint64 and
//     Int64 (big-endian, sign bit flipped), Fixed (padded strings), String (escaped and
//     terminated, byte order preserved), Unique (a hex suffix against collisions) and
//     Literal tags;
//   - keys Java code already writes: JavaLong, JavaInt and JavaShort (Bytes.toBytes,
//     plain two's complement: negatives sort after non-negatives, so ranges across
//     zero are refused with ErrDiscontiguousRange), JavaPartition (seed 003's
//     Bytes.toBytes(id % n), with its split keys), TrailingString (raw bytes to the end
//     of the key, a plain byte prefix in ranges) and Joined groups of TextString and
//     TextInt parts (seed 001's province + "_" + age; ErrDelimiter for a value that
//     holds the delimiter; decimal text does not sort numerically);
//   - segments of one's own: Custom binds a Codec (an append and a decode function,
//     with optional width, order, keyspace and range check) and gets the same
//     Append, Decode, Parts, Range and Splits support as the built-in ones.
//   - wide rows: TimeBase and TimeOffset split one timestamp into the start of its
//     range (a span such as five minutes) for the row key and the offset in it for
//     the column qualifier; base then offset sorts as time, and decoding both
//     restores the timestamp (docs/wide-rows.md).
//
// docs/keys.md in the repository lists every segment kind with its schema-file name,
// width and order.
//
// Each codec comes as a pair of functions in the style of encoding/binary,
// AppendX(dst, v) and DecodeX(b) (v, rest, err), and as a Field constructor that binds
// the codec to accessor functions on a record type. A Layout[T] strings fields together:
// it encodes a record into a key, decodes a key into a record, builds [start, stop)
// ranges for prefixes and value ranges (Range documents the inclusivity, which matters
// for reversed timestamps; SpreadRanges adds one range per value of leading buckets a
// query cannot compute; Where finds the prefix a query naming fields fixes), cuts a key
// into its Parts, and describes its Segments for tooling. A Segment turns its bytes
// into a value (Segment.Value) and a value typed as text into bytes
// (Segment.AppendText), which Layout.DecodeField stores into a record: how tools that
// know a table only by its segments read and query it. Every codec documents its
// ordering invariant, and tests check it.
//
// A minimal use, a message key [reversed mobile][reversed timestamp]:
//
//	msgKey, err := keys.NewLayout(
//		keys.ReversedDigits("mobile", 11,
//			func(m *Msg) string { return m.Mobile }, func(m *Msg, v string) { m.Mobile = v }),
//		keys.ReversedTimestamp("sent",
//			func(m *Msg) int64 { return m.SentMs }, func(m *Msg, v int64) { m.SentMs = v }),
//	)
//	key, err := msgKey.Append(buf[:0], &msg)            // "87654321831" + "9223370533471821807"
//	start, stop, err := msgKey.Range(&from, &to, 2)     // one mobile, [from, to], newest first
//	splits, err := msgKey.Splits(20)                    // '05', '10', ..., '95'
//
// splits.go computes region boundaries: HexStringSplit, DecimalStringSplit and
// UniformSplit with the arithmetic of HBase's RegionSplitter, BucketSplits and
// DecimalPrefixSplits for bucket prefixes ('1'..'9', '05'..'95'), SampleSplits from
// sampled keys, and Layout.Splits (SegmentSplits) from the keyspace of a layout's
// leading segment.
//
// # Who should use it
//
// Code that designs or reads HBase tables: the hbkit schema package builds on it, and
// applications may use it directly to build keys for a table whose layout they own.
//
// # Who should not
//
// Code that only moves bytes (the hbase client, proxies) has no need for it: a row key
// is opaque there. It is not a general serialization format either: encodings are
// chosen for sort order and compactness, not for evolution. A key layout is a storage
// format; changing a segment width, a hash, a bucket count or the order of fields
// changes every key and is a data migration, never a refactoring.
//
// The package uses only the standard library, keeps no global state, and never panics
// on user input: bad values and bad bytes are reported as *Error values that wrap the
// sentinel errors (ErrWidth, ErrOutOfRange, ...).
package keys
