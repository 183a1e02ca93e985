package keys

import (
	"encoding/binary"
	"math"
	"time"
)

// Reversed timestamps, dates and reversed times of day.
//
// HBase sorts rows ascending. Writing MaxTimestamp - ms instead of ms makes the newest
// row of a prefix sort first, so a scan from the prefix returns the latest data first
// (the Long.MAX_VALUE - timestamp trick of the HBase book).

// MaxTimestamp is the largest timestamp a reversed-timestamp segment holds: Java's
// Long.MAX_VALUE, in milliseconds since the Unix epoch.
const MaxTimestamp = math.MaxInt64

// ReversedTimestampWidth is the width of the decimal reversed timestamp: the 19 digits
// of Long.MAX_VALUE.
const ReversedTimestampWidth = 19

const (
	segReversedTimestamp       = "reversed timestamp"
	segReversedTimestampBinary = "reversed timestamp (binary)"
	segDate                    = "date"
	segReversedTimeOfDay       = "reversed time of day"
)

// AppendReversedTimestamp appends MaxTimestamp - ms as 19 zero-padded decimal digits.
// ms counts milliseconds since the Unix epoch (time.Time.UnixMilli) and must lie in
// [0, MaxTimestamp]; otherwise dst is returned unchanged with an *Error wrapping
// ErrOutOfRange.
//
// Ordering: reversed. For timestamps a < b, bytes.Compare(enc(a), enc(b)) == +1: newer
// instants encode smaller and sort first. Examples: 0 encodes as 9223372036854775807,
// 1503382954000 as 9223370533471821807.
func AppendReversedTimestamp(dst []byte, ms int64) ([]byte, error) {
	if ms < 0 {
		return dst, intError(segReversedTimestamp, ms, "negative timestamp", ErrOutOfRange)
	}
	return appendDecimal(dst, uint64(MaxTimestamp-ms), ReversedTimestampWidth), nil
}

// DecodeReversedTimestamp reads a 19-digit reversed timestamp from the front of b and
// returns the timestamp in milliseconds. rest aliases b. Errors wrap ErrShortInput,
// ErrInvalidEncoding (a non-digit) or ErrOutOfRange (digits above MaxTimestamp).
func DecodeReversedTimestamp(b []byte) (ms int64, rest []byte, err error) {
	v, rest, err := decodeDecimal(segReversedTimestamp, b, ReversedTimestampWidth)
	if err != nil {
		return 0, b, err
	}
	if v > MaxTimestamp {
		return 0, b, bytesError(segReversedTimestamp, b[:ReversedTimestampWidth], "above Long.MAX_VALUE", ErrOutOfRange)
	}
	return MaxTimestamp - int64(v), rest, nil
}

// AppendReversedTimestampBinary appends MaxTimestamp - ms as 8 big-endian bytes, the
// same bytes as Java's Bytes.toBytes(Long.MAX_VALUE - ms). ms must lie in
// [0, MaxTimestamp]; otherwise dst is returned unchanged with an *Error wrapping
// ErrOutOfRange. The first byte is always below 0x80.
//
// Ordering: reversed, as for AppendReversedTimestamp.
func AppendReversedTimestampBinary(dst []byte, ms int64) ([]byte, error) {
	if ms < 0 {
		return dst, intError(segReversedTimestampBinary, ms, "negative timestamp", ErrOutOfRange)
	}
	return binary.BigEndian.AppendUint64(dst, uint64(MaxTimestamp-ms)), nil
}

// DecodeReversedTimestampBinary reads 8 bytes written by AppendReversedTimestampBinary.
// rest aliases b. Errors wrap ErrShortInput, or ErrInvalidEncoding when the top bit is
// set (no timestamp in range encodes that way).
func DecodeReversedTimestampBinary(b []byte) (ms int64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, b, bytesError(segReversedTimestampBinary, b, "want 8 bytes", ErrShortInput)
	}
	v := binary.BigEndian.Uint64(b)
	if v > MaxTimestamp {
		return 0, b, bytesError(segReversedTimestampBinary, b[:8], "top bit set", ErrInvalidEncoding)
	}
	return MaxTimestamp - int64(v), b[8:], nil
}

// DateWidth is the width of a date segment: yyyyMMdd.
const DateWidth = 8

// AppendDate appends the calendar date of t, in t's location, as yyyyMMdd (8 digits).
// The year must lie in [0, 9999]; otherwise dst is returned unchanged with an *Error
// wrapping ErrOutOfRange. Convert t to the zone the key should use (t.UTC(), t.In(loc))
// before calling: the same instant has different dates in different zones. The Date
// and DateIn fields do that conversion.
//
// Ordering: bytes.Compare of encodings equals the order of the dates.
func AppendDate(dst []byte, t time.Time) ([]byte, error) {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return dst, intError(segDate, int64(y), "year outside [0, 9999]", ErrOutOfRange)
	}
	dst = appendDecimal(dst, uint64(y), 4)
	dst = appendDecimal(dst, uint64(m), 2)
	return appendDecimal(dst, uint64(d), 2), nil
}

// DecodeDate reads a yyyyMMdd date and returns midnight of that day in UTC. rest
// aliases b. Errors wrap ErrShortInput, ErrInvalidEncoding (a non-digit) or
// ErrOutOfRange (month or day that does not exist, such as 20230230).
func DecodeDate(b []byte) (t time.Time, rest []byte, err error) {
	if len(b) < DateWidth {
		return time.Time{}, b, bytesError(segDate, b, "want 8 digits", ErrShortInput)
	}
	y, _, err := decodeDecimal(segDate, b[0:4], 4)
	if err != nil {
		return time.Time{}, b, err
	}
	m, _, err := decodeDecimal(segDate, b[4:6], 2)
	if err != nil {
		return time.Time{}, b, err
	}
	d, _, err := decodeDecimal(segDate, b[6:8], 2)
	if err != nil {
		return time.Time{}, b, err
	}
	t = time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || d < 1 || t.Day() != int(d) {
		return time.Time{}, b, bytesError(segDate, b[:DateWidth], "no such date", ErrOutOfRange)
	}
	return t, b[DateWidth:], nil
}

// ReversedTimeOfDayWidth is the width of a reversed time of day: 9 digits.
const ReversedTimeOfDayWidth = 9

// maxClock is 23:59:59.999 written as the number HHmmssSSS.
const maxClock = 235959999

// Day is the length of the range accepted by AppendReversedTimeOfDay.
const Day = 24 * time.Hour

// AppendReversedTimeOfDay appends 235959999 - HHmmssSSS, 9 zero-padded digits, where
// HHmmssSSS is the clock reading of d, the time elapsed since midnight (see TimeOfDay).
// d must lie in [0, 24h); it is truncated to the millisecond. Otherwise dst is returned
// unchanged with an *Error wrapping ErrOutOfRange.
//
// Ordering: reversed within the day. Later clock times encode smaller, so the latest
// entry of a day sorts first. 00:00:00.000 encodes as 235959999, 23:59:59.999 as
// 000000000.
func AppendReversedTimeOfDay(dst []byte, d time.Duration) ([]byte, error) {
	if d < 0 || d >= Day {
		return dst, intError(segReversedTimeOfDay, int64(d), "duration outside [0, 24h)", ErrOutOfRange)
	}
	ms := uint64(d / time.Millisecond)
	h, ms := ms/3600000, ms%3600000
	m, ms := ms/60000, ms%60000
	s, ms := ms/1000, ms%1000
	clock := h*10000000 + m*100000 + s*1000 + ms
	return appendDecimal(dst, maxClock-clock, ReversedTimeOfDayWidth), nil
}

// DecodeReversedTimeOfDay reads 9 digits written by AppendReversedTimeOfDay and
// returns the time since midnight. rest aliases b. Errors wrap ErrShortInput,
// ErrInvalidEncoding (a non-digit) or ErrOutOfRange (a clock reading that does not
// exist, such as minute 60).
func DecodeReversedTimeOfDay(b []byte) (d time.Duration, rest []byte, err error) {
	v, rest, err := decodeDecimal(segReversedTimeOfDay, b, ReversedTimeOfDayWidth)
	if err != nil {
		return 0, b, err
	}
	if v > maxClock {
		return 0, b, bytesError(segReversedTimeOfDay, b[:ReversedTimeOfDayWidth], "above 235959999", ErrOutOfRange)
	}
	clock := maxClock - v
	h, clock := clock/10000000, clock%10000000
	m, clock := clock/100000, clock%100000
	s, ms := clock/1000, clock%1000
	if h > 23 || m > 59 || s > 59 {
		return 0, b, bytesError(segReversedTimeOfDay, b[:ReversedTimeOfDayWidth], "no such clock time", ErrOutOfRange)
	}
	d = time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(ms)*time.Millisecond
	return d, rest, nil
}

// TimeOfDay returns the time elapsed since midnight UTC of t's UTC day, suitable for
// AppendReversedTimeOfDay: the clock of the instant, whatever t's own location, as
// Date writes the date of it. TimeOfDayIn reads the clock of another zone.
func TimeOfDay(t time.Time) time.Duration { return TimeOfDayIn(t, time.UTC) }

// TimeOfDayIn returns the time elapsed since midnight of t's day in loc, read from the
// clock fields of t in loc, so days with a daylight-saving jump still map into
// [0, 24h) (and the repeated hour of such a day maps twice). A nil loc means UTC.
func TimeOfDayIn(t time.Time, loc *time.Location) time.Duration {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	h, m, s := t.Clock()
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute +
		time.Duration(s)*time.Second + time.Duration(t.Nanosecond())
}
