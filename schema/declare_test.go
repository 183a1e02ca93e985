package schema

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// benchUserDoc is benchUsersTable written as a document: every field is
// named once, by the struct.
var benchUserDoc = Document{
	Name:     "users",
	Families: []DocFamily{{Name: "f"}},
	Key:      []DocSegment{{Name: "uid_md5", Kind: "md5_hex", Width: 4, From: "uid"}, {Name: "uid", Kind: "string"}},
	Columns: []DocColumn{
		{Name: "name", Family: "f", Qualifier: "n"}, {Name: "province", Family: "f", Qualifier: "p"},
		{Name: "age", Family: "f", Qualifier: "a"}, {Name: "joined", Family: "f", Qualifier: "j"},
	},
	Indexes: []DocIndex{{
		Name: "users_by_region", Families: []DocFamily{{Name: "f"}},
		Key: []DocSegment{{Name: "province", Kind: "string"}, {Name: "age", Kind: "decimal", Width: 3}, {Name: "uid", Kind: "string"}},
	}},
}

func mustBind(tb testing.TB) *Table[benchUser] {
	tb.Helper()
	tbl, err := Bind[benchUser](benchUserDoc)
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// TestBindLikeHand: the table Bind builds from a document and a struct
// writes the bytes of the table declared with hand-written closures, and
// reads them back.
func TestBindLikeHand(t *testing.T) {
	hand, _ := benchUsersTable(t, handAccessors())
	bound := mustBind(t)
	var want, got Record
	if err := hand.EncodeRecord(&want, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	if err := bound.EncodeRecord(&got, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	same := func(a, b Row) bool {
		return bytes.Equal(a.Key, b.Key) && slices.EqualFunc(a.Cells, b.Cells, func(x, y Cell) bool {
			return x.Family == y.Family && x.Qualifier == y.Qualifier && bytes.Equal(x.Value, y.Value)
		})
	}
	if !same(want.Data, got.Data) || len(got.Entries) != 1 || !same(want.Entries[0], got.Entries[0]) {
		t.Errorf("Bind encodes\n%s %+v\n%s %+v\nhand-written\n%s %+v\n%s %+v",
			QuoteKey(got.Data.Key), got.Data.Cells, QuoteKey(got.Entries[0].Key), got.Entries[0].Cells,
			QuoteKey(want.Data.Key), want.Data.Cells, QuoteKey(want.Entries[0].Key), want.Entries[0].Cells)
	}
	var out benchUser
	if err := bound.DecodeRow(got.Data.Key, got.Data.Cells, &out); err != nil {
		t.Fatal(err)
	}
	if out != benchUserRecord {
		t.Errorf("decoded %+v, want %+v", out, benchUserRecord)
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, func() { _ = bound.EncodeRecord(&got, &benchUserRecord) }); n != 0 {
		t.Errorf("EncodeRecord of a bound table: %v allocations, want 0", n)
	}
}

// TestBindCompletes: the document of a bound table holds what Bind took
// from the struct, and opening that document as it is gives the same
// table.
func TestBindCompletes(t *testing.T) {
	bound := mustBind(t)
	doc, err := bound.Document()
	if err != nil {
		t.Fatal(err)
	}
	wantFields := []DocField{{"uid", "string"}, {"name", "string"}, {"province", "string"}, {"age", "int64"}, {"joined", "time"}}
	if doc.Version != DocumentVersion || !slices.Equal(doc.Fields, wantFields) {
		t.Errorf("version %d, fields %+v; want %d, %+v", doc.Version, doc.Fields, DocumentVersion, wantFields)
	}
	var types []string
	for _, c := range doc.Columns {
		types = append(types, c.Type)
	}
	if want := []string{"string", "string", "int64", "time"}; !slices.Equal(types, want) {
		t.Errorf("column types %q, want %q", types, want)
	}
	if len(doc.Indexes) != 1 || doc.Indexes[0].RowKeyQualifier != "row" {
		t.Errorf("indexes %+v, want one with RowKeyQualifier row", doc.Indexes)
	}
	fs, err := StructFields[benchUser]()
	if err != nil {
		t.Fatal(err)
	}
	again, err := FromDocument(doc, fs)
	if err != nil {
		t.Fatal(err)
	}
	var a, b Record
	if err := bound.EncodeRecord(&a, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	if err := again.EncodeRecord(&b, &benchUserRecord); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Data.Key, b.Data.Key) || !bytes.Equal(a.Entries[0].Key, b.Entries[0].Key) {
		t.Errorf("reopened document encodes %s %s, want %s %s", QuoteKey(b.Data.Key), QuoteKey(b.Entries[0].Key),
			QuoteKey(a.Data.Key), QuoteKey(a.Entries[0].Key))
	}
}

func TestBindErrors(t *testing.T) {
	_, err := Bind[string](benchUserDoc)
	if !errors.Is(err, ErrFieldType) {
		t.Errorf("Bind[string]: got %v, want ErrFieldType", err)
	}
	doc := benchUserDoc
	doc.Key = []DocSegment{{Name: "user", Kind: "string"}}
	_, err = Bind[benchUser](doc)
	var se *Error
	if !errors.Is(err, ErrInvalidDocument) || !errors.As(err, &se) || se.Field != "key[0].name" {
		t.Errorf("Bind with key field user: got %v, want ErrInvalidDocument at key[0].name", err)
	}
}
