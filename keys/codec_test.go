package keys

import (
	"bytes"
	"cmp"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// newRand returns a deterministic random source, so that property tests are
// reproducible.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(20171212, 1503382954))
}

const propRounds = 2000

// checkCodec runs the round-trip and ordering properties for one codec: for random
// values v, decode(encode(v)) == v with the rest preserved, and for random pairs the
// byte order of the encodings agrees with cmpVals times dir (+1 ascending, -1
// descending).
func checkCodec[V any](t *testing.T, gen func(*rand.Rand) V,
	enc func([]byte, V) ([]byte, error), dec func([]byte) (V, []byte, error),
	eq func(a, b V) bool, cmpVals func(a, b V) int, dir int, show func(V) string,
) {
	t.Helper()
	r := newRand(t)
	tail := []byte("tail\x00\xff")
	for i := 0; i < propRounds; i++ {
		a, b := gen(r), gen(r)
		ea, err := enc([]byte("pre"), a)
		if err != nil {
			t.Fatalf("encode %s: %v", show(a), err)
		}
		if !bytes.HasPrefix(ea, []byte("pre")) {
			t.Fatalf("encode %s clobbered dst: got %x", show(a), ea)
		}
		ea = ea[3:]
		got, rest, err := dec(append(append([]byte(nil), ea...), tail...))
		if err != nil {
			t.Fatalf("decode %x (%s): %v", ea, show(a), err)
		}
		if !eq(got, a) || !bytes.Equal(rest, tail) {
			t.Fatalf("round trip: got %s rest %x, want %s rest %x (key %x)", show(got), rest, show(a), tail, ea)
		}
		if cmpVals == nil {
			continue
		}
		eb, err := enc(nil, b)
		if err != nil {
			t.Fatalf("encode %s: %v", show(b), err)
		}
		if got, want := bytes.Compare(ea, eb), dir*cmpVals(a, b); got != want {
			t.Fatalf("order of %s and %s: bytes.Compare(%x, %x) = %d, want %d", show(a), show(b), ea, eb, got, want)
		}
	}
}

func digits(r *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteByte(byte('0' + r.IntN(10)))
	}
	return sb.String()
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

func eqv[V comparable](a, b V) bool { return a == b }

func showS(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(quote(s), "\n", `\n`), "\t", `\t`)
}

func quote(s string) string { return "\"" + s + "\"" }

func showI[V int | int32 | int64 | uint32 | uint64](v V) string { return itoa(int(v)) }

func TestReversedDigitsProperties(t *testing.T) {
	for _, width := range []int{1, 2, 11, 40} {
		checkCodec(t,
			func(r *rand.Rand) string { return digits(r, width) },
			func(dst []byte, s string) ([]byte, error) { return AppendReversedDigits(dst, s, width) },
			func(b []byte) (string, []byte, error) { return DecodeReversedDigits(b, width) },
			eqv[string],
			// The documented order: that of the reversed strings.
			func(a, b string) int { return strings.Compare(reverse(a), reverse(b)) }, 1, showS)
	}
}

func TestReversedDigitsMobile(t *testing.T) {
	got, err := AppendReversedDigits(nil, "13812345678", 11)
	if err != nil {
		t.Fatal(err)
	}
	if want := "87654321831"; string(got) != want {
		t.Errorf("got %x (%s), want %x (%s)", got, got, want, want)
	}
	rev, err := ReverseDigits("13812345678")
	if err != nil || rev != "87654321831" {
		t.Errorf("ReverseDigits = %q, %v; want 87654321831", rev, err)
	}
}

func TestDecimalProperties(t *testing.T) {
	for _, width := range []int{1, 4, 19, 20} {
		limit := uint64(math.MaxUint64)
		if width < 20 {
			limit = pow10[width] - 1
		}
		checkCodec(t,
			func(r *rand.Rand) uint64 {
				if r.IntN(4) == 0 {
					return limit - uint64(r.IntN(3))
				}
				return r.Uint64N(limit) + uint64(r.IntN(2))
			},
			func(dst []byte, v uint64) ([]byte, error) { return AppendDecimal(dst, v, width) },
			func(b []byte) (uint64, []byte, error) { return DecodeDecimal(b, width) },
			eqv[uint64], cmp.Compare[uint64], 1, showI[uint64])
	}
}

func genTimestamp(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return int64(r.IntN(3)) // 0, 1, 2
	case 1:
		return MaxTimestamp - int64(r.IntN(3))
	case 2:
		return r.Int64()
	}
	return 1_400_000_000_000 + r.Int64N(400_000_000_000) // 2014..2026
}

func TestReversedTimestampProperties(t *testing.T) {
	checkCodec(t, genTimestamp, AppendReversedTimestamp, DecodeReversedTimestamp,
		eqv[int64], cmp.Compare[int64], -1, showI[int64])
	checkCodec(t, genTimestamp, AppendReversedTimestampBinary, DecodeReversedTimestampBinary,
		eqv[int64], cmp.Compare[int64], -1, showI[int64])
}

func TestReversedTimestampKnown(t *testing.T) {
	tests := []struct {
		name string
		ms   int64
		want string
	}{
		{"epoch", 0, "9223372036854775807"},
		{"seed sms", 1503382954000, "9223370533471821807"},
		{"max", MaxTimestamp, "0000000000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendReversedTimestamp(nil, tt.ms)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %x (%s), want %x (%s)", got, got, tt.want, tt.want)
			}
			bin, err := AppendReversedTimestampBinary(nil, tt.ms)
			if err != nil {
				t.Fatal(err)
			}
			if want := AppendUint64(nil, uint64(MaxTimestamp-tt.ms)); !bytes.Equal(bin, want) {
				t.Errorf("binary: got %x, want %x", bin, want)
			}
		})
	}
}

func genDate(r *rand.Rand) time.Time {
	switch r.IntN(6) {
	case 0:
		return time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	case 1:
		return time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(3652424))
}

func TestDateProperties(t *testing.T) {
	checkCodec(t, genDate, AppendDate, DecodeDate,
		func(a, b time.Time) bool { return a.Equal(b) }, func(a, b time.Time) int { return a.Compare(b) }, 1,
		func(v time.Time) string { return v.Format(time.DateOnly) })
}

func TestDateUsesLocation(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	at := time.Date(2017, 12, 11, 20, 0, 0, 0, time.UTC) // 2017-12-12 04:00 in Shanghai
	for _, tt := range []struct {
		name string
		t    time.Time
		want string
	}{
		{"utc", at, "20171211"},
		{"shanghai", at.In(shanghai), "20171212"},
	} {
		got, err := AppendDate(nil, tt.t)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %x (%s), %v; want %s", tt.name, got, got, err, tt.want)
		}
	}
}

func genTimeOfDay(r *rand.Rand) time.Duration {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return Day - time.Millisecond
	}
	return time.Duration(r.Int64N(int64(Day/time.Millisecond))) * time.Millisecond
}

func TestReversedTimeOfDayProperties(t *testing.T) {
	checkCodec(t, genTimeOfDay, AppendReversedTimeOfDay, DecodeReversedTimeOfDay,
		eqv[time.Duration], cmp.Compare[time.Duration], -1, time.Duration.String)
}

func TestReversedTimeOfDayKnown(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    time.Duration
		want string
	}{
		{"midnight", 0, "235959999"},
		{"last ms", Day - time.Millisecond, "000000000"},
		{"noon", 12 * time.Hour, "115959999"},
		{"truncated to ms", 10*time.Hour + 1500*time.Microsecond, "135959998"}, // 10:00:00.001
	} {
		got, err := AppendReversedTimeOfDay(nil, tt.d)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %x (%s), %v; want %s", tt.name, got, got, err, tt.want)
		}
	}
	at := time.Date(2017, 12, 12, 9, 30, 15, 250*int(time.Millisecond), time.UTC)
	if got, want := TimeOfDay(at), 9*time.Hour+30*time.Minute+15250*time.Millisecond; got != want {
		t.Errorf("TimeOfDay = %v, want %v", got, want)
	}
}

func TestMD5Hex(t *testing.T) {
	// md5("hello") = 5d41402abc4b2a76b9719d911017c592
	got, err := AppendMD5Hex([]byte("x"), "hello", 16)
	if err != nil {
		t.Fatal(err)
	}
	if want := "x5d41402abc4b2a76"; string(got) != want {
		t.Errorf("got %x (%s), want %s", got, got, want)
	}
	for _, w := range []int{1, 7, 32} {
		enc, err := AppendMD5Hex(nil, "hello", w)
		if err != nil {
			t.Fatal(err)
		}
		if want := "5d41402abc4b2a76b9719d911017c592"[:w]; string(enc) != want {
			t.Errorf("width %d: got %s, want %s", w, enc, want)
		}
		hex, rest, err := DecodeMD5Hex(append(enc, '!'), w)
		if err != nil || !bytes.Equal(hex, enc) || string(rest) != "!" {
			t.Errorf("width %d: decode got %s %q %v", w, hex, rest, err)
		}
	}
	raw, err := AppendMD5(nil, "hello", 16)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x5d\x41\x40\x2a\xbc\x4b\x2a\x76\xb9\x71\x9d\x91\x10\x17\xc5\x92"; string(raw) != want {
		t.Errorf("raw: got %x, want %x", raw, want)
	}
	d, rest, err := DecodeMD5(append(raw, 1), 16)
	if err != nil || !bytes.Equal(d, raw) || !bytes.Equal(rest, []byte{1}) {
		t.Errorf("raw decode: got %x %x %v", d, rest, err)
	}
}

func TestBucketProperties(t *testing.T) {
	for _, n := range []int{1, 10, 16, 100, 1000, MaxBuckets} {
		checkCodec(t,
			func(r *rand.Rand) int { return r.IntN(n) },
			func(dst []byte, v int) ([]byte, error) { return AppendBucket(dst, v, n) },
			func(b []byte) (int, []byte, error) { return DecodeBucket(b, n) },
			eqv[int], cmp.Compare[int], 1, showI[int])
	}
	for _, n := range []int{1, 10, 256} {
		checkCodec(t,
			func(r *rand.Rand) int { return r.IntN(n) },
			func(dst []byte, v int) ([]byte, error) { return AppendBucketByte(dst, v, n) },
			func(b []byte) (int, []byte, error) { return DecodeBucketByte(b, n) },
			eqv[int], cmp.Compare[int], 1, showI[int])
	}
}

func TestHash32MatchesFNV1a(t *testing.T) {
	r := newRand(t)
	for i := 0; i < 500; i++ {
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		h := fnv.New32a()
		h.Write(b)
		if got, want := Hash32(string(b)), h.Sum32(); got != want {
			t.Fatalf("Hash32(%x) = %#x, want %#x", b, got, want)
		}
	}
	// Pinned values: the hash is part of the storage format and must never change.
	for _, tt := range []struct {
		s    string
		want uint32
		b10  int
	}{
		{"", 0x811c9dc5, 2166136261 % 10},
		{"13812345678", 0xa3e82b2f, 5},
		{"hello", 0x4f9f2cab, 3},
		{"a", 0xe40c292c, 0xe40c292c % 10},
	} {
		if got := Hash32(tt.s); got != tt.want {
			t.Errorf("Hash32(%q) = %#x, want %#x", tt.s, got, tt.want)
		}
		if got := Bucket(tt.s, 10); got != tt.b10 {
			t.Errorf("Bucket(%q, 10) = %d, want %d", tt.s, got, tt.b10)
		}
	}
}

func TestBucketSpreadsMobiles(t *testing.T) {
	r := newRand(t)
	var counts [10]int
	const n = 20000
	for range n {
		counts[Bucket("13"+digits(r, 9), 10)]++
	}
	for b, c := range counts {
		if c < n/10*8/10 || c > n/10*12/10 {
			t.Errorf("bucket %d holds %d of %d mobiles, want about %d", b, c, n, n/10)
		}
	}
}

func TestRandomBucket(t *testing.T) {
	r := newRand(t)
	var counts [7]int
	for range 7000 {
		counts[RandomBucket(r, 7)]++
	}
	for b, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("bucket %d drawn %d times of 7000, want about 1000", b, c)
		}
	}
	for range 100 {
		if b := RandomBucket(nil, 3); b < 0 || b >= 3 {
			t.Fatalf("RandomBucket(crypto, 3) = %d", b)
		}
	}
	if b := RandomBucket(r, 0); b != 0 {
		t.Errorf("RandomBucket(r, 0) = %d, want 0", b)
	}
	got, err := AppendSalt(nil, r, 100)
	if err != nil || len(got) != 2 {
		t.Errorf("AppendSalt(100) = %q, %v; want 2 digits", got, err)
	}
}

func TestIntProperties(t *testing.T) {
	gen64 := func(r *rand.Rand) uint64 {
		switch r.IntN(4) {
		case 0:
			return uint64(r.IntN(3))
		case 1:
			return math.MaxUint64 - uint64(r.IntN(3))
		}
		return r.Uint64()
	}
	checkCodec(t, gen64,
		func(dst []byte, v uint64) ([]byte, error) { return AppendUint64(dst, v), nil },
		DecodeUint64, eqv[uint64], cmp.Compare[uint64], 1, showI[uint64])
	checkCodec(t, func(r *rand.Rand) int64 { return int64(gen64(r) + 1<<63) },
		func(dst []byte, v int64) ([]byte, error) { return AppendInt64(dst, v), nil },
		DecodeInt64, eqv[int64], cmp.Compare[int64], 1, showI[int64])
	checkCodec(t, func(r *rand.Rand) uint32 { return uint32(gen64(r) >> (r.IntN(2) * 32)) },
		func(dst []byte, v uint32) ([]byte, error) { return AppendUint32(dst, v), nil },
		DecodeUint32, eqv[uint32], cmp.Compare[uint32], 1, showI[uint32])
	checkCodec(t, func(r *rand.Rand) int32 { return int32(uint32(gen64(r) >> (r.IntN(2) * 32))) },
		func(dst []byte, v int32) ([]byte, error) { return AppendInt32(dst, v), nil },
		DecodeInt32, eqv[int32], cmp.Compare[int32], 1, showI[int32])
}

func TestInt64Known(t *testing.T) {
	for _, tt := range []struct {
		v    int64
		want string
	}{
		{math.MinInt64, "0000000000000000"},
		{-1, "7fffffffffffffff"},
		{0, "8000000000000000"},
		{math.MaxInt64, "ffffffffffffffff"},
	} {
		if got := AppendInt64(nil, tt.v); hexString(got) != tt.want {
			t.Errorf("AppendInt64(%d): got %x, want %s", tt.v, got, tt.want)
		}
	}
}

func hexString(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		sb.WriteByte(lowerHex[c>>4])
		sb.WriteByte(lowerHex[c&0xF])
	}
	return sb.String()
}

// genString returns random strings rich in the bytes the escaping treats specially.
func genString(r *rand.Rand) string {
	alphabet := []byte{0x00, 0x01, 0xFF, 0xFE, 'a', 'b', '0'}
	b := make([]byte, r.IntN(8))
	for i := range b {
		if r.IntN(3) == 0 {
			b[i] = byte(r.Uint32())
		} else {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return string(b)
}

func TestStringProperties(t *testing.T) {
	checkCodec(t, genString,
		func(dst []byte, s string) ([]byte, error) { return AppendString(dst, s), nil },
		DecodeString, eqv[string], strings.Compare, 1, showS)
	checkCodec(t, func(r *rand.Rand) []byte { return []byte(genString(r)) },
		func(dst []byte, v []byte) ([]byte, error) { return AppendBytes(dst, v), nil },
		DecodeBytes, bytes.Equal, bytes.Compare, 1, func(v []byte) string { return hexString(v) })
}

func TestStringKnown(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "\x00\x01"},
		{"plain", "ab", "ab\x00\x01"},
		{"nul", "a\x00b", "a\x00\xffb\x00\x01"},
		{"ff", "\xff", "\xff\x00\x01"},
	} {
		if got := AppendString(nil, tt.in); string(got) != tt.want {
			t.Errorf("%s: got %x, want %x (%q)", tt.name, got, tt.want, tt.in)
		}
	}
	v, rest, err := DecodeBytes([]byte("\x00\x01z"))
	if err != nil || v == nil || len(v) != 0 || string(rest) != "z" {
		t.Errorf("decode empty: got %x (nil %v) rest %q, %v", v, v == nil, rest, err)
	}
}

func TestFixedProperties(t *testing.T) {
	for _, pad := range []byte{0x00, ' '} {
		checkCodec(t,
			func(r *rand.Rand) string {
				b := make([]byte, r.IntN(9))
				for i := range b {
					b[i] = byte('!' + r.IntN(94)) // printable, above both pads
				}
				return string(b)
			},
			func(dst []byte, s string) ([]byte, error) { return AppendFixed(dst, s, 8, pad) },
			func(b []byte) (string, []byte, error) { return DecodeFixed(b, 8, pad) },
			eqv[string], strings.Compare, 1, showS)
	}
}

func TestUniqueProperties(t *testing.T) {
	for _, w := range []int{1, 6, 16} {
		checkCodec(t,
			func(r *rand.Rand) uint64 {
				if w == 16 {
					return r.Uint64()
				}
				return r.Uint64N(1 << (4 * uint(w)))
			},
			func(dst []byte, v uint64) ([]byte, error) { return AppendUnique(dst, v, w) },
			func(b []byte) (uint64, []byte, error) { return DecodeUnique(b, w) },
			eqv[uint64], cmp.Compare[uint64], 1, showI[uint64])
	}
	got, err := AppendUnique(nil, 0xbeef, 6)
	if err != nil || string(got) != "00beef" {
		t.Errorf("AppendUnique(0xbeef, 6) = %q, %v; want 00beef", got, err)
	}
}

// encodeCase is a named bad input for an encoder.
type encodeCase struct {
	name string
	enc  func(dst []byte) ([]byte, error)
	want error // sentinel
}

func TestEncodersRejectBadInput(t *testing.T) {
	tests := []encodeCase{
		{"mobile too short", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "1381234567", 11) }, ErrWidth},
		{"mobile too long", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "138123456789", 11) }, ErrWidth},
		{"mobile with letter", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "1381234567x", 11) }, ErrInvalidValue},
		{"mobile with plus", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "+8613812345", 11) }, ErrInvalidValue},
		{"mobile with space", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "138 2345678", 11) }, ErrInvalidValue},
		{"digits width 0", func(d []byte) ([]byte, error) { return AppendReversedDigits(d, "", 0) }, ErrBadConfig},
		{"decimal too wide", func(d []byte) ([]byte, error) { return AppendDecimal(d, 1000, 3) }, ErrWidth},
		{"decimal width 21", func(d []byte) ([]byte, error) { return AppendDecimal(d, 1, 21) }, ErrBadConfig},
		{"negative timestamp", func(d []byte) ([]byte, error) { return AppendReversedTimestamp(d, -1) }, ErrOutOfRange},
		{"min timestamp", func(d []byte) ([]byte, error) { return AppendReversedTimestamp(d, math.MinInt64) }, ErrOutOfRange},
		{"negative binary timestamp", func(d []byte) ([]byte, error) { return AppendReversedTimestampBinary(d, -5) }, ErrOutOfRange},
		{"year 10000", func(d []byte) ([]byte, error) { return AppendDate(d, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) }, ErrOutOfRange},
		{"year -1", func(d []byte) ([]byte, error) { return AppendDate(d, time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)) }, ErrOutOfRange},
		{"time of day 24h", func(d []byte) ([]byte, error) { return AppendReversedTimeOfDay(d, Day) }, ErrOutOfRange},
		{"time of day negative", func(d []byte) ([]byte, error) { return AppendReversedTimeOfDay(d, -time.Nanosecond) }, ErrOutOfRange},
		{"md5 hex width 33", func(d []byte) ([]byte, error) { return AppendMD5Hex(d, "a", 33) }, ErrBadConfig},
		{"md5 width 0", func(d []byte) ([]byte, error) { return AppendMD5(d, "a", 0) }, ErrBadConfig},
		{"bucket = n", func(d []byte) ([]byte, error) { return AppendBucket(d, 10, 10) }, ErrInvalidValue},
		{"bucket negative", func(d []byte) ([]byte, error) { return AppendBucket(d, -1, 10) }, ErrInvalidValue},
		{"bucket count 0", func(d []byte) ([]byte, error) { return AppendBucket(d, 0, 0) }, ErrBadConfig},
		{"bucket byte 256", func(d []byte) ([]byte, error) { return AppendBucketByte(d, 256, 256) }, ErrInvalidValue},
		{"bucket byte count 257", func(d []byte) ([]byte, error) { return AppendBucketByte(d, 0, 257) }, ErrBadConfig},
		{"salt count 0", func(d []byte) ([]byte, error) { return AppendSalt(d, nil, 0) }, ErrBadConfig},
		{"fixed too long", func(d []byte) ([]byte, error) { return AppendFixed(d, "abcdefghi", 8, 0) }, ErrWidth},
		{"fixed ends with pad", func(d []byte) ([]byte, error) { return AppendFixed(d, "ab ", 8, ' ') }, ErrInvalidValue},
		{"unique too wide", func(d []byte) ([]byte, error) { return AppendUnique(d, 0x1000, 3) }, ErrWidth},
		{"unique width 17", func(d []byte) ([]byte, error) { return AppendUnique(d, 1, 17) }, ErrBadConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("keep")
			got, err := tt.enc(dst)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got error %v, want %v", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Segment == "" || e.Reason == "" {
				t.Errorf("got %#v, want a *keys.Error with segment and reason", err)
			}
			if string(got) != "keep" {
				t.Errorf("dst changed on error: got %x (%q), want %x (%q)", got, got, dst, dst)
			}
		})
	}
}

// decodeCase is a named bad input for a decoder.
type decodeCase struct {
	name string
	in   string
	dec  func(b []byte) error
	want error
}

func TestDecodersRejectBadInput(t *testing.T) {
	digits11 := func(b []byte) error { _, _, err := DecodeReversedDigits(b, 11); return err }
	revTS := func(b []byte) error { _, _, err := DecodeReversedTimestamp(b); return err }
	revTSBin := func(b []byte) error { _, _, err := DecodeReversedTimestampBinary(b); return err }
	date := func(b []byte) error { _, _, err := DecodeDate(b); return err }
	tod := func(b []byte) error { _, _, err := DecodeReversedTimeOfDay(b); return err }
	md5hex := func(b []byte) error { _, _, err := DecodeMD5Hex(b, 4); return err }
	md5raw := func(b []byte) error { _, _, err := DecodeMD5(b, 16); return err }
	bucket := func(b []byte) error { _, _, err := DecodeBucket(b, 20); return err }
	bucketByte := func(b []byte) error { _, _, err := DecodeBucketByte(b, 10); return err }
	str := func(b []byte) error { _, _, err := DecodeString(b); return err }
	fixed := func(b []byte) error { _, _, err := DecodeFixed(b, 4, ' '); return err }
	unique := func(b []byte) error { _, _, err := DecodeUnique(b, 4); return err }
	u64 := func(b []byte) error { _, _, err := DecodeUint64(b); return err }
	i32 := func(b []byte) error { _, _, err := DecodeInt32(b); return err }
	dec20 := func(b []byte) error { _, _, err := DecodeDecimal(b, 20); return err }
	tests := []decodeCase{
		{"mobile empty", "", digits11, ErrShortInput},
		{"mobile short", "8765432183", digits11, ErrShortInput},
		{"mobile letter", "8765432183a", digits11, ErrInvalidEncoding},
		{"timestamp short", "922337203685477580", revTS, ErrShortInput},
		{"timestamp above max", "9223372036854775808", revTS, ErrOutOfRange},
		{"timestamp all nines", "9999999999999999999", revTS, ErrOutOfRange},
		{"timestamp letter", "92233720368547758x7", revTS, ErrInvalidEncoding},
		{"binary timestamp short", "\x7f\xff", revTSBin, ErrShortInput},
		{"binary timestamp top bit", "\x80\x00\x00\x00\x00\x00\x00\x00", revTSBin, ErrInvalidEncoding},
		{"date short", "2017121", date, ErrShortInput},
		{"date month 13", "20171312", date, ErrOutOfRange},
		{"date month 0", "20170012", date, ErrOutOfRange},
		{"date feb 30", "20230230", date, ErrOutOfRange},
		{"date day 0", "20230100", date, ErrOutOfRange},
		{"date letter", "2017-12-", date, ErrInvalidEncoding},
		{"time of day short", "23595999", tod, ErrShortInput},
		{"time of day above max", "235960000", tod, ErrOutOfRange},
		{"time of day minute 60", "235899999", tod, ErrOutOfRange}, // clock 000060000
		{"time of day hour 24", "999999999", tod, ErrOutOfRange},
		{"md5 hex upper", "ABCD", md5hex, ErrInvalidEncoding},
		{"md5 hex short", "abc", md5hex, ErrShortInput},
		{"md5 raw short", "0123456789abcde", md5raw, ErrShortInput},
		{"bucket too big", "20", bucket, ErrInvalidValue},
		{"bucket letter", "1x", bucket, ErrInvalidEncoding},
		{"bucket short", "1", bucket, ErrShortInput},
		{"bucket byte too big", "\x0a", bucketByte, ErrInvalidValue},
		{"bucket byte empty", "", bucketByte, ErrShortInput},
		{"string unterminated", "abc", str, ErrShortInput},
		{"string lone nul at end", "abc\x00", str, ErrShortInput},
		{"string bad escape", "a\x00\x02", str, ErrInvalidEncoding},
		{"fixed short", "abc", fixed, ErrShortInput},
		{"unique upper hex", "00AF", unique, ErrInvalidEncoding},
		{"unique short", "0af", unique, ErrShortInput},
		{"uint64 short", "1234567", u64, ErrShortInput},
		{"int32 short", "123", i32, ErrShortInput},
		{"decimal 20 overflow", "18446744073709551616", dec20, ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.dec([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("input %x (%q): got error %v, want %v", tt.in, tt.in, err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("input %x (%q): got %T, want *keys.Error", tt.in, tt.in, err)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := AppendReversedDigits(nil, "1381234567x", 11)
	want := `keys: reversed digits: non-digit at offset 10 (value "1381234567x")`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	long := strings.Repeat("9", 200)
	_, err = AppendReversedDigits(nil, long, 11)
	var e *Error
	if !errors.As(err, &e) || len(e.Value) > maxErrValue+10 {
		t.Errorf("error value not truncated: %q", e.Value)
	}
}

// TestAppendZeroAllocs checks that every encoder allocates nothing when dst has room.
func TestAppendZeroAllocs(t *testing.T) {
	dst := make([]byte, 0, 256)
	at := time.Date(2017, 12, 12, 9, 30, 15, 0, time.UTC)
	r := rand.New(rand.NewPCG(1, 2))
	var err error
	encoders := []struct {
		name string
		fn   func()
	}{
		{"ReversedDigits", func() { dst, err = AppendReversedDigits(dst[:0], "13812345678", 11) }},
		{"Decimal", func() { dst, err = AppendDecimal(dst[:0], 42, 8) }},
		{"ReversedTimestamp", func() { dst, err = AppendReversedTimestamp(dst[:0], 1503382954000) }},
		{"ReversedTimestampBinary", func() { dst, err = AppendReversedTimestampBinary(dst[:0], 1503382954000) }},
		{"Date", func() { dst, err = AppendDate(dst[:0], at) }},
		{"ReversedTimeOfDay", func() { dst, err = AppendReversedTimeOfDay(dst[:0], TimeOfDay(at)) }},
		{"MD5Hex", func() { dst, err = AppendMD5Hex(dst[:0], "account-42", 16) }},
		{"MD5", func() { dst, err = AppendMD5(dst[:0], "host-1.example.com", 16) }},
		{"Bucket", func() { dst, err = AppendBucket(dst[:0], Bucket("13812345678", 10), 10) }},
		{"BucketByte", func() { dst, err = AppendBucketByte(dst[:0], 3, 10) }},
		{"SaltRand", func() { dst, err = AppendSalt(dst[:0], r, 10) }},
		{"SaltCrypto", func() { dst, err = AppendSalt(dst[:0], nil, 10) }},
		{"Fixed", func() { dst, err = AppendFixed(dst[:0], "host", 16, 0) }},
		{"Uint64", func() { dst = AppendUint64(dst[:0], 7) }},
		{"Int64", func() { dst = AppendInt64(dst[:0], -7) }},
		{"String", func() { dst = AppendString(dst[:0], "a\x00b") }},
		{"Unique", func() { dst, err = AppendUnique(dst[:0], 0xbeef, 8) }},
	}
	for _, e := range encoders {
		if e.name == "SaltCrypto" && raceEnabled {
			continue // the race detector moves crypto/rand's buffer to the heap
		}
		allocs := testing.AllocsPerRun(100, e.fn)
		if err != nil {
			t.Errorf("%s: %v", e.name, err)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per call, want 0", e.name, allocs)
		}
	}
}
