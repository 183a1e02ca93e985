package keys

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

type zoned struct{ At time.Time }

func zones(t *testing.T) []*time.Location {
	t.Helper()
	var out []*time.Location
	for _, name := range []string{"Asia/Shanghai", "Pacific/Auckland", "America/Los_Angeles", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, loc)
	}
	return out
}

// A Date and a TimeOfDay segment write one key per instant, whatever the
// location of the time handed to them or the process's zone: the key of a
// time equals the key of the same instant read back in UTC (as a time
// column reads it). For UTC times the bytes are those AppendDate writes, as
// before the rule (existing data keeps its keys).
func TestDateAndClockAreZoneFree(t *testing.T) {
	l, err := NewLayout(
		Date("day", func(z *zoned) time.Time { return z.At }, nil),
		ReversedTimeOfDay("clock", func(z *zoned) time.Duration { return TimeOfDay(z.At) }, nil))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(33, 1))
	saved := time.Local
	defer func() { time.Local = saved }()
	for _, loc := range zones(t) {
		time.Local = loc
		for range 500 {
			utc := time.UnixMilli(rng.Int64N(4e12)).UTC()
			want, err := AppendDate(nil, utc)
			if err != nil {
				t.Fatal(err)
			}
			want, err = AppendReversedTimeOfDay(want, time.Duration(utc.Hour())*time.Hour+
				time.Duration(utc.Minute())*time.Minute+time.Duration(utc.Second())*time.Second+
				time.Duration(utc.Nanosecond()))
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Time{utc, utc.In(loc), utc.Local(), time.UnixMilli(utc.UnixMilli())} {
				got, err := l.Append(nil, &zoned{At: at})
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%v (process zone %s): got %q, %v; want %q, the key of %v", at, loc, got, err, want, utc)
				}
			}
		}
	}
}

// DateIn writes the date of the instant in its zone, whatever the time's
// own location, and decodes to midnight in that zone; TimeOfDayIn reads the
// clock of the same zone.
func TestDateIn(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	f := DateIn("day", shanghai, func(z *zoned) time.Time { return z.At }, func(z *zoned, v time.Time) { z.At = v })
	l, err := NewLayout(f)
	if err != nil {
		t.Fatal(err)
	}
	if s := l.Segments()[0]; s.Zone() != shanghai || s.Location != shanghai {
		t.Errorf("segment zone = %v (Location %v), want %v", s.Zone(), s.Location, shanghai)
	}
	at := time.Date(2026, 11, 27, 20, 30, 0, 0, time.UTC) // 2026-11-28 04:30 in Shanghai
	for _, in := range []time.Time{at, at.In(la), at.In(shanghai)} {
		got, err := l.Append(nil, &zoned{At: in})
		if err != nil || string(got) != "20261128" {
			t.Errorf("DateIn(Shanghai) of %v = %q, %v; want 20261128", in, got, err)
		}
	}
	var z zoned
	if err := l.Decode([]byte("20261128"), &z); err != nil || !z.At.Equal(time.Date(2026, 11, 28, 0, 0, 0, 0, shanghai)) || z.At.Location() != shanghai {
		t.Errorf("Decode = %v, %v; want midnight 2026-11-28 in Shanghai", z.At, err)
	}
	if got, want := TimeOfDayIn(at.In(la), shanghai), 4*time.Hour+30*time.Minute; got != want {
		t.Errorf("TimeOfDayIn(Shanghai) = %v, want %v", got, want)
	}
	if got, want := TimeOfDay(at.In(shanghai)), 20*time.Hour+30*time.Minute; got != want {
		t.Errorf("TimeOfDay = %v, want %v (the UTC clock)", got, want)
	}
	if _, err := NewLayout(DateIn[zoned]("day", nil, func(z *zoned) time.Time { return z.At }, nil)); !errors.Is(err, ErrBadConfig) {
		t.Errorf("DateIn(nil location): %v, want ErrBadConfig", err)
	}
	u, err := NewLayout(DateIn("day", time.UTC, func(z *zoned) time.Time { return z.At }, nil))
	if err != nil || u.Segments()[0] != (Segment{Name: "day", Kind: KindDate, Width: DateWidth, Order: Ascending}) {
		t.Errorf("DateIn(UTC) segment = %+v, %v; want Date's", u.Segments()[0], err)
	}
}

// A date segment's text: a date is that date in any zone; a time is the
// date of its instant in the segment's zone; yyyyMMdd is a date, not Unix
// milliseconds.
func TestDateText(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	utc := Segment{Name: "day", Kind: KindDate, Width: DateWidth}
	for _, tt := range []struct {
		seg  Segment
		text string
		want string
	}{
		{utc, "2026-11-27", "20261127"},
		{utc, "20261127", "20261127"},
		{utc, "2026-11-27T20:30:00-08:00", "20261128"},
		{Segment{Name: "day", Kind: KindDate, Location: la}, "2026-11-27", "20261127"},
		{Segment{Name: "day", Kind: KindDate, Location: la}, "20261127", "20261127"},
		{Segment{Name: "day", Kind: KindDate, Location: la}, "2026-11-28T02:00:00Z", "20261127"},
		{Segment{Name: "day", Kind: KindDate, Location: shanghai}, "2026-11-27T20:30:00Z", "20261128"},
	} {
		got, err := tt.seg.AppendText(nil, tt.text)
		if err != nil || string(got) != tt.want {
			t.Errorf("%v AppendText(%q) = %q, %v; want %q", tt.seg.Zone(), tt.text, got, err, tt.want)
		}
	}
}
