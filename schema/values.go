package schema

import (
	"fmt"
	"time"
)

// Values is a record of a table known only by its document (Open): field
// values by name, each of the Go type its document type names: string,
// []byte, int64, uint64, float64, bool, time.Time or time.Duration. A
// field missing from the map has no value, and its column writes no cell.
//
// Each access is a map lookup by name: Values serves tools and tables
// declared at run time. Code that knows its record type declares it
// (FromDocument with the Fields of a struct) for the hot path.
type Values map[string]any

// ValuesFields returns the Fields of Values records of doc's fields.
func ValuesFields(doc Document) Fields[Values] {
	vf := &valuesFields{types: make(map[string]string, len(doc.Fields))}
	for _, f := range doc.Fields {
		vf.names = append(vf.names, f.Name)
		vf.types[f.Name] = f.Type
	}
	return vf
}

// Open builds the table doc describes over Values records: FromDocument
// with ValuesFields. Records are checked before they are written
// (Table.EncodeRecord): a field the document does not declare, or a value
// of another type than the document's, is a *Error with Kind
// ErrInvalidRecord naming the field; then the check of WithValidate, if
// given.
func Open(doc Document, opts ...Option[Values]) (*Table[Values], error) {
	return FromDocument(doc, ValuesFields(doc), valuesCheck(doc, opts))
}

// OpenWide is Open for the document of a wide table.
func OpenWide(doc Document, opts ...Option[Values]) (*WideTable[Values], error) {
	return WideFromDocument(doc, ValuesFields(doc), valuesCheck(doc, opts))
}

// valuesCheck folds opts into one option and adds the type check.
func valuesCheck(doc Document, opts []Option[Values]) Option[Values] {
	return func(o *openOptions[Values]) {
		for _, opt := range opts {
			opt(o)
		}
		user := o.validate
		types := ValuesFields(doc).(*valuesFields).types
		o.typeCheck = func(v *Values) error {
			for name, x := range *v {
				t, ok := types[name]
				switch {
				case !ok:
					return Invalid(name, "not a field of the document")
				case t != "" && t != valueTypeName(x):
					return Invalid(name, "want a value of type "+t+", got "+valueTypeName(x))
				}
			}
			return nil
		}
		o.validate = user
	}
}

// valueTypeName names the document type of a Go value.
func valueTypeName(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case []byte:
		return "bytes"
	case int64:
		return "int64"
	case uint64:
		return "uint64"
	case float64:
		return "float64"
	case bool:
		return "bool"
	case time.Time:
		return "time"
	case time.Duration:
		return "duration"
	}
	return fmt.Sprintf("Go type %T", x)
}

// valuesFields implements Fields[Values].
type valuesFields struct {
	names []string
	types map[string]string
}

func (vf *valuesFields) Names() []string { return append([]string(nil), vf.names...) }

// Has returns whether a record holds a value of the field (see presence).
func (vf *valuesFields) Has(name string) func(*Values) bool {
	return func(v *Values) bool { _, ok := (*v)[name]; return ok }
}

func valueAccess[V any](vf *valuesFields, name, typ string) (func(*Values) V, func(*Values, V), error) {
	t, ok := vf.types[name]
	switch {
	case !ok:
		return nil, nil, &Error{Field: name, Reason: "not a field of the document", Kind: ErrUnknownField}
	case t != "" && t != typ:
		return nil, nil, &Error{Field: name, Reason: "a field of type " + t + ", not " + typ, Kind: ErrInvalidTable}
	}
	get := func(v *Values) V { x, _ := (*v)[name].(V); return x }
	set := func(v *Values, x V) {
		if *v == nil {
			*v = Values{}
		}
		(*v)[name] = x
	}
	return get, set, nil
}

func (vf *valuesFields) String(name string) (func(*Values) string, func(*Values, string), error) {
	return valueAccess[string](vf, name, "string")
}

func (vf *valuesFields) Bytes(name string) (func(*Values) []byte, func(*Values, []byte), error) {
	return valueAccess[[]byte](vf, name, "bytes")
}

func (vf *valuesFields) Int64(name string) (func(*Values) int64, func(*Values, int64), error) {
	if vf.types[name] == "uint64" {
		g, s, err := valueAccess[uint64](vf, name, "uint64")
		return func(v *Values) int64 { return int64(g(v)) }, func(v *Values, x int64) { s(v, uint64(x)) }, err
	}
	return valueAccess[int64](vf, name, "int64")
}

func (vf *valuesFields) Uint64(name string) (func(*Values) uint64, func(*Values, uint64), error) {
	if vf.types[name] == "int64" {
		g, s, err := valueAccess[int64](vf, name, "int64")
		return func(v *Values) uint64 { return uint64(g(v)) }, func(v *Values, x uint64) { s(v, int64(x)) }, err
	}
	return valueAccess[uint64](vf, name, "uint64")
}

func (vf *valuesFields) Float64(name string) (func(*Values) float64, func(*Values, float64), error) {
	return valueAccess[float64](vf, name, "float64")
}

func (vf *valuesFields) Bool(name string) (func(*Values) bool, func(*Values, bool), error) {
	return valueAccess[bool](vf, name, "bool")
}

func (vf *valuesFields) Time(name string) (func(*Values) time.Time, func(*Values, time.Time), error) {
	return valueAccess[time.Time](vf, name, "time")
}

func (vf *valuesFields) Duration(name string) (func(*Values) time.Duration, func(*Values, time.Duration), error) {
	return valueAccess[time.Duration](vf, name, "duration")
}
