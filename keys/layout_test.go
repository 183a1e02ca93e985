package keys

import (
	"bytes"
	"cmp"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// msg is the seed SMS record.
type msg struct {
	Mobile  string
	SentMs  int64
	Seq     uint64
	Account string
}

func smsFields(seq bool) []Field[msg] {
	fs := []Field[msg]{
		ReversedDigits("mobile", 11, func(m *msg) string { return m.Mobile }, func(m *msg, v string) { m.Mobile = v }),
		ReversedTimestamp("sent", func(m *msg) int64 { return m.SentMs }, func(m *msg, v int64) { m.SentMs = v }),
	}
	if seq {
		fs = append(fs, Unique("seq", 4, func(m *msg) uint64 { return m.Seq }, func(m *msg, v uint64) { m.Seq = v }))
	}
	return fs
}

func mustLayout[T any](t testing.TB, fs ...Field[T]) *Layout[T] {
	t.Helper()
	l, err := NewLayout(fs...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// indexLayout is the seed index key: x (hash(mobile) % 10) + yyyyMMdd + md5(account)
// 16 hex + mobile (11 digits) + reversed time of day.
func indexLayout(t testing.TB) *Layout[msg] {
	return mustLayout(t,
		HashBucket("x", 10, func(m *msg) string { return m.Mobile }, nil),
		Date("day", func(m *msg) time.Time { return time.UnixMilli(m.SentMs).UTC() }, nil),
		MD5Hex("account", 16, func(m *msg) string { return m.Account }),
		Digits("mobile", 11, func(m *msg) string { return m.Mobile }, func(m *msg, v string) { m.Mobile = v }),
		ReversedTimeOfDay("time", func(m *msg) time.Duration { return TimeOfDay(time.UnixMilli(m.SentMs).UTC()) }, nil),
	)
}

func genMsg(r *rand.Rand) msg {
	mobiles := []string{"13812345678", "13812345679", "15900000000", "18698765432"}
	m := msg{Seq: r.Uint64N(1 << 16), Account: "acct-" + digits(r, 2)}
	if r.IntN(2) == 0 {
		m.Mobile = mobiles[r.IntN(len(mobiles))]
	} else {
		m.Mobile = "1" + digits(r, 10)
	}
	if r.IntN(2) == 0 {
		m.SentMs = 1_500_000_000_000 + r.Int64N(5)
	} else {
		m.SentMs = genTimestamp(r)
	}
	return m
}

func TestLayoutRoundTripAndOrder(t *testing.T) {
	l := mustLayout(t, smsFields(true)...)
	if w := l.Width(); w != 11+19+4 {
		t.Fatalf("Width = %d, want 34", w)
	}
	r := newRand(t)
	for range propRounds {
		a, b := genMsg(r), genMsg(r)
		a.Account, b.Account = "", ""
		ka, err := l.Append(nil, &a)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := l.Append(nil, &b)
		if err != nil {
			t.Fatal(err)
		}
		var back msg
		if err := l.Decode(ka, &back); err != nil {
			t.Fatalf("decode %x (%s): %v", ka, ka, err)
		}
		if back != a {
			t.Fatalf("round trip of %x (%s): got %+v, want %+v", ka, ka, back, a)
		}
		// Documented order: reversed mobile ascending, then newest first, then seq.
		want := cmp.Or(
			strings.Compare(reverse(a.Mobile), reverse(b.Mobile)),
			-cmp.Compare(a.SentMs, b.SentMs),
			cmp.Compare(a.Seq, b.Seq),
		)
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("order of %+v and %+v: bytes.Compare(%s, %s) = %d, want %d", a, b, ka, kb, got, want)
		}
	}
}

func TestLayoutVariableLength(t *testing.T) {
	type row struct {
		Host  string
		Event string
		At    int64
	}
	l := mustLayout(t,
		String("host", func(r *row) string { return r.Host }, func(r *row, v string) { r.Host = v }),
		String("event", func(r *row) string { return r.Event }, func(r *row, v string) { r.Event = v }),
		Int64("at", func(r *row) int64 { return r.At }, func(r *row, v int64) { r.At = v }),
	)
	if l.Width() != -1 {
		t.Errorf("Width = %d, want -1", l.Width())
	}
	rnd := newRand(t)
	for range propRounds {
		a := row{genString(rnd), genString(rnd), rnd.Int64() >> rnd.IntN(60)}
		b := row{genString(rnd), genString(rnd), rnd.Int64() >> rnd.IntN(60)}
		if rnd.IntN(3) == 0 {
			b.Host = a.Host
		}
		ka, err := l.Append(nil, &a)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := l.Append(nil, &b)
		var back row
		if err := l.Decode(ka, &back); err != nil || back != a {
			t.Fatalf("round trip %x: got %+v, %v; want %+v", ka, back, err, a)
		}
		want := cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.Event, b.Event), cmp.Compare(a.At, b.At))
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("order of %+v and %+v: bytes.Compare(%x, %x) = %d, want %d", a, b, ka, kb, got, want)
		}
	}
}

func TestLayoutIndexKey(t *testing.T) {
	l := indexLayout(t)
	at := time.Date(2017, 12, 12, 9, 30, 15, 250*int(time.Millisecond), time.UTC)
	m := msg{Mobile: "13812345678", SentMs: at.UnixMilli(), Account: "hello"}
	key, err := l.Append(nil, &m)
	if err != nil {
		t.Fatal(err)
	}
	want := itoa(Bucket("13812345678", 10)) + "20171212" + "5d41402abc4b2a76" + "13812345678" + "142944749"
	if string(key) != want {
		t.Fatalf("got %x (%s), want %x (%s)", key, key, want, want)
	}
	var back msg
	if err := l.Decode(key, &back); err != nil {
		t.Fatal(err)
	}
	if back.Mobile != m.Mobile {
		t.Errorf("decoded mobile %q, want %q", back.Mobile, m.Mobile)
	}
	segs := l.Segments()
	if len(segs) != 5 || segs[0].Kind != KindBucket || segs[0].Keyspace.Count != 10 || segs[0].Decodable {
		t.Errorf("Segments()[0] = %+v", segs[0])
	}
	if segs[2].Decodable || segs[3].Order != Ascending || segs[4].Order != Descending {
		t.Errorf("Segments() = %+v", segs)
	}
	segs[0].Name = "changed"
	if l.Segments()[0].Name != "x" {
		t.Error("Segments returned the layout's own slice")
	}
}

// TestRangeInclusive checks the documented inclusivity of Range on the SMS layout:
// messages of one mobile sent in [t1, t2], both ends included, whatever the order of
// the arguments and whatever follows the timestamp.
func TestRangeInclusive(t *testing.T) {
	l := mustLayout(t, smsFields(true)...)
	const mobile = "13812345678"
	const t1, t2 = 1_500_000_000_000, 1_500_000_000_010
	for _, swap := range []bool{false, true} {
		lo, hi := &msg{Mobile: mobile, SentMs: t1}, &msg{Mobile: mobile, SentMs: t2}
		if swap {
			lo, hi = hi, lo
		}
		start, stop, err := l.Range(lo, hi, 2)
		if err != nil {
			t.Fatal(err)
		}
		rg := KeyRange{start, stop}
		for _, m := range []msg{
			{Mobile: mobile, SentMs: t1 - 1},
			{Mobile: mobile, SentMs: t1},
			{Mobile: mobile, SentMs: t1, Seq: 0xffff},
			{Mobile: mobile, SentMs: t1 + 5, Seq: 7},
			{Mobile: mobile, SentMs: t2},
			{Mobile: mobile, SentMs: t2, Seq: 0xffff},
			{Mobile: mobile, SentMs: t2 + 1},
			{Mobile: "13812345679", SentMs: t1 + 5},
			{Mobile: "03812345678", SentMs: t1 + 5}, // same reversed prefix but one digit
			{Mobile: "23812345678", SentMs: t1 + 5},
		} {
			key, err := l.Append(nil, &m)
			if err != nil {
				t.Fatal(err)
			}
			want := m.Mobile == mobile && m.SentMs >= t1 && m.SentMs <= t2
			if got := rg.Contains(key); got != want {
				t.Errorf("swap=%v: [%s, %s) contains %s (%+v) = %v, want %v", swap, start, stop, key, m, got, want)
			}
		}
		wantStart, _ := l.AppendPrefix(nil, &msg{Mobile: mobile, SentMs: t2}, 2)
		if !bytes.Equal(start, wantStart) {
			t.Errorf("start: got %x (%s), want %x (%s): the newer instant", start, start, wantStart, wantStart)
		}
	}
}

func TestPrefixRange(t *testing.T) {
	l := mustLayout(t, smsFields(true)...)
	r := newRand(t)
	probe := msg{Mobile: "13812345678"}
	start, stop, err := l.PrefixRange(&probe, 1)
	if err != nil {
		t.Fatal(err)
	}
	if string(start) != "87654321831" || string(stop) != "87654321832" {
		t.Errorf("got [%s, %s), want [87654321831, 87654321832)", start, stop)
	}
	rg := KeyRange{start, stop}
	for range propRounds {
		m := genMsg(r)
		key, err := l.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rg.Contains(key), m.Mobile == probe.Mobile; got != want {
			t.Fatalf("prefix range contains %s (%+v) = %v, want %v", key, m, got, want)
		}
	}
	all, end, err := l.PrefixRange(&probe, 0)
	if err != nil || len(all) != 0 || all == nil || end != nil {
		t.Errorf("n=0: got [%x, %x), %v; want the whole table", all, end, err)
	}
	if _, _, err := l.PrefixRange(&probe, 4); !errors.Is(err, ErrBadConfig) {
		t.Errorf("n=4: got %v, want ErrBadConfig", err)
	}
	bad := msg{Mobile: "138"}
	if _, _, err := l.PrefixRange(&bad, 1); !errors.Is(err, ErrWidth) {
		t.Errorf("bad mobile: got %v, want ErrWidth", err)
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in, want []byte
	}{
		{"empty", []byte{}, nil},
		{"all ff", []byte{0xff, 0xff}, nil},
		{"simple", []byte("ab"), []byte("ac")},
		{"trailing ff", []byte{'a', 0xff, 0xff}, []byte("b")},
		{"digit nine", []byte("19"), []byte("1:")},
	} {
		if got := PrefixEnd(tt.in); !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("%s: PrefixEnd(%x) = %x, want %x", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSaltedLayout(t *testing.T) {
	type ev struct {
		Salt int
		At   int64
	}
	r := newRand(t)
	l := mustLayout(t,
		Salt("salt", 4, r, func(e *ev, v int) { e.Salt = v }),
		Uint64("at", func(e *ev) uint64 { return uint64(e.At) }, func(e *ev, v uint64) { e.At = int64(v) }),
	)
	seen := map[int]bool{}
	probe := ev{At: 12345}
	rs, err := l.PrefixRanges(&probe, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("got %d ranges, want 4 (one per salt)", len(rs))
	}
	for i := 1; i < len(rs); i++ {
		if bytes.Compare(rs[i-1].Stop, rs[i].Start) > 0 {
			t.Errorf("ranges out of order: %x then %x", rs[i-1].Stop, rs[i].Start)
		}
	}
	for range 200 {
		key, err := l.Append(nil, &probe)
		if err != nil {
			t.Fatal(err)
		}
		var back ev
		if err := l.Decode(key, &back); err != nil {
			t.Fatal(err)
		}
		seen[back.Salt] = true
		in := 0
		for _, rg := range rs {
			if rg.Contains(key) {
				in++
			}
		}
		if in != 1 {
			t.Fatalf("key %x lies in %d of the salted ranges, want 1", key, in)
		}
	}
	if len(seen) != 4 {
		t.Errorf("saw salts %v, want all of 0..3", seen)
	}
	if _, _, err := l.PrefixRange(&probe, 2); !errors.Is(err, ErrBadConfig) {
		t.Errorf("PrefixRange on salted layout: got %v, want ErrBadConfig", err)
	}
	if _, _, err := l.PrefixRange(&probe, 0); err != nil {
		t.Errorf("PrefixRange(n=0) on salted layout: %v", err)
	}
}

func TestNewLayoutErrors(t *testing.T) {
	get := func(m *msg) string { return m.Mobile }
	tests := []struct {
		name   string
		fields []Field[msg]
	}{
		{"no fields", nil},
		{"zero width", []Field[msg]{ReversedDigits("mobile", 0, get, nil)}},
		{"nil getter", []Field[msg]{ReversedDigits[msg]("mobile", 11, nil, nil)}},
		{"duplicate name", []Field[msg]{Digits("a", 1, get, nil), Digits("a", 1, get, nil)}},
		{"empty name", []Field[msg]{Digits("", 1, get, nil)}},
		{"zero value field", []Field[msg]{{}}},
		{"salt not first", []Field[msg]{Digits("a", 1, get, nil), Salt[msg]("s", 4, nil, nil)}},
		{"bucket count 0", []Field[msg]{HashBucket("x", 0, get, nil)}},
		{"md5 width 17", []Field[msg]{MD5("m", 17, get)}},
		{"empty literal", []Field[msg]{Literal[msg]("tag", "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLayout(tt.fields...)
			if !errors.Is(err, ErrBadConfig) || l != nil {
				t.Fatalf("got %v, %v; want nil, ErrBadConfig", l, err)
			}
		})
	}
}

func TestLayoutErrorsNameTheField(t *testing.T) {
	l := mustLayout(t, smsFields(false)...)
	dst := []byte("keep")
	got, err := l.Append(dst, &msg{Mobile: "13812345678", SentMs: -1})
	var e *Error
	if !errors.As(err, &e) || e.Segment != "sent" || !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("got %v, want an ErrOutOfRange *Error for segment sent", err)
	}
	if string(got) != "keep" {
		t.Errorf("dst changed on error: got %x (%q), want %x", got, got, dst)
	}
	key, _ := l.Append(nil, &msg{Mobile: "13812345678", SentMs: 1})
	var m msg
	if err := l.Decode(append(key, 'z'), &m); !errors.Is(err, ErrTrailingBytes) {
		t.Errorf("trailing byte: got %v, want ErrTrailingBytes", err)
	}
	err = l.Decode(key[:20], &m)
	if !errors.As(err, &e) || e.Segment != "sent" || !errors.Is(err, ErrShortInput) {
		t.Errorf("truncated key: got %v, want ErrShortInput for segment sent", err)
	}
	rest, err := l.DecodePrefix(key, &m, 1)
	if err != nil || len(rest) != 19 {
		t.Errorf("DecodePrefix(1): rest %q, %v", rest, err)
	}
}

func TestLayoutLiteralAndWriteOnly(t *testing.T) {
	type order struct {
		Customer uint64
		Order    string
	}
	l := mustLayout(t,
		Uint64("customer", func(o *order) uint64 { return o.Customer }, func(o *order, v uint64) { o.Customer = v }),
		Literal[order]("type", "2"),
		MD5("order", 16, func(o *order) string { return o.Order }),
		Fixed("pad", 3, 0, func(o *order) string { return "ab" }, nil),
		HashBucketByte("b", 16, func(o *order) string { return o.Order }, nil),
	)
	in := order{Customer: 42, Order: "SO-1"}
	key, err := l.Append(nil, &in)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != 8+1+16+3+1 || key[8] != '2' {
		t.Fatalf("got %x, want 29 bytes with type '2' at offset 8", key)
	}
	var back order
	if err := l.Decode(key, &back); err != nil || back.Customer != 42 {
		t.Fatalf("decode %x: got %+v, %v", key, back, err)
	}
	key[8] = '1'
	if err := l.Decode(key, &back); !errors.Is(err, ErrInvalidEncoding) {
		t.Errorf("wrong literal: got %v, want ErrInvalidEncoding", err)
	}
}

func TestLayoutAppendZeroAllocs(t *testing.T) {
	sms := mustLayout(t, smsFields(true)...)
	idx := indexLayout(t)
	m := msg{Mobile: "13812345678", SentMs: 1503382954000, Seq: 7, Account: "acct-42"}
	dst := make([]byte, 0, 128)
	var err error
	for name, fn := range map[string]func(){
		"sms":   func() { dst, err = sms.Append(dst[:0], &m) },
		"index": func() { dst, err = idx.Append(dst[:0], &m) },
		"prefix": func() {
			dst, err = sms.AppendPrefix(dst[:0], &m, 1)
		},
	} {
		if allocs := testing.AllocsPerRun(100, fn); allocs != 0 || err != nil {
			t.Errorf("%s: %v allocations per Append (err %v), want 0", name, allocs, err)
		}
	}
	key, _ := sms.Append(nil, &m)
	var back msg
	// Decoding copies the mobile into a new string: one allocation, no more.
	if allocs := testing.AllocsPerRun(100, func() { err = sms.Decode(key, &back) }); allocs > 1 || err != nil {
		t.Errorf("Decode: %v allocations (err %v), want at most 1", allocs, err)
	}
}

func TestKindAndOrderStrings(t *testing.T) {
	if KindReversedTimestamp.String() != "reversed timestamp" || Kind(200).String() != "kind(200)" {
		t.Errorf("Kind.String: %q, %q", KindReversedTimestamp, Kind(200))
	}
	if Descending.String() != "descending" || Order(9).String() != "order(9)" {
		t.Errorf("Order.String: %q, %q", Descending, Order(9))
	}
}

func TestLayoutParts(t *testing.T) {
	l := mustLayout(t, smsFields(true)...)
	key, err := l.Append(nil, &msg{Mobile: "13812345678", SentMs: 1503382954000, Seq: 7})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := l.Parts(key)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"87654321831", "9223370533471821807", "0007"}
	if len(parts) != len(want) {
		t.Fatalf("got %d parts, want %d", len(parts), len(want))
	}
	for i, p := range parts {
		if string(p) != want[i] {
			t.Errorf("part %d: got %x (%s), want %s", i, p, p, want[i])
		}
		if cap(p) != len(p) {
			t.Errorf("part %d: capacity %d not clipped to %d", i, cap(p), len(p))
		}
	}
	if _, err := l.Parts(append(key, 'x')); !errors.Is(err, ErrTrailingBytes) {
		t.Errorf("trailing byte: got %v, want ErrTrailingBytes", err)
	}
	parts, err = l.Parts(key[:15])
	var e *Error
	if !errors.As(err, &e) || e.Segment != "sent" || len(parts) != 1 {
		t.Errorf("truncated: got %d parts, %v; want 1 part and an error for sent", len(parts), err)
	}
}

// TestRangeVariableLength checks Range over escaped strings longer than any buffer
// estimate, and that the returned Start cannot be grown into other memory.
func TestRangeVariableLength(t *testing.T) {
	type row struct{ Host, Event string }
	l := mustLayout(t,
		String("host", func(r *row) string { return r.Host }, nil),
		String("event", func(r *row) string { return r.Event }, nil),
	)
	host := strings.Repeat("h\x00", 40)
	lo, hi := &row{host, strings.Repeat("b", 50)}, &row{host, strings.Repeat("a", 50)}
	start, stop, err := l.Range(lo, hi, 2)
	if err != nil {
		t.Fatal(err)
	}
	if cap(start) != len(start) {
		t.Errorf("start capacity %d, want %d", cap(start), len(start))
	}
	rg := KeyRange{start, stop}
	for _, tt := range []struct {
		r    row
		want bool
	}{
		{row{host, strings.Repeat("a", 50)}, true},
		{row{host, strings.Repeat("a", 50) + "x"}, true},
		{row{host, "ab"}, true},
		{row{host, strings.Repeat("b", 50)}, true},
		{row{host, strings.Repeat("b", 51)}, false},
		{row{host, "a"}, false},
		{row{host + "x", "ab"}, false},
	} {
		key, err := l.Append(nil, &tt.r)
		if err != nil {
			t.Fatal(err)
		}
		if got := rg.Contains(key); got != tt.want {
			t.Errorf("[%q, %q) contains %q = %v, want %v", start, stop, key, got, tt.want)
		}
	}
}

// TestRangeProperty checks Range's meaning on random SMS records: a message lies in
// the range built from (mobile, t1) and (mobile, t2) exactly when it was sent to that
// mobile at an instant in [min(t1,t2), max(t1,t2)].
func TestRangeProperty(t *testing.T) {
	l := mustLayout(t, smsFields(true)...)
	r := newRand(t)
	base := int64(1_500_000_000_000)
	mobiles := []string{"13812345678", "13812345679", "23812345678", "13800000000"}
	for range propRounds {
		mobile := mobiles[r.IntN(len(mobiles))]
		t1, t2 := base+r.Int64N(20), base+r.Int64N(20)
		start, stop, err := l.Range(&msg{Mobile: mobile, SentMs: t1}, &msg{Mobile: mobile, SentMs: t2}, 2)
		if err != nil {
			t.Fatal(err)
		}
		m := msg{Mobile: mobiles[r.IntN(len(mobiles))], SentMs: base - 2 + r.Int64N(24), Seq: r.Uint64N(1 << 16)}
		key, err := l.Append(nil, &m)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Mobile == mobile && m.SentMs >= min(t1, t2) && m.SentMs <= max(t1, t2)
		if got := (KeyRange{start, stop}).Contains(key); got != want {
			t.Fatalf("range (%s, %d..%d) = [%s, %s) contains %s (%+v) = %v, want %v",
				mobile, t1, t2, start, stop, key, m, got, want)
		}
	}
}
