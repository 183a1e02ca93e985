package keys

import (
	"bytes"
	"errors"
	"strconv"
)

// Keys Java code builds as text: a trailing string with no terminator, and fields
// joined by a delimiter, such as seed 001's inverted-index row province + "_" + age
// ("辽宁省_20").

const segJoined = "joined"

// TrailingString is a string written as its raw bytes, with no escape and no
// terminator, such as a key that ends in a plain uid: it takes the rest of the key, so
// it must be the last field (NewLayout reports an *Error wrapping ErrBadConfig
// otherwise). Decode copies the rest of the key into the string.
//
// Ordering: ascending, as the last field. Range and PrefixRange treat it as a plain
// byte prefix: the range of "u1" holds "u1", "u10" and "u1x".
func TrailingString[T any](name string, get func(*T) string, set func(*T, string)) Field[T] {
	if get == nil {
		return badField[T](name, KindTrailingString, "nil getter")
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: KindTrailingString, Order: Ascending, Decodable: set != nil, Trailing: true},
		enc: func(dst []byte, rec *T) ([]byte, error) { return append(dst, get(rec)...), nil },
		dec: func(b []byte, rec *T) ([]byte, error) {
			if set != nil {
				set(rec, string(b))
			}
			return b[len(b):], nil
		},
	}
}

// Text is one part of a delimiter-joined group (Joined): a value written as text, the
// way Java's string concatenation writes it. Build it with TextString or TextInt.
type Text[T any] struct {
	name      string
	kind      Kind
	decodable bool
	err       error
	// app appends the text of the value of rec.
	app func(dst []byte, rec *T) []byte
	// parse checks that b is text app writes and stores its value in rec.
	parse func(b []byte, rec *T) error
}

// TextString is a string part of a Joined group, written as its bytes (Java's
// s.getBytes(UTF_8) for valid UTF-8). It must not contain the group's delimiter.
func TextString[T any](name string, get func(*T) string, set func(*T, string)) Text[T] {
	if get == nil {
		return Text[T]{name: name, kind: KindText, err: configError(name, "nil getter")}
	}
	return Text[T]{
		name: name, kind: KindText, decodable: set != nil,
		app: func(dst []byte, rec *T) []byte { return append(dst, get(rec)...) },
		parse: func(b []byte, rec *T) error {
			if set != nil {
				set(rec, string(b))
			}
			return nil
		},
	}
}

// TextInt is an integer part of a Joined group, written in decimal as Java's
// String.valueOf(long) and string concatenation write int, long and short values:
// an optional '-', then digits without leading zeros ("0", "20", "-7"). Decoding
// accepts exactly that form.
//
// Ordering: none useful. Decimal text sorts by its characters, so "100" < "20" and
// "-1" < "-2"; a range over a TextInt part is a range of strings, and a Java program
// that needs numeric order must pad its numbers, which is a different key.
func TextInt[T any](name string, get func(*T) int64, set func(*T, int64)) Text[T] {
	if get == nil {
		return Text[T]{name: name, kind: KindDecimalText, err: configError(name, "nil getter")}
	}
	return Text[T]{
		name: name, kind: KindDecimalText, decodable: set != nil,
		app: func(dst []byte, rec *T) []byte { return strconv.AppendInt(dst, get(rec), 10) },
		parse: func(b []byte, rec *T) error {
			v, err := parseJavaDecimal(name, b)
			if err == nil && set != nil {
				set(rec, v)
			}
			return err
		},
	}
}

// parseJavaDecimal parses the text String.valueOf(long) writes, and nothing else: no
// '+', no leading zeros, no "-0".
func parseJavaDecimal(name string, b []byte) (int64, error) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	switch {
	case len(digits) == 0 || digits[0] == '+' || digits[0] == '-':
		return 0, bytesError(name, b, "want a decimal number", ErrInvalidEncoding)
	case digits[0] == '0' && len(b) > 1:
		return 0, bytesError(name, b, "leading zero, which String.valueOf never writes", ErrInvalidEncoding)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, bytesError(name, b, "outside the range of a Java long", ErrInvalidEncoding)
	case err != nil:
		return 0, bytesError(name, b, "want a decimal number", ErrInvalidEncoding)
	}
	return v, nil
}

// Joined declares fields that Java code joins with a delimiter into one string, such
// as seed 001's inverted-index row province + "_" + age:
//
//	keys.Joined("_",
//		keys.TextString("province", getProvince, setProvince),
//		keys.TextInt("age", getAge, setAge))
//
// writes "辽宁省_20". Each part but the last is its text followed by sep; the last is
// its text alone and takes the rest of the key, so the group ends the layout:
// NewLayout(append(others, Joined(...)...)...). Each part is a field of its own, named
// and decoded like any other, so queries may name them.
//
// A value whose text contains sep (or, for a multi-byte sep, runs into it) could not
// be cut apart again: encoding it fails with an *Error naming the part and wrapping
// ErrDelimiter. Decoding cuts each part at the first sep; a last part that contains
// sep is ErrInvalidEncoding, so that every key decodes to values that encode back to
// it. An empty sep, no parts, or a part not built by TextString or TextInt is an
// *Error wrapping ErrBadConfig, which NewLayout reports.
//
// Ordering: the group sorts as the joined text, which is not the order of the values:
// decimal text does not sort numerically ("100" < "20"), and a string that is a
// prefix of another sorts before or after it depending on whether sep is below or
// above the next byte ("ab_" > "abC" for '_'). The parts are Unordered, except a
// last TextString, which is ascending. A prefix range on the first parts
// (PrefixRange with n < parts) includes their delimiters, so "辽宁省" does not match
// "辽宁省会"; a range on a last part is a plain byte prefix, so age 2 matches 20..29.
func Joined[T any](sep string, parts ...Text[T]) []Field[T] {
	if len(parts) == 0 {
		return []Field[T]{badField[T](segJoined, KindText, "no parts")}
	}
	out := make([]Field[T], len(parts))
	sepB := []byte(sep)
	for i, p := range parts {
		out[i] = joinedField(p, sepB, i == len(parts)-1)
	}
	return out
}

// joinedField is part p of a Joined group, followed by sep unless it is the last.
func joinedField[T any](p Text[T], sep []byte, last bool) Field[T] {
	name := p.name
	switch {
	case p.err != nil:
		return Field[T]{seg: Segment{Name: name, Kind: p.kind}, err: p.err}
	case p.app == nil:
		return badField[T](name, KindText, "part not built by TextString or TextInt")
	case len(sep) == 0:
		return badField[T](name, p.kind, "empty delimiter")
	}
	order := Unordered
	if last && p.kind == KindText {
		order = Ascending
	}
	delim := string(sep)
	if last {
		delim = ""
	}
	return Field[T]{
		seg: Segment{Name: name, Kind: p.kind, Order: order, Decodable: p.decodable, Trailing: last, Delimiter: delim},
		enc: func(dst []byte, rec *T) ([]byte, error) {
			out := p.app(dst, rec)
			text := out[len(dst):]
			if !last {
				out = append(out, sep...)
			}
			// The first sep must be the one after the text: not inside it, and not
			// starting in it and ending in the appended sep.
			if i := bytes.Index(out[len(dst):], sep); i >= 0 && i < len(text) {
				return dst, newError(name, string(text),
					"contains or runs into the delimiter "+strconv.Quote(string(sep)), ErrDelimiter)
			}
			return out, nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			i := bytes.Index(b, sep)
			if last {
				if i >= 0 {
					return b, bytesError(name, b, "last part contains the delimiter "+strconv.Quote(string(sep)), ErrInvalidEncoding)
				}
				if err := p.parse(b, rec); err != nil {
					return b, err
				}
				return b[len(b):], nil
			}
			if i < 0 {
				return b, bytesError(name, b, "no delimiter "+strconv.Quote(string(sep)), ErrShortInput)
			}
			if err := p.parse(b[:i], rec); err != nil {
				return b, err
			}
			return b[i+len(sep):], nil
		},
	}
}
