package schema_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// A wide row read without its record type: the row key's segments (ids
// of UID segments as numbers) and each cell's qualifier fields and value;
// row keys and ranges come from row-key fields given as text.
func TestWideViewRow(t *testing.T) {
	w, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 1, 30, 500e6, time.UTC)
	e := seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: "web1", Event: "login", At: at, Message: "ok"}, HostID: 3, EventID: 7}
	var c schema.WideCell
	if err := w.EncodeCell(&c, &e); err != nil {
		t.Fatal(err)
	}
	v, err := w.ViewRow(c.Row, []schema.Cell{{Family: w.Family(), Qualifier: string(c.Qualifier), Value: c.Value}})
	if err != nil {
		t.Fatal(err)
	}
	base := at.Truncate(seeds.LogWideSpan)
	got := map[string]any{}
	for _, s := range v.Segments {
		got[s.Name] = s.Value
	}
	if len(v.Segments) != 4 || got["ts"] != base || !v.Segments[0].Derived {
		t.Errorf("segments: %+v; want 4, ts %v, a derived bucket first", v.Segments, base)
	}
	for _, s := range v.Segments[1:3] {
		if s.Value != uint64(3) && s.Value != uint64(7) {
			t.Errorf("UID segment %s: got %v (%T), want its id", s.Name, s.Value, s.Value)
		}
	}
	if len(v.Cells) != 1 || v.Cells[0].Value != "ok" || len(v.Cells[0].QualifierParts) != 1 ||
		v.Cells[0].QualifierParts[0].Value != at.Sub(base).String() {
		t.Errorf("cell: %+v; want message ok at offset %v", v.Cells, at.Sub(base))
	}

	var fields []schema.FieldText
	for _, s := range v.Segments[1:] {
		text := ""
		switch x := s.Value.(type) {
		case uint64:
			text = strconv.FormatUint(x, 10)
		case time.Time:
			text = at.Format(time.RFC3339Nano) // any time of the row's range
		}
		fields = append(fields, schema.FieldText{Field: s.Name, Text: text})
	}
	// The bucket hashes the host's name, which ids do not give: one key
	// per bucket, one of them the row's.
	keys, err := w.RowKeys(fields)
	if err != nil || len(keys) != seeds.LogDataWideRegions || !slices.ContainsFunc(keys, func(k []byte) bool { return string(k) == string(c.Row) }) {
		t.Errorf("RowKeys(%v): got %q, %v; want one key per bucket, %q among them", fields, keys, err, c.Row)
	}
	rs, err := w.KeyRanges(schema.TextQuery{Eq: fields[:1]})
	if err != nil || len(rs) != seeds.LogDataWideRegions {
		t.Errorf("eq host id: got %d ranges, %v; want one per host bucket (%d)", len(rs), err, seeds.LogDataWideRegions)
	}
}
