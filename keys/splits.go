package keys

import (
	"bytes"
	"math/big"
	"math/bits"
	"slices"
	"strings"
)

// Split-key calculators.
//
// A table created with split keys s1 < s2 < ... < s(n-1) starts with n regions:
// [start, s1), [s1, s2), ..., [s(n-1), end). Every calculator here returns the n-1
// split keys for n regions, as new slices, strictly increasing; n = 1 gives none.
// Pre-splitting only helps when the leading bytes of the keys spread over the whole
// keyspace the splits cut: hash prefixes, buckets, salts, reversed phone numbers.

const segSplit = "split"

// HexStringSplit returns the split keys of HBase's RegionSplitter.HexStringSplit for n
// regions: the keyspace "00000000".."FFFFFFFF" (2^32 values, last inclusive) is cut
// into n parts of size floor(2^32/n), the last part taking the remainder, and the
// boundaries i*size (i = 1..n-1) are written as 8 lowercase hex digits. It suits keys
// that start with 8 or more hex digits of a uniform hash (AppendMD5Hex).
func HexStringSplit(n int) ([][]byte, error) {
	return NumberStringSplit(n, "00000000", "FFFFFFFF", 16)
}

// DecimalStringSplit returns the split keys of HBase's RegionSplitter.DecimalStringSplit:
// the arithmetic of HexStringSplit over "00000000".."99999999" (10^8 values) in 8
// decimal digits.
func DecimalStringSplit(n int) ([][]byte, error) {
	return NumberStringSplit(n, "00000000", "99999999", 10)
}

// NumberStringSplit is HBase's NumberStringSplit (the base of HexStringSplit and
// DecimalStringSplit) with a configured first and last row, as RegionSplitter's
// -Dsplit.algo.first/last options set them. first and last are numbers in radix
// (2..36; hex digits in either case); the range [first, last] is cut into n parts of
// size floor((last-first+1)/n) and boundary first + i*size is written in lowercase,
// left-padded with '0' to len(last) digits.
func NumberStringSplit(n int, first, last string, radix int) ([][]byte, error) {
	if n < 1 {
		return nil, configError(segSplit, "need at least 1 region")
	}
	if radix < 2 || radix > 36 {
		return nil, configError(segSplit, "radix must be in [2, 36]")
	}
	lo, ok1 := new(big.Int).SetString(first, radix)
	hi, ok2 := new(big.Int).SetString(last, radix)
	if !ok1 || !ok2 || lo.Sign() < 0 {
		return nil, configError(segSplit, "first and last must be non-negative numbers in radix "+itoa(radix))
	}
	if hi.Cmp(lo) <= 0 {
		return nil, configError(segSplit, "last row "+last+" is not above first row "+first)
	}
	size := new(big.Int).Sub(hi, lo)
	size.Add(size, big.NewInt(1))
	if size.Cmp(big.NewInt(int64(n))) < 0 {
		return nil, configError(segSplit, "more regions than keys in the range")
	}
	size.Div(size, big.NewInt(int64(n)))
	out := make([][]byte, 0, n-1)
	cur := new(big.Int)
	for i := 1; i < n; i++ {
		cur.Mul(size, big.NewInt(int64(i)))
		cur.Add(cur, lo)
		s := cur.Text(radix)
		if len(s) < len(last) {
			s = strings.Repeat("0", len(last)-len(s)) + s
		}
		out = append(out, []byte(s))
	}
	return out, nil
}

// UniformSplit returns the split keys of HBase's RegionSplitter.UniformSplit for n
// regions: raw bytes over the default range "" .. FF FF FF FF FF FF FF FF. Following
// HBase's Bytes.split, the range is read as the 8-byte numbers 0 .. 2^64-1 (last
// inclusive), cut into n parts of size floor(2^64/n), and boundary i*size is written as 8
// big-endian bytes. For n = 2 the split is 80 00 00 00 00 00 00 00.
//
// HBase rejects n = 1 here; UniformSplit returns no split keys instead.
func UniformSplit(n int) ([][]byte, error) {
	return UniformSplitRange(n, nil, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
}

// UniformSplitRange is UniformSplit over [first, last], both inclusive, with HBase's
// Bytes.split arithmetic: the shorter bound is right-padded with zero bytes to the
// length of the longer, both are read as big-endian numbers, the difference plus one is
// divided by n, and boundary first + i*size is written in that length. When the range
// holds fewer than n values, both bounds are extended by one zero byte and the
// calculation repeated, as HBase does.
func UniformSplitRange(n int, first, last []byte) ([][]byte, error) {
	if n < 1 {
		return nil, configError(segSplit, "need at least 1 region")
	}
	l := max(len(first), len(last))
	a := make([]byte, l)
	b := make([]byte, l)
	copy(a, first)
	copy(b, last)
	if bytes.Compare(a, b) >= 0 {
		return nil, configError(segSplit, "last row is not above first row")
	}
	if n == 1 {
		return [][]byte{}, nil
	}
	for {
		lo := new(big.Int).SetBytes(a)
		hi := new(big.Int).SetBytes(b)
		diff := new(big.Int).Sub(hi, lo)
		diff.Add(diff, big.NewInt(1))
		if diff.Cmp(big.NewInt(int64(n))) < 0 {
			a = append(a, 0)
			b = append(b, 0)
			continue
		}
		size := diff.Div(diff, big.NewInt(int64(n)))
		out := make([][]byte, 0, n-1)
		cur := new(big.Int)
		for i := 1; i < n; i++ {
			cur.Mul(size, big.NewInt(int64(i)))
			cur.Add(cur, lo)
			out = append(out, cur.FillBytes(make([]byte, len(a))))
		}
		return out, nil
	}
}

// cut returns floor(i*count/regions) without overflow, for 0 <= i < regions.
func cut(i, count, regions uint64) uint64 {
	hi, lo := bits.Mul64(i, count)
	q, _ := bits.Div64(hi, lo, regions)
	return q
}

// BucketSplits returns split keys for n regions over a decimal bucket prefix: buckets
// 0..buckets-1 written as width zero-padded digits (AppendBucket uses
// width = BucketWidth(buckets)). Region i starts at bucket floor(i*buckets/n), so
// regions hold whole buckets and their sizes differ by at most one bucket. n must not
// exceed buckets.
//
// With 10 buckets and 10 regions the splits are '1'..'9', the seed index table's
// SPLITS for its "hash(mobile) % 10" prefix.
func BucketSplits(buckets uint64, n, width int) ([][]byte, error) {
	if n < 1 {
		return nil, configError(segSplit, "need at least 1 region")
	}
	if buckets < 1 || uint64(n) > buckets {
		return nil, configError(segSplit, "regions must be in [1, buckets]")
	}
	if width < 1 || width > 20 || (width < 20 && buckets-1 >= pow10[width]) {
		return nil, configError(segSplit, "width too small for the bucket count")
	}
	out := make([][]byte, 0, n-1)
	for i := 1; i < n; i++ {
		out = append(out, appendDecimal(nil, cut(uint64(i), buckets, uint64(n)), width))
	}
	return out, nil
}

// DecimalPrefixSplits returns split keys for n regions over a decimal prefix of width
// digits that is close to uniform, such as the first digits of a reversed mobile
// number: BucketSplits(10^width, n, width). For width 2 and 20 regions the splits are
// '05', '10', ..., '95' (a table keyed by reversed mobiles); for width 1 and 10
// regions, '1'..'9'. n must not exceed 10^width.
func DecimalPrefixSplits(n, width int) ([][]byte, error) {
	if width < 1 || width > 19 {
		return nil, configError(segSplit, "width must be in [1, 19]")
	}
	return BucketSplits(pow10[width], n, width)
}

// SampleSplits returns split keys for n regions cut from sampled row keys, the method
// of seed 003: the samples are sorted and de-duplicated, and split i is the sample at
// position floor(i*m/n) of the m distinct samples, so each region gets about m/n of
// them. Use it for keys whose leading bytes have no known keyspace, with a sample drawn
// from real or realistic data; the more samples, the more even the regions. It needs at
// least n distinct samples, and empty samples are ignored (the empty key cannot be a
// split point). The samples are not modified; the results are copies.
func SampleSplits(samples [][]byte, n int) ([][]byte, error) {
	if n < 1 {
		return nil, configError(segSplit, "need at least 1 region")
	}
	sorted := make([][]byte, 0, len(samples))
	for _, s := range samples {
		if len(s) > 0 {
			sorted = append(sorted, s)
		}
	}
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)
	m := len(sorted)
	if m < n {
		return nil, configError(segSplit, "need at least "+itoa(n)+" distinct non-empty samples, have "+itoa(m))
	}
	out := make([][]byte, 0, n-1)
	for i := 1; i < n; i++ {
		out = append(out, bytes.Clone(sorted[cut(uint64(i), uint64(m), uint64(n))]))
	}
	return out, nil
}

// maxPrefixDigits bounds how many leading digits SegmentSplits cuts: 8, the width of
// HexStringSplit and DecimalStringSplit.
const maxPrefixDigits = 8

// SegmentSplits returns split keys for n regions from the keyspace of a layout's
// leading segment (see Keyspace):
//
//   - a bucket or salt with Count buckets: BucketSplits over the buckets (for 10
//     buckets and 10 regions, '1'..'9'); a one-byte bucket gives single bytes, a
//     JavaPartition 8-byte big-endian numbers (seed 003's split keys);
//   - a uniform segment of Radix digits (reversed digits, md5 hex, md5 bytes): the
//     shortest prefix of p <= min(Width, 8) digits (7 for raw bytes, so that Radix^p
//     fits in 64 bits) whose Radix^p values divide evenly into n regions, or the
//     longest such prefix if none does (8 digits: the HexStringSplit and
//     DecimalStringSplit width); boundary i is floor(i*Radix^p/n) in p digits. For a
//     reversed mobile and 20 regions that is '05'..'95'; for md5 hex and 16 regions,
//     '1'..'f'; for md5 hex and 3 regions, HexStringSplit(3).
//
// Segments without a uniform keyspace (timestamps, strings, literals) are an error
// wrapping ErrBadConfig: split those tables with SampleSplits.
func SegmentSplits(seg Segment, n int) ([][]byte, error) {
	if n < 1 {
		return nil, configError(seg.Name, "need at least 1 region")
	}
	ks := seg.Keyspace
	if ks.Radix == 0 || !ks.Uniform || ks.Width < 1 {
		return nil, configError(seg.Name, "leading "+seg.Kind.String()+" segment has no uniform keyspace; use SampleSplits")
	}
	if ks.Count > 0 {
		switch ks.Radix {
		case 10:
			return BucketSplits(ks.Count, n, ks.Width)
		case 256:
			if ks.Width > 8 || (ks.Width < 8 && ks.Count > 1<<(8*ks.Width)) || uint64(n) > ks.Count {
				return nil, configError(seg.Name, "regions must be in [1, buckets]")
			}
			out := make([][]byte, 0, n-1)
			for i := 1; i < n; i++ {
				out = append(out, appendRadix(nil, cut(uint64(i), ks.Count, uint64(n)), 256, ks.Width))
			}
			return out, nil
		}
		return nil, configError(seg.Name, "unsupported bucket radix "+itoa(ks.Radix))
	}
	if ks.Radix != 10 && ks.Radix != 16 && ks.Radix != 256 {
		return nil, configError(seg.Name, "unsupported radix "+itoa(ks.Radix))
	}
	limit := min(ks.Width, maxPrefixDigits)
	p, space := 0, uint64(1)
	for d := 1; d <= limit; d++ {
		if space > (1<<64-1)/uint64(ks.Radix) {
			break // 8 raw bytes would overflow: cut 7
		}
		space *= uint64(ks.Radix)
		p = d
		if space%uint64(n) == 0 {
			break
		}
	}
	if uint64(n) > space {
		return nil, configError(seg.Name, "more regions than values in the leading "+itoa(p)+" digits")
	}
	out := make([][]byte, 0, n-1)
	for i := 1; i < n; i++ {
		out = append(out, appendRadix(nil, cut(uint64(i), space, uint64(n)), ks.Radix, p))
	}
	return out, nil
}

// appendRadix appends v as exactly p digits of radix 10 (ASCII decimal) or 16
// (lowercase hex), zero-padded, or as p big-endian bytes for radix 256: the bytes
// AppendDecimal, AppendBucket, AppendUnique and AppendBucketByte write for v. Digits
// above p are dropped.
func appendRadix(dst []byte, v uint64, radix, p int) []byte {
	dst = slices.Grow(dst, p)
	start := len(dst)
	dst = dst[:start+p]
	for i := start + p - 1; i >= start; i-- {
		switch radix {
		case 256:
			dst[i] = byte(v)
		default:
			dst[i] = lowerHex[v%uint64(radix)]
		}
		v /= uint64(radix)
	}
	return dst
}

// Splits returns split keys for n regions from the keyspace of the layout's leading
// segment; see SegmentSplits.
func (l *Layout[T]) Splits(n int) ([][]byte, error) {
	if len(l.segs) == 0 {
		return nil, configError("layout", "no fields (use NewLayout)")
	}
	return SegmentSplits(l.segs[0], n)
}

// ValidateSplits checks split keys before a table is created with them: none may be
// empty and each must be strictly greater than the one before. It returns an *Error
// wrapping ErrBadConfig naming the first offending index.
func ValidateSplits(splits [][]byte) error {
	for i, s := range splits {
		if len(s) == 0 {
			return configError(segSplit, "split "+itoa(i)+" is empty")
		}
		if i > 0 && bytes.Compare(splits[i-1], s) >= 0 {
			return configError(segSplit, "split "+itoa(i)+" is not above split "+itoa(i-1))
		}
	}
	return nil
}

// ShellSplits formats split keys as the SPLITS list of an HBase shell create command,
// such as ['05', '10', '15']. Printable ASCII keys are single-quoted; other keys are
// double-quoted with \xHH escapes, which the shell (Ruby) turns back into bytes.
func ShellSplits(splits [][]byte) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, s := range splits {
		if i > 0 {
			sb.WriteString(", ")
		}
		plain := true
		for _, c := range s {
			if c < 0x20 || c > 0x7E || c == '\'' || c == '\\' || c == '"' || c == '#' {
				plain = false
				break
			}
		}
		if plain {
			sb.WriteByte('\'')
			sb.Write(s)
			sb.WriteByte('\'')
			continue
		}
		sb.WriteByte('"')
		for _, c := range s {
			if c >= 0x20 && c <= 0x7E && c != '\\' && c != '"' && c != '#' {
				sb.WriteByte(c)
				continue
			}
			sb.WriteString(`\x`)
			sb.WriteByte(lowerHex[c>>4])
			sb.WriteByte(lowerHex[c&0xF])
		}
		sb.WriteByte('"')
	}
	sb.WriteByte(']')
	return sb.String()
}
