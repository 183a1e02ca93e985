package schema_test

import (
	"bytes"
	"errors"
	"testing"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// invertedSpec is userSpec's TestTable with an inverted index keyed
// province_age, its qualifier laid out by qual.
func invertedSpec(t *testing.T, qual ...keys.Field[seeds.User]) Spec[seeds.User] {
	t.Helper()
	spec := userSpec(t, nil, keys.Joined("_", joinedProvince, joinedAge)...)
	q, err := keys.NewLayout(qual...)
	if err != nil {
		t.Fatal(err)
	}
	spec.Indexes[0].Qualifier = q
	return spec
}

var trailingUID = keys.TrailingString("uid", func(u *seeds.User) string { return u.UID }, func(u *seeds.User, v string) { u.UID = v })

func TestInvertedIndexDeclaration(t *testing.T) {
	md5 := keys.MD5Hex("uid", 6, func(u *seeds.User) string { return u.UID }) // a field, hashed
	for _, tc := range []struct {
		name  string
		edit  func(*Spec[seeds.User])
		qual  []keys.Field[seeds.User]
		kind  error
		field string
	}{
		{"seed 001: qualifier uid", nil, []keys.Field[seeds.User]{trailingUID}, nil, ""},
		{"qualifier of a hash only", nil, []keys.Field[seeds.User]{md5}, ErrInvalidTable, "index user_by_province_age: qualifier segment uid"},
		{"qualifier of a non-key field", nil, []keys.Field[seeds.User]{userProvince}, ErrInvalidTable, "index user_by_province_age: qualifier segment province"},
		{"qualifier of a key field and a column", nil, []keys.Field[seeds.User]{userProvince, trailingUID}, ErrInvalidTable, "index user_by_province_age: qualifier segment province"},
		{"qualifier of the key field, encoded otherwise", nil, []keys.Field[seeds.User]{keys.String("uid", func(u *seeds.User) string { return u.UID }, func(u *seeds.User, v string) { u.UID = v })}, nil, ""},
		{"qualifier of an unknown field", nil, []keys.Field[seeds.User]{keys.String("nick", func(*seeds.User) string { return "" }, func(*seeds.User, string) {})}, ErrUnknownField, "index user_by_province_age: qualifier segment nick"},
		{"row key cell", func(s *Spec[seeds.User]) { s.Indexes[0].RowKeyQualifier = "row" }, []keys.Field[seeds.User]{trailingUID}, ErrInvalidTable, "index user_by_province_age: row key qualifier"},
		{"carried columns", func(s *Spec[seeds.User]) { s.Indexes[0].Columns = []string{"age"} }, []keys.Field[seeds.User]{trailingUID}, ErrInvalidTable, "index user_by_province_age: columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := invertedSpec(t, tc.qual...)
			if tc.edit != nil {
				tc.edit(&spec)
			}
			tbl, err := New(spec)
			if tc.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				if ix := tbl.Indexes()[0]; !ix.Inverted() {
					t.Fatal("index not inverted")
				}
				return
			}
			var se *Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &se) || se.Field != tc.field {
				t.Fatalf("got %v, want a *Error of kind %v on %q", err, tc.kind, tc.field)
			}
		})
	}
}

// TestInvertedEntryRoundTrip: an entry is the record's cell in the row of
// its value; the qualifier gives back the data row key and the key fields.
func TestInvertedEntryRoundTrip(t *testing.T) {
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := tbl.Index(seeds.TestTableIndexName)
	u := seeds.User{UID: "10001", Province: "辽宁省", Age: 20, Gender: "m"}
	var r Row
	if err := ix.EncodeEntry(&r, &u); err != nil {
		t.Fatal(err)
	}
	if string(r.Key) != "辽宁省_20" || len(r.Cells) != 1 || r.Cells[0].Family != "user" || r.Cells[0].Qualifier != "10001" || string(r.Cells[0].Value) != "1" {
		t.Fatalf("entry %q %+v, want row 辽宁省_20, cell user:10001 = 1", r.Key, r.Cells)
	}
	dataKey, err := tbl.AppendKey(nil, &u)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.DataKeyOf([]byte("10001"))
	if err != nil || !bytes.Equal(got, dataKey) {
		t.Fatalf("DataKeyOf: got %x, %v; want %x", got, err, dataKey)
	}
	q, err := ix.QualifierOf(dataKey)
	if err != nil || string(q) != "10001" {
		t.Fatalf("QualifierOf: got %q, %v; want 10001", q, err)
	}
	var back seeds.User
	if err := ix.DecodeEntry(r.Key, r.Cells, &back); err != nil {
		t.Fatal(err)
	}
	if back.UID != u.UID || back.Province != u.Province || back.Age != u.Age {
		t.Fatalf("DecodeEntry: got %+v, want %+v", back, u)
	}
	if _, err := ix.DataKeyOf(nil); err != nil {
		// An empty uid is a valid trailing string: it must still make a key.
		t.Fatalf("DataKeyOf(empty): %v", err)
	}
	sms, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sms.Indexes()[0].DataKeyOf([]byte("x")); !errors.Is(err, ErrInvalidTable) {
		t.Fatalf("DataKeyOf on a row-per-entry index: got %v, want ErrInvalidTable", err)
	}
}

// TestInvertedEmptyQualifier: a record whose qualifier encodes to nothing
// (seed 001's empty uid) has no entry: encoding it is an error, so no
// write ever addresses an empty qualifier, which a Delete would read as
// the whole family (every other user of the row).
func TestInvertedEmptyQualifier(t *testing.T) {
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := tbl.Index(seeds.TestTableIndexName)
	u := seeds.User{UID: "", Province: "辽宁省", Age: 20}
	wantEmpty := func(what string, err error) {
		t.Helper()
		var se *Error
		if !errors.Is(err, ErrInvalidKey) || !errors.As(err, &se) || se.Field != "qualifier" {
			t.Errorf("%s: got %v, want a *Error of kind ErrInvalidKey on the qualifier", what, err)
		}
	}
	var r Row
	wantEmpty("EncodeEntry", ix.EncodeEntry(&r, &u))
	var rec Record
	wantEmpty("EncodeRecord", tbl.EncodeRecord(&rec, &u))
	dst := []byte("keep")
	got, err := ix.AppendQualifier(dst, &u)
	wantEmpty("AppendQualifier", err)
	if string(got) != "keep" {
		t.Errorf("AppendQualifier on error: got %q, want dst unchanged", got)
	}
	dataKey, err := tbl.AppendKey(nil, &u)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ix.QualifierOf(dataKey)
	wantEmpty("QualifierOf", err)
	if q != nil {
		t.Errorf("QualifierOf: got %q, want nil", q)
	}
}

// TestInvertedViewRow: hbkit get and scan show an inverted row's cells as
// its entries, each qualifier cut into the key fields it holds.
func TestInvertedViewRow(t *testing.T) {
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := tbl.Index(seeds.TestTableIndexName)
	status := []byte("v\x00\x00\x00\x00\x00\x00\x00\x01")
	v, err := ix.ViewRow([]byte("辽宁省_20"), []Cell{{Family: "user", Qualifier: "10001", Value: status}, {Family: "user", Qualifier: "10002", Value: []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Segments) != 2 || len(v.Cells) != 2 {
		t.Fatalf("view: %d segments, %d cells; want 2 and 2", len(v.Segments), len(v.Cells))
	}
	for i, uid := range []string{"10001", "10002"} {
		c := v.Cells[i]
		if c.Column.Name != "entry" || c.Err != nil || len(c.QualifierParts) != 1 || c.QualifierParts[0].Segment.Name != "uid" || string(c.QualifierParts[0].Bytes) != uid {
			t.Errorf("cell %d: %+v, want an entry of uid %s", i, c, uid)
		}
	}
}
