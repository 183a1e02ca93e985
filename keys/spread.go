package keys

import (
	"bytes"
)

// MaxSpreadRanges bounds the number of ranges SpreadRanges returns: the product of the
// value counts of its spread segments.
const MaxSpreadRanges = 1 << 16

// Enumerable reports whether Layout.SpreadRanges can list every value of the segment:
// its Width is fixed and equal to Keyspace.Width, and its values are 0 .. Count-1 (all
// Radix^Width values when Count is 0), at most MaxSpreadRanges of them, each written as
// Width digits of Radix 10 (ASCII decimal, zero-padded), 16 (lowercase hex) or 256
// (big-endian bytes). Buckets, salts and narrow decimal, digit, hex and md5 segments
// are enumerable; timestamps, strings, literals and fixed strings are not.
func (s Segment) Enumerable() bool {
	_, reason := s.enumeration()
	return reason == ""
}

// enumeration returns the number of values of an enumerable segment, or the reason it
// is not enumerable.
func (s Segment) enumeration() (count uint64, reason string) {
	ks := s.Keyspace
	if s.Width < 1 || ks.Width != s.Width {
		return 0, "a " + s.Kind.String() + " segment has no fixed-width keyspace to enumerate"
	}
	if ks.Radix != 10 && ks.Radix != 16 && ks.Radix != 256 {
		return 0, "a " + s.Kind.String() + " segment has no keyspace radix to enumerate"
	}
	// space is Radix^Width, or MaxSpreadRanges+1 for anything larger.
	space := uint64(1)
	for range ks.Width {
		space *= uint64(ks.Radix)
		if space > MaxSpreadRanges {
			space = MaxSpreadRanges + 1
			break
		}
	}
	count = ks.Count
	if count == 0 {
		count = space
	}
	if count > MaxSpreadRanges {
		return 0, "more than " + itoa(MaxSpreadRanges) + " values to enumerate"
	}
	if count > space {
		return 0, "keyspace count " + utoa(count) + " does not fit " + itoa(ks.Width) + " digits of radix " + itoa(ks.Radix)
	}
	return count, ""
}

// SegmentIndex returns the position of the field named name, the index into Segments
// and into the result of Parts, or -1 if the layout has no such field.
func (l *Layout[T]) SegmentIndex(name string) int {
	for i := range l.segs {
		if l.segs[i].Name == name {
			return i
		}
	}
	return -1
}

// SpreadRanges is Ranges for keys that start with buckets a query cannot compute from
// its bounds, such as [ts % 10][ts][host] read by time: the first spread fields take
// every value of their keyspace (each must be Enumerable), and fields spread .. n-1 come
// from lo and hi as in Range. Each combination p of spread values gives
// [p + min(enc(lo), enc(hi)), PrefixEnd(p + max(enc(lo), enc(hi)))).
//
// Ordering: combinations are listed with the first field varying slowest, each field's
// values ascending (their byte order), so the ranges are disjoint and in key order. A
// key whose fields spread .. n-1, as encoded, lie between those of lo and hi (both
// included) lies in exactly one range; any other key in none.
//
// As in Range, bounds that differ first in a Java signed integer of different signs
// are an *Error wrapping ErrDiscontiguousRange.
//
// spread must lie in [0, n], n in [0, Len()]. spread == 0 is Ranges; otherwise a
// leading Salt is spread like any bucket. More than MaxSpreadRanges ranges, or a spread
// field that is not Enumerable, is an *Error wrapping ErrBadConfig naming the field.
// The ranges are new slices.
func (l *Layout[T]) SpreadRanges(lo, hi *T, spread, n int) ([]KeyRange, error) {
	if n < 0 || n > len(l.fields) {
		return nil, configError("layout", "prefix length "+itoa(n)+" outside [0, "+itoa(len(l.fields))+"]")
	}
	if spread < 0 || spread > n {
		return nil, configError("layout", "spread "+itoa(spread)+" outside [0, "+itoa(n)+"]")
	}
	if spread == 0 {
		return l.Ranges(lo, hi, n)
	}
	if err := l.checkRange(lo, hi, spread, n); err != nil {
		return nil, err
	}
	// Field i of combination k has value k / place[i] % count[i], where place[i] is the
	// product of the counts of the spread fields after it.
	count := make([]uint64, spread)
	total, prefix := uint64(1), 0
	for i := 0; i < spread; i++ {
		seg := &l.segs[i]
		c, reason := seg.enumeration()
		if reason != "" {
			return nil, configError(seg.Name, "cannot spread: "+reason)
		}
		total *= c // both factors are at most 2^16
		if total > MaxSpreadRanges {
			return nil, configError(seg.Name, "spreading over the first "+itoa(i+1)+" fields needs more than "+itoa(MaxSpreadRanges)+" ranges")
		}
		count[i] = c
		prefix += seg.Width
	}
	a, err := l.appendFields(nil, lo, spread, n)
	if err != nil {
		return nil, err
	}
	b, err := l.appendFields(nil, hi, spread, n)
	if err != nil {
		return nil, err
	}
	if bytes.Compare(a, b) > 0 {
		a, b = b, a
	}
	// All keys share one buffer; each is clipped to its length so that appending to
	// one cannot overwrite the next.
	buf := make([]byte, 0, int(total)*(2*prefix+len(a)+len(b)))
	out := make([]KeyRange, 0, total)
	for k := uint64(0); k < total; k++ {
		start := len(buf)
		place := total
		for i, c := range count {
			place /= c
			ks := &l.segs[i].Keyspace
			buf = appendRadix(buf, k/place%c, ks.Radix, ks.Width)
		}
		p := buf[start:]
		buf = append(buf, a...)
		lower := buf[start:len(buf):len(buf)]
		mid := len(buf)
		buf = append(buf, p...)
		buf = append(buf, b...)
		out = append(out, KeyRange{Start: lower, Stop: prefixEndInPlace(buf[mid:len(buf):len(buf)])})
	}
	return out, nil
}

// appendFields encodes fields from .. to-1 of rec, leaving dst unchanged on error.
func (l *Layout[T]) appendFields(dst []byte, rec *T, from, to int) ([]byte, error) {
	out := dst
	for i := from; i < to; i++ {
		f := &l.fields[i]
		var err error
		out, err = f.enc(out, rec)
		if err != nil {
			return dst, renamed(err, f.seg.Name)
		}
	}
	return out, nil
}

// prefixEndInPlace is PrefixEnd computed in key's own bytes: key is modified and
// returned shortened, or nil if it is all 0xFF.
func prefixEndInPlace(key []byte) []byte {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] != 0xFF {
			key[i]++
			return key[: i+1 : i+1]
		}
	}
	return nil
}
