package keys

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

type textRec struct {
	S  string
	N  uint64
	I  int64
	T  time.Time
	D  time.Duration
	I3 int32
	I1 int16
}

// Every segment kind: the bytes Parts cuts decode to a value whose text
// (as the command line prints it) AppendText turns back into the same
// bytes, and DecodeField stores in a record that encodes to them again.
func TestSegmentTextRoundTrip(t *testing.T) {
	s := func(r *textRec) string { return r.S }
	setS := func(r *textRec, v string) { r.S = v }
	n := func(r *textRec) uint64 { return r.N }
	setN := func(r *textRec, v uint64) { r.N = v }
	i := func(r *textRec) int64 { return r.I }
	setI := func(r *textRec, v int64) { r.I = v }
	at := time.Date(2026, 11, 23, 10, 11, 12, 345e6, time.UTC)
	for _, c := range []struct {
		name   string
		field  Field[textRec]
		rec    textRec
		text   string // the value's text
		extras []Field[textRec]
	}{
		{"reversed digits", ReversedDigits("f", 11, s, setS), textRec{S: "13812345678"}, "13812345678", nil},
		{"digits", Digits("f", 4, s, setS), textRec{S: "0042"}, "0042", nil},
		{"decimal", Decimal("f", 5, n, setN), textRec{N: 42}, "42", nil},
		{"reversed timestamp", ReversedTimestamp("f", func(r *textRec) int64 { return r.T.UnixMilli() },
			func(r *textRec, ms int64) { r.T = time.UnixMilli(ms).UTC() }), textRec{T: at}, "2026-11-23T10:11:12.345Z", nil},
		{"reversed timestamp binary", ReversedTimestampBinary("f", func(r *textRec) int64 { return r.T.UnixMilli() },
			func(r *textRec, ms int64) { r.T = time.UnixMilli(ms).UTC() }), textRec{T: at}, "2026-11-23T10:11:12.345Z", nil},
		{"date", Date("f", func(r *textRec) time.Time { return r.T }, func(r *textRec, v time.Time) { r.T = v }), textRec{T: at.Truncate(24 * time.Hour)}, "2026-11-23", nil},
		{"time of day", ReversedTimeOfDay("f", func(r *textRec) time.Duration { return r.D }, func(r *textRec, v time.Duration) { r.D = v }),
			textRec{D: 10*time.Hour + 11*time.Minute + 12345*time.Millisecond}, "10:11:12.345", nil},
		{"md5 hex", MD5Hex("f", 8, s), textRec{S: "acct"}, "", nil},
		{"md5", MD5("f", 4, s), textRec{S: "acct"}, "", nil},
		{"bucket", HashBucket("f", 16, s, nil), textRec{S: "x"}, "", nil},
		{"bucket byte", HashBucketByte("f", 16, s, nil), textRec{S: "x"}, "", nil},
		{"fixed", Fixed("f", 6, ' ', s, setS), textRec{S: "ab"}, "ab", nil},
		{"uint64", Uint64("f", n, setN), textRec{N: 1 << 40}, "1099511627776", nil},
		{"int64", Int64("f", i, setI), textRec{I: -7}, "-7", nil},
		{"string", String("f", s, setS), textRec{S: "a\x00b"}, "a\x00b", nil},
		{"unique", Unique("f", 4, n, setN), textRec{N: 0xc6}, "198", nil},
		{"trailing string", TrailingString("f", s, setS), textRec{S: "u1"}, "u1", nil},
		{"java short", JavaShort("f", func(r *textRec) int16 { return r.I1 }, func(r *textRec, v int16) { r.I1 = v }), textRec{I1: -2}, "-2", nil},
		{"java int", JavaInt("f", func(r *textRec) int32 { return r.I3 }, func(r *textRec, v int32) { r.I3 = v }), textRec{I3: 1 << 20}, "1048576", nil},
		{"java long", JavaLong("f", i, setI), textRec{I: -1}, "-1", nil},
		{"java partition", JavaPartition("f", 10, i, setI), textRec{I: 7}, "7", nil},
		{"time base", TimeBase("f", time.Hour, func(r *textRec) int64 { return r.T.UnixMilli() },
			func(r *textRec, ms int64) { r.T = time.UnixMilli(ms).UTC() }), textRec{T: at.Truncate(time.Hour)}, "2026-11-23T10:00:00.000Z", nil},
		{"time offset", TimeOffset("f", time.Hour, i, setI), textRec{I: 90_500}, "1m30.5s", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := NewLayout(append([]Field[textRec]{c.field}, c.extras...)...)
			if err != nil {
				t.Fatal(err)
			}
			key, err := l.Append(nil, &c.rec)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := l.Parts(key)
			if err != nil {
				t.Fatal(err)
			}
			seg := l.Segments()[0]
			v, err := seg.Value(parts[0])
			if err != nil {
				t.Fatalf("Value(%q): %v", parts[0], err)
			}
			text := fmt.Sprint(v)
			if tm, ok := v.(time.Time); ok {
				text = tm.Format(TimeLayout)
			}
			if c.text != "" && text != c.text {
				t.Errorf("Value(%q) = %q, want %q", parts[0], text, c.text)
			}
			if got, err := seg.Text(parts[0]); err != nil || got != text {
				t.Errorf("Text(%q) = %q, %v; want %q", parts[0], got, err, text)
			}
			if seg.Kind == KindMD5 {
				text = v.(string)
			}
			b, err := seg.AppendText(nil, text)
			if err != nil || !bytes.Equal(b, parts[0]) {
				t.Fatalf("AppendText(%q) = %q, %v; want %x (%q)", text, b, err, parts[0], parts[0])
			}
			if !seg.Decodable {
				return
			}
			var back textRec
			if err := l.DecodeField(0, b, &back); err != nil {
				t.Fatal(err)
			}
			again, err := l.Append(nil, &back)
			if err != nil || !bytes.Equal(again, key) {
				t.Errorf("record from the text encodes to %q, %v; want %q", again, err, key)
			}
		})
	}
}

func TestJoinedText(t *testing.T) {
	l, err := NewLayout(Joined("_",
		TextString("province", func(r *textRec) string { return r.S }, func(r *textRec, v string) { r.S = v }),
		TextInt("age", func(r *textRec) int64 { return r.I }, func(r *textRec, v int64) { r.I = v }))...)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := l.Append(nil, &textRec{S: "辽宁省", I: 20})
	parts, _ := l.Parts(key)
	segs := l.Segments()
	for i, want := range []any{"辽宁省", int64(20)} {
		v, err := segs[i].Value(parts[i])
		if err != nil || v != want {
			t.Errorf("%s: got %v, %v; want %v", segs[i].Name, v, err, want)
		}
		b, err := segs[i].AppendText(nil, fmt.Sprint(want))
		if err != nil || !bytes.Equal(b, parts[i]) {
			t.Errorf("%s: AppendText = %q, %v; want %q", segs[i].Name, b, err, parts[i])
		}
	}
	if _, err := segs[0].AppendText(nil, "a_b"); !errors.Is(err, ErrDelimiter) {
		t.Errorf("a value holding the delimiter: got %v, want ErrDelimiter", err)
	}
}

func TestAppendTextErrors(t *testing.T) {
	s := func(r *textRec) string { return r.S }
	for _, c := range []struct {
		name  string
		field Field[textRec]
		text  string
		want  error
	}{
		{"letters in digits", Digits("f", 4, s, nil), "12a4", ErrInvalidValue},
		{"too many digits", ReversedDigits("f", 4, s, nil), "12345", ErrWidth},
		{"not a time", ReversedTimestamp("f", func(*textRec) int64 { return 0 }, nil), "noon", ErrInvalidValue},
		{"before the epoch", ReversedTimestamp("f", func(*textRec) int64 { return 0 }, nil), "-5", ErrOutOfRange},
		{"not a date", Date("f", func(*textRec) time.Time { return time.Time{} }, nil), "23/11/2026", ErrInvalidValue},
		{"bucket out of range", HashBucket("f", 10, s, nil), "10", ErrInvalidValue},
		{"short overflow", JavaShort("f", func(*textRec) int16 { return 0 }, nil), "40000", ErrInvalidValue},
		{"md5 hex too short", MD5Hex("f", 8, s), "abc", ErrInvalidValue},
		{"literal", Literal[textRec]("f", "x"), "x", ErrBadConfig},
	} {
		l, err := NewLayout(c.field)
		if err != nil {
			t.Fatal(err)
		}
		dst := []byte("keep")
		got, err := l.Segments()[0].AppendText(dst, c.text)
		var ke *Error
		if !errors.Is(err, c.want) || !errors.As(err, &ke) || ke.Segment != "f" || string(got) != "keep" {
			t.Errorf("%s: got %q, %v; want dst unchanged and an *Error for f wrapping %v", c.name, got, err, c.want)
		}
	}
}
