package keys

import "errors"

// Codec is a segment encoding of the user's own for values of type V, for keys no
// constructor of this package writes. Custom binds it to a record type; the field then
// takes part in Append, Decode, Parts, Range, SpreadRanges and Splits like the
// built-in ones, as far as the description below allows.
//
// Append and Decode follow the conventions of this package's own codecs: Append
// appends and returns dst unchanged with an error on a value it cannot encode; Decode
// reads from the front of b and returns the rest, a suffix of b, and never panics.
// Errors that are not *Error values are wrapped in one naming the field, which also
// wraps ErrInvalidValue (Append) or ErrInvalidEncoding (Decode).
type Codec[V any] struct {
	// Name names the encoding in descriptions (Segment.Codec), such as "uuid".
	Name string
	// Append appends the encoding of v to dst. Required.
	Append func(dst []byte, v V) ([]byte, error)
	// Decode reads one value from the front of b and returns the rest. Required.
	Decode func(b []byte) (v V, rest []byte, err error)
	// Width is the encoded width in bytes, or 0 when it varies. A fixed-width codec
	// that writes another number of bytes is an error wrapping ErrBadConfig, one that
	// reads another number an error wrapping ErrInvalidEncoding; never a misaligned
	// key.
	Width int
	// Trailing says Decode takes the rest of the key (there is no terminator): the
	// field must come last, and Decode must leave nothing.
	Trailing bool
	// Order says how encodings sort relative to values; zero means Unordered.
	Order Order
	// Keyspace describes the leading bytes for SegmentSplits and SpreadRanges, as for
	// the built-in segments; the zero value means none (split from samples).
	Keyspace Keyspace
	// CheckRange, if set, is called by Range, Ranges and SpreadRanges with the
	// encodings of the two bounds (in the caller's order) when this is the first field
	// in which they differ. It returns an error, ideally wrapping
	// ErrDiscontiguousRange, when the values between them are not the keys between
	// the encodings, such as two's complement integers of different signs. A codec of
	// Order NegativesLast without one gets the Java integers' check: bounds whose
	// first bytes differ in the top bit are refused.
	CheckRange func(lo, hi []byte) error
}

// Custom binds c to accessors on T as a field named name. Its Segment has Kind
// KindCustom and Codec c.Name. A nil getter, a nil Append or Decode, a negative
// Width, a Trailing codec with a fixed Width, an unknown Order, or a Keyspace whose
// Radix is not 0, 10, 16 or 256 or whose Width exceeds the codec's is an *Error
// wrapping ErrBadConfig, which NewLayout reports.
func Custom[T, V any](name string, c Codec[V], get func(*T) V, set func(*T, V)) Field[T] {
	bad := func(reason string) Field[T] { return badField[T](name, KindCustom, reason) }
	ks := c.Keyspace
	switch {
	case get == nil:
		return bad("nil getter")
	case c.Append == nil || c.Decode == nil:
		return bad("codec " + c.Name + " needs both Append and Decode")
	case c.Width < 0:
		return bad("negative width")
	case c.Trailing && c.Width != 0:
		return bad("a trailing codec has no fixed width")
	case c.Order > NegativesLast:
		return bad("unknown order " + c.Order.String())
	case ks.Radix != 0 && ks.Radix != 10 && ks.Radix != 16 && ks.Radix != 256:
		return bad("keyspace radix must be 0, 10, 16 or 256")
	case ks.Width < 0 || (ks.Radix != 0 && ks.Width < 1) || (c.Width > 0 && ks.Width > c.Width):
		return bad("keyspace width must be in [1, width]")
	}
	order := c.Order
	if order == 0 {
		order = Unordered
	}
	return Field[T]{
		seg: Segment{
			Name: name, Kind: KindCustom, Width: c.Width, Order: order, Keyspace: ks,
			Decodable: set != nil, Trailing: c.Trailing, Codec: c.Name,
		},
		enc: func(dst []byte, rec *T) ([]byte, error) {
			out, err := c.Append(dst, get(rec))
			if err != nil {
				return dst, customError(name, err, ErrInvalidValue)
			}
			if len(out) < len(dst) || (c.Width > 0 && len(out)-len(dst) != c.Width) {
				return dst, configError(name, "codec "+c.Name+" appended "+itoa(len(out)-len(dst))+" bytes, want "+itoa(c.Width))
			}
			return out, nil
		},
		dec: func(b []byte, rec *T) ([]byte, error) {
			v, rest, err := c.Decode(b)
			if err != nil {
				return b, customError(name, err, ErrInvalidEncoding)
			}
			n := len(b) - len(rest)
			switch {
			case n < 0:
				return b, configError(name, "codec "+c.Name+" returned more bytes than it was given")
			case c.Width > 0 && n != c.Width:
				return b, bytesError(name, b[:n], "codec "+c.Name+" read "+itoa(n)+" bytes, want "+itoa(c.Width), ErrInvalidEncoding)
			case c.Trailing && len(rest) != 0:
				return b, bytesError(name, rest, "trailing codec "+c.Name+" left "+itoa(len(rest))+" bytes", ErrInvalidEncoding)
			}
			if set != nil {
				set(rec, v)
			}
			return rest, nil
		},
		rangeCheck: c.CheckRange,
	}
}

// customError makes the error of a user's codec an *Error for field name that wraps
// both it and sentinel, unless it is an *Error already.
func customError(name string, err, sentinel error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Segment: name, Reason: err.Error(), Err: errors.Join(sentinel, err)}
}
