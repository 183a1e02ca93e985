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

// value is Value without the segment's name on errors.
func (s Segment) value(b []byte) (any, error) {
	switch s.Kind {
	case KindLiteral, KindTrailingString:
		return string(b), nil
	case KindText, KindDecimalText:
		return s.delimitedValue(b)
	case KindCustom:
		return append([]byte(nil), b...), nil
	}
	v, rest, err := s.decodeValue(b)
	if err == nil && len(rest) != 0 {
		return v, bytesError(s.Name, rest, itoa(len(rest))+" bytes after the segment", ErrTrailingBytes)
	}
	return v, err
}

// delimitedValue is the value of a text or decimal text segment: b
// without its delimiter, as a string or an int64.
func (s Segment) delimitedValue(b []byte) (any, error) {
	text, ok := strings.CutSuffix(string(b), s.Delimiter)
	if !ok {
		return nil, bytesError(s.Name, b, "no delimiter "+strconv.Quote(s.Delimiter), ErrInvalidEncoding)
	}
	if s.Kind == KindText {
		return text, nil
	}
	return parseJavaDecimal(s.Name, []byte(text))
}

// decodeValue decodes the value of a segment of a fixed encoding from the
// front of b, returning the bytes after it.
func (s Segment) decodeValue(b []byte) (any, []byte, error) {
	switch s.Kind {
	case KindReversedTimestamp, KindReversedTimestampBinary, KindDate, KindReversedTimeOfDay, KindTimeBase, KindTimeOffset:
		return s.decodeTimeValue(b)
	case KindReversedDigits:
		return DecodeReversedDigits(b, s.Width)
	case KindDigits:
		return DecodeDigits(b, s.Width)
	case KindMD5Hex:
		h, rest, err := DecodeMD5Hex(b, s.Width)
		return string(h), rest, err
	case KindMD5:
		d, rest, err := DecodeMD5(b, s.Width)
		return hex.EncodeToString(d), rest, err
	case KindFixed:
		return DecodeFixed(b, s.Width, s.Pad)
	case KindString:
		return DecodeString(b)
	}
	return s.decodeNumberValue(b)
}

// decodeTimeValue decodes a time (UTC), a date (yyyy-MM-dd), a time of
// day (HH:mm:ss.SSS) or a time offset (a Go duration).
func (s Segment) decodeTimeValue(b []byte) (any, []byte, error) {
	switch s.Kind {
	case KindReversedTimestamp:
		ms, rest, err := DecodeReversedTimestamp(b)
		return time.UnixMilli(ms).UTC(), rest, err
	case KindReversedTimestampBinary:
		ms, rest, err := DecodeReversedTimestampBinary(b)
		return time.UnixMilli(ms).UTC(), rest, err
	case KindDate:
		t, rest, err := DecodeDate(b)
		return t.Format(time.DateOnly), rest, err
	case KindReversedTimeOfDay:
		d, rest, err := DecodeReversedTimeOfDay(b)
		return formatClock(d), rest, err
	case KindTimeBase:
		ms, rest, err := DecodeTimeBase(b, s.Span.Milliseconds())
		return time.UnixMilli(ms).UTC(), rest, err
	default: // KindTimeOffset
		ms, rest, err := DecodeTimeOffset(b, s.Span.Milliseconds())
		return (time.Duration(ms) * time.Millisecond).String(), rest, err
	}
}

// decodeNumberValue decodes a number: uint64 for decimals, buckets, salts
// and unique segments, int64 for the signed kinds.
func (s Segment) decodeNumberValue(b []byte) (any, []byte, error) {
	switch s.Kind {
	case KindDecimal:
		return DecodeDecimal(b, s.Width)
	case KindBucket, KindSalt:
		v, rest, err := DecodeBucket(b, int(s.Keyspace.Count))
		return uint64(v), rest, err
	case KindBucketByte:
		v, rest, err := DecodeBucketByte(b, int(s.Keyspace.Count))
		return uint64(v), rest, err
	case KindUint64:
		return DecodeUint64(b)
	case KindInt64:
		return DecodeInt64(b)
	case KindUnique:
		return DecodeUnique(b, s.Width)
	case KindJavaShort:
		v, rest, err := DecodeJavaShort(b)
		return int64(v), rest, err
	case KindJavaInt:
		v, rest, err := DecodeJavaInt(b)
		return int64(v), rest, err
	case KindJavaLong, KindJavaPartition:
		return DecodeJavaLong(b)
	}
	return nil, nil, configError(s.Name, "no value for a "+s.Kind.String()+" segment")
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

// appendText is AppendText without the segment's name on errors.
func (s Segment) appendText(dst []byte, text string) ([]byte, error) {
	switch s.Kind {
	case KindReversedTimestamp, KindReversedTimestampBinary, KindDate, KindReversedTimeOfDay, KindTimeBase, KindTimeOffset:
		return s.appendTimeText(dst, text)
	case KindDecimal, KindUint64, KindUnique, KindBucket, KindSalt, KindBucketByte:
		return s.appendUintText(dst, text)
	case KindInt64, KindJavaShort, KindJavaInt, KindJavaLong, KindJavaPartition:
		return s.appendIntText(dst, text)
	case KindText, KindDecimalText:
		return s.appendDelimitedText(dst, text)
	case KindReversedDigits:
		return AppendReversedDigits(dst, text, s.Width)
	case KindDigits:
		return AppendDigits(dst, text, s.Width)
	case KindMD5Hex:
		if _, rest, err := DecodeMD5Hex([]byte(text), s.Width); err != nil || len(rest) != 0 {
			return s.badText(dst, text, itoa(s.Width)+" lowercase hex digits")
		}
		return append(dst, text...), nil
	case KindMD5:
		d, err := hex.DecodeString(text)
		if err != nil || len(d) != s.Width {
			return s.badText(dst, text, itoa(2*s.Width)+" hex digits")
		}
		return append(dst, d...), nil
	case KindFixed:
		return AppendFixed(dst, text, s.Width, s.Pad)
	case KindString:
		return AppendString(dst, text), nil
	case KindTrailingString:
		return append(dst, text...), nil
	}
	return dst, configError(s.Name, "a "+s.Kind.String()+" segment takes no value as text")
}

// badText is appendText's error for text that is not the kind of value
// the segment wants: dst unchanged and an ErrInvalidValue.
func (s Segment) badText(dst []byte, text, want string) ([]byte, error) {
	return dst, newError(s.Name, text, "want "+want, ErrInvalidValue)
}

// appendTimeText appends a time, date, time of day, time base or time
// offset given as text (see AppendText).
func (s Segment) appendTimeText(dst []byte, text string) ([]byte, error) {
	const wantTime = "a time: RFC 3339, yyyy-MM-dd or Unix milliseconds"
	switch s.Kind {
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
			return s.badText(dst, text, "a date: yyyy-MM-dd or yyyyMMdd")
		}
		return AppendDate(dst, t.In(s.Zone()))
	case KindReversedTimeOfDay:
		for _, layout := range []string{"15:04:05.000", "15:04:05"} {
			if t, err := time.Parse(layout, text); err == nil {
				return AppendReversedTimeOfDay(dst, TimeOfDay(t))
			}
		}
		return s.badText(dst, text, "a time of day: HH:mm:ss[.SSS]")
	case KindTimeOffset:
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 || d >= s.Span {
			return s.badText(dst, text, "a duration in [0, "+s.Span.String()+") such as 1m30s")
		}
		return AppendTimeOffset(dst, d.Milliseconds(), s.Span.Milliseconds())
	}
	t, ok := ParseTime(text)
	if !ok {
		return s.badText(dst, text, wantTime)
	}
	switch s.Kind {
	case KindReversedTimestamp:
		return AppendReversedTimestamp(dst, t.UnixMilli())
	case KindReversedTimestampBinary:
		return AppendReversedTimestampBinary(dst, t.UnixMilli())
	}
	return AppendTimeBase(dst, t.UnixMilli(), s.Span.Milliseconds())
}

// appendUintText appends an unsigned decimal number: a decimal, uint64 or
// unique segment's value, or a bucket or salt number.
func (s Segment) appendUintText(dst []byte, text string) ([]byte, error) {
	switch s.Kind {
	case KindBucket, KindSalt, KindBucketByte:
		v, err := strconv.ParseUint(text, 10, 31)
		if err != nil {
			return s.badText(dst, text, "a bucket number")
		}
		if s.Kind == KindBucketByte {
			return AppendBucketByte(dst, int(v), int(s.Keyspace.Count))
		}
		return AppendBucket(dst, int(v), int(s.Keyspace.Count))
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return s.badText(dst, text, "an unsigned decimal number")
	}
	switch s.Kind {
	case KindDecimal:
		return AppendDecimal(dst, v, s.Width)
	case KindUnique:
		return AppendUnique(dst, v, s.Width)
	}
	return AppendUint64(dst, v), nil
}

// appendIntText appends a signed decimal integer of the segment's width
// (16 bits for a Java short, 32 for a Java int, else 64); a Java
// partition must lie within its keyspace.
func (s Segment) appendIntText(dst []byte, text string) ([]byte, error) {
	bits := map[Kind]int{KindJavaShort: 16, KindJavaInt: 32}[s.Kind]
	if bits == 0 {
		bits = 64
	}
	v, err := strconv.ParseInt(text, 10, bits)
	if err != nil {
		return s.badText(dst, text, "a decimal integer of "+itoa(bits)+" bits")
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
}

// appendDelimitedText appends a text or decimal text segment's value and
// its delimiter; the value must not contain or run into the delimiter.
func (s Segment) appendDelimitedText(dst []byte, text string) ([]byte, error) {
	if s.Kind == KindDecimalText {
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return s.badText(dst, text, "a decimal integer")
		}
		text = strconv.FormatInt(v, 10)
	}
	if i := strings.Index(text+s.Delimiter, s.Delimiter); s.Delimiter != "" && i < len(text) {
		return dst, newError(s.Name, text, "contains or runs into the delimiter "+strconv.Quote(s.Delimiter), ErrDelimiter)
	}
	return append(append(dst, text...), s.Delimiter...), nil
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
