package schema

import (
	"slices"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
)

// Definition is the view of a table declaration that does not depend on
// the record type: what admin needs to create and check a table, and what
// the CLI prints. *Table[T], *Index[T] and *WideTable[T] implement it.
type Definition interface {
	Name() hbapi.TableName
	Families() []Family
	KeySegments() []keys.Segment
	SplitKeys() [][]byte
	Columns() []ColumnInfo
	// KeyParts cuts an encoded row key into its segments.
	KeyParts(key []byte) ([]KeyPart, error)
}

var (
	_ Definition = (*Table[SMS])(nil)
	_ Definition = (*Index[SMS])(nil)
)

// builtins lists the constructors of the built-in tables. It is a function
// rather than a package variable so that there is no package-level state.
func builtins() []func() ([]Definition, error) {
	return []func() ([]Definition, error){
		defs(SMSTable),
		defs(TestTable),
		defs(LogDataBucketed),
		defs(LogDataByHost),
		defs(LogDataMD5),
		defs(CustomerOrderTable),
		defs(OrderMD5Table),
		wideDefs(LogDataWide),
	}
}

// defs adapts a typed constructor: the table, then its index tables.
func defs[T any](build func() (*Table[T], error)) func() ([]Definition, error) {
	return func() ([]Definition, error) {
		t, err := build()
		if err != nil {
			return nil, err
		}
		out := []Definition{t}
		for _, ix := range t.indexes {
			out = append(out, ix)
		}
		return out, nil
	}
}

// BuiltinNames returns the names of the built-in tables and index tables,
// sorted.
func BuiltinNames() []string {
	var names []string
	for _, b := range builtins() {
		ds, err := b()
		if err != nil {
			continue // cannot happen: TestBuiltins builds every one
		}
		for _, d := range ds {
			names = append(names, d.Name().String())
		}
	}
	slices.Sort(names)
	return names
}

// Builtin returns a freshly built definition of the built-in table or index
// table called name ("sms", "sms_index", "TestTable", …; see
// BuiltinNames). The typed constructors (SMSTable, LogDataMD5, …) give the
// same tables with their record mapping. An unknown name is a *Error with
// Kind ErrUnknownSchema.
func Builtin(name string) (Definition, error) {
	for _, b := range builtins() {
		ds, err := b()
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if d.Name().String() == name || d.Name().FullName() == name {
				return d, nil
			}
		}
	}
	return nil, &Error{Table: name, Reason: "no built-in table of that name", Kind: ErrUnknownSchema}
}
