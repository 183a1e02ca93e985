package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Bind builds the table doc describes over the struct type T, whose
// fields StructFields names: FromDocument(doc, StructFields[T]()), after
// completing what a document written in Go may leave out, since the
// struct says it:
//
//   - Version: DocumentVersion when zero;
//   - Fields: when the document lists none, every field of T of a type
//     Fields supports, with its type (a signed integer is "int64", an
//     unsigned one "uint64", a float "float64", []byte "bytes", a time
//     "time", a time.Duration "duration");
//   - a column's Type, when empty: the type of its field (an unsigned
//     integer is stored as "int64"; a duration or bytes stays bytes);
//   - an index's RowKeyQualifier, when the index is not inverted and
//     leaves it empty: "row" (the index protocol of package dao needs
//     each entry to carry its record's row key).
//
// Table.Document returns the completed document. opts are FromDocument's.
func Bind[T any](doc Document, opts ...Option[T]) (*Table[T], error) {
	fs, err := StructFields[T]()
	if err != nil {
		return nil, withTable(err, doc.Name)
	}
	return FromDocument(complete[T](doc, fs.(*structFields[T])), fs, opts...)
}

// complete fills in what Bind takes from the struct, on a copy.
func complete[T any](doc Document, s *structFields[T]) Document {
	if doc.Version == 0 {
		doc.Version = DocumentVersion
	}
	if len(doc.Fields) == 0 {
		for _, name := range s.names {
			if typ := docFieldType(s.byName[name].typ); typ != "" {
				doc.Fields = append(doc.Fields, DocField{Name: name, Type: typ})
			}
		}
	}
	types := make(map[string]string, len(doc.Fields))
	for _, f := range doc.Fields {
		types[f.Name] = f.Type
	}
	cols := make([]DocColumn, len(doc.Columns))
	for i, c := range doc.Columns {
		if c.Type == "" {
			switch t := types[c.Name]; t {
			case "string", "int64", "float64", "bool", "time":
				c.Type = t
			case "uint64":
				c.Type = "int64"
			}
		}
		cols[i] = c
	}
	doc.Columns = cols
	return doc.WithRowPointers()
}

// WithRowPointers returns a copy of d in which each index that is not
// inverted and names no RowKeyQualifier carries the row pointer "row":
// the index protocol of package dao needs each entry to carry its
// record's row key, and Bind completes a document so. Tools that open a
// stored document or a document file for that protocol (hbkit index)
// apply it too, so that a document that leaves the pointer out means what
// a Go store bound to it writes.
func (d Document) WithRowPointers() Document {
	ixs := make([]DocIndex, len(d.Indexes))
	for i, ix := range d.Indexes {
		if ix.RowKeyQualifier == "" && len(ix.Qualifier) == 0 {
			ix.RowKeyQualifier = "row"
		}
		ixs[i] = ix
	}
	d.Indexes = ixs
	return d
}

// docFieldType is the document type of a struct field of Go type t, or ""
// when Fields cannot read it.
func docFieldType(t reflect.Type) string {
	switch {
	case isDur(t):
		return "duration"
	case isTime(t):
		return "time"
	case isString(t):
		return "string"
	case isBytes(t):
		return "bytes"
	case isFloat(t):
		return "float64"
	case isBool(t):
		return "bool"
	case isInt(t) && t.Kind() >= reflect.Uint:
		return "uint64"
	case isInt(t):
		return "int64"
	}
	return ""
}

// StoredDocument returns the value of the table attribute
// DocumentAttribute for def: the compact JSON form of its Document, or ""
// when def does not describe itself as one (an index table, a renamed
// table). The error is Document's when def cannot describe itself.
func StoredDocument(def Definition) (string, error) {
	d, ok := def.(interface{ Document() (Document, error) })
	if !ok {
		return "", nil
	}
	doc, err := d.Document()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("schema: encode the schema document: %w", err)
	}
	return string(b), nil
}
