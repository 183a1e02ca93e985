package schema

import (
	"encoding/hex"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// CodecValue lists the value types a custom codec of a document may
// encode: the types of Fields' accessors.
type CodecValue interface {
	string | []byte | int64 | uint64 | float64 | bool | time.Time | time.Duration
}

// Option configures FromDocument.
type Option[T any] func(*openOptions[T])

type openOptions[T any] struct {
	codecs    map[string]docCodec[T]
	validate  func(*T) error // WithValidate
	typeCheck func(*T) error // Open's check of the values' types
	rand      keys.RandSource
}

// check is the record check of the opened table: the type check, then
// the check of WithValidate.
func (o *openOptions[T]) check() func(*T) error {
	switch {
	case o.typeCheck == nil:
		return o.validate
	case o.validate == nil:
		return o.typeCheck
	}
	return func(v *T) error {
		if err := o.typeCheck(v); err != nil {
			return err
		}
		return o.validate(v)
	}
}

// docCodec is a codec supplied by WithCodec: the field type it reads and
// how to bind it to a field of T.
type docCodec[T any] struct {
	typ   string
	width int
	field func(seg string, f Fields[T], field string, decodable bool) (keys.Field[T], error)
}

// WithCodec supplies the codec a document's custom segments name
// (DocSegment.Codec == c.Name). The field the segment holds is read with
// the accessor of V. The codec "uid" (UIDCodec) needs no option.
func WithCodec[T any, V CodecValue](c keys.Codec[V]) Option[T] {
	return func(o *openOptions[T]) {
		o.codecs[c.Name] = docCodec[T]{
			typ:   typeOf[V](),
			width: c.Width,
			field: func(seg string, f Fields[T], field string, decodable bool) (keys.Field[T], error) {
				get, set, err := accessor[T, V](f, field)
				if err != nil {
					return keys.Field[T]{}, err
				}
				if !decodable {
					set = nil
				}
				return keys.Custom(seg, c, get, set), nil
			},
		}
	}
}

// WithValidate checks records before they are written (Spec.Validate),
// for a document whose Go declaration did (Document.Validate).
func WithValidate[T any](fn func(*T) error) Option[T] {
	return func(o *openOptions[T]) { o.validate = fn }
}

// WithRandSource draws the salts of salt segments from r instead of
// crypto/rand (keys.Salt).
func WithRandSource[T any](r keys.RandSource) Option[T] {
	return func(o *openOptions[T]) { o.rand = r }
}

// typeOf names the field type of V (valueTypeName of its zero value).
func typeOf[V CodecValue]() string {
	var v V
	return valueTypeName(any(v))
}

// accessor returns the accessor of f for a field of type V.
func accessor[T any, V CodecValue](f Fields[T], name string) (func(*T) V, func(*T, V), error) {
	var (
		get, set any
		err      error
	)
	switch typeOf[V]() {
	case "string":
		get, set, err = pair(f.String(name))
	case "bytes":
		get, set, err = pair(f.Bytes(name))
	case "int64":
		get, set, err = pair(f.Int64(name))
	case "uint64":
		get, set, err = pair(f.Uint64(name))
	case "float64":
		get, set, err = pair(f.Float64(name))
	case "bool":
		get, set, err = pair(f.Bool(name))
	case "time":
		get, set, err = pair(f.Time(name))
	default:
		get, set, err = pair(f.Duration(name))
	}
	if err != nil {
		return nil, nil, err
	}
	return get.(func(*T) V), set.(func(*T, V)), nil
}

func pair[G, S any](get G, set S, err error) (any, any, error) { return get, set, err }

// FromDocument builds the table doc describes over records of type T,
// reading and setting fields through f. The table encodes the same row
// keys, cells, index entries and split keys as the declaration the
// document was exported from, given the same field values. A custom
// segment needs its codec (WithCodec), or FromDocument fails with a
// *Error of Kind ErrUnknownCodec naming it. Other errors are *Error values
// naming the path in the document (ErrInvalidDocument) or what New
// refuses. A wide table's document is opened with WideFromDocument.
func FromDocument[T any](doc Document, f Fields[T], opts ...Option[T]) (*Table[T], error) {
	b, err := newDocBuilder(doc, f, opts)
	if err != nil {
		return nil, err
	}
	if doc.Wide != nil {
		return nil, docError(doc.Name, "wide", "a wide table: open it with WideFromDocument")
	}
	spec, err := b.spec()
	if err != nil {
		return nil, withTable(err, doc.Name)
	}
	t, err := New(spec)
	if err != nil {
		return nil, err
	}
	t.opaqueCheck = b.o.validate != nil
	return t, nil
}

// WideFromDocument is FromDocument for the document of a wide table
// (Document.Wide).
func WideFromDocument[T any](doc Document, f Fields[T], opts ...Option[T]) (*WideTable[T], error) {
	b, err := newDocBuilder(doc, f, opts)
	if err != nil {
		return nil, err
	}
	if doc.Wide == nil {
		return nil, docError(doc.Name, "wide", "missing: not a wide table; open it with FromDocument")
	}
	spec, err := b.wideSpec()
	if err != nil {
		return nil, withTable(err, doc.Name)
	}
	t, err := NewWide(spec)
	if err != nil {
		return nil, err
	}
	t.opaqueCheck = b.o.validate != nil
	return t, nil
}

// docBuilder turns a checked document into a Spec over T.
type docBuilder[T any] struct {
	doc   Document
	f     Fields[T]
	o     openOptions[T]
	types map[string]string // field -> declared type
}

func newDocBuilder[T any](doc Document, f Fields[T], opts []Option[T]) (*docBuilder[T], error) {
	if err := doc.Check(); err != nil {
		return nil, err
	}
	b := &docBuilder[T]{doc: doc, f: f, o: openOptions[T]{codecs: map[string]docCodec[T]{}}, types: map[string]string{}}
	for _, opt := range opts {
		opt(&b.o)
	}
	for _, fd := range doc.Fields {
		b.types[fd.Name] = fd.Type
	}
	return b, nil
}

func (b *docBuilder[T]) spec() (Spec[T], error) {
	d := b.doc
	var s Spec[T]
	var err error
	s.Name, s.Validate = d.Name, b.o.check()
	if s.Families, s.Key, s.From, s.Splits, err = b.common(); err != nil {
		return s, err
	}
	if d.Writes != "" {
		if s.Writes, err = ParseWriteMode(d.Writes); err != nil {
			return s, err
		}
	}
	for i, c := range d.Columns {
		col, err := b.column("columns["+strconv.Itoa(i)+"]", c)
		if err != nil {
			return s, err
		}
		s.Columns = append(s.Columns, col)
	}
	if s.UIDs, err = b.uids(); err != nil {
		return s, err
	}
	for i, ix := range d.Indexes {
		spec, err := b.index("indexes["+strconv.Itoa(i)+"]", ix)
		if err != nil {
			return s, err
		}
		s.Indexes = append(s.Indexes, spec)
	}
	return s, nil
}

// common builds what a table and a wide table declare alike: families,
// the row key (and what its segments are computed from), splits.
func (b *docBuilder[T]) common() (fams []Family, key *keys.Layout[T], from map[string]string, splits Splits, err error) {
	d := b.doc
	if fams, err = familiesOf(d.Families); err != nil {
		return
	}
	if key, from, err = b.layout("key", d.Key); err != nil {
		return
	}
	if splits, err = splitsOf(d.Splits); err != nil {
		err = docError(d.Name, "splits", err.Error())
	}
	return
}

func (b *docBuilder[T]) wideSpec() (WideSpec[T], error) {
	d := b.doc
	var s WideSpec[T]
	var err error
	s.Name, s.Validate = d.Name, b.o.check()
	if s.Families, s.Key, s.From, s.Splits, err = b.common(); err != nil {
		return s, err
	}
	if s.Qualifier, _, err = b.layout("wide.qualifier", d.Wide.Qualifier); err != nil {
		return s, err
	}
	if s.Value, err = b.column("wide.value", d.Wide.Value); err != nil {
		return s, err
	}
	s.UIDs, err = b.uids()
	return s, err
}

func (b *docBuilder[T]) index(path string, ix DocIndex) (IndexSpec[T], error) {
	s := IndexSpec[T]{Name: ix.Name, Family: ix.Family, Columns: ix.Columns, RowKeyQualifier: ix.RowKeyQualifier}
	var err error
	if s.Families, err = familiesOf(ix.Families); err != nil {
		return s, err
	}
	if s.Key, s.From, err = b.layout(path+".key", ix.Key); err != nil {
		return s, err
	}
	if s.Splits, err = splitsOf(ix.Splits); err != nil {
		return s, docError(b.doc.Name, path+".splits", err.Error())
	}
	if len(ix.Qualifier) > 0 {
		s.Qualifier, _, err = b.layout(path+".qualifier", ix.Qualifier)
	}
	return s, err
}

func (b *docBuilder[T]) uids() ([]UID[T], error) {
	var out []UID[T]
	for i, u := range b.doc.UIDs {
		path := "uids[" + strconv.Itoa(i) + "]"
		name, setName, err := b.f.String(u.Field)
		if err != nil {
			return nil, b.wrap(path+".field", err)
		}
		id, setID, err := b.uint(path+".segment", u.Segment)
		if err != nil {
			return nil, err
		}
		out = append(out, UID[T]{Segment: u.Segment, Kind: u.Kind, Width: u.Width, Name: name, SetName: setName, ID: id, SetID: setID})
	}
	return out, nil
}

// splitsOf converts the document's splits.
func splitsOf(s *DocSplits) (Splits, error) {
	if s == nil {
		return Splits{}, nil
	}
	out := Splits{Regions: s.Regions}
	for _, k := range s.Keys {
		out.Keys = append(out.Keys, []byte(k))
	}
	for _, h := range s.HexKeys {
		k, err := hex.DecodeString(h)
		if err != nil {
			return Splits{}, err
		}
		out.Keys = append(out.Keys, k)
	}
	return out, nil
}

// wrap makes err, from Fields, name the document path.
func (b *docBuilder[T]) wrap(path string, err error) error {
	return &Error{Table: b.doc.Name, Field: path, Reason: "field cannot be read", Kind: ErrInvalidDocument, Err: err}
}
