package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
)

// The schema of a command comes from one of three places, in this order:
// --schema NAME (a schema of Env.Schemas, or a file),
// --schema-file FILE (a schema file or document), else the schema
// document stored with the table --table names (schema.DocumentAttribute,
// written when admin or dao created the table).

// ErrNoSchema is wrapped by the error of a command that has no schema: no
// --schema, no --schema-file, and a --table that stores no schema
// document (see *NoSchemaError).
var ErrNoSchema = errors.New("no schema")

// NoSchemaError reports a table that holds no schema document when no
// --schema or --schema-file was given (an index table holds none: its
// data table's document declares it). errors.Is(err, ErrNoSchema) holds,
// and so does errors.Is(err, admin.ErrNoDocument).
type NoSchemaError struct {
	Command string // "index verify", "scan", ...
	Table   string
	Err     error // wraps admin.ErrNoDocument
}

func (e *NoSchemaError) Error() string {
	s := "table " + e.Table + " holds no schema document: give --schema NAME or --schema-file FILE, " +
		"or store the document with the table: hbkit table ensure --schema-file FILE"
	if e.Command == "get" || e.Command == "scan" {
		s += "; or read its cells as the HBase shell prints them: --shell"
	}
	return s
}

func (e *NoSchemaError) Unwrap() []error { return []error{ErrNoSchema, e.Err} }

// schemaFlags are the flags that say where a command's schema comes from.
type schemaFlags struct {
	schema string // --schema NAME|FILE
	file   string // --schema-file FILE
	table  string // --table T
}

// register adds --schema-file and --table to fs; --schema, whose help
// differs from command to command, is the caller's.
func (f *schemaFlags) register(fs *flag.FlagSet, tableHelp string) {
	fs.StringVar(&f.file, "schema-file", "", "schema `FILE`: a schema document (JSON) or a schema file; FILE#TABLE picks one of several tables")
	fs.StringVar(&f.table, "table", "", tableHelp)
}

// given reports whether the flags name a schema without reading a table.
func (f *schemaFlags) given() bool { return f.schema != "" || f.file != "" }

// name is the --schema or --schema-file argument (--schema first).
func (f *schemaFlags) name() string {
	if f.schema != "" {
		return f.schema
	}
	return f.file
}

// storedDocument reads the schema document stored with table over c,
// which must describe tables (admin.Client). A table without a document is
// a *NoSchemaError; a missing table an error wrapping
// hbase.ErrTableNotFound.
func storedDocument(ctx context.Context, command string, c any, table string) (schema.Document, error) {
	ac, ok := c.(admin.Client)
	if !ok {
		return schema.Document{}, &UnsupportedError{Command: command, Call: "DescribeTable",
			Need: "to read the schema document stored with table " + table, Err: errors.ErrUnsupported}
	}
	if u := refused(c, command, "DescribeTable", "to read the schema document stored with table "+table); u != nil {
		return schema.Document{}, u
	}
	a, err := admin.New(ac)
	if err != nil {
		return schema.Document{}, err
	}
	doc, err := a.ReadDocument(ctx, table)
	switch {
	case errors.Is(err, admin.ErrNoDocument):
		return schema.Document{}, &NoSchemaError{Command: command, Table: table, Err: err}
	case errors.Is(err, hbase.ErrTableNotFound):
		return schema.Document{}, fmt.Errorf("table %s: %w", table, err)
	}
	return doc, err
}

// openDocument opens the table doc describes over schema.Values records:
// a *schema.Table[schema.Values], or a *schema.WideTable[schema.Values].
func openDocument(doc schema.Document) (schema.Definition, error) {
	if doc.Wide != nil {
		return schema.OpenWide(doc)
	}
	return schema.Open(doc)
}

// documentOf returns the document of a definition that describes itself
// as one (a schema declared in Go or opened from a document).
func documentOf(d schema.Definition) (schema.Document, bool, error) {
	dd, ok := d.(interface {
		Document() (schema.Document, error)
	})
	if !ok {
		return schema.Document{}, false, nil
	}
	doc, err := dd.Document()
	return doc, err == nil, err
}

// schemaDocument returns the document of the data table that --schema or
// --schema-file names (of its data table, when it names an index table).
// A schema that cannot describe itself as a document is an error wrapping
// ErrNoSchema.
func (e *Env) schemaDocument(f schemaFlags) (schema.Document, error) {
	name := f.name()
	d, err := e.loadDefinition(name)
	if err != nil {
		return schema.Document{}, err
	}
	if ix, ok := d.(schema.IndexDefinition); ok {
		if d, err = e.dataTableOf(name, ix); err != nil {
			return schema.Document{}, err
		}
	}
	doc, ok, err := documentOf(d)
	if err != nil {
		return schema.Document{}, fmt.Errorf("schema %s: %w", name, err)
	}
	if !ok {
		return schema.Document{}, fmt.Errorf("schema %s: table %s has no schema document: %w", name, d.Name(), ErrNoSchema)
	}
	return doc, nil
}

// dataTableOf returns the data table of the index table that the
// --schema argument name resolved to: from the same file, or among
// Env.Schemas.
func (e *Env) dataTableOf(name string, ix schema.IndexDefinition) (schema.Definition, error) {
	data := ix.DataTable()
	if file, _, ok := strings.Cut(name, "#"); ok {
		return e.loadDefinition(file + "#" + data.String())
	}
	if _, registered := e.Schemas[name]; registered {
		for _, d := range e.Schemas {
			if d.Name() == data {
				return d, nil
			}
		}
		return nil, fmt.Errorf("schema %s: the schemas of %s do not declare its data table %s: %w", name, e.name(), data, ErrNoSchema)
	}
	return e.loadDefinition(data.String())
}

// openStored opens the table of the schema document stored with table
// (storedDocument), served under the name table. A table name that does
// not parse wraps ErrUsage.
func openStored(ctx context.Context, command string, c any, table string) (schema.Definition, error) {
	tn, err := schema.ParseTableName(table)
	if err != nil {
		return nil, argError("--table: " + err.Error())
	}
	doc, err := storedDocument(ctx, command, c, tn.String())
	if err != nil {
		return nil, err
	}
	d, err := openDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("table %s: stored schema document: %w", tn, err)
	}
	if d.Name() != tn {
		d = schema.Renamed(d, tn)
	}
	return d, nil
}

// storedViewer returns the viewer of table from the schema document
// stored with it (openStored), or, with index, of that index table of
// the document.
func storedViewer(ctx context.Context, command string, c any, table, index string) (schema.Viewer, error) {
	d, err := openStored(ctx, command, c, table)
	if err != nil {
		return nil, err
	}
	if index == "" {
		return asViewer(d, "the document of "+table)
	}
	var ixs []schema.Definition
	if t, ok := d.(interface{ IndexDefinitions() []schema.Definition }); ok {
		ixs = t.IndexDefinitions()
	}
	var names []string
	for _, x := range ixs {
		if n := x.Name(); n.String() == index || n.FullName() == index || n.Qualifier == index {
			return asViewer(x, "the document of "+table)
		}
		names = append(names, x.Name().String())
	}
	return nil, argError(fmt.Sprintf("--index %s: the document of %s declares no such index (it declares %q)", index, table, names))
}
