package keys

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// checkDecoded checks what every decoder promises on arbitrary input: on error, rest is
// the whole input; on success, rest is a suffix of the input and re-encoding the value
// gives back exactly the bytes consumed (the encodings are canonical).
func checkDecoded(t *testing.T, in, rest []byte, err error, reencode func() ([]byte, error)) {
	t.Helper()
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("input %x: error %T (%v), want *keys.Error", in, err, err)
		}
		if !bytes.Equal(rest, in) {
			t.Fatalf("input %x: rest %x on error, want the input", in, rest)
		}
		return
	}
	if len(rest) > len(in) || !bytes.Equal(rest, in[len(in)-len(rest):]) {
		t.Fatalf("input %x: rest %x is not a suffix", in, rest)
	}
	consumed := in[:len(in)-len(rest)]
	enc, err := reencode()
	if err != nil {
		t.Fatalf("input %x: decoded value does not re-encode: %v", in, err)
	}
	if !bytes.Equal(enc, consumed) {
		t.Fatalf("input %x: re-encoded %x (%q), want the consumed %x (%q)", in, enc, enc, consumed, consumed)
	}
}

func FuzzDecodeReversedDigits(f *testing.F) {
	f.Add([]byte("87654321831rest"), uint8(11))
	f.Add([]byte("8765432183x"), uint8(11))
	f.Add([]byte(""), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := int(w%40) + 1
		s, rest, err := DecodeReversedDigits(b, width)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendReversedDigits(nil, s, width) })
	})
}

func FuzzDecodeDigits(f *testing.F) {
	f.Add([]byte("13812345678"), uint8(11))
	f.Add([]byte("1381234567\xff"), uint8(11))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := int(w%40) + 1
		s, rest, err := DecodeDigits(b, width)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendDigits(nil, s, width) })
	})
}

func FuzzDecodeDecimal(f *testing.F) {
	f.Add([]byte("18446744073709551615"), uint8(20))
	f.Add([]byte("18446744073709551616"), uint8(20))
	f.Add([]byte("0042"), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := int(w%20) + 1
		v, rest, err := DecodeDecimal(b, width)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendDecimal(nil, v, width) })
	})
}

func FuzzDecodeReversedTimestamp(f *testing.F) {
	f.Add([]byte("9223370533471821807"))
	f.Add([]byte("9223372036854775808"))
	f.Add([]byte("0000000000000000000"))
	f.Add([]byte("922337203685477580"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, rest, err := DecodeReversedTimestamp(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendReversedTimestamp(nil, ms) })
	})
}

func FuzzDecodeReversedTimestampBinary(f *testing.F) {
	f.Add([]byte("\x7f\xff\xfe\xa2\x4d\x5c\x8f\xef"))
	f.Add([]byte("\x80\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, rest, err := DecodeReversedTimestampBinary(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendReversedTimestampBinary(nil, ms) })
	})
}

func FuzzDecodeDate(f *testing.F) {
	f.Add([]byte("20171212"))
	f.Add([]byte("20230229"))
	f.Add([]byte("20240229"))
	f.Add([]byte("00000101"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, rest, err := DecodeDate(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendDate(nil, d) })
	})
}

func FuzzDecodeReversedTimeOfDay(f *testing.F) {
	f.Add([]byte("235959999"))
	f.Add([]byte("000000000"))
	f.Add([]byte("235899999"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, rest, err := DecodeReversedTimeOfDay(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendReversedTimeOfDay(nil, d) })
	})
}

func FuzzDecodeMD5Hex(f *testing.F) {
	f.Add([]byte("5d41402abc4b2a76"), uint8(16))
	f.Add([]byte("5D41"), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := int(w%32) + 1
		hex, rest, err := DecodeMD5Hex(b, width)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return append([]byte(nil), hex...), nil })
		if err == nil && cap(hex) != width {
			t.Fatalf("hex has capacity %d, want %d: appending to it would overwrite rest", cap(hex), width)
		}
	})
}

func FuzzDecodeMD5(f *testing.F) {
	f.Add([]byte("\x5d\x41\x40\x2a\xbc\x4b\x2a\x76\xb9\x71\x9d\x91\x10\x17\xc5\x92"), uint8(16))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		n := int(w%16) + 1
		d, rest, err := DecodeMD5(b, n)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return append([]byte(nil), d...), nil })
	})
}

func FuzzDecodeBucket(f *testing.F) {
	f.Add([]byte("7"), uint16(10))
	f.Add([]byte("99"), uint16(100))
	f.Add([]byte("20"), uint16(20))
	f.Fuzz(func(t *testing.T, b []byte, n16 uint16) {
		n := int(n16) + 1
		v, rest, err := DecodeBucket(b, n)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendBucket(nil, v, n) })
	})
}

func FuzzDecodeBucketByte(f *testing.F) {
	f.Add([]byte("\x09"), uint8(9))
	f.Add([]byte("\xff"), uint8(255))
	f.Fuzz(func(t *testing.T, b []byte, n8 uint8) {
		n := int(n8) + 1
		v, rest, err := DecodeBucketByte(b, n)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendBucketByte(nil, v, n) })
	})
}

func FuzzDecodeUint64(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x2a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := DecodeUint64(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendUint64(nil, v), nil })
	})
}

func FuzzDecodeInt64(f *testing.F) {
	f.Add([]byte("\x7f\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := DecodeInt64(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendInt64(nil, v), nil })
	})
}

func FuzzDecodeUint32(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x2a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := DecodeUint32(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendUint32(nil, v), nil })
	})
}

func FuzzDecodeInt32(f *testing.F) {
	f.Add([]byte("\x80\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := DecodeInt32(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendInt32(nil, v), nil })
	})
}

func FuzzDecodeString(f *testing.F) {
	f.Add([]byte("a\x00\xffb\x00\x01rest"))
	f.Add([]byte("\x00\x02"))
	f.Add([]byte("abc\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, rest, err := DecodeString(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendString(nil, s), nil })
		v, rest2, err2 := DecodeBytes(b)
		if (err == nil) != (err2 == nil) || string(v) != s || !bytes.Equal(rest, rest2) {
			t.Fatalf("input %x: DecodeString and DecodeBytes disagree: %q %v vs %q %v", b, s, err, v, err2)
		}
	})
}

// FuzzStringOrder checks the ordering invariant of AppendString on arbitrary pairs.
func FuzzStringOrder(f *testing.F) {
	f.Add("ab", "ab\x00")
	f.Add("a\x00", "a\x01")
	f.Add("", "\x00")
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eb := AppendString(nil, a), AppendString(nil, b)
		if got, want := bytes.Compare(ea, eb), strings.Compare(a, b); got != want {
			t.Fatalf("Compare(%x, %x) = %d, want %d (%q vs %q)", ea, eb, got, want, a, b)
		}
		s, rest, err := DecodeString(append(ea, eb...))
		if err != nil || s != a || !bytes.Equal(rest, eb) {
			t.Fatalf("decode %x: %q %x %v", ea, s, rest, err)
		}
	})
}

func FuzzDecodeFixed(f *testing.F) {
	f.Add([]byte("host\x00\x00\x00\x00"), uint8(8), byte(0))
	f.Add([]byte("    "), uint8(4), byte(' '))
	f.Fuzz(func(t *testing.T, b []byte, w uint8, pad byte) {
		width := int(w%32) + 1
		s, rest, err := DecodeFixed(b, width, pad)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendFixed(nil, s, width, pad) })
	})
}

func FuzzDecodeUnique(f *testing.F) {
	f.Add([]byte("00beef"), uint8(6))
	f.Add([]byte("ffffffffffffffff"), uint8(16))
	f.Add([]byte("00BEEF"), uint8(6))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := int(w%16) + 1
		v, rest, err := DecodeUnique(b, width)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendUnique(nil, v, width) })
	})
}

// FuzzLayoutDecode decodes arbitrary bytes with the seed SMS layout (with a unique
// suffix): never a panic, and a successful decode re-encodes to the same key.
func FuzzLayoutDecode(f *testing.F) {
	f.Add([]byte("8765432183192233705334718218070007"))
	f.Add([]byte("876543218319223372036854775808000a"))
	f.Add([]byte("87654321831"))
	l := mustLayout(f, smsFields(true)...)
	f.Fuzz(func(t *testing.T, b []byte) {
		var m msg
		err := l.Decode(b, &m)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("input %x: error %T, want *keys.Error", b, err)
			}
			return
		}
		enc, err := l.Append(nil, &m)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("input %x: decoded %+v re-encodes to %x, %v", b, m, enc, err)
		}
	})
}

// FuzzIndexLayoutDecode decodes arbitrary bytes with the seed index layout, whose hash
// fields cannot be re-encoded: only the absence of panics and the error type are checked.
func FuzzIndexLayoutDecode(f *testing.F) {
	f.Add([]byte("5201712125d41402abc4b2a7613812345678142944749"))
	f.Add([]byte("5201702305d41402abc4b2a7613812345678142944749"))
	l := indexLayout(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var m msg
		if err := l.Decode(b, &m); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("input %x: error %T, want *keys.Error", b, err)
			}
		}
		_, _ = l.DecodePrefix(b, &m, 2)
	})
}

// FuzzJavaBucket checks JavaBucket against Java's definitions computed another way:
// the hash over utf16.Encode, and the three formulas in int64 arithmetic. Seeds give n
// and the rule as they are used (rule 0 mask, 1 abs, 2 floormod).
func FuzzJavaBucket(f *testing.F) {
	f.Add("acct-42", uint32(10), uint8(0))
	f.Add("polygenelubricants", uint32(10), uint8(1))
	f.Add("polygenelubricants", uint32(16), uint8(1))
	f.Add("user😀x", uint32(16), uint8(2))
	f.Add("x\xff", uint32(7), uint8(0))
	f.Fuzz(func(t *testing.T, s string, n32 uint32, r uint8) {
		n := max(1, int(n32%MaxJavaBuckets))
		rule := JavaMask + JavaBucketRule(r%3)
		b, err := JavaBucket(s, n, rule)
		if !utf8.ValidString(s) {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("JavaBucket(%q, %d, %v) = %d, %v; want ErrInvalidValue for invalid UTF-8", s, n, rule, b, err)
			}
			return
		}
		var h int32
		for _, u := range utf16.Encode([]rune(s)) {
			h = 31*h + int32(u)
		}
		m := int64(n)
		var want int64
		switch rule {
		case JavaMask:
			want = int64(h&math.MaxInt32) % m
		case JavaAbs:
			a := int64(h)
			if a < 0 && a != math.MinInt32 {
				a = -a
			}
			want = a % m // Math.abs(MIN_VALUE) stays MIN_VALUE
		case JavaFloorMod:
			want = ((int64(h) % m) + m) % m
		}
		if want < 0 {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("JavaBucket(%q, %d, abs) = %d, %v; Java's bucket is %d, want ErrInvalidValue", s, n, b, err, want)
			}
			return
		}
		if err != nil || int64(b) != want {
			t.Fatalf("JavaBucket(%q, %d, %v) = %d, %v; want %d (hash code %d)", s, n, rule, b, err, want, h)
		}
	})
}

func FuzzDecodeJavaInts(f *testing.F) {
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xfe"))
	f.Add([]byte("\x80\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, rest, err := DecodeJavaLong(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendJavaLong(nil, l), nil })
		i, rest, err := DecodeJavaInt(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendJavaInt(nil, i), nil })
		s, rest, err := DecodeJavaShort(b)
		checkDecoded(t, b, rest, err, func() ([]byte, error) { return AppendJavaShort(nil, s), nil })
	})
}

// FuzzJavaIntOrder checks the NegativesLast order of the Java integers: numeric within
// a sign, negatives after non-negatives.
func FuzzJavaIntOrder(f *testing.F) {
	f.Add(int64(-1), int64(0))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64))
	f.Add(int64(3), int64(300))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if got, want := bytes.Compare(AppendJavaLong(nil, a), AppendJavaLong(nil, b)), cmpNegativesLast(a, b); got != want {
			t.Fatalf("long %d vs %d: bytes.Compare = %d, want %d", a, b, got, want)
		}
		a32, b32 := int32(a), int32(b)
		if got, want := bytes.Compare(AppendJavaInt(nil, a32), AppendJavaInt(nil, b32)), cmpNegativesLast(int64(a32), int64(b32)); got != want {
			t.Fatalf("int %d vs %d: bytes.Compare = %d, want %d", a32, b32, got, want)
		}
		a16, b16 := int16(a), int16(b)
		if got, want := bytes.Compare(AppendJavaShort(nil, a16), AppendJavaShort(nil, b16)), cmpNegativesLast(int64(a16), int64(b16)); got != want {
			t.Fatalf("short %d vs %d: bytes.Compare = %d, want %d", a16, b16, got, want)
		}
	})
}

// FuzzJoinedDecode decodes arbitrary bytes with seed 001's province_age layout and with
// a three-part group joined by a two-byte delimiter: never a panic, errors are
// *keys.Error, and a successful decode re-encodes to the same key.
func FuzzJoinedDecode(f *testing.F) {
	f.Add([]byte("辽宁省_20"))
	f.Add([]byte("_-9223372036854775808"))
	f.Add([]byte("a::-0::b"))
	f.Add([]byte("a:::1::b::"))
	type rec struct {
		A, B string
		N    int64
	}
	three := mustLayout(f, Joined("::",
		TextString("a", func(r *rec) string { return r.A }, func(r *rec, v string) { r.A = v }),
		TextInt("n", func(r *rec) int64 { return r.N }, func(r *rec, v int64) { r.N = v }),
		TextString("b", func(r *rec) string { return r.B }, func(r *rec, v string) { r.B = v }),
	)...)
	seed001 := joinedLayout(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var u user
		if err := seed001.Decode(b, &u); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("input %q: error %T, want *keys.Error", b, err)
			}
		} else if enc, err := seed001.Append(nil, &u); err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("input %q: decoded %+v re-encodes to %q, %v", b, u, enc, err)
		}
		var r rec
		if err := three.Decode(b, &r); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("input %q: error %T, want *keys.Error", b, err)
			}
		} else if enc, err := three.Append(nil, &r); err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("input %q: decoded %+v re-encodes to %q, %v", b, r, enc, err)
		}
	})
}

// FuzzJoinedRoundTrip encodes a string and a number joined by an arbitrary delimiter:
// either the key decodes to the same values, or the values could not be cut apart
// again (the delimiter occurs in the text before its own place) and Append reports
// ErrDelimiter.
func FuzzJoinedRoundTrip(f *testing.F) {
	f.Add("辽宁省", int64(20), "_")
	f.Add("a", int64(1), "aa")
	f.Add("x", int64(-3), "-")
	f.Add("", int64(0), "0")
	f.Fuzz(func(t *testing.T, s string, n int64, sep string) {
		if sep == "" {
			return
		}
		l := mustLayout(t, Joined(sep,
			TextString("province", func(u *user) string { return u.Province }, func(u *user, v string) { u.Province = v }),
			TextInt("age", func(u *user) int64 { return u.Age }, func(u *user, v int64) { u.Age = v }),
		)...)
		num := strconv.FormatInt(n, 10)
		cuttable := strings.Index(s+sep, sep) == len(s) && !strings.Contains(num, sep)
		key, err := l.Append(nil, &user{Province: s, Age: n})
		if !cuttable {
			if !errors.Is(err, ErrDelimiter) {
				t.Fatalf("%q, %d joined by %q: %q, %v; want ErrDelimiter", s, n, sep, key, err)
			}
			return
		}
		if err != nil || string(key) != s+sep+num {
			t.Fatalf("%q, %d joined by %q: %q, %v; want %q", s, n, sep, key, err, s+sep+num)
		}
		var u user
		if err := l.Decode(key, &u); err != nil || u.Province != s || u.Age != n {
			t.Fatalf("Decode(%q) = %+v, %v", key, u, err)
		}
	})
}
