package keys

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// A segment's value without its record type: what a tool that knows a table only by
// its Segments (a command line, a schema file) shows of a key and reads from a user.
//
// Value turns a segment's bytes into a Go value, ParseText turns the text a user typed
// into the segment's bytes, and Layout.DecodeField stores such bytes into a record, so
// that the segments computed from the field (a hash of it, a bucket of it) can be
// encoded from the value given.

// TimeLayout is how Value's times print as text and the first form ParseText reads:
// RFC 3339 in UTC with milliseconds, the precision of every timestamp segment.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Value decodes b, the bytes of one segment as Layout.Parts cuts them, into its value:
//
//   - string for digit strings (reversed ones put back in order), fixed strings (pad
//     removed), strings, trailing strings, text parts, literals, and the hex of MD5Hex
//     and MD5 segments, which cannot be inverted;
//   - time.Time (UTC) for reversed timestamps and time bases; string "yyyy-MM-dd"
//     for dates, "HH:mm:ss.SSS" for times of day, a Go duration ("1m30s") for time
//     offsets;
//   - uint64 for decimal, uint64 and unique segments and for buckets and salts;
//     int64 for int64, the Java integers, Java partitions and decimal text;
//   - []byte (a copy) for custom segments, whose codec this package cannot call
//     without the record type.
//
// Strings are copies; the value never aliases b. Bytes the segment does not accept
// are an *Error naming the segment.
func (s Segment) Value(b []byte) (any, error) {
	v, err := s.value(b)
	if err != nil {
		return nil, renamed(err, s.Name)
	}
	return v, nil
}

func (s Segment) value(b []byte) (any, error) {
	whole := func(rest []byte, err error) error {
		if err == nil && len(rest) != 0 {
			return bytesError(s.Name, rest, itoa(len(rest))+" bytes after the segment", ErrTrailingBytes)
		}
		return err
	}
	switch s.Kind {
	case KindLiteral, KindTrailingString:
		return string(b), nil
	case KindReversedDigits:
		v, rest, err := DecodeReversedDigits(b, s.Width)
		return v, whole(rest, err)
	case KindDigits:
		v, rest, err := DecodeDigits(b, s.Width)
		return v, whole(rest, err)
	case KindDecimal:
		v, rest, err := DecodeDecimal(b, s.Width)
		return v, whole(rest, err)
	case KindReversedTimestamp:
		ms, rest, err := DecodeReversedTimestamp(b)
		return time.UnixMilli(ms).UTC(), whole(rest, err)
	case KindReversedTimestampBinary:
		ms, rest, err := DecodeReversedTimestampBinary(b)
		return time.UnixMilli(ms).UTC(), whole(rest, err)
	case KindDate:
		t, rest, err := DecodeDate(b)
		return t.Format(time.DateOnly), whole(rest, err)
	case KindReversedTimeOfDay:
		d, rest, err := DecodeReversedTimeOfDay(b)
		return formatClock(d), whole(rest, err)
	case KindMD5Hex:
		h, rest, err := DecodeMD5Hex(b, s.Width)
		return string(h), whole(rest, err)
	case KindMD5:
		d, rest, err := DecodeMD5(b, s.Width)
		return hex.EncodeToString(d), whole(rest, err)
	case KindBucket, KindSalt:
		v, rest, err := DecodeBucket(b, int(s.Keyspace.Count))
		return uint64(v), whole(rest, err)
	case KindBucketByte:
		v, rest, err := DecodeBucketByte(b, int(s.Keyspace.Count))
		return uint64(v), whole(rest, err)
	case KindFixed:
		v, rest, err := DecodeFixed(b, s.Width, s.Pad)
		return v, whole(rest, err)
	case KindUint64:
		v, rest, err := DecodeUint64(b)
		return v, whole(rest, err)
	case KindInt64:
		v, rest, err := DecodeInt64(b)
		return v, whole(rest, err)
	case KindString:
		v, rest, err := DecodeString(b)
		return v, whole(rest, err)
	case KindUnique:
		v, rest, err := DecodeUnique(b, s.Width)
		return v, whole(rest, err)
	case KindJavaShort:
		v, rest, err := DecodeJavaShort(b)
		return int64(v), whole(rest, err)
	case KindJavaInt:
		v, rest, err := DecodeJavaInt(b)
		return int64(v), whole(rest, err)
	case KindJavaLong, KindJavaPartition:
		v, rest, err := DecodeJavaLong(b)
		return v, whole(rest, err)
	case KindText, KindDecimalText:
		text, ok := strings.CutSuffix(string(b), s.Delimiter)
		if !ok {
			return nil, bytesError(s.Name, b, "no delimiter "+strconv.Quote(s.Delimiter), ErrInvalidEncoding)
		}
		if s.Kind == KindText {
			return text, nil
		}
		return parseJavaDecimal(s.Name, []byte(text))
	case KindTimeBase:
		ms, rest, err := DecodeTimeBase(b, s.Span.Milliseconds())
		return time.UnixMilli(ms).UTC(), whole(rest, err)
	case KindTimeOffset:
		ms, rest, err := DecodeTimeOffset(b, s.Span.Milliseconds())
		return (time.Duration(ms) * time.Millisecond).String(), whole(rest, err)
	case KindCustom:
		return append([]byte(nil), b...), nil
	}
	return nil, configError(s.Name, "no value for a "+s.Kind.String()+" segment")
}

// Text is Value as text, in a form AppendText reads back: strings as they are,
// numbers in decimal, times in TimeLayout, dates as yyyy-MM-dd. A custom segment,
// whose codec this package cannot call without the record type, gives its bytes as
// a string. Errors are Value's.
func (s Segment) Text(b []byte) (string, error) {
	v, err := s.Value(b)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case time.Time:
		return x.Format(TimeLayout), nil
	case []byte:
		return string(x), nil
	}
	return "", configError(s.Name, "no text for a "+s.Kind.String()+" segment")
}

// formatClock renders a time of day as HH:mm:ss.SSS.
func formatClock(d time.Duration) string {
	return time.Unix(0, 0).UTC().Add(d).Format("15:04:05.000")
}

// AppendText parses text, a value of the segment as a user writes it, and appends the
// segment's encoding of it to dst: the bytes Layout.DecodeField takes. On error dst is
// returned unchanged with an *Error naming the segment and wrapping ErrInvalidValue,
// ErrWidth or ErrOutOfRange.
//
// The text is what Value prints, or an equivalent form: digits, numbers in decimal,
// times as RFC 3339 (TimeLayout; without a zone they are UTC), a date alone (midnight
// UTC) or Unix milliseconds, dates as yyyy-MM-dd or yyyyMMdd (or a time, whose date
// in the segment's zone is taken), times of day as
// HH:mm:ss[.SSS], time offsets as Go durations; a time base takes any time of its
// range. A segment computed from another field (a hash, a bucket, a
// partition) takes its own encoded value: the hex digits, the bucket number. Literal
// and custom segments take no text (ErrBadConfig).
func (s Segment) AppendText(dst []byte, text string) ([]byte, error) {
	out, err := s.appendText(dst, text)
	if err != nil {
		return dst, renamed(err, s.Name)
	}
	return out, nil
}

func (s Segment) appendText(dst []byte, text string) ([]byte, error) {
	bad := func(want string) ([]byte, error) {
		return dst, newError(s.Name, text, "want "+want, ErrInvalidValue)
	}
	parseUint := func(base, bits int) (uint64, bool) {
		v, err := strconv.ParseUint(text, base, bits)
		return v, err == nil
	}
	switch s.Kind {
	case KindReversedDigits:
		return AppendReversedDigits(dst, text, s.Width)
	case KindDigits:
		return AppendDigits(dst, text, s.Width)
	case KindDecimal:
		v, ok := parseUint(10, 64)
		if !ok {
			return bad("an unsigned decimal number")
		}
		return AppendDecimal(dst, v, s.Width)
	case KindReversedTimestamp, KindReversedTimestampBinary:
		t, ok := ParseTime(text)
		if !ok {
			return bad("a time: RFC 3339, yyyy-MM-dd or Unix milliseconds")
		}
		if s.Kind == KindReversedTimestamp {
			return AppendReversedTimestamp(dst, t.UnixMilli())
		}
		return AppendReversedTimestampBinary(dst, t.UnixMilli())
	case KindDate:
		// A date is that date; a time is the date of the instant in the
		// segment's zone (Segment.Zone).
		for _, layout := range []string{time.DateOnly, "20060102"} {
			if t, err := time.Parse(layout, text); err == nil {
				return AppendDate(dst, t)
			}
		}
		t, ok := ParseTime(text)
		if !ok {
			return bad("a date: yyyy-MM-dd or yyyyMMdd")
		}
		return AppendDate(dst, t.In(s.Zone()))
	case KindReversedTimeOfDay:
		for _, layout := range []string{"15:04:05.000", "15:04:05"} {
			if t, err := time.Parse(layout, text); err == nil {
				return AppendReversedTimeOfDay(dst, TimeOfDay(t))
			}
		}
		return bad("a time of day: HH:mm:ss[.SSS]")
	case KindMD5Hex:
		if _, rest, err := DecodeMD5Hex([]byte(text), s.Width); err != nil || len(rest) != 0 {
			return bad(itoa(s.Width) + " lowercase hex digits")
		}
		return append(dst, text...), nil
	case KindMD5:
		d, err := hex.DecodeString(text)
		if err != nil || len(d) != s.Width {
			return bad(itoa(2*s.Width) + " hex digits")
		}
		return append(dst, d...), nil
	case KindBucket, KindSalt, KindBucketByte:
		v, ok := parseUint(10, 31)
		if !ok {
			return bad("a bucket number")
		}
		if s.Kind == KindBucketByte {
			return AppendBucketByte(dst, int(v), int(s.Keyspace.Count))
		}
		return AppendBucket(dst, int(v), int(s.Keyspace.Count))
	case KindFixed:
		return AppendFixed(dst, text, s.Width, s.Pad)
	case KindUint64:
		v, ok := parseUint(10, 64)
		if !ok {
			return bad("an unsigned decimal number")
		}
		return AppendUint64(dst, v), nil
	case KindUnique:
		v, ok := parseUint(10, 64)
		if !ok {
			return bad("an unsigned decimal number")
		}
		return AppendUnique(dst, v, s.Width)
	case KindInt64, KindJavaShort, KindJavaInt, KindJavaLong, KindJavaPartition:
		bits := map[Kind]int{KindJavaShort: 16, KindJavaInt: 32}[s.Kind]
		if bits == 0 {
			bits = 64
		}
		v, err := strconv.ParseInt(text, 10, bits)
		if err != nil {
			return bad("a decimal integer of " + itoa(bits) + " bits")
		}
		switch s.Kind {
		case KindInt64:
			return AppendInt64(dst, v), nil
		case KindJavaShort:
			return AppendJavaShort(dst, int16(v)), nil
		case KindJavaInt:
			return AppendJavaInt(dst, int32(v)), nil
		case KindJavaPartition:
			if v < 0 || v >= int64(s.Keyspace.Count) {
				return dst, newError(s.Name, text, "partition outside [0, "+utoa(s.Keyspace.Count)+")", ErrOutOfRange)
			}
		}
		return AppendJavaLong(dst, v), nil
	case KindTimeBase:
		t, ok := ParseTime(text)
		if !ok {
			return bad("a time: RFC 3339, yyyy-MM-dd or Unix milliseconds")
		}
		return AppendTimeBase(dst, t.UnixMilli(), s.Span.Milliseconds())
	case KindTimeOffset:
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 || d >= s.Span {
			return bad("a duration in [0, " + s.Span.String() + ") such as 1m30s")
		}
		return AppendTimeOffset(dst, d.Milliseconds(), s.Span.Milliseconds())
	case KindString:
		return AppendString(dst, text), nil
	case KindTrailingString:
		return append(dst, text...), nil
	case KindText, KindDecimalText:
		if s.Kind == KindDecimalText {
			v, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return bad("a decimal integer")
			}
			text = strconv.FormatInt(v, 10)
		}
		if i := strings.Index(text+s.Delimiter, s.Delimiter); s.Delimiter != "" && i < len(text) {
			return dst, newError(s.Name, text, "contains or runs into the delimiter "+strconv.Quote(s.Delimiter), ErrDelimiter)
		}
		return append(append(dst, text...), s.Delimiter...), nil
	}
	return dst, configError(s.Name, "a "+s.Kind.String()+" segment takes no value as text")
}

// ParseTime reads a time as AppendText does: RFC 3339 with an optional fraction
// (TimeLayout), the same without a zone (UTC), a date yyyy-MM-dd (midnight UTC), or
// Unix milliseconds. It reports false for anything else.
func ParseTime(text string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, text); err == nil {
			return t, true
		}
	}
	if ms, err := strconv.ParseInt(text, 10, 64); err == nil {
		return time.UnixMilli(ms), true
	}
	return time.Time{}, false
}

// DecodeField decodes the bytes of field i alone (a segment as Layout.Parts cuts it,
// or as Segment.AppendText writes it) into rec, through the field's setter: the way
// to set a record's field from a value given as text, so that the fields computed
// from it can be encoded. Bytes left over are an *Error wrapping ErrTrailingBytes. A
// field without a setter checks b and leaves rec untouched.
func (l *Layout[T]) DecodeField(i int, b []byte, rec *T) error {
	if i < 0 || i >= len(l.fields) {
		return configError("layout", "field "+itoa(i)+" outside [0, "+itoa(len(l.fields))+")")
	}
	f := &l.fields[i]
	rest, err := f.dec(b, rec)
	if err != nil {
		return renamed(err, f.seg.Name)
	}
	if len(rest) != 0 {
		return bytesError(f.seg.Name, rest, itoa(len(rest))+" bytes after the field", ErrTrailingBytes)
	}
	return nil
}
