package schema_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func smsForView(t *testing.T) (*schema.Table[seeds.SMS], seeds.SMS, schema.Row) {
	t.Helper()
	tb, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	m := seeds.SMS{Mobile: "13812345678", SentAt: time.Date(2026, 11, 23, 10, 0, 0, 123e6, time.UTC), Seq: 7,
		Account: "acme", Content: "hello", Delivered: true}
	var r schema.Row
	if err := tb.EncodeRow(&r, &m); err != nil {
		t.Fatal(err)
	}
	return tb, m, r
}

func TestViewRow(t *testing.T) {
	tb, m, r := smsForView(t)
	cells := append(r.Cells, schema.Cell{Family: "cf", Qualifier: "zz", Value: []byte{1, 2}})
	v, err := tb.ViewRow(r.Key, cells)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"13812345678", m.SentAt, uint64(7)}
	if len(v.Segments) != len(want) {
		t.Fatalf("got %d segments, want %d", len(v.Segments), len(want))
	}
	for i, w := range want {
		if got := v.Segments[i].Value; got != w {
			t.Errorf("segment %s: got %v, want %v", v.Segments[i].Name, got, w)
		}
		if v.Segments[i].Derived {
			t.Errorf("segment %s: derived", v.Segments[i].Name)
		}
	}
	wantCells := map[string]any{"account": "acme", "content": "hello", "delivered": true}
	for _, c := range v.Cells {
		if c.Column.Name == "" {
			if c.Qualifier != "zz" || !bytes.Equal(c.Value.([]byte), []byte{1, 2}) {
				t.Errorf("undeclared cell: got %+v", c)
			}
			continue
		}
		if c.Value != wantCells[c.Column.Name] {
			t.Errorf("column %s: got %v, want %v", c.Column.Name, c.Value, wantCells[c.Column.Name])
		}
	}

	// A bad cell and a key that does not decode.
	v, err = tb.ViewRow(r.Key[:15], []schema.Cell{{Family: "cf", Qualifier: "d", Value: []byte{1, 2}}})
	if !errors.Is(err, schema.ErrInvalidKey) || len(v.Segments) != 1 {
		t.Errorf("short key: got %d segments, %v; want 1 and ErrInvalidKey", len(v.Segments), err)
	}
	if len(v.Cells) != 1 || !errors.Is(v.Cells[0].Err, schema.ErrInvalidValue) {
		t.Errorf("2-byte bool: got %+v, want ErrInvalidValue", v.Cells)
	}
}

func TestRowKeysAndRanges(t *testing.T) {
	tb, m, r := smsForView(t)
	ix, _ := tb.Index(seeds.SMSIndexTableName)
	ft := func(f, s string) schema.FieldText { return schema.FieldText{Field: f, Text: s} }
	full := []schema.FieldText{ft("mobile", "13812345678"), ft("sent", "2026-11-23T10:00:00.123Z"), ft("unique", "7")}
	ks, err := tb.RowKeys(full)
	if err != nil || len(ks) != 1 || !bytes.Equal(ks[0], r.Key) {
		t.Fatalf("RowKeys: got %q, %v; want %q", ks, err, r.Key)
	}
	start, stop, err := tb.Key().PrefixRange(&m, 1)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := tb.KeyRanges(schema.TextQuery{Eq: full[:1]})
	if err != nil || len(rs) != 1 || !bytes.Equal(rs[0].Start, start) || !bytes.Equal(rs[0].Stop, stop) {
		t.Errorf("eq mobile: got %q, %v; want [%q, %q)", rs, err, start, stop)
	}
	// On the index, the leading bucket is computed from the mobile given.
	var entry schema.Row
	if err := ix.EncodeEntry(&entry, &m); err != nil {
		t.Fatal(err)
	}
	rs, err = ix.KeyRanges(schema.TextQuery{Eq: full[:1]})
	if err != nil || len(rs) != 1 || !rs[0].Contains(entry.Key) || rs[0].Start[0] != entry.Key[0] {
		t.Errorf("index eq mobile: got %q, %v; want one range holding %q", rs, err, entry.Key)
	}

	// Time bounds on a reversed timestamp: from and to in time order.
	before, after := m.SentAt.Add(-time.Second), m.SentAt.Add(time.Second)
	inside := func(q schema.TextQuery) bool {
		t.Helper()
		rs, err := tb.KeyRanges(q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		for _, kr := range rs {
			if kr.Contains(r.Key) {
				return true
			}
		}
		return false
	}
	at := func(tm time.Time) *schema.FieldText { f := ft("sent", tm.Format(keys.TimeLayout)); return &f }
	for _, c := range []struct {
		name string
		lo   *schema.FieldText
		hi   *schema.FieldText
		want bool
	}{
		{"around", at(before), at(after), true},
		{"from before", at(before), nil, true},
		{"from after", at(after), nil, false},
		{"to after", nil, at(after), true},
		{"to before", nil, at(before), false},
		{"exactly", at(m.SentAt), at(m.SentAt), true},
	} {
		if got := inside(schema.TextQuery{Eq: full[:1], Lo: c.lo, Hi: c.hi}); got != c.want {
			t.Errorf("%s: row in range: got %v, want %v", c.name, got, c.want)
		}
	}

	for _, c := range []struct {
		name string
		q    schema.TextQuery
		want error
	}{
		{"unknown field", schema.TextQuery{Eq: []schema.FieldText{ft("nope", "1")}}, schema.ErrUnknownField},
		{"bad digits", schema.TextQuery{Eq: []schema.FieldText{ft("mobile", "12x")}}, schema.ErrInvalidKey},
		{"bad time", schema.TextQuery{Eq: full[:1], Lo: &schema.FieldText{Field: "sent", Text: "yesterday"}}, schema.ErrInvalidKey},
		{"not a prefix", schema.TextQuery{Eq: []schema.FieldText{ft("sent", "2026-11-23")}}, schema.ErrInvalidKey},
		{"unordered bound", schema.TextQuery{Lo: &schema.FieldText{Field: "mobile", Text: "13812345678"}}, schema.ErrInvalidValue},
		{"twice", schema.TextQuery{Eq: []schema.FieldText{full[0], full[0]}}, schema.ErrInvalidValue},
	} {
		if _, err := tb.KeyRanges(c.q); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := tb.RowKeys(full[:2]); !errors.Is(err, schema.ErrInvalidKey) {
		t.Errorf("RowKeys without unique: got %v, want ErrInvalidKey", err)
	}
}

func TestAsViewerRenamed(t *testing.T) {
	tb, _, _ := smsForView(t)
	name, _ := schema.ParseTableName("other")
	v, ok := schema.AsViewer(schema.Renamed(tb, name))
	if !ok || v.Name() != name {
		t.Fatalf("AsViewer(Renamed): got %v, %v", v, ok)
	}
}

// Spec.From: a hash computed from a field is computed from the value a
// read gives, so one range serves it; New checks the mapping.
func TestSpecFrom(t *testing.T) {
	tb, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	u := seeds.User{UID: "u42"}
	start, stop, err := tb.Key().PrefixRange(&u, 2)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := tb.KeyRanges(schema.TextQuery{Eq: []schema.FieldText{{Field: "uid", Text: "u42"}}})
	if err != nil || len(rs) != 1 || !bytes.Equal(rs[0].Start, start) || !bytes.Equal(rs[0].Stop, stop) {
		t.Errorf("eq uid: got %q, %v; want [%q, %q)", rs, err, start, stop)
	}
	md5, err := seeds.LogDataMD5()
	if err != nil {
		t.Fatal(err)
	}
	rs, err = md5.KeyRanges(schema.TextQuery{Eq: []schema.FieldText{{Field: "host", Text: "web1"}, {Field: "event", Text: "login"}}})
	if err != nil || len(rs) != 1 || len(rs[0].Start) != 32 {
		t.Errorf("LogDataMD5 eq host, event: got %q, %v; want one range on both hashes", rs, err)
	}

	layout, err := keys.NewLayout(
		keys.MD5Hex("h", 4, func(u *seeds.User) string { return u.UID }),
		keys.String("uid", func(u *seeds.User) string { return u.UID }, func(u *seeds.User, v string) { u.UID = v }))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		from map[string]string
		want error
	}{
		{"fine", map[string]string{"h": "uid"}, nil},
		{"no such segment", map[string]string{"x": "uid"}, schema.ErrUnknownField},
		{"no such field", map[string]string{"h": "name"}, schema.ErrUnknownField},
	} {
		_, err := schema.New(schema.Spec[seeds.User]{Name: "t", Families: []schema.Family{{Name: "f"}}, Key: layout, From: c.from})
		if !errors.Is(err, c.want) && (c.want != nil || err != nil) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}
