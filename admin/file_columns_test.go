package admin_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/schema"
)

// A schema file's columns carry their types: a row of the table reads
// back typed without a record type, and keys are built from field text.
func TestSchemaFileColumns(t *testing.T) {
	defs, err := admin.LoadSchemaFile("testdata/columns.json")
	if err != nil {
		t.Fatal(err)
	}
	v, ok := schema.AsViewer(defs[0])
	if !ok {
		t.Fatal("a file-declared table is not a schema.Viewer")
	}
	wantTypes := map[string]schema.ColumnType{"name": schema.ColumnString, "age": schema.ColumnInt64, "score": schema.ColumnFloat64,
		"active": schema.ColumnBool, "joined": schema.ColumnTime, "photo": schema.ColumnBytes}
	for _, c := range v.Columns() {
		if c.Type != wantTypes[c.Name] || c.Family != "u" {
			t.Errorf("column %s: type %v family %s, want %v in u", c.Name, c.Type, c.Family, wantTypes[c.Name])
		}
	}
	keys, err := v.RowKeys([]schema.FieldText{{Field: "uid", Text: "u42"}})
	if err != nil || len(keys) != 1 {
		t.Fatalf("RowKeys: %q, %v", keys, err)
	}
	joined := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	be := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	row, err := v.ViewRow(keys[0], []schema.Cell{
		{Family: "u", Qualifier: "n", Value: []byte("张三")},
		{Family: "u", Qualifier: "a", Value: be(20)},
		{Family: "u", Qualifier: "s", Value: be(math.Float64bits(4.5))},
		{Family: "u", Qualifier: "x", Value: []byte{0xff}},
		{Family: "u", Qualifier: "j", Value: be(uint64(joined.UnixMilli()))},
		{Family: "u", Qualifier: "p", Value: []byte{0, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Segments) != 2 || row.Segments[1].Value != "u42" || !row.Segments[0].Derived {
		t.Errorf("segments: %+v", row.Segments)
	}
	want := map[string]any{"name": "张三", "age": int64(20), "score": 4.5, "active": true, "joined": joined}
	for _, c := range row.Cells {
		if c.Err != nil {
			t.Errorf("%s: %v", c.Column.Name, c.Err)
		} else if w, ok := want[c.Column.Name]; ok && c.Value != w {
			t.Errorf("%s: got %v, want %v", c.Column.Name, c.Value, w)
		}
	}

	for _, tc := range []struct{ name, columns, want string }{
		{"unknown type", `[{"name": "n", "family": "u", "qualifier": "n", "type": "text"}]`, "unknown column type"},
		{"unknown family", `[{"name": "n", "family": "v", "qualifier": "n"}]`, "family is not declared"},
		{"same cell twice", `[{"name": "a", "family": "u", "qualifier": "n"}, {"name": "b", "family": "u", "qualifier": "n"}]`, "same family and qualifier"},
		{"a key field's name", `[{"name": "uid", "family": "u", "qualifier": "n"}]`, "duplicate field name"},
		{"unknown attribute", `[{"name": "n", "family": "u", "qualifier": "n", "width": 3}]`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := `{"tables": [{"name": "t", "families": [{"name": "u"}], "key": [{"name": "uid", "kind": "string"}], "columns": ` + tc.columns + `}]}`
			_, err := admin.ParseSchemaFile(strings.NewReader(file))
			if !errors.Is(err, admin.ErrInvalidSchema) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalidSchema saying %q", err, tc.want)
			}
		})
	}
}
