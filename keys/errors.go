package keys

import (
	"errors"
	"strconv"
)

// Sentinel errors. Every error returned by this package wraps one of them, so callers
// test with errors.Is and never compare strings. The concrete type is *Error, which also
// names the segment and the offending value (see errors.As).
var (
	// ErrInvalidValue reports a value the segment cannot represent: a non-digit in a
	// mobile number, a string that ends with its padding byte, a bucket outside [0, n).
	ErrInvalidValue = errors.New("keys: invalid value")

	// ErrOutOfRange reports a number outside the range a segment can hold, such as a
	// negative timestamp or a date before year 0 or after 9999.
	ErrOutOfRange = errors.New("keys: value out of range")

	// ErrWidth reports a value whose length does not match its fixed-width segment,
	// or that is wider than the segment allows.
	ErrWidth = errors.New("keys: value does not fit segment width")

	// ErrShortInput reports a decoder that ran out of bytes.
	ErrShortInput = errors.New("keys: input too short")

	// ErrInvalidEncoding reports bytes that no encoder of the segment produces.
	ErrInvalidEncoding = errors.New("keys: invalid encoding")

	// ErrTrailingBytes reports a key with bytes left over after its last segment.
	ErrTrailingBytes = errors.New("keys: trailing bytes after last segment")

	// ErrDelimiter reports a value of a delimiter-joined group (Joined) that contains
	// the delimiter, or would run into it, so that the key could not be cut apart.
	ErrDelimiter = errors.New("keys: value contains the delimiter")

	// ErrDiscontiguousRange reports a range whose values are not one range of keys,
	// such as Java signed integers from a negative to a non-negative value: query
	// the pieces separately.
	ErrDiscontiguousRange = errors.New("keys: value range is not one key range")

	// ErrBadConfig reports an invalid segment, layout or split configuration: a width
	// or bucket count out of range, a duplicate segment name, too many regions.
	ErrBadConfig = errors.New("keys: invalid configuration")
)

// Error is a validation or decoding error for one segment of a key.
//
// Value is a readable rendering of the offending input: the value itself for encoders,
// or a quoted (strconv.Quote style) rendering of the bytes for decoders. Keys often hold
// personal data such as phone numbers; do not copy Error.Value into logs, metrics or
// trace attributes that leave the process.
type Error struct {
	Segment string // name of the segment (layout field name, or the codec name)
	Value   string // readable offending value; may be truncated
	Reason  string // what is wrong, in words
	Err     error  // one of the sentinel errors above
}

// Error implements the error interface.
func (e *Error) Error() string {
	s := "keys: " + e.Segment + ": " + e.Reason
	if e.Value != "" {
		s += " (value " + e.Value + ")"
	}
	return s
}

// Unwrap returns the sentinel, so errors.Is(err, keys.ErrWidth) works.
func (e *Error) Unwrap() error { return e.Err }

// maxErrValue bounds the length of Error.Value so that a huge input does not end up
// whole in an error message.
const maxErrValue = 64

// newError builds an *Error for a string value.
func newError(segment, value, reason string, sentinel error) *Error {
	if len(value) > maxErrValue {
		value = value[:maxErrValue] + "..."
	}
	return &Error{Segment: segment, Value: strconv.Quote(value), Reason: reason, Err: sentinel}
}

// bytesError builds an *Error for undecodable bytes.
func bytesError(segment string, b []byte, reason string, sentinel error) *Error {
	return newError(segment, string(b), reason, sentinel)
}

// intError builds an *Error for a numeric value.
func intError(segment string, v int64, reason string, sentinel error) *Error {
	return &Error{Segment: segment, Value: strconv.FormatInt(v, 10), Reason: reason, Err: sentinel}
}

// configError builds an *Error for an invalid configuration argument.
func configError(segment, reason string) *Error {
	return &Error{Segment: segment, Reason: reason, Err: ErrBadConfig}
}

// renamed returns err with its Segment replaced by name when err is an *Error; layouts
// use it so that a codec error names the layout field rather than the codec.
func renamed(err error, name string) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Segment = name
		return &c
	}
	return err
}
