package keys

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fiveMinutes = int64(5 * time.Minute / time.Millisecond)

func TestTimeOffsetWidth(t *testing.T) {
	for _, tt := range []struct {
		name string
		span int64
		want int
	}{
		{"zero", 0, 0},
		{"negative", -1, 0},
		{"one ms", 1, 1},
		{"256 ms", 256, 1},
		{"257 ms", 257, 2},
		{"one minute", 60_000, 2},
		{"five minutes", fiveMinutes, 3},
		{"one hour", 3_600_000, 3},
		{"one day", 86_400_000, 4},
		{"2^32 ms", 1 << 32, 4},
		{"2^32+1 ms", 1<<32 + 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := TimeOffsetWidth(tt.span); got != tt.want {
				t.Errorf("TimeOffsetWidth(%d) = %d, want %d", tt.span, got, tt.want)
			}
		})
	}
}

func TestTimeSplitKnown(t *testing.T) {
	for _, tt := range []struct {
		name          string
		ms, span      int64
		base, off     string // hex
		baseMs, offMs int64
	}{
		{"seed timestamp", 1503382954000, fiveMinutes, "8000015e08990680", "025990", 1503382800000, 154000},
		{"range start", 1503382800000, fiveMinutes, "8000015e08990680", "000000", 1503382800000, 0},
		{"last ms of a range", 1503383099999, fiveMinutes, "8000015e08990680", "0493df", 1503382800000, 299999},
		{"epoch", 0, fiveMinutes, "8000000000000000", "000000", 0, 0},
		{"before the epoch", -1, fiveMinutes, "7ffffffffffb6c20", "0493df", -300000, 299999},
		{"one ms span", 42, 1, "800000000000002a", "00", 42, 0},
		{"max int64", math.MaxInt64, 1000, "fffffffffffffcd8", "0327", math.MaxInt64 - 807, 807},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base, err := AppendTimeBase(nil, tt.ms, tt.span)
			if err != nil {
				t.Fatal(err)
			}
			off, err := AppendTimeOffset(nil, tt.ms, tt.span)
			if err != nil {
				t.Fatal(err)
			}
			if hexString(base) != tt.base || hexString(off) != tt.off {
				t.Errorf("%d: got base %x offset %x, want %s %s", tt.ms, base, off, tt.base, tt.off)
			}
			b, rest, err := DecodeTimeBase(append(base, 'r'), tt.span)
			if err != nil || b != tt.baseMs || string(rest) != "r" {
				t.Errorf("DecodeTimeBase(%x) = %d, %q, %v; want %d", base, b, rest, err, tt.baseMs)
			}
			o, rest, err := DecodeTimeOffset(append(off, 'r'), tt.span)
			if err != nil || o != tt.offMs || string(rest) != "r" {
				t.Errorf("DecodeTimeOffset(%x) = %d, %q, %v; want %d", off, o, rest, err, tt.offMs)
			}
			if b+o != tt.ms {
				t.Errorf("base %d + offset %d = %d, want %d", b, o, b+o, tt.ms)
			}
		})
	}
}

func TestTimeSplitErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"base: zero span", second(AppendTimeBase(nil, 1, 0)), ErrBadConfig},
		{"offset: span too long", second(AppendTimeOffset(nil, 1, 1<<33)), ErrBadConfig},
		{"base: below any range", second(AppendTimeBase(nil, math.MinInt64, 1000)), ErrOutOfRange},
		{"offset: below any range", second(AppendTimeOffset(nil, math.MinInt64+5, 1000)), ErrOutOfRange},
		{"decode base: short", third(DecodeTimeBase([]byte{0x80, 0}, 1000)), ErrShortInput},
		{"decode base: not a multiple", third(DecodeTimeBase(AppendInt64(nil, 1001), 1000)), ErrInvalidEncoding},
		{"decode base: bad span", third(DecodeTimeBase(AppendInt64(nil, 0), -5)), ErrBadConfig},
		{"decode offset: short", third(DecodeTimeOffset([]byte{0}, fiveMinutes)), ErrShortInput},
		{"decode offset: not below the span", third(DecodeTimeOffset([]byte{0x04, 0x93, 0xe0}, fiveMinutes)), ErrOutOfRange},
		{"decode offset: bad span", third(DecodeTimeOffset([]byte{0}, 0)), ErrBadConfig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ke *Error
			if !errors.Is(tt.err, tt.want) || !errors.As(tt.err, &ke) {
				t.Errorf("got %v, want a *keys.Error wrapping %v", tt.err, tt.want)
			}
		})
	}
	// dst is returned unchanged on error.
	dst := []byte("keep")
	if out, err := AppendTimeOffset(dst, math.MinInt64, 1000); err == nil || string(out) != "keep" {
		t.Errorf("got %q, %v; want dst unchanged and an error", out, err)
	}
}

func second(_ []byte, err error) error         { return err }
func third(_ int64, _ []byte, err error) error { return err }

// randomTime draws timestamps that often share a range: around a few
// bases, at the edges of ranges, and anywhere.
func randomTime(r *rand.Rand, span int64) int64 {
	switch r.IntN(4) {
	case 0:
		return r.Int64N(10*span) - 5*span
	case 1:
		return 1503382800000 + r.Int64N(3*span)
	case 2:
		return (r.Int64N(1000)-500)*span + []int64{0, 1, span - 1}[r.IntN(3)]
	}
	return int64(r.Uint64()>>1) - r.Int64N(math.MaxInt64)
}

// TestTimeSplitOrder is the ordering invariant the wide rows rely on: the
// base followed by the offset sorts as the timestamps do, and the base
// alone never contradicts it.
func TestTimeSplitOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, span := range []int64{1, 7, 256, 1000, fiveMinutes, 86_400_000, 1 << 32} {
		for i := 0; i < 20_000; i++ {
			a, b := randomTime(r, span), randomTime(r, span)
			ka, erra := appendSplit(nil, a, span)
			kb, errb := appendSplit(nil, b, span)
			if erra != nil || errb != nil {
				continue // within span of MinInt64
			}
			if got, want := bytes.Compare(ka, kb), cmp.Compare(a, b); got != want {
				t.Fatalf("span %d: %d vs %d: bytes.Compare(%x, %x) = %d, want %d", span, a, b, ka, kb, got, want)
			}
			if c := bytes.Compare(ka[:TimeBaseWidth], kb[:TimeBaseWidth]); c != 0 && c != cmp.Compare(a, b) {
				t.Fatalf("span %d: bases of %d and %d compare %d", span, a, b, c)
			}
		}
	}
}

func appendSplit(dst []byte, ms, span int64) ([]byte, error) {
	dst, err := AppendTimeBase(dst, ms, span)
	if err != nil {
		return nil, err
	}
	return AppendTimeOffset(dst, ms, span)
}

type timed struct{ ms int64 }

func getMs(v *timed) int64     { return v.ms }
func setMs(v *timed, ms int64) { v.ms = ms }

// TestTimeSplitFields decodes the base and the offset of one timestamp from
// two layouts, in both orders and over a stale record, and gets it back.
func TestTimeSplitFields(t *testing.T) {
	span := 5 * time.Minute
	row, err := NewLayout(Literal[timed]("tag", "h"), TimeBase("at", span, getMs, setMs))
	if err != nil {
		t.Fatal(err)
	}
	qual, err := NewLayout(TimeOffset("at", span, getMs, setMs))
	if err != nil {
		t.Fatal(err)
	}
	if s := row.Segments()[1]; s.Kind != KindTimeBase || s.Width != 8 || s.Span != span || !s.Decodable || s.Kind.String() != "time base" {
		t.Errorf("base segment %+v", s)
	}
	if s := qual.Segments()[0]; s.Kind != KindTimeOffset || s.Width != 3 || s.Span != span || s.Order != Ascending || s.Kind.String() != "time offset" {
		t.Errorf("offset segment %+v", s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5_000; i++ {
		in := timed{randomTime(r, fiveMinutes)}
		rk, err := row.Append(nil, &in)
		if err != nil {
			continue
		}
		qk, err := qual.Append(nil, &in)
		if err != nil {
			t.Fatalf("%d: offset fails where the base did not: %v", in.ms, err)
		}
		for _, tt := range []struct {
			name     string
			start    int64
			rowFirst bool
		}{
			{"row then qualifier, fresh", 0, true},
			{"qualifier then row, fresh", 0, false},
			{"row then qualifier, stale", randomTime(r, fiveMinutes), true},
			{"qualifier then row, stale", randomTime(r, fiveMinutes), false},
		} {
			out := timed{tt.start}
			if tt.rowFirst {
				err = errors.Join(row.Decode(rk, &out), qual.Decode(qk, &out))
			} else {
				err = errors.Join(qual.Decode(qk, &out), row.Decode(rk, &out))
			}
			if err != nil || out.ms != in.ms {
				t.Fatalf("%s: %d from %x %x: got %d, %v", tt.name, in.ms, rk, qk, out.ms, err)
			}
		}
	}
}

func TestTimeSplitFieldConfig(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    Field[timed]
	}{
		{"base: zero span", TimeBase("t", 0, getMs, setMs)},
		{"base: sub-millisecond span", TimeBase("t", 1500*time.Microsecond, getMs, setMs)},
		{"base: span too long", TimeBase("t", MaxTimeSpan+time.Millisecond, getMs, setMs)},
		{"base: nil getter", TimeBase[timed]("t", time.Minute, nil, setMs)},
		{"offset: negative span", TimeOffset("t", -time.Minute, getMs, setMs)},
		{"offset: nil getter", TimeOffset[timed]("t", time.Minute, nil, setMs)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewLayout(tt.f); !errors.Is(err, ErrBadConfig) {
				t.Errorf("got %v, want ErrBadConfig", err)
			}
		})
	}
	if _, err := NewLayout(TimeOffset("t", MaxTimeSpan, getMs, setMs)); err != nil {
		t.Errorf("MaxTimeSpan refused: %v", err)
	}
}

func TestTimeSplitAllocs(t *testing.T) {
	buf := make([]byte, 0, 16)
	ms := int64(1503382954000)
	allocs := testing.AllocsPerRun(100, func() {
		out, _ := AppendTimeBase(buf[:0], ms, fiveMinutes)
		out, _ = AppendTimeOffset(out, ms, fiveMinutes)
		_, rest, _ := DecodeTimeBase(out, fiveMinutes)
		_, _, _ = DecodeTimeOffset(rest, fiveMinutes)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per encode and decode, want 0", allocs)
	}
}

func FuzzDecodeTimeSplit(f *testing.F) {
	f.Add([]byte("\x80\x00\x01\x5e\x08\x99\x08\x00\x02\x3e\x10"), int64(300000))
	f.Add([]byte("\x80\x00\x00\x00\x00\x00\x00\x01\xff"), int64(256))
	f.Add([]byte{}, int64(0))
	f.Fuzz(func(t *testing.T, in []byte, span int64) {
		base, rest, err := DecodeTimeBase(in, span)
		checkDecoded(t, in, rest, err, func() ([]byte, error) { return AppendTimeBase(nil, base, span) })
		off, rest, err := DecodeTimeOffset(in, span)
		checkDecoded(t, in, rest, err, func() ([]byte, error) { return AppendTimeOffset(nil, off, span) })
	})
}

// TestGoldenTimeSplit pins the bytes of the time segments: instants around
// range edges, before the epoch, for three spans, the base and the offset
// each readably and in hex. Refresh with -update only for an intended
// change (a data migration).
func TestGoldenTimeSplit(t *testing.T) {
	var out strings.Builder
	for _, span := range []time.Duration{time.Second, 5 * time.Minute, 24 * time.Hour} {
		ms := span.Milliseconds()
		fmt.Fprintf(&out, "# span %s: offset width %d\n", span, TimeOffsetWidth(ms))
		for _, at := range []int64{1503382954000, 1503382954000 - 1503382954000%ms, 1503382954000 - 1503382954000%ms - 1, 0, -1} {
			base, err := AppendTimeBase(nil, at, ms)
			if err != nil {
				t.Fatal(err)
			}
			off, err := AppendTimeOffset(nil, at, ms)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%-14d base %s %s  offset %s %s\n", at, quoteBytes(base), hexString(base), quoteBytes(off), hexString(off))
		}
		out.WriteString("\n")
	}
	path := filepath.Join("testdata", "timesplit.golden")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out.String() {
		t.Errorf("time split bytes changed (a data migration):\ngot:\n%s\nwant:\n%s", out.String(), want)
	}
}
