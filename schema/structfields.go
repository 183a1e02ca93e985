package schema

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"
)

// ErrFieldType reports a field asked for as a type it cannot be read as,
// or of a Go type no accessor supports. It wraps ErrInvalidTable.
var ErrFieldType = fmt.Errorf("schema: field of another type: %w", ErrInvalidTable)

// StructFields returns the Fields of the struct type T, read from its
// type once. The rules:
//
//   - an exported field is named by its tag, `hbkit:"name"`, or without a
//     tag by its Go name in lower case (UID is "uid", SentAt "sentat");
//     `hbkit:"-"` leaves it out; unexported fields are left out;
//   - the fields of an embedded struct (by value, untagged) are promoted,
//     as encoding/json does; an embedded pointer to a struct is an error,
//     since a setter would have to allocate it;
//   - a pointer field (*string, *int64, *time.Time …) reads as the zero
//     value when nil, and a set stores a new pointer;
//   - names are unique: two fields of one name are an error.
//
// Fields of a type no accessor supports (a map, a struct other than
// time.Time) are listed, and asking for them is an ErrFieldType error.
// The accessors it returns read and write the field at its offset in the
// record: no reflection once StructFields has returned (docs/fields.md
// has the benchmark against hand-written closures).
func StructFields[T any]() (Fields[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, &Error{Field: t.String(), Reason: "StructFields wants a struct type", Kind: ErrFieldType}
	}
	s := &structFields[T]{byName: map[string]structField{}}
	if err := s.add(t, 0, ""); err != nil {
		return nil, err
	}
	return s, nil
}

// structField is one field of a struct: where it is and what it holds.
type structField struct {
	path string       // Go path, Base.UID for a promoted field
	off  uintptr      // offset in the record
	typ  reflect.Type // the field's type, or the pointed-to type when ptr
	ptr  bool         // the field is a pointer to typ
}

type structFields[T any] struct {
	names  []string
	byName map[string]structField
}

// add collects the fields of struct type t, found at offset base of the
// record, whose Go paths start with prefix.
func (s *structFields[T]) add(t reflect.Type, base uintptr, prefix string) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("hbkit")
		if tag == "-" {
			continue
		}
		path := prefix + sf.Name
		if sf.Anonymous && !tagged {
			if sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct {
				return &Error{Field: path, Reason: "embedded pointer to a struct: embed it by value or tag it `hbkit:\"-\"`", Kind: ErrFieldType}
			}
			if sf.Type.Kind() == reflect.Struct && sf.Type != timeType {
				if err := s.add(sf.Type, base+sf.Offset, path+"."); err != nil {
					return err
				}
				continue
			}
		}
		if !sf.IsExported() {
			if tagged {
				return &Error{Field: path, Reason: "tagged field is unexported", Kind: ErrFieldType}
			}
			continue
		}
		if err := s.addField(sf, tag, base, path); err != nil {
			return err
		}
	}
	return nil
}

// addField records one exported field under its tag or its lower-cased
// Go name.
func (s *structFields[T]) addField(sf reflect.StructField, tag string, base uintptr, path string) error {
	if strings.Contains(tag, ",") {
		return &Error{Field: path, Value: tag, Reason: "hbkit tag takes a name or \"-\", no options", Kind: ErrFieldType}
	}
	name := tag
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	if prev, dup := s.byName[name]; dup {
		return &Error{Field: name, Reason: "named by both " + prev.path + " and " + path, Kind: ErrInvalidTable}
	}
	f := structField{path: path, off: base + sf.Offset, typ: sf.Type}
	if sf.Type.Kind() == reflect.Pointer {
		f.typ, f.ptr = sf.Type.Elem(), true
	}
	s.names = append(s.names, name)
	s.byName[name] = f
	return nil
}

func (s *structFields[T]) Names() []string { return append([]string(nil), s.names...) }

// field finds a field by name and checks its type with ok; want names
// what the caller asked for, for the error.
func (s *structFields[T]) field(name, want string, ok func(reflect.Type) bool) (structField, error) {
	f, found := s.byName[name]
	if !found {
		return f, &Error{Field: name, Reason: "no such field in " + reflect.TypeFor[T]().String(), Kind: ErrUnknownField}
	}
	if !ok(f.typ) {
		return f, &Error{Field: name, Reason: fmt.Sprintf("%s is %s, not readable as %s", f.path, f.goType(), want), Kind: ErrFieldType}
	}
	return f, nil
}

func (f structField) goType() string {
	if f.ptr {
		return "*" + f.typ.String()
	}
	return f.typ.String()
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

func isString(t reflect.Type) bool { return t.Kind() == reflect.String }
func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}
func isText(t reflect.Type) bool  { return isString(t) || isBytes(t) }
func isInt(t reflect.Type) bool   { return t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr }
func isFloat(t reflect.Type) bool { return t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 }
func isBool(t reflect.Type) bool  { return t.Kind() == reflect.Bool }
func isTime(t reflect.Type) bool  { return t == timeType }
func isDur(t reflect.Type) bool   { return t == durationType }

func (s *structFields[T]) String(name string) (func(*T) string, func(*T, string), error) {
	f, err := s.field(name, "string", isText)
	if err != nil {
		return nil, nil, err
	}
	if isBytes(f.typ) {
		g, st := access[T, []byte](f)
		return func(r *T) string { return string(g(r)) }, func(r *T, v string) { st(r, []byte(v)) }, nil
	}
	g, st := access[T, string](f)
	return g, st, nil
}

func (s *structFields[T]) Bytes(name string) (func(*T) []byte, func(*T, []byte), error) {
	f, err := s.field(name, "[]byte", isText)
	if err != nil {
		return nil, nil, err
	}
	if isString(f.typ) {
		g, st := access[T, string](f)
		return func(r *T) []byte { return []byte(g(r)) }, func(r *T, v []byte) { st(r, string(v)) }, nil
	}
	g, st := access[T, []byte](f)
	return g, st, nil
}

func (s *structFields[T]) Int64(name string) (func(*T) int64, func(*T, int64), error) {
	f, err := s.field(name, "int64", isInt)
	if err != nil {
		return nil, nil, err
	}
	g, st := numberAccess[T, int64](f)
	return g, st, nil
}

func (s *structFields[T]) Uint64(name string) (func(*T) uint64, func(*T, uint64), error) {
	f, err := s.field(name, "uint64", isInt)
	if err != nil {
		return nil, nil, err
	}
	g, st := numberAccess[T, uint64](f)
	return g, st, nil
}

func (s *structFields[T]) Float64(name string) (func(*T) float64, func(*T, float64), error) {
	f, err := s.field(name, "float64", isFloat)
	if err != nil {
		return nil, nil, err
	}
	g, st := numberAccess[T, float64](f)
	return g, st, nil
}

func (s *structFields[T]) Bool(name string) (func(*T) bool, func(*T, bool), error) {
	f, err := s.field(name, "bool", isBool)
	if err != nil {
		return nil, nil, err
	}
	g, st := access[T, bool](f)
	return g, st, nil
}

func (s *structFields[T]) Time(name string) (func(*T) time.Time, func(*T, time.Time), error) {
	f, err := s.field(name, "time.Time", isTime)
	if err != nil {
		return nil, nil, err
	}
	g, st := access[T, time.Time](f)
	return g, st, nil
}

func (s *structFields[T]) Duration(name string) (func(*T) time.Duration, func(*T, time.Duration), error) {
	f, err := s.field(name, "time.Duration", isDur)
	if err != nil {
		return nil, nil, err
	}
	g, st := access[T, time.Duration](f)
	return g, st, nil
}

// access returns the getter and setter of a field whose memory is that of
// a V (a named type of V's underlying type shares its layout).
func access[T, V any](f structField) (func(*T) V, func(*T, V)) {
	off := f.off
	if f.ptr {
		return func(r *T) V {
				if p := *(**V)(unsafe.Add(unsafe.Pointer(r), off)); p != nil {
					return *p
				}
				var zero V
				return zero
			}, func(r *T, v V) {
				p := new(V)
				*p = v
				*(**V)(unsafe.Add(unsafe.Pointer(r), off)) = p
			}
	}
	return func(r *T) V { return *(*V)(unsafe.Add(unsafe.Pointer(r), off)) },
		func(r *T, v V) { *(*V)(unsafe.Add(unsafe.Pointer(r), off)) = v }
}

type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// numberAccess returns the accessors of a numeric field as V, converting
// as Go does (a set into a narrower field truncates).
func numberAccess[T any, V int64 | uint64 | float64](f structField) (func(*T) V, func(*T, V)) {
	switch f.typ.Kind() {
	case reflect.Int:
		return convert[T, int, V](f)
	case reflect.Int8:
		return convert[T, int8, V](f)
	case reflect.Int16:
		return convert[T, int16, V](f)
	case reflect.Int32:
		return convert[T, int32, V](f)
	case reflect.Int64:
		return convert[T, int64, V](f)
	case reflect.Uint:
		return convert[T, uint, V](f)
	case reflect.Uint8:
		return convert[T, uint8, V](f)
	case reflect.Uint16:
		return convert[T, uint16, V](f)
	case reflect.Uint32:
		return convert[T, uint32, V](f)
	case reflect.Uint64:
		return convert[T, uint64, V](f)
	case reflect.Uintptr:
		return convert[T, uintptr, V](f)
	case reflect.Float32:
		return convert[T, float32, V](f)
	default:
		return convert[T, float64, V](f)
	}
}

// convert is access for a field held as F and read as V.
func convert[T any, F, V number](f structField) (func(*T) V, func(*T, V)) {
	off := f.off
	if f.ptr {
		return func(r *T) V {
				if p := *(**F)(unsafe.Add(unsafe.Pointer(r), off)); p != nil {
					return V(*p)
				}
				return 0
			}, func(r *T, v V) {
				p := new(F)
				*p = F(v)
				*(**F)(unsafe.Add(unsafe.Pointer(r), off)) = p
			}
	}
	return func(r *T) V { return V(*(*F)(unsafe.Add(unsafe.Pointer(r), off))) },
		func(r *T, v V) { *(*F)(unsafe.Add(unsafe.Pointer(r), off)) = F(v) }
}
