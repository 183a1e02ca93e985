package seeds

import (
	"fmt"
	"slices"

	"github.com/hbkit/hbkit/schema"
)

// builtins lists the constructors of the built-in tables. It is a function
// rather than a package variable so that there is no package-level state.
func builtins() []func() ([]schema.Definition, error) {
	return []func() ([]schema.Definition, error){
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
func defs[T any](build func() (*schema.Table[T], error)) func() ([]schema.Definition, error) {
	return func() ([]schema.Definition, error) {
		t, err := build()
		if err != nil {
			return nil, err
		}
		out := []schema.Definition{t}
		for _, ix := range t.Indexes() {
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
func Builtin(name string) (schema.Definition, error) {
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
	return nil, &schema.Error{Table: name, Reason: "no built-in table of that name", Kind: schema.ErrUnknownSchema}
}

// layoutError reports a key layout of table that keys.NewLayout refused;
// it wraps the *keys.Error. The seeds' layouts are fixed, so TestBuiltins
// shows it never happens.
func layoutError(table string, err error) error {
	return fmt.Errorf("seeds: %s: %w", table, err)
}
