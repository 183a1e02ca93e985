package schema_test

import (
	"errors"
	"strings"
	"testing"

	. "github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"

	"github.com/hbkit/hbkit/keys"
)

// TestDocumentGolden pins the documents of the built-in schemas
// (testdata/document_*.golden; go test ./schema -update rewrites them).
func TestDocumentGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func() (Document, error)
	}{
		{"sms", docOf(seeds.SMSTable)},
		{"test_table", docOf(seeds.TestTable)},
		{"log_data_bucketed", docOf(seeds.LogDataBucketed)},
		{"log_data_by_host", docOf(seeds.LogDataByHost)},
		{"log_data_md5", docOf(seeds.LogDataMD5)},
		{"customer_order", docOf(seeds.CustomerOrderTable)},
		{"order_md5", docOf(seeds.OrderMD5Table)},
		{"log_types", docOf(seeds.LogTypes)},
		{"log_data_uid", docOf(seeds.LogDataUID)},
		{"log_data_wide", func() (Document, error) {
			w, err := seeds.LogDataWide()
			if err != nil {
				return Document{}, err
			}
			return w.Document()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.doc()
			if err != nil {
				t.Fatal(err)
			}
			j, err := d.JSON()
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "document_"+c.name, j)
		})
	}
}

func docOf[T any](build func() (*Table[T], error)) func() (Document, error) {
	return func() (Document, error) {
		t, err := build()
		if err != nil {
			return Document{}, err
		}
		return t.Document()
	}
}

const minimalDoc = `{"version": 1, "name": "t", "families": [{"name": "f"}],
 "fields": [{"name": "id", "type": "string"}],
 "key": [{"name": "id", "kind": "string"}]}`

func TestParseDocumentErrors(t *testing.T) {
	if _, err := ParseDocument([]byte(minimalDoc)); err != nil {
		t.Fatalf("minimal document: %v", err)
	}
	ix := func(key string) string {
		return strings.Replace(minimalDoc, `"key":`, `"indexes": [{"name": "i", "families": [{"name": "f"}], "key": `+key+`}], "key":`, 1)
	}
	for _, c := range []struct {
		name, doc, path string
		kind            error
	}{
		{"not JSON", `{"version": 1`, "", ErrInvalidDocument},
		{"trailing data", minimalDoc + `{}`, "", ErrInvalidDocument},
		{"version", strings.Replace(minimalDoc, `"version": 1`, `"version": 2`, 1), "version", ErrDocumentVersion},
		{"no version", strings.Replace(minimalDoc, `"version": 1,`, ``, 1), "version", ErrDocumentVersion},
		{"unknown field", strings.Replace(minimalDoc, `"name": "t"`, `"name": "t", "colour": 1`, 1), "colour", ErrInvalidDocument},
		{"unknown nested field", strings.Replace(minimalDoc, `"kind": "string"`, `"kind": "string", "wdth": 3`, 1), "key[0].wdth", ErrInvalidDocument},
		{"wrong type", strings.Replace(minimalDoc, `"kind": "string"`, `"kind": 7`, 1), "key[0].kind", ErrInvalidDocument},
		{"bad kind", strings.Replace(minimalDoc, `"kind": "string"`, `"kind": "strang"`, 1), "key[0].kind", ErrInvalidDocument},
		{"missing width", ix(`[{"name": "x", "kind": "literal", "value": "x"}, {"name": "y", "kind": "literal", "value": "y"}, {"name": "id", "kind": "digits"}]`), "indexes[0].key[2].width", ErrInvalidDocument},
		{"unused parameter", strings.Replace(minimalDoc, `"kind": "string"`, `"kind": "string", "buckets": 3`, 1), "key[0].buckets", ErrInvalidDocument},
		{"undeclared field", strings.Replace(minimalDoc, `"name": "id", "kind"`, `"name": "other", "kind"`, 1), "key[0].name", ErrInvalidDocument},
		{"bad zone", strings.Replace(minimalDoc, `{"name": "id", "kind": "string"}`, `{"name": "d", "kind": "date", "from": "id", "zone": "Mars/Base"}`, 1), "key[0].zone", ErrInvalidDocument},
		{"bad part", strings.Replace(minimalDoc, `{"name": "id", "kind": "string"}`, `{"kind": "joined", "delimiter": "_", "parts": [{"name": "id", "kind": "string"}]}`, 1), "key[0].parts[0].kind", ErrInvalidDocument},
		{"bad column type", strings.Replace(minimalDoc, `"key":`, `"columns": [{"name": "id", "family": "f", "type": "int8"}], "key":`, 1), "columns[0].type", ErrInvalidDocument},
		{"no families", strings.Replace(minimalDoc, `[{"name": "f"}]`, `[]`, 1), "families", ErrInvalidDocument},
		{"two splits", strings.Replace(minimalDoc, `"key":`, `"splits": {"regions": 2, "keys": ["a"]}, "key":`, 1), "splits", ErrInvalidDocument},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument([]byte(c.doc))
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, c.kind) || se.Field != c.path {
				t.Fatalf("got %v (field %q), want a *Error of kind %v at %q", err, fieldOf(se), c.kind, c.path)
			}
		})
	}
}

func fieldOf(se *Error) string {
	if se == nil {
		return ""
	}
	return se.Field
}

func TestParseDocumentTooLarge(t *testing.T) {
	big := strings.Replace(minimalDoc, `"name": "t"`, `"name": "t", "writes": "`+strings.Repeat("x", MaxDocumentSize)+`"`, 1)
	if _, err := ParseDocument([]byte(big)); !errors.Is(err, ErrInvalidDocument) {
		t.Fatalf("got %v, want ErrInvalidDocument", err)
	}
	if _, err := ReadDocument(strings.NewReader(big)); !errors.Is(err, ErrInvalidDocument) {
		t.Fatalf("ReadDocument: got %v, want ErrInvalidDocument", err)
	}
}

func TestFromDocumentErrors(t *testing.T) {
	doc, err := ParseDocument([]byte(minimalDoc))
	if err != nil {
		t.Fatal(err)
	}
	wide := doc
	if _, err := OpenWide(wide); !errors.Is(err, ErrInvalidDocument) {
		t.Errorf("OpenWide of a table: %v", err)
	}
	clock := doc
	clock.Fields = append(clock.Fields, DocField{Name: "at", Type: "time"})
	clock.Key = append(clock.Key, DocSegment{Name: "at", Kind: "reversed_time_of_day"})
	if _, err := Open(clock); !errors.Is(err, ErrInvalidDocument) || !strings.Contains(err.Error(), "key[1].decodable") {
		t.Errorf("decodable time of day of a time field: %v, want ErrInvalidDocument at key[1].decodable", err)
	}
	doc.Fields[0].Type = "int64"
	if _, err := Open(doc); !errors.Is(err, ErrInvalidDocument) || !strings.Contains(err.Error(), "key[0]") {
		t.Errorf("string segment over an int64 field: %v, want ErrInvalidDocument at key[0]", err)
	}
}

// FuzzParseDocument: arbitrary input is an error or a document that
// survives its JSON round trip and opens or fails with an error, never a
// panic.
func FuzzParseDocument(f *testing.F) {
	f.Add([]byte(minimalDoc))
	for _, build := range []func() (Document, error){docOf(seeds.SMSTable), docOf(seeds.TestTable), docOf(seeds.LogDataBucketed), docOf(seeds.LogDataUID)} {
		d, err := build()
		if err != nil {
			f.Fatal(err)
		}
		j, _ := d.JSON()
		f.Add(j)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDocument(data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *Error", err)
			}
			return
		}
		j, err := d.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseDocument(j); err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if d.Wide != nil {
			_, _ = OpenWide(d)
			return
		}
		_, _ = Open(d)
	})
}

// TestDocumentNamesWhatItCannotHold: a hash computed from a field the
// declaration does not name is an error, not a guess.
func TestDocumentNamesWhatItCannotHold(t *testing.T) {
	key, err := keys.NewLayout(
		keys.MD5Hex("id_md5", 4, func(u *seeds.User) string { return u.UID }),
		keys.String("uid", func(u *seeds.User) string { return u.UID }, func(u *seeds.User, v string) { u.UID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := New(Spec[seeds.User]{Name: "users", Families: []Family{{Name: "f"}}, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	var se *Error
	if _, err := tbl.Document(); !errors.Is(err, ErrUnknownField) || !errors.As(err, &se) || se.Field != "key[0]" {
		t.Errorf("Document = %v, want ErrUnknownField at key[0]", err)
	}
}
