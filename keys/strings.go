package keys

// Strings: escaped variable-length strings, fixed-width padded strings and unique
// suffixes.

const (
	segString = "string"
	segFixed  = "fixed"
	segUnique = "unique suffix"
)

// Escape bytes of the variable-length string encoding.
const (
	escape     = 0x00 // starts an escape pair
	escapedNul = 0xFF // escape, escapedNul stands for a 0x00 byte of the value
	terminator = 0x01 // escape, terminator ends the string
)

// AppendString appends s escaped and terminated, so that it can be followed by further
// segments and still sort in byte order: every 0x00 byte of s is written as 0x00 0xFF
// and the string ends with 0x00 0x01 (the scheme of cockroach's and orderedcode's
// ascending strings).
//
// Ordering: ascending. bytes.Compare(enc(a), enc(b)) == strings.Compare(a, b) for all
// strings, including when one is a prefix of the other: the terminator 0x00 0x01 sorts
// below both an escaped 0x00 (0x00 0xFF) and any other byte.
//
// The encoding is len(s) + 2 bytes plus one byte per 0x00 in s.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == escape {
			dst = append(dst, escape, escapedNul)
			continue
		}
		dst = append(dst, s[i])
	}
	return append(dst, escape, terminator)
}

// AppendBytes is AppendString for a byte slice.
func AppendBytes(dst, v []byte) []byte {
	for _, c := range v {
		if c == escape {
			dst = append(dst, escape, escapedNul)
			continue
		}
		dst = append(dst, c)
	}
	return append(dst, escape, terminator)
}

// DecodeBytes reads a string written by AppendString or AppendBytes, unescapes it and
// returns it with the rest of b. v is a new slice (never nil) and does not alias b; rest
// aliases b. Errors wrap ErrShortInput (no terminator) or ErrInvalidEncoding (0x00
// followed by anything but 0xFF or 0x01).
func DecodeBytes(b []byte) (v, rest []byte, err error) {
	end, n, err := scanString(b)
	if err != nil {
		return nil, b, err
	}
	v = make([]byte, 0, n)
	for i := 0; i < end; i++ {
		v = append(v, b[i])
		if b[i] == escape {
			i++ // skip escapedNul
		}
	}
	return v, b[end+2:], nil
}

// DecodeString is DecodeBytes returning a string.
func DecodeString(b []byte) (s string, rest []byte, err error) {
	end, n, err := scanString(b)
	if err != nil {
		return "", b, err
	}
	if n == end {
		// No escapes: one copy straight into the string.
		return string(b[:end]), b[end+2:], nil
	}
	v, rest, err := DecodeBytes(b)
	return string(v), rest, err
}

// scanString finds the terminator of an escaped string at the front of b. It returns
// the offset of the terminator pair and the length of the unescaped value.
func scanString(b []byte) (end, n int, err error) {
	for i := 0; i < len(b); i++ {
		if b[i] != escape {
			n++
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case terminator:
			return i, n, nil
		case escapedNul:
			n++
			i++
		default:
			return 0, 0, bytesError(segString, b[:i+2], "0x00 followed by neither 0xFF nor 0x01 at offset "+itoa(i), ErrInvalidEncoding)
		}
	}
	return 0, 0, bytesError(segString, b, "no 0x00 0x01 terminator", ErrShortInput)
}

// AppendFixed appends s right-padded with pad to exactly width bytes.
//
// s must be at most width bytes and must not end with pad, so that decoding (which
// strips trailing pad bytes) gives s back; otherwise dst is returned unchanged with an
// *Error wrapping ErrWidth or ErrInvalidValue. The empty string is allowed and encodes
// as width pad bytes.
//
// Ordering: ascending when pad sorts below every byte that appears in the values: then
// bytes.Compare(enc(a), enc(b)) == strings.Compare(a, b). Pad 0x00 is always safe; pad
// ' ' is safe for printable text. Changing width or pad is a data migration.
func AppendFixed(dst []byte, s string, width int, pad byte) ([]byte, error) {
	if width < 1 {
		return dst, configError(segFixed, "width must be at least 1")
	}
	if len(s) > width {
		return dst, newError(segFixed, s, "longer than "+itoa(width)+" bytes", ErrWidth)
	}
	if len(s) > 0 && s[len(s)-1] == pad {
		return dst, newError(segFixed, s, "ends with the padding byte", ErrInvalidValue)
	}
	dst = append(dst, s...)
	for i := len(s); i < width; i++ {
		dst = append(dst, pad)
	}
	return dst, nil
}

// DecodeFixed reads width bytes and strips trailing pad bytes. s is a copy; rest
// aliases b. Errors wrap ErrShortInput.
func DecodeFixed(b []byte, width int, pad byte) (s string, rest []byte, err error) {
	if width < 1 {
		return "", b, configError(segFixed, "width must be at least 1")
	}
	return decodeFixed(segFixed, b, width, pad)
}

func decodeFixed(seg string, b []byte, width int, pad byte) (string, []byte, error) {
	if len(b) < width {
		return "", b, bytesError(seg, b, "want "+itoa(width)+" bytes", ErrShortInput)
	}
	n := width
	for n > 0 && b[n-1] == pad {
		n--
	}
	return string(b[:n]), b[width:], nil
}

// AppendUnique appends id as exactly width lowercase hex digits (1 <= width <= 16), a
// suffix that keeps two records with otherwise equal keys (two messages to one mobile
// in the same millisecond) apart. id may be a sequence number, a writer id and counter,
// or random bits (RandomBucket, math/rand/v2); it must fit in width hex digits,
// otherwise dst is returned unchanged with an *Error wrapping ErrWidth.
//
// Ordering: ascending in id.
func AppendUnique(dst []byte, id uint64, width int) ([]byte, error) {
	if width < 1 || width > 16 {
		return dst, configError(segUnique, "width must be in [1, 16]")
	}
	if width < 16 && id>>(4*uint(width)) != 0 {
		return dst, &Error{Segment: segUnique, Value: utoa(id), Reason: "wider than " + itoa(width) + " hex digits", Err: ErrWidth}
	}
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, lowerHex[(id>>(4*uint(i)))&0xF])
	}
	return dst, nil
}

// DecodeUnique reads width lowercase hex digits written by AppendUnique. rest aliases
// b. Errors wrap ErrShortInput or ErrInvalidEncoding.
func DecodeUnique(b []byte, width int) (id uint64, rest []byte, err error) {
	if width < 1 || width > 16 {
		return 0, b, configError(segUnique, "width must be in [1, 16]")
	}
	return decodeUnique(segUnique, b, width)
}

func decodeUnique(seg string, b []byte, width int) (uint64, []byte, error) {
	hex, rest, err := decodeHex(seg, b, width)
	if err != nil {
		return 0, b, err
	}
	var id uint64
	for _, c := range hex {
		id = id<<4 | uint64(hexVal(c))
	}
	return id, rest, nil
}
