package schema_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// point is a time-series record for the validation tests.
type point struct {
	Series string
	Tag    string
	At     int64
	Value  string
}

func pointSeries(p *point) string       { return p.Series }
func setPointSeries(p *point, v string) { p.Series = v }
func pointTag(p *point) string          { return p.Tag }
func setPointTag(p *point, v string)    { p.Tag = v }
func pointAt(p *point) int64            { return p.At }
func setPointAt(p *point, v int64)      { p.At = v }
func pointValue() Column[point] {
	return StringColumn("value", "d", "", func(p *point) string { return p.Value }, func(p *point, v string) { p.Value = v })
}

func layout(t *testing.T, fs ...keys.Field[point]) *keys.Layout[point] {
	t.Helper()
	l, err := keys.NewLayout(fs...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestNewWideValidates(t *testing.T) {
	span := time.Minute
	series := keys.String("series", pointSeries, setPointSeries)
	base := keys.TimeBase("at", span, pointAt, setPointAt)
	offset := keys.TimeOffset("at", span, pointAt, setPointAt)
	good := func() WideSpec[point] {
		return WideSpec[point]{
			Name: "points", Families: []Family{{Name: "d"}},
			Key: layout(t, series, base), Qualifier: layout(t, offset), Value: pointValue(),
		}
	}
	if _, err := NewWide(good()); err != nil {
		t.Fatalf("good spec: %v", err)
	}
	for _, tt := range []struct {
		name  string
		edit  func(*WideSpec[point])
		field string
	}{
		{"no key", func(s *WideSpec[point]) { s.Key = nil }, "key"},
		{"no qualifier", func(s *WideSpec[point]) { s.Qualifier = nil }, "qualifier"},
		{"base without offset", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, keys.String("tag", pointTag, setPointTag))
		}, "at"},
		{"offset without base", func(s *WideSpec[point]) { s.Key = layout(t, series) }, "at"},
		{"offset of another span", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, keys.TimeOffset("at", 2*span, pointAt, setPointAt))
		}, "at"},
		{"offset under another name", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, keys.TimeOffset("at2", span, pointAt, setPointAt))
		}, "at2"},
		{"offset in the row key", func(s *WideSpec[point]) { s.Key = layout(t, series, offset) }, "at"},
		{"base in the qualifier", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, offset, keys.TimeBase("b", span, pointAt, setPointAt))
		}, "b"},
		{"field in both", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, offset, keys.String("series", pointSeries, setPointSeries))
		}, "series"},
		{"undecodable row-key field", func(s *WideSpec[point]) {
			s.Key = layout(t, keys.String("series", pointSeries, nil), base)
		}, "series"},
		{"undecodable qualifier field", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, offset, keys.String("tag", pointTag, nil))
		}, "tag"},
		{"hash in the qualifier", func(s *WideSpec[point]) {
			s.Qualifier = layout(t, offset, keys.MD5("tag_md5", 4, pointTag))
		}, "tag_md5"},
		{"salted row key", func(s *WideSpec[point]) {
			s.Key = layout(t, keys.Salt[point]("salt", 4, nil, nil), series, base)
		}, "salt"},
		{"value without a name", func(s *WideSpec[point]) { s.Value.Name = "" }, "value"},
		{"value named as a key field", func(s *WideSpec[point]) { s.Value.Name = "series" }, "series"},
		{"value with a qualifier", func(s *WideSpec[point]) { s.Value.Qualifier = "v" }, "value"},
		{"value in an undeclared family", func(s *WideSpec[point]) { s.Value.Family = "x" }, "value"},
		{"value without Set", func(s *WideSpec[point]) { s.Value.Set = nil }, "value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := good()
			tt.edit(&spec)
			_, err := NewWide(spec)
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalidTable) || se.Field != tt.field || se.Table != "points" {
				t.Errorf("got %v (%#v), want a *schema.Error of ErrInvalidTable on field %q of table points", err, se, tt.field)
			}
		})
	}
	// A derived row-key segment (a hash of a field kept elsewhere) is fine.
	spec := good()
	spec.Key = layout(t, keys.HashBucketByte("b", 8, pointSeries, nil), series, base)
	if _, err := NewWide(spec); err != nil {
		t.Errorf("hash bucket before the series: %v", err)
	}
}

// TestWideRoundTrip writes cells of random instants and reads each back
// whole, with its timestamp exact, and checks that cells sort as (series,
// time).
func TestWideRoundTrip(t *testing.T) {
	w, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Fields(); fmt.Sprint(got) != "[host_id event_id ts message]" {
		t.Errorf("Fields() = %v", got)
	}
	start := time.Date(2017, 8, 22, 6, 0, 0, 0, time.UTC)
	var c WideCell
	for i := range 2_000 {
		in := seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: "h1", At: start.Add(time.Duration(i*7919) * time.Millisecond), Message: fmt.Sprint("m", i)}, HostID: 7, EventID: 3}
		if err := w.EncodeCell(&c, &in); err != nil {
			t.Fatal(err)
		}
		if len(c.Row) != 14 || len(c.Qualifier) != 3 {
			t.Fatalf("row %x qualifier %x: want 14 and 3 bytes", c.Row, c.Qualifier)
		}
		var out seeds.UIDLogEvent
		if err := w.DecodeCell(c.Row, c.Qualifier, c.Value, &out); err != nil {
			t.Fatal(err)
		}
		if !out.At.Equal(in.At) || out.HostID != 7 || out.EventID != 3 || out.Message != in.Message {
			t.Fatalf("got %+v, want %+v", out, in)
		}
	}
	var bad seeds.UIDLogEvent
	bad.HostID = 1 << 30 // wider than 3 bytes
	if err := w.EncodeCell(&c, &bad); !errors.Is(err, ErrInvalidKey) || c.Row != nil {
		t.Errorf("got %v and row %x, want ErrInvalidKey and an empty cell", err, c.Row)
	}
}

func TestGoldenLogDataWide(t *testing.T) {
	w, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	var g goldenWriter
	g.header(w)
	for _, s := range w.QualifierSegments() {
		fmt.Fprintf(&g.Buffer, "qualifier segment %s kind=%q width=%d order=%s decodable=%t span=%s\n", s.Name, s.Kind, s.Width, s.Order, s.Decodable, s.Span)
	}
	var c WideCell
	for _, in := range []seeds.UIDLogEvent{
		{LogEvent: seeds.LogEvent{Host: "web01", Event: "login", At: time.UnixMilli(1503382954000).UTC(), Message: "ok"}, HostID: 1, EventID: 1},
		{LogEvent: seeds.LogEvent{Host: "web01", Event: "login", At: time.UnixMilli(1503382954001).UTC(), Message: "ok"}, HostID: 1, EventID: 1},
		{LogEvent: seeds.LogEvent{Host: "web01", Event: "login", At: time.UnixMilli(1503383100000).UTC(), Message: "next range"}, HostID: 1, EventID: 1},
		{LogEvent: seeds.LogEvent{Host: "db02", Event: "error", At: time.UnixMilli(1503382954000).UTC(), Message: "disk full"}, HostID: 2, EventID: 513},
	} {
		if err := w.EncodeCell(&c, &in); err != nil {
			t.Fatal(err)
		}
		parts, err := w.KeyParts(c.Row)
		if err != nil {
			t.Fatal(err)
		}
		qparts, err := w.QualifierParts(c.Qualifier)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&g.Buffer, "\ninput host=%q(id %d) event=%q(id %d) at=%s\n", in.Host, in.HostID, in.Event, in.EventID, in.At.Format(time.RFC3339Nano))
		fmt.Fprintf(&g.Buffer, "  key  %s\n  hex  %s\n  len  %d\n", QuoteKey(c.Row), hex.EncodeToString(c.Row), len(c.Row))
		for _, p := range parts {
			fmt.Fprintf(&g.Buffer, "  part %s\n", p)
		}
		fmt.Fprintf(&g.Buffer, "  qualifier %s hex %s\n", QuoteKey(c.Qualifier), hex.EncodeToString(c.Qualifier))
		for _, p := range qparts {
			fmt.Fprintf(&g.Buffer, "  qualifier part %s\n", p)
		}
		fmt.Fprintf(&g.Buffer, "  cell %s:%s = %s\n", w.Family(), hex.EncodeToString(c.Qualifier), QuoteKey(c.Value))
	}
	checkGolden(t, "log_data_wide", g.Bytes())
}

// FuzzWideDecodeCell: arbitrary row keys, qualifiers and values from the
// network decode into LogDataWide's record or fail with a *Error, never
// panic; what decodes encodes back to the same bytes.
func FuzzWideDecodeCell(f *testing.F) {
	w, err := seeds.LogDataWide()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("\x06\x00\x00\x01\x00\x01\x80\x00\x01^\x08\x99\x06\x80"), []byte("\x02Y\x90"), []byte("ok"))
	f.Add([]byte("\x06\x00\x00\x01\x00\x01\x80\x00\x01^\x08\x99\x06\x81"), []byte("\x04\x93\xe0"), []byte{})
	f.Add([]byte{}, []byte{}, []byte(nil))
	f.Fuzz(func(t *testing.T, row, qual, value []byte) {
		var v seeds.UIDLogEvent
		if err := w.DecodeCell(row, qual, value, &v); err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T (%v), want *schema.Error", err, err)
			}
			return
		}
		var c WideCell
		if err := w.EncodeKey(&c, &v); err != nil {
			t.Fatalf("decoded %+v does not encode: %v", v, err)
		}
		// The host bucket is a hash of the name, which a cell does not
		// hold: compare what follows it.
		if string(c.Row[1:]) != string(row[1:]) || string(c.Qualifier) != string(qual) {
			t.Fatalf("row %x qualifier %x came back as %x %x", row, qual, c.Row, c.Qualifier)
		}
	})
}

func TestWideValidate(t *testing.T) {
	span := time.Minute
	w, err := NewWide(WideSpec[point]{
		Name: "points", Families: []Family{{Name: "d"}},
		Key:       layout(t, keys.String("series", pointSeries, setPointSeries), keys.TimeBase("at", span, pointAt, setPointAt)),
		Qualifier: layout(t, keys.TimeOffset("at", span, pointAt, setPointAt)),
		Value:     pointValue(),
		Validate: func(p *point) error {
			if p.Value == "" {
				return Invalid("value", "empty")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var c WideCell
	err = w.EncodeCell(&c, &point{Series: "s", At: 1})
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, ErrInvalidRecord) || se.Field != "value" || c.Row != nil {
		t.Errorf("got %v, row %x; want ErrInvalidRecord on field value and an empty cell", err, c.Row)
	}
	if err := w.EncodeCell(&c, &point{Series: "s", At: 61_001, Value: "v"}); err != nil || len(c.Value) != 1 {
		t.Errorf("a valid record: %v, value %q", err, c.Value)
	}
	// Deletes and reads encode the key without the check.
	if err := w.EncodeKey(&c, &point{Series: "s", At: 1}); err != nil || c.Value != nil {
		t.Errorf("EncodeKey: %v, value %q", err, c.Value)
	}
}
