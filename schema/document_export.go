package schema

import (
	"encoding/hex"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hbkit/hbkit/keys"
)

// Document describes the table as data (see Document). What the
// declaration holds as functions is named in the document, not dropped: a
// custom segment records its codec's name, Validate records that the
// table checks records, and a segment computed from another field records
// it (Spec.From, IndexSpec.From). The document assumes the plain mapping
// of each kind: a time field is read as Unix milliseconds in UTC, a time
// of day in the zone of the date segment computed from the same field (or
// UTC), and a decimal segment computed from another field as that field
// modulo 10^width (seed 004's time bucket). A getter computing something
// else encodes other bytes than the document; tests compare the two.
//
// Field types are inferred from the uses of each field. A UID's name is
// taken to be the field named by its Kind. A hash segment computed from a
// field the declaration does not name is a *Error with Kind
// ErrUnknownField.
func (t *Table[T]) Document() (Document, error) {
	e := newExporter(t.name.String())
	d := Document{Version: DocumentVersion, Name: t.name.String(), Families: docFamilies(t.families), Validate: t.opaqueCheck}
	if t.writes != Strict {
		d.Writes = t.writes.String()
	}
	e.declare(t.fields)
	var err error
	if d.Key, err = e.segments("key", t.key.Segments(), t.from, t.HasField); err != nil {
		return Document{}, err
	}
	d.Columns = docColumns(e, t.columns)
	d.Splits = docSplits(t.split)
	d.UIDs = e.uids(uidsOf(t.uids))
	for i, ix := range t.indexes {
		di, err := e.index("indexes["+strconv.Itoa(i)+"]", ix)
		if err != nil {
			return Document{}, err
		}
		d.Indexes = append(d.Indexes, di)
	}
	d.Fields, err = e.fieldList()
	return d, err
}

// Document describes the wide table as data, as Table.Document does.
func (t *WideTable[T]) Document() (Document, error) {
	e := newExporter(t.name.String())
	d := Document{Version: DocumentVersion, Name: t.name.String(), Families: docFamilies(t.families), Validate: t.opaqueCheck}
	e.declare(t.fields)
	isField := func(name string) bool { return e.declared[name] }
	var err error
	if d.Key, err = e.segments("key", t.key.Segments(), t.from, isField); err != nil {
		return Document{}, err
	}
	d.Wide = &DocWide{Value: docColumns(e, []Column[T]{t.value})[0]}
	if d.Wide.Qualifier, err = e.segments("wide.qualifier", t.qual.Segments(), nil, isField); err != nil {
		return Document{}, err
	}
	d.Splits = docSplits(t.split)
	d.UIDs = e.uids(uidsOf(t.uids))
	d.Fields, err = e.fieldList()
	return d, err
}

func uidsOf[T any](us []UID[T]) []DocUID {
	out := make([]DocUID, len(us))
	for i, u := range us {
		out[i] = DocUID{Segment: u.Segment, Kind: u.Kind, Width: u.Width, Field: u.Kind}
	}
	return out
}

func (e *exporter) index(path string, ix interface {
	exportable() (DocIndex, []keys.Segment, []keys.Segment, map[string]string)
	hasField(string) bool
}) (DocIndex, error) {
	di, key, qual, from := ix.exportable()
	var err error
	if di.Key, err = e.segments(path+".key", key, from, ix.hasField); err != nil {
		return di, err
	}
	if qual != nil {
		di.Qualifier, err = e.segments(path+".qualifier", qual, nil, ix.hasField)
	}
	return di, err
}

// exportable gives what Document needs of an index.
func (ix *Index[T]) exportable() (DocIndex, []keys.Segment, []keys.Segment, map[string]string) {
	di := DocIndex{Name: ix.name.String(), Families: docFamilies(ix.families), Splits: docSplits(ix.split), RowKeyQualifier: ix.rowKeyQ}
	if ix.family != ix.families[0].Name {
		di.Family = ix.family
	}
	for _, c := range ix.columns {
		di.Columns = append(di.Columns, c.Name)
	}
	return di, ix.key.Segments(), ix.QualifierSegments(), ix.from
}

func (ix *Index[T]) hasField(name string) bool { return ix.table.HasField(name) }

// docSplits is the document form of s: regions, or keys as text when
// every key is printable UTF-8, else in hex.
func docSplits(s Splits) *DocSplits {
	switch {
	case s.Regions > 1:
		return &DocSplits{Regions: s.Regions}
	case len(s.Keys) == 0:
		return nil
	}
	out := &DocSplits{}
	text := true
	for _, k := range s.Keys {
		text = text && printable(k)
		out.Keys = append(out.Keys, string(k))
		out.HexKeys = append(out.HexKeys, hex.EncodeToString(k))
	}
	if text {
		out.HexKeys = nil
	} else {
		out.Keys = nil
	}
	return out
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// docSegmentOf converts one segment computed from field from (its own
// name when it holds its field).
func docSegmentOf(s keys.Segment, from string) DocSegment {
	d := DocSegment{Name: s.Name, Kind: kindName(s)}
	if from != s.Name {
		d.From = from
	}
	k, _ := lookupKind(d.Kind)
	if slices.Contains(k.need, "width") || (k.kind == keys.KindCustom && s.Width > 0) {
		d.Width = s.Width
	}
	switch k.kind {
	case keys.KindLiteral:
		d.Value = s.Literal
	case keys.KindFixed:
		d.Pad = int(s.Pad)
	case keys.KindBucket, keys.KindBucketByte, keys.KindSalt, keys.KindJavaPartition:
		d.Buckets = int(s.Keyspace.Count)
	case keys.KindDate:
		if s.Location != nil && s.Location != time.UTC {
			d.Zone = s.Location.String()
		}
	case keys.KindTimeBase, keys.KindTimeOffset:
		d.Span = s.Span.String()
	case keys.KindCustom:
		d.Codec = s.Codec
	}
	if s.Rule != 0 {
		d.Rule = s.Rule.String()
	}
	if k.kind == keys.KindDecimal && d.From != "" && !s.Decodable {
		d.Modulo = pow10(s.Width)
	}
	if s.Decodable != d.decodes(k) {
		v := s.Decodable
		d.Decodable = &v
	}
	return d
}

func pow10(n int) uint64 {
	v := uint64(1)
	for range n {
		v *= 10
	}
	return v
}

// kindName is the document kind of a segment.
func kindName(s keys.Segment) string {
	if s.Kind == keys.KindBucket && s.Rule != 0 {
		return "java_hash_bucket"
	}
	for _, k := range docKinds {
		if k.kind == s.Kind && k.kind != 0 {
			return k.name
		}
	}
	return s.Kind.String()
}
