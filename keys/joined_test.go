package keys

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// user is the record of seed 001's user table and its inverted index.
type user struct {
	UID      string
	Province string
	Age      int64
}

// joinedLayout is seed 001's inverted-index row key, province + "_" + age.
func joinedLayout(t testing.TB) *Layout[user] {
	return mustLayout(t, Joined("_",
		TextString("province", func(u *user) string { return u.Province }, func(u *user, v string) { u.Province = v }),
		TextInt("age", func(u *user) int64 { return u.Age }, func(u *user, v int64) { u.Age = v }),
	)...)
}

// TestSeed001Key reproduces seed 001's index row 辽宁省_20 byte for byte (Java 17:
// ("辽宁省" + "_" + 20).getBytes(UTF_8)).
func TestSeed001Key(t *testing.T) {
	l := joinedLayout(t)
	u := user{Province: "辽宁省", Age: 20}
	key, err := l.Append(nil, &u)
	if err != nil {
		t.Fatal(err)
	}
	if string(key) != "辽宁省_20" || hexString(key) != "e8bebde5ae81e79c815f3230" {
		t.Fatalf("got %x (%q), want e8bebde5ae81e79c815f3230 (辽宁省_20)", key, key)
	}
	var back user
	if err := l.Decode(key, &back); err != nil || back != u {
		t.Fatalf("Decode(%q) = %+v, %v; want %+v", key, back, err, u)
	}
	parts, err := l.Parts(key)
	if err != nil || len(parts) != 2 || string(parts[0]) != "辽宁省_" || string(parts[1]) != "20" {
		t.Errorf("Parts(%q) = %q, %v", key, parts, err)
	}
	segs := l.Segments()
	if segs[0].Kind != KindText || segs[0].Trailing || segs[1].Kind != KindDecimalText || !segs[1].Trailing || l.Width() != -1 {
		t.Errorf("segments %+v, width %d", segs, l.Width())
	}
	// One province: its delimiter is part of the prefix, so 辽宁省会 is not in it.
	checkPrefixRange(t, l, &u, 1, "辽宁省_20", "辽宁省_-3", "辽宁省_", "-辽宁省会_20", "-辽宁_20")
	// A last part bounds the range as a byte prefix: age 2 matches 2, 20..29 and 2xx.
	checkPrefixRange(t, l, &user{Province: "辽宁省", Age: 2}, 2, "辽宁省_2", "辽宁省_20", "辽宁省_299", "-辽宁省_3", "-辽宁省_-2")
}

// checkPrefixRange checks which keys PrefixRange(rec, n) holds: each of keys, except
// those written with a leading '-', which it must not hold.
func checkPrefixRange[T any](t *testing.T, l *Layout[T], rec *T, n int, keys ...string) {
	t.Helper()
	start, stop, err := l.PrefixRange(rec, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		key, want := strings.CutPrefix(k, "-")
		want = !want
		if got := (KeyRange{start, stop}).Contains([]byte(key)); got != want {
			t.Errorf("PrefixRange(%+v, %d) = [%q, %q) contains %q: %v, want %v", *rec, n, start, stop, key, got, want)
		}
	}
}

func TestJoinedRoundTrip(t *testing.T) {
	type rec struct {
		A, B string
		N    int64
	}
	l := mustLayout(t, append([]Field[rec]{Literal[rec]("tag", "i:")}, Joined("::",
		TextString("a", func(r *rec) string { return r.A }, func(r *rec, v string) { r.A = v }),
		TextInt("n", func(r *rec) int64 { return r.N }, func(r *rec, v int64) { r.N = v }),
		TextString("b", func(r *rec) string { return r.B }, func(r *rec, v string) { r.B = v }),
	)...)...)
	for _, r := range []rec{
		{}, {A: "x", N: -1, B: "y"}, {A: "a:b", N: math.MinInt64, B: ":"}, {N: math.MaxInt64, B: "z:"}, {A: "\x00\xff", B: "短信"},
	} {
		key, err := l.Append(nil, &r)
		if err != nil {
			t.Fatalf("Append(%+v): %v", r, err)
		}
		var back rec
		if err := l.Decode(key, &back); err != nil || back != r {
			t.Errorf("Decode(%q) = %+v, %v; want %+v", key, back, err, r)
		}
	}
	if key, _ := l.Append(nil, &rec{A: "p", N: 20, B: "q"}); string(key) != "i:p::20::q" {
		t.Errorf("key %q, want i:p::20::q", key)
	}
}

func TestJoinedErrors(t *testing.T) {
	l := joinedLayout(t)
	dst := []byte("pre")
	tests := []struct {
		name string
		u    user
		seg  string
	}{
		{"delimiter in the province", user{Province: "辽_宁", Age: 20}, "province"},
		{"delimiter at the end", user{Province: "辽宁_", Age: 20}, "province"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Append(dst, &tt.u)
			var e *Error
			if !errors.Is(err, ErrDelimiter) || !errors.As(err, &e) || e.Segment != tt.seg {
				t.Fatalf("Append(%+v) = %v, want an *Error for %s wrapping ErrDelimiter", tt.u, err, tt.seg)
			}
			if string(got) != "pre" {
				t.Errorf("dst changed on error: %q", got)
			}
		})
	}
	// A negative number contains a '-' delimiter; a multi-byte delimiter must not
	// start inside a value either.
	dash := mustLayout(t, Joined("-",
		TextString("s", func(u *user) string { return u.Province }, nil),
		TextInt("n", func(u *user) int64 { return u.Age }, nil))...)
	if _, err := dash.Append(nil, &user{Province: "x", Age: -3}); !errors.Is(err, ErrDelimiter) {
		t.Errorf("-3 joined by '-': %v, want ErrDelimiter", err)
	}
	aa := mustLayout(t, Joined("aa",
		TextString("s", func(u *user) string { return u.Province }, nil),
		TextString("t", func(u *user) string { return u.UID }, nil))...)
	for _, u := range []user{{Province: "a"}, {Province: "ba"}, {UID: "xaay"}} {
		if _, err := aa.Append(nil, &u); !errors.Is(err, ErrDelimiter) {
			t.Errorf("%+v joined by \"aa\": %v, want ErrDelimiter", u, err)
		}
	}
	if key, err := aa.Append(nil, &user{Province: "b", UID: "a"}); err != nil || string(key) != "baaa" {
		t.Errorf("b, a joined by \"aa\" = %q, %v; want baaa", key, err)
	}

	var back user
	for _, tt := range []struct {
		key  string
		want error
	}{
		{"辽宁省", ErrShortInput},
		{"辽宁省_", ErrInvalidEncoding},
		{"辽宁省_020", ErrInvalidEncoding},
		{"辽宁省_-0", ErrInvalidEncoding},
		{"辽宁省_+2", ErrInvalidEncoding},
		{"辽宁省_2a", ErrInvalidEncoding},
		{"辽宁省_-", ErrInvalidEncoding},
		{"辽宁省_9223372036854775808", ErrInvalidEncoding},
		{"辽宁省_2_0", ErrInvalidEncoding},
	} {
		err := l.Decode([]byte(tt.key), &back)
		var e *Error
		if !errors.Is(err, tt.want) || !errors.As(err, &e) {
			t.Errorf("Decode(%q) = %v, want an *Error wrapping %v", tt.key, err, tt.want)
		}
	}

	get := func(u *user) string { return u.UID }
	for _, tt := range []struct {
		name   string
		fields []Field[user]
	}{
		{"empty delimiter", Joined("", TextString("a", get, nil), TextString("b", get, nil))},
		{"no parts", Joined[user]("_")},
		{"nil getter", Joined("_", TextString[user]("a", nil, nil), TextString("b", get, nil))},
		{"nil int getter", Joined("_", TextString("a", get, nil), TextInt[user]("b", nil, nil))},
		{"zero part", Joined("_", TextString("a", get, nil), Text[user]{})},
		{"joined group not last", append(Joined("_", TextString("a", get, nil), TextString("b", get, nil)), Literal[user]("x", "x"))},
		{"trailing string not last", []Field[user]{TrailingString("uid", get, nil), Literal[user]("x", "x")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLayout(tt.fields...)
			var e *Error
			if !errors.Is(err, ErrBadConfig) || !errors.As(err, &e) {
				t.Fatalf("NewLayout: %v, want an *Error wrapping ErrBadConfig", err)
			}
			if strings.HasSuffix(tt.name, "not last") && !strings.Contains(e.Reason, "must come last") {
				t.Errorf("reason %q does not say the field must come last", e.Reason)
			}
		})
	}
}

func TestTrailingString(t *testing.T) {
	type row struct {
		Bucket int
		UID    string
	}
	l := mustLayout(t,
		HashBucket("b", 10, func(r *row) string { return r.UID }, nil),
		TrailingString("uid", func(r *row) string { return r.UID }, func(r *row, v string) { r.UID = v }),
	)
	for _, uid := range []string{"", "u1", "u1\x00\x01", "短信"} {
		key, err := l.Append(nil, &row{UID: uid})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(key, []byte(uid)) || len(key) != 1+len(uid) {
			t.Errorf("key %q for uid %q: want one bucket digit and the raw uid", key, uid)
		}
		var back row
		if err := l.Decode(key, &back); err != nil || back.UID != uid {
			t.Errorf("Decode(%q) = %+v, %v", key, back, err)
		}
	}
	// Prefix semantics: the range of u1 holds u1, u10 and u1x, not u2. The bucket
	// of u1 is 5.
	checkPrefixRange(t, l, &row{UID: "u1"}, 2, "5u1", "5u10", "5u1x", "-5u2", "-5u", "-6u1")
	seg := l.Segments()[1]
	if seg.Kind != KindTrailingString || !seg.Trailing || seg.Order != Ascending || seg.Width != 0 {
		t.Errorf("segment %+v", seg)
	}
}

func TestJoinedZeroAllocs(t *testing.T) {
	l := joinedLayout(t)
	u := user{Province: "辽宁省", Age: 20}
	dst := make([]byte, 0, 64)
	var err error
	if allocs := testing.AllocsPerRun(100, func() { dst, err = l.Append(dst[:0], &u) }); allocs != 0 || err != nil {
		t.Errorf("Append: %v allocations, %v; want 0", allocs, err)
	}
	j := mustLayout(t, JavaLong("l", func(u *user) int64 { return u.Age }, nil), JavaInt("i", func(u *user) int32 { return int32(u.Age) }, nil),
		JavaShort("s", func(u *user) int16 { return int16(u.Age) }, nil))
	if allocs := testing.AllocsPerRun(100, func() { dst, err = j.Append(dst[:0], &u) }); allocs != 0 || err != nil {
		t.Errorf("Java integers: %v allocations, %v; want 0", allocs, err)
	}
}
