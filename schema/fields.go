package schema

import "time"

// Fields gives typed access to the fields of records of type T by name.
// It is how a declaration that names fields (a schema document's key
// segments, columns and indexes) reads and sets them: a field is declared
// once, as a struct field or a document field, and every layout refers to
// it by name.
//
// Each method returns the getter and setter of the named field, or a
// *Error with Kind ErrUnknownField when T has no field of that name, or
// ErrInvalidTable when the field is of another type. The functions it
// returns do no reflection and no lookup by name: they are what the hot
// path calls, so an implementation resolves the name once, here. Int64
// and Uint64 accept a field of any integer kind, String and Bytes any
// string or byte-slice kind (named types included), converting on the way.
//
// Implementations: the fields of a struct, read from its tags once, and
// the record of a table known only by its document.
type Fields[T any] interface {
	// Names lists the fields, in declaration order.
	Names() []string
	String(name string) (get func(*T) string, set func(*T, string), err error)
	Bytes(name string) (get func(*T) []byte, set func(*T, []byte), err error)
	Int64(name string) (get func(*T) int64, set func(*T, int64), err error)
	Uint64(name string) (get func(*T) uint64, set func(*T, uint64), err error)
	Float64(name string) (get func(*T) float64, set func(*T, float64), err error)
	Bool(name string) (get func(*T) bool, set func(*T, bool), err error)
	Time(name string) (get func(*T) time.Time, set func(*T, time.Time), err error)
	Duration(name string) (get func(*T) time.Duration, set func(*T, time.Duration), err error)
}
