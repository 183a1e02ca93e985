package keys

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

// logRec is a LOG_DATA-like record: a host, an account and a timestamp.
type logRec struct {
	Host    string
	Account string
	Ts      int64
}

func logHost(r *logRec) string          { return r.Host }
func logAccount(r *logRec) string       { return r.Account }
func logTs(r *logRec) int64             { return r.Ts }
func setLogTs(r *logRec, v int64)       { r.Ts = v }
func setLogHost(r *logRec, v string)    { r.Host = v }
func setLogAccount(r *logRec, v string) { r.Account = v }

// logBucket is LOG_DATA's bucket, ts % 10 as one decimal digit.
func logBucket() Field[logRec] {
	return Decimal("bucket", 1, func(r *logRec) uint64 {
		b := r.Ts % 10
		if b < 0 {
			b += 10
		}
		return uint64(b)
	}, nil)
}

func logTsField() Field[logRec]   { return Int64("ts", logTs, setLogTs) }
func logHostField() Field[logRec] { return String("host", logHost, setLogHost) }

// showRanges renders ranges readably, for failure messages.
func showRanges(rs []KeyRange) string {
	var sb strings.Builder
	for i, rg := range rs {
		sb.WriteString("\n\t" + itoa(i) + ": [" + quoteBytes(rg.Start) + ", " + quoteBytes(rg.Stop) + ")")
	}
	return sb.String()
}

// containing returns how many of rs contain key.
func containing(rs []KeyRange, key []byte) int {
	in := 0
	for _, rg := range rs {
		if rg.Contains(key) {
			in++
		}
	}
	return in
}

// checkOrdered checks that ranges are non-empty, disjoint and in key order; only the
// last may end at the end of the table.
func checkOrdered(t *testing.T, rs []KeyRange) {
	t.Helper()
	for i, rg := range rs {
		if rg.Stop == nil {
			if i != len(rs)-1 {
				t.Fatalf("range %d ends the table but is not last:%s", i, showRanges(rs))
			}
		} else if bytes.Compare(rg.Start, rg.Stop) >= 0 {
			t.Fatalf("range %d is empty: got [%x, %x), [%s, %s)", i, rg.Start, rg.Stop, quoteBytes(rg.Start), quoteBytes(rg.Stop))
		}
		if i > 0 && bytes.Compare(rs[i-1].Stop, rg.Start) > 0 {
			t.Fatalf("ranges %d and %d overlap or are out of order:%s", i-1, i, showRanges(rs))
		}
	}
}

// TestSpreadRangesProperty checks SpreadRanges' meaning on random records: a record's
// key lies in exactly one range when its fields spread..n-1 lie between those of lo
// and hi, whatever its bucket values, and in none otherwise.
func TestSpreadRangesProperty(t *testing.T) {
	const t1, t2 = 1_500_000_000_000, 1_500_000_000_037
	inTime := func(r logRec) bool { return r.Ts >= t1 && r.Ts <= t2 }
	tests := []struct {
		name      string
		fields    []Field[logRec]
		spread, n int
		lo, hi    logRec
		want      int // number of ranges
		in        func(logRec) bool
	}{
		{
			name:   "log data: decimal bucket of ts",
			fields: []Field[logRec]{logBucket(), logTsField(), logHostField()},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 10, in: inTime,
		},
		{
			name:   "log data: lo and hi swapped",
			fields: []Field[logRec]{logBucket(), logTsField(), logHostField()},
			spread: 1, n: 2, lo: logRec{Ts: t2}, hi: logRec{Ts: t1}, want: 10, in: inTime,
		},
		{
			name:   "hash bucket of host",
			fields: []Field[logRec]{HashBucket("x", 10, logHost, nil), logTsField(), logHostField()},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 10, in: inTime,
		},
		{
			name:   "hash bucket byte of host",
			fields: []Field[logRec]{HashBucketByte("x", 7, logHost, nil), logTsField(), logHostField()},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 7, in: inTime,
		},
		{
			name:   "java hash bucket of host",
			fields: []Field[logRec]{JavaHashBucket("x", 12, JavaFloorMod, logHost, nil), logTsField(), logHostField()},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 12, in: inTime,
		},
		{
			name: "salt",
			fields: []Field[logRec]{
				Salt[logRec]("salt", 4, rand.New(rand.NewPCG(1, 2)), nil), logTsField(), logHostField(),
			},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 4, in: inTime,
		},
		{
			name: "hash bucket, reversed timestamp",
			fields: []Field[logRec]{
				HashBucket("x", 10, logHost, nil), ReversedTimestamp("ts", logTs, setLogTs), logHostField(),
			},
			spread: 1, n: 2, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 10, in: inTime,
		},
		{
			name: "two spread fields: hash bucket and hash bucket byte",
			fields: []Field[logRec]{
				HashBucket("x", 3, logHost, nil), HashBucketByte("y", 5, logAccount, nil), logTsField(), logHostField(),
			},
			spread: 2, n: 3, lo: logRec{Ts: t1}, hi: logRec{Ts: t2}, want: 15, in: inTime,
		},
		{
			name: "host and time after the bucket",
			fields: []Field[logRec]{
				HashBucket("x", 4, logAccount, nil), logHostField(), logTsField(), String("acct", logAccount, setLogAccount),
			},
			spread: 1, n: 3, lo: logRec{Host: "web-1", Ts: t1}, hi: logRec{Host: "web-1", Ts: t2}, want: 4,
			in: func(r logRec) bool { return r.Host == "web-1" && inTime(r) },
		},
		{
			name:   "whole buckets (spread == n)",
			fields: []Field[logRec]{HashBucket("x", 10, logHost, nil), logTsField(), logHostField()},
			spread: 1, n: 1, want: 10, in: func(logRec) bool { return true },
		},
	}
	hosts := []string{"web-1", "web-2", "db-1", "", "web-1\x00"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, tt.fields...)
			rs, err := l.SpreadRanges(&tt.lo, &tt.hi, tt.spread, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != tt.want {
				t.Fatalf("got %d ranges, want %d:%s", len(rs), tt.want, showRanges(rs))
			}
			checkOrdered(t, rs)
			r := newRand(t)
			for range propRounds {
				rec := logRec{Host: hosts[r.IntN(len(hosts))], Account: "acct-" + digits(r, 2), Ts: t1 - 30 + r.Int64N(t2-t1+61)}
				if r.IntN(4) == 0 {
					rec.Host = "h" + digits(r, 6)
				}
				if r.IntN(8) == 0 {
					rec.Ts = 1_400_000_000_000 + r.Int64N(400_000_000_000)
				}
				key, err := l.Append(nil, &rec)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				if tt.in(rec) {
					want = 1
				}
				if got := containing(rs, key); got != want {
					t.Fatalf("key %x (%s) of %#v lies in %d ranges, want %d:%s", key, quoteBytes(key), rec, got, want, showRanges(rs))
				}
			}
		})
	}
}

// TestSpreadRangesIndexQuery runs the seed index query "account A on day D" over
// [hash(mobile) % 10][yyyyMMdd][md5(account)][mobile][reversed time of day]: the
// mobile is unknown, so all 10 buckets are scanned.
func TestSpreadRangesIndexQuery(t *testing.T) {
	l := indexLayout(t)
	const account = "acct-07"
	day := time.Date(2017, 8, 22, 0, 0, 0, 0, time.UTC).UnixMilli()
	q := msg{Account: account, SentMs: day}
	rs, err := l.SpreadRanges(&q, &q, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 10 {
		t.Fatalf("got %d ranges, want 10:%s", len(rs), showRanges(rs))
	}
	checkOrdered(t, rs)
	r := newRand(t)
	for range propRounds {
		m := genMsg(r)
		m.SentMs = day - 3_600_000 + r.Int64N(28*3_600_000) // 23:00 the day before .. 04:00 the day after
		if r.IntN(2) == 0 {
			m.Account = account
		}
		key, err := l.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if m.Account == account && m.SentMs >= day && m.SentMs < day+86_400_000 {
			want = 1
		}
		if got := containing(rs, key); got != want {
			t.Fatalf("key %x (%s) of %#v lies in %d ranges, want %d:%s", key, quoteBytes(key), m, got, want, showRanges(rs))
		}
	}
}

// TestSpreadRangesEncoderValues checks that enumeration writes exactly the bytes the
// encoders write: for each enumerable kind, every value the encoder can produce (all
// of them for buckets, salts, decimals, digits and unique suffixes; a large sample for
// hashes) starts exactly one range, and every range starts with a value the field's
// decoder accepts.
func TestSpreadRangesEncoderValues(t *testing.T) {
	const t1, t2 = 1000, 2000
	type valueCase struct {
		name   string
		field  Field[logRec]
		want   int      // number of ranges
		values [][]byte // encoder outputs
	}
	var tests []valueCase
	for _, n := range []int{1, 7, 10, 11, 100, 1000} {
		var vs [][]byte
		for v := range n {
			b, err := AppendBucket(nil, v, n)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, b)
		}
		tests = append(tests, valueCase{"AppendBucket n=" + itoa(n), HashBucket("x", n, logHost, nil), n, vs})
		tests = append(tests, valueCase{"JavaHashBucket n=" + itoa(n), JavaHashBucket("x", n, JavaMask, logHost, nil), n, vs})
	}
	for _, n := range []int{1, 2, 7, 256} {
		var vs [][]byte
		for v := range n {
			b, err := AppendBucketByte(nil, v, n)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, b)
		}
		tests = append(tests, valueCase{"AppendBucketByte n=" + itoa(n), HashBucketByte("x", n, logHost, nil), n, vs})
	}
	r := newRand(t)
	for _, n := range []int{1, 4, 10, 12} {
		seen := map[string]bool{}
		var vs [][]byte
		for range 100 * n {
			b, err := AppendSalt(nil, r, n)
			if err != nil {
				t.Fatal(err)
			}
			if !seen[string(b)] {
				seen[string(b)] = true
				vs = append(vs, b)
			}
		}
		if len(vs) != n {
			t.Fatalf("AppendSalt n=%d: drew %d distinct salts, want all %d", n, len(vs), n)
		}
		tests = append(tests, valueCase{"AppendSalt n=" + itoa(n), Salt[logRec]("x", n, r, nil), n, vs})
	}
	for _, w := range []int{1, 2, 3} {
		var vs [][]byte
		for v := range pow10[w] {
			b, err := AppendDecimal(nil, v, w)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, b)
		}
		get := func(r *logRec) uint64 { return uint64(r.Ts) % pow10[w] }
		tests = append(tests, valueCase{"AppendDecimal width=" + itoa(w), Decimal("x", w, get, nil), int(pow10[w]), vs})
	}
	for _, w := range []int{1, 2, 3} {
		var vs [][]byte
		for v := range uint64(1) << (4 * w) {
			b, err := AppendUnique(nil, v, w)
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, b)
		}
		get := func(r *logRec) uint64 { return uint64(r.Ts) % (1 << (4 * w)) }
		tests = append(tests, valueCase{"AppendUnique width=" + itoa(w), Unique("x", w, get, nil), 1 << (4 * w), vs})
	}
	{
		var ds, rds [][]byte
		for v := range uint64(100) {
			s := string(appendDecimal(nil, v, 2))
			d, err := AppendDigits(nil, s, 2)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := AppendReversedDigits(nil, s, 2)
			if err != nil {
				t.Fatal(err)
			}
			ds, rds = append(ds, d), append(rds, rd)
		}
		tests = append(tests,
			valueCase{"AppendDigits width=2", Digits("x", 2, logHost, nil), 100, ds},
			valueCase{"AppendReversedDigits width=2", ReversedDigits("x", 2, logHost, nil), 100, rds})
	}
	for _, w := range []int{1, 2, 4} {
		var hex, raw [][]byte
		for range 2000 {
			s := digits(r, 12)
			h, err := AppendMD5Hex(nil, s, w)
			if err != nil {
				t.Fatal(err)
			}
			hex = append(hex, h)
			if w <= 2 {
				b, err := AppendMD5(nil, s, w)
				if err != nil {
					t.Fatal(err)
				}
				raw = append(raw, b)
			}
		}
		tests = append(tests, valueCase{"AppendMD5Hex width=" + itoa(w), MD5Hex("x", w, logHost), 1 << (4 * w), hex})
		if w <= 2 {
			tests = append(tests, valueCase{"AppendMD5 width=" + itoa(w), MD5("x", w, logHost), 1 << (8 * w), raw})
		}
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, tt.field, logTsField())
			rs, err := l.SpreadRanges(&logRec{Ts: t1}, &logRec{Ts: t2}, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != tt.want {
				t.Fatalf("got %d ranges, want %d", len(rs), tt.want)
			}
			checkOrdered(t, rs)
			w := tt.field.Segment().Width
			for i, rg := range rs {
				var rec logRec
				if _, err := l.DecodePrefix(rg.Start, &rec, 1); err != nil {
					t.Fatalf("range %d starts with %x (%s), which the decoder rejects: %v", i, rg.Start[:w], quoteBytes(rg.Start[:w]), err)
				}
			}
			// The ranges are sorted and disjoint (checkOrdered), so a binary search finds
			// the only candidates.
			for _, v := range tt.values {
				first := sort.Search(len(rs), func(i int) bool { return bytes.Compare(rs[i].Start, v) >= 0 })
				starts := 0
				for i := first; i < len(rs) && bytes.HasPrefix(rs[i].Start, v); i++ {
					starts++
				}
				if starts != 1 {
					t.Fatalf("encoder value %x (%s) starts %d ranges, want 1", v, quoteBytes(v), starts)
				}
				for _, c := range []struct {
					ts int64
					in bool
				}{{t1, true}, {t2, true}, {t1 + 1, true}, {t1 - 1, false}, {t2 + 1, false}} {
					key := AppendInt64(bytes.Clone(v), c.ts)
					i := sort.Search(len(rs), func(i int) bool { return bytes.Compare(rs[i].Start, key) > 0 }) - 1
					if got := i >= 0 && rs[i].Contains(key); got != c.in || (c.in && i != first) {
						t.Fatalf("key %x (%s): in range %d = %v, want range %d = %v", key, quoteBytes(key), i, got, first, c.in)
					}
				}
			}
		})
	}
}

// TestSpreadRangesZero checks that spread == 0 is Ranges, and that spreading a salted
// layout over its salt gives the ranges Ranges builds from the salt field itself.
func TestSpreadRangesZero(t *testing.T) {
	lo, hi := &logRec{Host: "a", Ts: 5}, &logRec{Host: "b", Ts: 3}
	tests := []struct {
		name      string
		fields    []Field[logRec]
		spread, n int
	}{
		{"plain, spread 0", []Field[logRec]{logTsField(), logHostField()}, 0, 2},
		{"plain, n 0", []Field[logRec]{logTsField(), logHostField()}, 0, 0},
		{"bucketed, spread 0", []Field[logRec]{HashBucket("x", 10, logHost, nil), logTsField()}, 0, 2},
		{"salted, spread 0", []Field[logRec]{Salt[logRec]("s", 12, nil, nil), logTsField(), logHostField()}, 0, 3},
		{"salted, spread 1", []Field[logRec]{Salt[logRec]("s", 12, nil, nil), logTsField(), logHostField()}, 1, 3},
		{"salted, spread 1, n 1", []Field[logRec]{Salt[logRec]("s", 12, nil, nil), logTsField()}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, tt.fields...)
			got, err := l.SpreadRanges(lo, hi, tt.spread, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			want, err := l.Ranges(lo, hi, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d ranges, want %d:%s\nwant:%s", len(got), len(want), showRanges(got), showRanges(want))
			}
			for i := range got {
				if !bytes.Equal(got[i].Start, want[i].Start) || !bytes.Equal(got[i].Stop, want[i].Stop) ||
					(got[i].Stop == nil) != (want[i].Stop == nil) {
					t.Fatalf("range %d: got [%x, %x), want [%x, %x):%s\nwant:%s", i,
						got[i].Start, got[i].Stop, want[i].Start, want[i].Stop, showRanges(got), showRanges(want))
				}
			}
		})
	}
}

// TestSpreadRangesSlices checks that the returned keys do not share writable
// capacity: appending to one range's Start or Stop leaves the others intact.
func TestSpreadRangesSlices(t *testing.T) {
	l := mustLayout(t, HashBucket("x", 10, logHost, nil), logTsField(), logHostField())
	rs, err := l.SpreadRanges(&logRec{Ts: 1}, &logRec{Ts: 2}, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	snap := make([]KeyRange, len(rs))
	for i, rg := range rs {
		snap[i] = KeyRange{bytes.Clone(rg.Start), bytes.Clone(rg.Stop)}
	}
	for _, rg := range rs {
		_ = append(rg.Start, 0xEE, 0xEE)
		_ = append(rg.Stop, 0xEE, 0xEE)
	}
	for i := range rs {
		if !bytes.Equal(rs[i].Start, snap[i].Start) || !bytes.Equal(rs[i].Stop, snap[i].Stop) {
			t.Fatalf("range %d changed by appends to others: got [%x, %x), want [%x, %x)",
				i, rs[i].Start, rs[i].Stop, snap[i].Start, snap[i].Stop)
		}
	}
}

// TestSpreadRangesEndOfTable checks the last range of a spread over raw bytes whose
// last value is 0xFF: its Stop is nil, the end of the table.
func TestSpreadRangesEndOfTable(t *testing.T) {
	l := mustLayout(t, MD5[logRec]("x", 1, logHost), logTsField())
	rs, err := l.SpreadRanges(&logRec{}, &logRec{}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	last := rs[len(rs)-1]
	if len(rs) != 256 || !bytes.Equal(last.Start, []byte{0xff}) || last.Stop != nil {
		t.Fatalf("got %d ranges ending [%x, %x), want 256 ending [ff, nil)", len(rs), last.Start, last.Stop)
	}
	if !bytes.Equal(rs[0].Start, []byte{0}) || !bytes.Equal(rs[0].Stop, []byte{1}) {
		t.Fatalf("first range: got [%x, %x), want [00, 01)", rs[0].Start, rs[0].Stop)
	}
}

func TestSpreadRangesErrors(t *testing.T) {
	plain := []Field[logRec]{HashBucket("x", 10, logHost, nil), logTsField(), logHostField()}
	tests := []struct {
		name      string
		fields    []Field[logRec]
		spread, n int
		lo, hi    logRec
		want      error
		segment   string
	}{
		{"spread negative", plain, -1, 2, logRec{}, logRec{}, ErrBadConfig, "layout"},
		{"spread above n", plain, 3, 2, logRec{}, logRec{}, ErrBadConfig, "layout"},
		{"n above Len", plain, 1, 4, logRec{}, logRec{}, ErrBadConfig, "layout"},
		{"n negative", plain, 0, -1, logRec{}, logRec{}, ErrBadConfig, "layout"},
		{"int64 first", []Field[logRec]{logTsField(), logHostField()}, 1, 2, logRec{}, logRec{}, ErrBadConfig, "ts"},
		{"string first", []Field[logRec]{logHostField(), logTsField()}, 1, 1, logRec{}, logRec{}, ErrBadConfig, "host"},
		{"literal first", []Field[logRec]{Literal[logRec]("tag", "L"), HashBucket("x", 10, logHost, nil)}, 2, 2,
			logRec{}, logRec{}, ErrBadConfig, "tag"},
		{"second spread field not enumerable", plain, 2, 3, logRec{}, logRec{}, ErrBadConfig, "ts"},
		{"md5 hex too wide", []Field[logRec]{MD5Hex("x", 5, logHost), logTsField()}, 1, 2,
			logRec{}, logRec{}, ErrBadConfig, "x"},
		{"decimal too wide", []Field[logRec]{Decimal("x", 5, func(r *logRec) uint64 { return 0 }, nil), logTsField()}, 1, 1,
			logRec{}, logRec{}, ErrBadConfig, "x"},
		{"too many combinations", []Field[logRec]{
			HashBucket("x", 1000, logHost, nil), HashBucket("y", 100, logAccount, nil), logTsField(),
		}, 2, 3, logRec{}, logRec{}, ErrBadConfig, "y"},
		{"bad lo", []Field[logRec]{HashBucket("x", 10, logHost, nil), Digits("acct", 4, logAccount, nil)}, 1, 2,
			logRec{Account: "12"}, logRec{Account: "1234"}, ErrWidth, "acct"},
		{"bad hi", []Field[logRec]{HashBucket("x", 10, logHost, nil), Digits("acct", 4, logAccount, nil)}, 1, 2,
			logRec{Account: "1234"}, logRec{Account: "12x4"}, ErrInvalidValue, "acct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLayout(t, tt.fields...)
			rs, err := l.SpreadRanges(&tt.lo, &tt.hi, tt.spread, tt.n)
			var e *Error
			if !errors.Is(err, tt.want) || !errors.As(err, &e) || e.Segment != tt.segment {
				t.Fatalf("got %v (%d ranges), want an *Error wrapping %v for segment %q", err, len(rs), tt.want, tt.segment)
			}
			if rs != nil {
				t.Errorf("got %d ranges with the error, want nil", len(rs))
			}
		})
	}
}

func TestSegmentEnumerable(t *testing.T) {
	seg := func(f Field[logRec]) Segment { return f.Segment() }
	u := func(*logRec) uint64 { return 0 }
	tests := []struct {
		name string
		seg  Segment
		want bool
	}{
		{"hash bucket 10", seg(HashBucket("x", 10, logHost, nil)), true},
		{"hash bucket 65536", seg(HashBucket("x", 1<<16, logHost, nil)), true},
		{"hash bucket 65537", seg(HashBucket("x", 1<<16+1, logHost, nil)), false},
		{"hash bucket byte 256", seg(HashBucketByte("x", 256, logHost, nil)), true},
		{"java hash bucket", seg(JavaHashBucket("x", 10, JavaAbs, logHost, nil)), true},
		{"salt", seg(Salt[logRec]("x", 16, nil, nil)), true},
		{"decimal 1", seg(Decimal("x", 1, u, nil)), true},
		{"decimal 4", seg(Decimal("x", 4, u, nil)), true},
		{"decimal 5", seg(Decimal("x", 5, u, nil)), false},
		{"decimal 20", seg(Decimal("x", 20, u, nil)), false},
		{"digits 4", seg(Digits("x", 4, logHost, nil)), true},
		{"reversed digits 11", seg(ReversedDigits("x", 11, logHost, nil)), false},
		{"md5 hex 4", seg(MD5Hex("x", 4, logHost)), true},
		{"md5 hex 5", seg(MD5Hex("x", 5, logHost)), false},
		{"md5 2", seg(MD5[logRec]("x", 2, logHost)), true},
		{"md5 16", seg(MD5[logRec]("x", 16, logHost)), false},
		{"unique 4", seg(Unique("x", 4, u, nil)), true},
		{"int64", seg(logTsField()), false},
		{"uint64", seg(Uint64("x", u, nil)), false},
		{"string", seg(logHostField()), false},
		{"literal", seg(Literal[logRec]("x", "L")), false},
		{"fixed", seg(Fixed("x", 2, ' ', logHost, nil)), false},
		{"date", seg(Date("x", func(*logRec) time.Time { return time.Time{} }, nil)), false},
		{"zero segment", Segment{}, false},
		{"keyspace narrower than segment", Segment{Width: 2, Keyspace: Keyspace{Radix: 10, Width: 1}}, false},
		{"count above radix^width", Segment{Width: 1, Keyspace: Keyspace{Radix: 10, Width: 1, Count: 11}}, false},
		{"unsupported radix", Segment{Width: 1, Keyspace: Keyspace{Radix: 8, Width: 1}}, false},
		{"wide, few values", Segment{Width: 30, Keyspace: Keyspace{Radix: 10, Width: 30, Count: 3}}, true},
	}
	for _, tt := range tests {
		if got := tt.seg.Enumerable(); got != tt.want {
			t.Errorf("%s: Enumerable() = %v, want %v (segment %+v)", tt.name, got, tt.want, tt.seg)
		}
	}
}

func TestSegmentIndex(t *testing.T) {
	l := indexLayout(t)
	for _, tt := range []struct {
		name string
		want int
	}{
		{"x", 0}, {"day", 1}, {"account", 2}, {"mobile", 3}, {"time", 4}, {"", -1}, {"Mobile", -1}, {"nope", -1},
	} {
		if got := l.SegmentIndex(tt.name); got != tt.want {
			t.Errorf("SegmentIndex(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
	// The index addresses Parts: group keys by their mobile.
	m := msg{Mobile: "13812345678", SentMs: 1503382954000, Account: "a"}
	key, err := l.Append(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := l.Parts(key)
	if err != nil {
		t.Fatal(err)
	}
	if got := parts[l.SegmentIndex("mobile")]; string(got) != m.Mobile {
		t.Errorf("mobile part: got %x (%s), want %s", got, quoteBytes(got), m.Mobile)
	}
}

// FuzzSpreadRanges checks the property of TestSpreadRangesProperty on arbitrary bucket
// counts, bounds and records over [bucket of host][ts][host].
func FuzzSpreadRanges(f *testing.F) {
	f.Add(uint8(9), false, int64(100), int64(200), int64(150), "web-1")
	f.Add(uint8(255), true, int64(-5), int64(5), int64(5), "")
	f.Add(uint8(0), true, int64(1<<62), int64(-1<<62), int64(0), "\x00\x01")
	f.Fuzz(func(t *testing.T, buckets uint8, byteBucket bool, t1, t2, ts int64, host string) {
		n := int(buckets) + 1
		bucket := HashBucket("x", n, logHost, nil)
		if byteBucket {
			bucket = HashBucketByte("x", n, logHost, nil)
		}
		l := mustLayout(t, bucket, logTsField(), logHostField())
		rs, err := l.SpreadRanges(&logRec{Ts: t1}, &logRec{Ts: t2}, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != n {
			t.Fatalf("got %d ranges, want %d", len(rs), n)
		}
		checkOrdered(t, rs)
		rec := logRec{Host: host, Ts: ts}
		key, err := l.Append(nil, &rec)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if ts >= min(t1, t2) && ts <= max(t1, t2) {
			want = 1
		}
		if got := containing(rs, key); got != want {
			t.Fatalf("key %x (%s) of %#v lies in %d ranges, want %d:%s", key, quoteBytes(key), rec, got, want, showRanges(rs))
		}
	})
}
