package keys

// Reversed digit strings.
//
// A mobile number such as 13812345678 starts with a handful of carrier prefixes, so
// keys that start with it pile up in a few regions. Reversed, it starts with the last
// digit, which is close to uniform: 87654321831. The reversal is its own inverse.

const segReversedDigits = "reversed digits"

// AppendReversedDigits appends the digit string s, reversed, to dst.
//
// s must be exactly width ASCII digits '0'..'9'; otherwise AppendReversedDigits returns
// dst unchanged and an *Error wrapping ErrWidth (wrong length) or ErrInvalidValue (a
// non-digit). width must be at least 1.
//
// Ordering: bytes.Compare of two encodings equals the comparison of the reversed
// strings; the order of the original numbers is deliberately lost, which is what
// spreads the keys. The leading byte is the last digit of s, so a layout that starts
// with this segment has a decimal keyspace (see DecimalPrefixSplits).
//
// Changing width is a data migration: every existing key changes.
func AppendReversedDigits(dst []byte, s string, width int) ([]byte, error) {
	if width < 1 {
		return dst, configError(segReversedDigits, "width must be at least 1")
	}
	if len(s) != width {
		return dst, newError(segReversedDigits, s, "want exactly "+itoa(width)+" digits", ErrWidth)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return dst, newError(segReversedDigits, s, "non-digit at offset "+itoa(i), ErrInvalidValue)
		}
	}
	for i := len(s) - 1; i >= 0; i-- {
		dst = append(dst, s[i])
	}
	return dst, nil
}

// DecodeReversedDigits reads width reversed digits from the front of b and returns the
// digit string in its original order, and the rest of b.
//
// The returned string is a copy; rest aliases b. It returns an *Error wrapping
// ErrShortInput if b holds fewer than width bytes, and ErrInvalidEncoding if one of them
// is not a digit.
func DecodeReversedDigits(b []byte, width int) (s string, rest []byte, err error) {
	if width < 1 {
		return "", b, configError(segReversedDigits, "width must be at least 1")
	}
	if len(b) < width {
		return "", b, bytesError(segReversedDigits, b, "want "+itoa(width)+" bytes", ErrShortInput)
	}
	var stack [32]byte
	buf := stack[:0]
	if width > len(stack) {
		buf = make([]byte, 0, width)
	}
	buf = buf[:width]
	for i := 0; i < width; i++ {
		c := b[width-1-i]
		if c < '0' || c > '9' {
			return "", b, bytesError(segReversedDigits, b[:width], "non-digit at offset "+itoa(width-1-i), ErrInvalidEncoding)
		}
		buf[i] = c
	}
	return string(buf), b[width:], nil
}

// ReverseDigits returns the reversal of a digit string, validated like
// AppendReversedDigits with width len(s). It is a convenience for building
// split points and for display; it allocates.
func ReverseDigits(s string) (string, error) {
	if s == "" {
		return "", newError(segReversedDigits, s, "empty digit string", ErrWidth)
	}
	b, err := AppendReversedDigits(make([]byte, 0, len(s)), s, len(s))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Digit strings in their natural order.

const segDigits = "digits"

// AppendDigits appends s, which must be exactly width ASCII digits, unchanged: the
// fixed-width mobile number of the seed index key. It validates like
// AppendReversedDigits. Ordering: ascending (byte order of the digit strings).
// Changing width is a data migration.
func AppendDigits(dst []byte, s string, width int) ([]byte, error) {
	if width < 1 {
		return dst, configError(segDigits, "width must be at least 1")
	}
	if len(s) != width {
		return dst, newError(segDigits, s, "want exactly "+itoa(width)+" digits", ErrWidth)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return dst, newError(segDigits, s, "non-digit at offset "+itoa(i), ErrInvalidValue)
		}
	}
	return append(dst, s...), nil
}

// DecodeDigits reads width digits from the front of b. s is a copy; rest aliases b.
// Errors wrap ErrShortInput or ErrInvalidEncoding.
func DecodeDigits(b []byte, width int) (s string, rest []byte, err error) {
	if width < 1 {
		return "", b, configError(segDigits, "width must be at least 1")
	}
	rest, err = skipDigits(segDigits, b, width)
	if err != nil {
		return "", b, err
	}
	return string(b[:width]), rest, nil
}

// Fixed-width decimal numbers.

const segDecimal = "decimal"

// pow10 holds 10^0 .. 10^19, every power of ten that fits in a uint64.
var pow10 = [20]uint64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
	1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000,
	10000000000000000000,
}

// AppendDecimal appends v as exactly width zero-padded decimal digits (1 <= width <= 20).
//
// It returns dst unchanged and an *Error wrapping ErrWidth if v needs more than width
// digits. Ordering: for a fixed width, bytes.Compare of encodings equals the numeric
// order of the values. Changing width is a data migration.
func AppendDecimal(dst []byte, v uint64, width int) ([]byte, error) {
	if width < 1 || width > 20 {
		return dst, configError(segDecimal, "width must be in [1, 20]")
	}
	if width < 20 && v >= pow10[width] {
		return dst, &Error{Segment: segDecimal, Value: utoa(v), Reason: "wider than " + itoa(width) + " digits", Err: ErrWidth}
	}
	return appendDecimal(dst, v, width), nil
}

// digitPairs holds "00" .. "99", for writing two decimal digits per division.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendDecimal appends v zero-padded to width digits; v must fit.
func appendDecimal(dst []byte, v uint64, width int) []byte {
	var buf [20]byte
	i := width
	for i >= 2 {
		q := v / 100
		p := (v - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[p], digitPairs[p+1]
		v = q
	}
	if i == 1 {
		buf[0] = byte('0' + v%10)
	}
	return append(dst, buf[:width]...)
}

// DecodeDecimal reads exactly width decimal digits from the front of b.
// rest aliases b. Errors wrap ErrShortInput, ErrInvalidEncoding (a non-digit) or
// ErrOutOfRange (a 20-digit value above the uint64 range).
func DecodeDecimal(b []byte, width int) (v uint64, rest []byte, err error) {
	if width < 1 || width > 20 {
		return 0, b, configError(segDecimal, "width must be in [1, 20]")
	}
	return decodeDecimal(segDecimal, b, width)
}

// decodeDecimal is DecodeDecimal reporting errors under the given segment name.
func decodeDecimal(seg string, b []byte, width int) (uint64, []byte, error) {
	if len(b) < width {
		return 0, b, bytesError(seg, b, "want "+itoa(width)+" digits", ErrShortInput)
	}
	var v uint64
	for i := 0; i < width; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, b, bytesError(seg, b[:width], "non-digit at offset "+itoa(i), ErrInvalidEncoding)
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, b, bytesError(seg, b[:width], "overflows uint64", ErrOutOfRange)
		}
		v = v*10 + d
	}
	return v, b[width:], nil
}

// itoa and utoa format numbers for error messages without pulling fmt into hot paths.
func itoa(i int) string {
	if i < 0 {
		return "-" + utoa(uint64(-i))
	}
	return utoa(uint64(i))
}

func utoa(v uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(buf[i:])
}
