package keys

import (
	"bytes"
	"errors"
	"testing"
)

// byteCodec is a one-byte codec with Decimal-like keyspace, for custom-field tests.
var byteCodec = Codec[byte]{
	Name:   "byte",
	Append: func(dst []byte, v byte) ([]byte, error) { return append(dst, v), nil },
	Decode: func(b []byte) (byte, []byte, error) {
		if len(b) < 1 {
			return 0, b, errors.New("empty")
		}
		return b[0], b[1:], nil
	},
	Width:    1,
	Order:    Ascending,
	Keyspace: Keyspace{Radix: 256, Width: 1, Count: 16, Uniform: true},
}

type cust struct {
	B    byte
	Rest string
}

func TestCustomField(t *testing.T) {
	l := mustLayout(t,
		Custom("b", byteCodec, func(c *cust) byte { return c.B }, func(c *cust, v byte) { c.B = v }),
		TrailingString("rest", func(c *cust) string { return c.Rest }, func(c *cust, v string) { c.Rest = v }),
	)
	key, err := l.Append(nil, &cust{B: 7, Rest: "x"})
	if err != nil || string(key) != "\x07x" {
		t.Fatalf("Append = %q, %v", key, err)
	}
	var back cust
	if err := l.Decode(key, &back); err != nil || back != (cust{B: 7, Rest: "x"}) {
		t.Errorf("Decode = %+v, %v", back, err)
	}
	if err := l.Decode(nil, &back); !errors.Is(err, ErrInvalidEncoding) {
		t.Errorf("Decode of nothing: %v, want ErrInvalidEncoding wrapped around the codec's error", err)
	} else if e, ok := err.(*Error); !ok || e.Segment != "b" || e.Reason != "empty" {
		t.Errorf("Decode of nothing: %#v, want an *Error for b", err)
	}
	// The keyspace gives splits and spread ranges, as for a one-byte bucket.
	splits, err := l.Splits(4)
	if err != nil || ShellSplits(splits) != `["\x04", "\x08", "\x0c"]` {
		t.Errorf("Splits(4) = %s, %v", ShellSplits(splits), err)
	}
	rs, err := l.SpreadRanges(&cust{Rest: "a"}, &cust{Rest: "b"}, 1, 2)
	if err != nil || len(rs) != 16 || !bytes.Equal(rs[3].Start, []byte("\x03a")) || !bytes.Equal(rs[3].Stop, []byte("\x03c")) {
		t.Errorf("SpreadRanges = %d ranges (%q), %v", len(rs), rs, err)
	}
	seg := l.Segments()[0]
	if seg.Kind != KindCustom || seg.Codec != "byte" || seg.Width != 1 || !seg.Decodable || seg.Kind.String() != "custom" {
		t.Errorf("segment %+v", seg)
	}
}

func TestCustomRangeCheck(t *testing.T) {
	var calls int
	c := byteCodec
	c.CheckRange = func(lo, hi []byte) error {
		calls++
		if lo[0] > hi[0] {
			return &Error{Reason: "bounds in the wrong order", Err: ErrDiscontiguousRange}
		}
		return nil
	}
	l := mustLayout(t,
		Literal[cust]("t", "t"),
		Custom("b", c, func(c *cust) byte { return c.B }, nil),
		TrailingString("rest", func(c *cust) string { return c.Rest }, nil),
	)
	if _, _, err := l.Range(&cust{B: 1}, &cust{B: 2}, 3); err != nil || calls != 1 {
		t.Errorf("Range 1..2: %v, %d calls; want one call", err, calls)
	}
	if _, _, err := l.Range(&cust{B: 2}, &cust{B: 1}, 3); !errors.Is(err, ErrDiscontiguousRange) {
		t.Errorf("Range 2..1: %v, want the hook's error", err)
	} else if e := err.(*Error); e.Segment != "b" {
		t.Errorf("error names %q, want b", e.Segment)
	}
	// Equal values: the hook is not asked; the trailing field decides.
	calls = 0
	if _, _, err := l.Range(&cust{B: 2, Rest: "a"}, &cust{B: 2, Rest: "z"}, 3); err != nil || calls != 0 {
		t.Errorf("Range with equal b: %v, %d calls; want none", err, calls)
	}
}

func TestCustomMisbehaving(t *testing.T) {
	wide := byteCodec
	wide.Append = func(dst []byte, v byte) ([]byte, error) { return append(dst, v, v), nil }
	greedy := byteCodec
	greedy.Decode = func(b []byte) (byte, []byte, error) { return 0, append(b, 0), nil }
	lazy := byteCodec
	lazy.Width, lazy.Trailing, lazy.Keyspace = 0, true, Keyspace{}
	fails := byteCodec
	fails.Append = func(dst []byte, v byte) ([]byte, error) { return append(dst, 'x'), errors.New("no") }
	get := func(c *cust) byte { return c.B }
	for _, tt := range []struct {
		name  string
		codec Codec[byte]
		key   string
		enc   error
		dec   error
	}{
		{"writes two bytes for width 1", wide, "\x01", ErrBadConfig, nil},
		{"returns a longer rest", greedy, "\x01", nil, ErrBadConfig},
		{"trailing codec leaves bytes", lazy, "\x01\x02", nil, ErrInvalidEncoding},
		{"append fails", fails, "\x01", ErrInvalidValue, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, Custom("b", tt.codec, get, nil))
			got, err := l.Append([]byte("pre"), &cust{B: 1})
			if !errors.Is(err, tt.enc) || (err != nil && string(got) != "pre") {
				t.Errorf("Append = %q, %v; want %v and dst unchanged", got, err, tt.enc)
			}
			if err := l.Decode([]byte(tt.key), &cust{}); !errors.Is(err, tt.dec) {
				t.Errorf("Decode(%q) = %v, want %v", tt.key, err, tt.dec)
			}
		})
	}
	// Configuration errors.
	noDecode := byteCodec
	noDecode.Decode = nil
	negative := byteCodec
	negative.Width = -1
	fixedTrailing := byteCodec
	fixedTrailing.Trailing = true
	badOrder := byteCodec
	badOrder.Order = 99
	badRadix := byteCodec
	badRadix.Keyspace.Radix = 7
	wideKeyspace := byteCodec
	wideKeyspace.Keyspace.Width = 2
	for _, f := range []Field[cust]{
		Custom[cust]("b", byteCodec, nil, nil),
		Custom("b", noDecode, get, nil),
		Custom("b", negative, get, nil),
		Custom("b", fixedTrailing, get, nil),
		Custom("b", badOrder, get, nil),
		Custom("b", badRadix, get, nil),
		Custom("b", wideKeyspace, get, nil),
	} {
		if _, err := NewLayout(f); !errors.Is(err, ErrBadConfig) {
			t.Errorf("NewLayout: %v, want ErrBadConfig", err)
		}
	}
	if _, err := NewLayout(Custom("b", lazy, get, nil), Literal[cust]("x", "x")); !errors.Is(err, ErrBadConfig) {
		t.Errorf("trailing custom field before another: %v, want ErrBadConfig", err)
	}
	// The zero Order is Unordered.
	plain := byteCodec
	plain.Order = 0
	if o := mustLayout(t, Custom("b", plain, get, nil)).Segments()[0].Order; o != Unordered {
		t.Errorf("zero order gives %v, want unordered", o)
	}
}

// TestCustomNegativesLast: a codec that declares Order NegativesLast (here Java's
// long, written by hand) and no CheckRange gets the Java integers' check, so a range
// across zero is refused instead of read as the keys between the encodings.
func TestCustomNegativesLast(t *testing.T) {
	long := Codec[int64]{
		Name:   "long",
		Append: func(dst []byte, v int64) ([]byte, error) { return AppendJavaLong(dst, v), nil },
		Decode: DecodeJavaLong,
		Width:  8,
		Order:  NegativesLast,
	}
	type rec struct{ N int64 }
	l := mustLayout(t, Custom("n", long, func(r *rec) int64 { return r.N }, func(r *rec, v int64) { r.N = v }))
	if _, _, err := l.Range(&rec{N: -5}, &rec{N: 5}, 1); !errors.Is(err, ErrDiscontiguousRange) {
		t.Errorf("Range -5..5: %v, want ErrDiscontiguousRange", err)
	}
	if _, _, err := l.Range(&rec{N: 2}, &rec{N: 5}, 1); err != nil {
		t.Errorf("Range 2..5: %v", err)
	}
}
