package keys

import (
	"time"
)

// Time split into a range base and an offset: the segments of a wide row
// ("rows as columns", OpenTSDB's layout). A timestamp ms and a span s (say
// five minutes) give
//
//	base   = floor(ms / s) * s     the start of ms's range, in the row key
//	offset = ms - base             0 <= offset < s, in the column qualifier
//
// so that one row holds a range of s milliseconds and one column per
// instant in it; base + offset gives ms back exactly.

const (
	segTimeBase   = "time base"
	segTimeOffset = "time offset"
)

// MaxTimeSpan is the longest span a time split takes: 2^32 milliseconds
// (about 49.7 days), so that an offset fits in 4 bytes.
const MaxTimeSpan = time.Duration(1<<32) * time.Millisecond

// TimeBaseWidth is the width of a time base: 8 bytes.
const TimeBaseWidth = 8

// TimeOffsetWidth returns the width in bytes of the offsets of a span of
// spanMs milliseconds: the fewest bytes that hold spanMs-1 (1 for spans up
// to 256 ms, 3 for five minutes, 4 for a day), or 0 when spanMs lies
// outside [1, MaxTimeSpan].
func TimeOffsetWidth(spanMs int64) int {
	if spanMs < 1 || spanMs > int64(MaxTimeSpan/time.Millisecond) {
		return 0
	}
	w := 1
	for v := uint64(spanMs-1) >> 8; v != 0; v >>= 8 {
		w++
	}
	return w
}

// TimeBaseOf returns the start of the range of spanMs milliseconds that
// holds ms: the largest multiple of spanMs not above ms. ok is false when
// spanMs is not positive or the base does not fit an int64 (ms within
// spanMs of math.MinInt64).
func TimeBaseOf(ms, spanMs int64) (base int64, ok bool) {
	if spanMs < 1 {
		return 0, false
	}
	q := ms / spanMs
	if ms%spanMs < 0 {
		q--
	}
	base = q * spanMs
	if base > ms || ms-base >= spanMs || ms-base < 0 {
		return 0, false // q * spanMs overflowed
	}
	return base, true
}

// AppendTimeBase appends the base of ms's range of spanMs milliseconds
// (TimeBaseOf) as AppendInt64 writes it: 8 bytes, big-endian with the sign
// bit flipped. spanMs must lie in [1, MaxTimeSpan] in milliseconds;
// otherwise, or when the base does not fit an int64, dst is returned
// unchanged with an *Error wrapping ErrBadConfig or ErrOutOfRange.
//
// Ordering: ascending. For a <= b, bytes.Compare(enc(a), enc(b)) <= 0, and
// instants of one range encode equally. Example: 1503382954000 in ranges of
// five minutes (300000) has base 1503382800000, encoded 8000015e08990680.
func AppendTimeBase(dst []byte, ms, spanMs int64) ([]byte, error) {
	if TimeOffsetWidth(spanMs) == 0 {
		return dst, intError(segTimeBase, spanMs, "span outside [1ms, 2^32ms]", ErrBadConfig)
	}
	base, ok := TimeBaseOf(ms, spanMs)
	if !ok {
		return dst, intError(segTimeBase, ms, "no range base of this timestamp fits an int64", ErrOutOfRange)
	}
	return AppendInt64(dst, base), nil
}

// DecodeTimeBase reads 8 bytes written by AppendTimeBase with the same
// span and returns the base. rest aliases b. Errors wrap ErrShortInput,
// ErrBadConfig (a bad span) or ErrInvalidEncoding (a base that is not a
// multiple of the span: written with another span, or not a base at all).
func DecodeTimeBase(b []byte, spanMs int64) (base int64, rest []byte, err error) {
	if TimeOffsetWidth(spanMs) == 0 {
		return 0, b, intError(segTimeBase, spanMs, "span outside [1ms, 2^32ms]", ErrBadConfig)
	}
	if len(b) < TimeBaseWidth {
		return 0, b, bytesError(segTimeBase, b, "want 8 bytes", ErrShortInput)
	}
	base, rest, _ = DecodeInt64(b)
	if base%spanMs != 0 {
		return 0, b, bytesError(segTimeBase, b[:TimeBaseWidth], "not a multiple of the span", ErrInvalidEncoding)
	}
	return base, rest, nil
}

// AppendTimeOffset appends the offset of ms in its range of spanMs
// milliseconds, ms - TimeBaseOf(ms, spanMs), big-endian in
// TimeOffsetWidth(spanMs) bytes. Errors are those of AppendTimeBase, and
// dst is then returned unchanged.
//
// Ordering: ascending within a range: for a <= b of one range,
// bytes.Compare(enc(a), enc(b)) == cmp(a, b). Offsets of different ranges
// are not ordered; the base before them orders the ranges.
func AppendTimeOffset(dst []byte, ms, spanMs int64) ([]byte, error) {
	w := TimeOffsetWidth(spanMs)
	if w == 0 {
		return dst, intError(segTimeOffset, spanMs, "span outside [1ms, 2^32ms]", ErrBadConfig)
	}
	base, ok := TimeBaseOf(ms, spanMs)
	if !ok {
		return dst, intError(segTimeOffset, ms, "no range base of this timestamp fits an int64", ErrOutOfRange)
	}
	off := uint64(ms - base)
	for i := w - 1; i >= 0; i-- {
		dst = append(dst, byte(off>>(8*i)))
	}
	return dst, nil
}

// DecodeTimeOffset reads an offset written by AppendTimeOffset with the
// same span. rest aliases b. Errors wrap ErrShortInput, ErrBadConfig (a
// bad span) or ErrOutOfRange (an offset not below the span).
func DecodeTimeOffset(b []byte, spanMs int64) (off int64, rest []byte, err error) {
	w := TimeOffsetWidth(spanMs)
	if w == 0 {
		return 0, b, intError(segTimeOffset, spanMs, "span outside [1ms, 2^32ms]", ErrBadConfig)
	}
	if len(b) < w {
		return 0, b, bytesError(segTimeOffset, b, "want "+itoa(w)+" bytes", ErrShortInput)
	}
	var v uint64
	for _, c := range b[:w] {
		v = v<<8 | uint64(c)
	}
	if v >= uint64(spanMs) {
		return 0, b, bytesError(segTimeOffset, b[:w], "offset not below the span", ErrOutOfRange)
	}
	return int64(v), b[w:], nil
}

// spanMillis checks a span for TimeBase and TimeOffset.
func spanMillis(span time.Duration) (int64, bool) {
	if span%time.Millisecond != 0 {
		return 0, false
	}
	ms := int64(span / time.Millisecond)
	return ms, TimeOffsetWidth(ms) != 0
}

// TimeBase is the start of the range of span that holds a timestamp
// (AppendTimeBase), for the row key of a wide row; TimeOffset is the other
// half, for the column qualifier. get returns milliseconds since the Unix
// epoch; set receives the whole timestamp: decoding the base keeps the
// offset part of the record's timestamp and replaces its base, decoding
// the offset keeps the base and replaces the offset, so decoding both, in
// either order, restores the exact timestamp. Give both the same name,
// span and accessors (package schema's WideSpec checks it).
//
// span must be a whole number of milliseconds in [1ms, MaxTimeSpan];
// changing it is a data migration.
func TimeBase[T any](name string, span time.Duration, get func(*T) int64, set func(*T, int64)) Field[T] {
	spanMs, ok := spanMillis(span)
	switch {
	case !ok:
		return badField[T](name, KindTimeBase, "span must be whole milliseconds in [1ms, 2^32ms]")
	case get == nil:
		return badField[T](name, KindTimeBase, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindTimeBase, Width: TimeBaseWidth, Order: Ascending, Decodable: set != nil, Span: span},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendTimeBase(dst, get(rec), spanMs) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			base, rest, err := DecodeTimeBase(b, spanMs)
			if err == nil && set != nil {
				set(rec, base+floorMod(get(rec), spanMs))
			}
			return rest, err
		},
	}
}

// TimeOffset is the offset of a timestamp inside its range of span
// (AppendTimeOffset), for the column qualifier of a wide row. See
// TimeBase.
func TimeOffset[T any](name string, span time.Duration, get func(*T) int64, set func(*T, int64)) Field[T] {
	spanMs, ok := spanMillis(span)
	switch {
	case !ok:
		return badField[T](name, KindTimeOffset, "span must be whole milliseconds in [1ms, 2^32ms]")
	case get == nil:
		return badField[T](name, KindTimeOffset, "nil getter")
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindTimeOffset, Width: TimeOffsetWidth(spanMs), Order: Ascending,
			Decodable: set != nil, Span: span,
		},
		enc: func(dst []byte, rec *T) ([]byte, error) { return AppendTimeOffset(dst, get(rec), spanMs) },
		dec: func(b []byte, rec *T) ([]byte, error) {
			off, rest, err := DecodeTimeOffset(b, spanMs)
			if err == nil && set != nil {
				set(rec, (get(rec)-floorMod(get(rec), spanMs))+off)
			}
			return rest, err
		},
	}
}

// floorMod is v mod m in [0, m), for m > 0.
func floorMod(v, m int64) int64 {
	r := v % m
	if r < 0 {
		r += m
	}
	return r
}
