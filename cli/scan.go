package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

const scanUsage = `usage: hbkit scan --table T | --schema NAME|FILE [--eq FIELD=VALUE]... [--from FIELD=VALUE] [--to FIELD=VALUE] [flags]
       hbkit scan --table T [--shell] [--start KEY] [--stop KEY] [--prefix KEY] [flags]

Reads rows of a table in key order and shows each one as the schema sees it:
its key cut into named segments with their decoded values (a mobile number,
a time, a bucket), then its cells decoded by their columns' types. Cells no
column declares show as bytes.

Rows are chosen by field values, never by raw keys:
  --eq FIELD=VALUE   fix a key field; repeat for the following ones. The
                     fields must lead the key, apart from leading hash
                     buckets they do not give, which are read one range per
                     bucket. A hash or bucket computed from a field given
                     (md5(account), hash(mobile) % 10) is computed from its
                     value: --eq mobile=13812345678 reads one range of
                     an index keyed by hash(mobile) % 10 and mobile.
  --from FIELD=VALUE, --to FIELD=VALUE
                     bound the key field after those fixed by --eq, both ends
                     included, in the field's own order: on a reversed
                     timestamp --from is the older end. One may be left out.
Values are written as the output shows them: digits and numbers in decimal,
times in RFC 3339 (2026-11-23T10:00:00.000Z; without a zone, UTC), a date
(2026-11-23, midnight UTC) or Unix milliseconds, times of day HH:mm:ss.SSS;
a hash segment takes its hex digits, a bucket its number.

The schema is the document stored with the table --table names (written
by "hbkit table create", admin.EnsureTables or dao.CreateTables), so any
table that carries one is read without --schema. --schema takes a schema of
this binary, a built-in name (see "hbkit table schemas") or a JSON schema file
(a schema document, or see the admin package documentation), as does
--schema-file; for a file declaring several tables, FILE#TABLE picks one.
Either takes precedence over the stored document, and with --table reads
the schema's rows from a table of another name (a copy, a test table).

Output: one block per row, the key as the HBase shell prints it
(Bytes.toStringBinary) then one line per segment and per cell; --raw adds
each one's bytes in that form, and the cells the index protocol keeps
(versions, entry keys and statuses), which are left out otherwise. --json prints one JSON object per row:
{"table", "row": {"key", "hex"}, "key": {segment: value}, "columns":
{column: value}, "other": {"family:qualifier": bytes}, "errors": {name:
reason}, "raw": {"key": {...}, "columns": {...}}} (times as RFC 3339 strings,
bytes in the shell's form; "other", "errors" and "raw" only when not empty).
When --limit stops the scan with rows left, a last line says so:
{"more": true, "rows": N, "limit": N}, an object without "table" (text
output ends "--limit N reached, more follow" instead).
A wide table's row (rows as columns) lists its cells, one record each:
"cells": [{"qualifier": {field: value}, "value"}]; in text, one line per
cell named by its qualifier's fields, such as message[ts=1m30.5s].

Without a schema: --shell reads any table --table names (one another client
made, with no stored document) and prints its cells as the HBase shell
does: ROW, then column=FAMILY:QUALIFIER, timestamp=MS, value=VALUE, every
byte string in the shell's form (printable bytes as is, others as \xHH),
and "N row(s)". Rows are chosen by key bytes, in the same form: --start KEY
(included), --stop KEY (excluded) or --prefix KEY, which also work with a
schema instead of --eq, --from and --to. With --json, one object per row:
{"table", "row", "hex", "cells": [{"column", "timestamp", "value"}]}.

Flags:
`

const getUsage = `usage: hbkit get --table T | --schema NAME|FILE FIELD=VALUE... [flags]
       hbkit get --table T [--shell] --row KEY [flags]

Reads the one row whose key fields are given, as FIELD=VALUE arguments
(every field of the key; the forms are those of "hbkit scan --help"), and
shows it as hbkit scan does. The schema comes from the table's stored
document, --schema or --schema-file, as for scan. A key whose leading salt the fields cannot
give is read once per salt value. A row that does not exist is an error:
exit status 1 and a message naming the key.

--row KEY reads the row of that key, written in the HBase shell's form
(printable bytes as is, others as \xHH: --row 'user\x00\x01'), instead of
key fields. With --shell the row is read without a schema and printed as
the HBase shell's get prints it (COLUMN, then timestamp=MS, value=VALUE;
with --json {"table", "row", "hex", "cells": [{"column", "timestamp",
"value"}]}): the way to read a table another client made.

Flags:
`

// ErrRowNotFound is the error of get for a row that does not exist
// (errors.Is); the *RowNotFoundError names it.
var ErrRowNotFound = errors.New("no such row")

// RowNotFoundError is get's error for a row that does not exist.
type RowNotFoundError struct {
	Table string
	Keys  [][]byte // the keys read: one, or one per salt value
}

func (e *RowNotFoundError) Error() string {
	ks := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		ks[i] = schema.QuoteKey(k)
	}
	return "no row in table " + e.Table + " at key " + strings.Join(ks, ", ")
}

func (e *RowNotFoundError) Unwrap() error { return ErrRowNotFound }

// InputError is an argument of get or scan that the schema refuses: an
// unknown field, a value that does not parse, a range the key cannot
// serve. It is explained on stderr and makes the exit status 2 (it wraps
// ErrUsage); Err, usually a *schema.Error, says what is wrong.
type InputError struct {
	Arg string
	Err error
}

func (e *InputError) Error() string   { return e.Arg + ": " + e.Err.Error() }
func (e *InputError) Unwrap() []error { return []error{ErrUsage, e.Err} }
func (e *Env) inputError(cmd, arg string, err error) error {
	ie := &InputError{Arg: arg, Err: err}
	fmt.Fprintf(e.Stderr, "%s %s: %v\n", e.name(), cmd, ie)
	return ie
}

type viewFlags struct {
	src      schemaFlags
	index    string // --index: an index table of --table's document
	zk       string
	json     bool
	raw      bool
	shell    bool        // --shell: rows as the HBase shell prints them, no schema
	keys     rawKeyFlags // --row, --start, --stop, --prefix
	limit    int
	eq       []schema.FieldText
	from, to *schema.FieldText
}

func viewFlagSet(e *Env, cmd string, f *viewFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("hbkit "+cmd, flag.ContinueOnError)
	fs.StringVar(&f.src.schema, "schema", "", "schema `NAME` (of this binary, or built-in), JSON schema FILE, or FILE#TABLE")
	f.src.register(fs, "read table `T`: with its stored schema document, or with --schema or --schema-file (default: the schema's own table)")
	fs.StringVar(&f.index, "index", "", "read the index table `NAME` that the document stored with --table declares")
	e.connectFlags(fs, &f.zk)
	fs.BoolVar(&f.json, "json", false, "one JSON object per row")
	fs.BoolVar(&f.raw, "raw", false, "also show the bytes of each segment and cell as the HBase shell prints them")
	fs.BoolVar(&f.shell, "shell", false, "print cells as the HBase shell does, without a schema (the default for a table with no stored document)")
	f.keys.register(fs, cmd)
	if cmd != "scan" {
		return fs
	}
	fs.IntVar(&f.limit, "limit", 100, "at most `N` rows; 0 for all")
	fs.Func("eq", "fix key field: `FIELD=VALUE`; repeatable, leading fields first", func(s string) error {
		ft, err := fieldText(s)
		if err == nil {
			f.eq = append(f.eq, ft)
		}
		return err
	})
	fs.Func("from", "lower bound of the next key field, included: `FIELD=VALUE`", func(s string) error {
		ft, err := fieldText(s)
		f.from = &ft
		return err
	})
	fs.Func("to", "upper bound of the next key field, included: `FIELD=VALUE`", func(s string) error {
		ft, err := fieldText(s)
		f.to = &ft
		return err
	})
	return fs
}

func fieldText(s string) (schema.FieldText, error) {
	field, text, ok := strings.Cut(s, "=")
	if !ok || field == "" {
		return schema.FieldText{}, fmt.Errorf("%q is not FIELD=VALUE", s)
	}
	return schema.FieldText{Field: field, Text: text}, nil
}

// viewClient is what get and scan use of HBase.
type viewClient interface {
	Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error)
	Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error)
}

// viewCommand is hbkit get (cmd "get") or hbkit scan (cmd "scan").
func viewCommand(e *Env, cmd string, connect connectFunc[viewClient]) command {
	c := command{name: cmd, summary: "read rows by field values: named segments and typed columns", usage: text(scanUsage)}
	if cmd == "get" {
		c.summary, c.usage = "read one row by its key fields: named segments and typed columns", text(getUsage)
	}
	c.bind = func() (*flag.FlagSet, runFunc) {
		var f viewFlags
		return viewFlagSet(e, cmd, &f), func(ctx context.Context, args []string) error {
			return e.view(ctx, cmd, f, args, connect)
		}
	}
	return c
}

// view runs get or scan (cmd) with its flags and arguments: get's key
// fields, FIELD=VALUE.
func (e *Env) view(ctx context.Context, cmd string, f viewFlags, args []string, connect connectFunc[viewClient]) error {
	keyFields, err := e.checkView(cmd, f, args)
	if err != nil {
		return err
	}
	usageErr := func(err error) error {
		fmt.Fprintf(e.Stderr, "%s %s: %v\n", e.name(), cmd, err)
		return ErrUsage
	}
	var v schema.Viewer
	if f.src.given() {
		if v, err = e.loadViewer(f.src.name(), f.src.table); errors.Is(err, ErrUsage) {
			return usageErr(err)
		} else if err != nil {
			return err
		}
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	if v == nil && !f.shell {
		if v, err = storedViewer(ctx, cmd, c, f.src.table, f.index); errors.Is(err, ErrUsage) {
			return usageErr(err)
		} else if err != nil {
			return err
		}
	}
	if v == nil {
		return e.shellView(ctx, cmd, c, f.src.table, f)
	}
	p := &rowPrinter{w: e.Stdout, table: v.Name().String(), json: f.json, raw: f.raw, want: wantSegments(v, f.eq)}
	if cmd == "get" {
		return e.getRow(ctx, c, v, p, keyFields, f.keys.row)
	}
	return e.scanRows(ctx, c, v, p, f)
}

// checkView checks the flags and arguments of get or scan (cmd) and
// returns get's key fields, its FIELD=VALUE arguments.
func (e *Env) checkView(cmd string, f viewFlags, positional []string) ([]schema.FieldText, error) {
	usageErr := func(format string, a ...any) error {
		fmt.Fprintf(e.Stderr, "%s %s: %s\n", e.name(), cmd, fmt.Sprintf(format, a...))
		return ErrUsage
	}
	switch {
	case !f.src.given() && f.src.table == "":
		return nil, usageErr("name the table with --table T (or the schema with --schema NAME or --schema-file FILE)")
	case f.index != "" && (f.src.given() || f.src.table == ""):
		return nil, usageErr("--index reads an index table of the data table --table names, with its stored document; with --schema, name the index table itself")
	case cmd == "scan" && len(positional) > 0:
		return nil, usageErr("unexpected argument %q (fields are given with --eq, --from and --to)", positional[0])
	case cmd == "scan" && f.limit < 0:
		return nil, e.inputError(cmd, "--limit", fmt.Errorf("%d: want a number of rows, or 0 for all", f.limit))
	case cmd == "get" && len(positional) == 0 && f.keys.row == nil:
		return nil, usageErr("give the key's fields as FIELD=VALUE arguments, or the row key with --row KEY")
	case f.keys.given != nil && (len(positional) > 0 || len(f.eq) > 0 || f.from != nil || f.to != nil):
		return nil, usageErr("%s gives the key as bytes: it takes no key fields (FIELD=VALUE, --eq, --from, --to)", f.keys.given[0])
	case f.keys.check() != nil:
		return nil, usageErr("%v", f.keys.check())
	case f.shell && (f.src.given() || f.index != "" || len(positional) > 0 || len(f.eq) > 0 || f.from != nil || f.to != nil):
		return nil, usageErr("--shell reads --table T without a schema: it takes no --schema, --schema-file, --index or key fields (give keys with --row, --start, --stop, --prefix)")
	}
	var keyFields []schema.FieldText
	for _, a := range positional {
		ft, err := fieldText(a)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		keyFields = append(keyFields, ft)
	}
	return keyFields, nil
}

// getRow prints the row of the key fields: one Get per salt value the
// fields leave open.
func (e *Env) getRow(ctx context.Context, c viewClient, v schema.Viewer, p *rowPrinter, keyFields []schema.FieldText, row []byte) error {
	getKeys := [][]byte{row}
	if row == nil {
		var err error
		if getKeys, err = v.RowKeys(keyFields); err != nil {
			return e.inputError("get", "key fields", err)
		}
	}
	found := false
	for _, k := range getKeys {
		res, err := c.Get(ctx, &hbase.Get{Table: p.table, Row: k})
		if err != nil {
			return err
		}
		if res.Empty() {
			continue
		}
		found = true
		if err := p.print(v, k, res); err != nil {
			return err
		}
	}
	if !found {
		return &RowNotFoundError{Table: p.table, Keys: getKeys}
	}
	return nil
}

// scanRows prints the rows of the ranges --eq, --from and --to give, up
// to --limit, and the line that ends the output.
func (e *Env) scanRows(ctx context.Context, c viewClient, v schema.Viewer, p *rowPrinter, f viewFlags) error {
	ranges, err := v.KeyRanges(schema.TextQuery{Eq: f.eq, Lo: f.from, Hi: f.to})
	if err != nil {
		return e.inputError("scan", "--eq, --from, --to", err)
	}
	if kr, ok := f.keys.keyRange(); ok {
		ranges = []keys.KeyRange{kr}
	}
	n, more, err := scanRanges(ctx, c, p.table, ranges, f.limit, len(p.want) > 0, func(key []byte, res *hbase.Result) (bool, error) {
		before := p.rows
		err := p.print(v, key, res)
		return p.rows > before, err
	})
	if err != nil {
		return err
	}
	if p.skipped > 0 {
		fmt.Fprintf(e.Stderr, "%s scan: %s read and left out for their %s, which the key range cannot fix\n",
			e.name(), rowCount(p.skipped), strings.Join(slices.Sorted(maps.Keys(p.want)), ", "))
	}
	switch {
	case f.json && more:
		return p.printMore(n, f.limit)
	case !f.json:
		if more {
			fmt.Fprintf(e.Stdout, "%s; --limit %d reached, more follow\n", rowCount(n), f.limit)
		} else {
			fmt.Fprintln(e.Stdout, rowCount(n))
		}
	}
	return nil
}

// scanRanges scans the ranges in order and hands each row to fn, which
// reports whether it counts (a row filtered out does not), until limit rows
// counted (0: all). more reports that the limit stopped the scan with rows
// left to read.
func scanRanges(ctx context.Context, c viewClient, table string, ranges []keys.KeyRange, limit int, filtered bool,
	fn func(key []byte, res *hbase.Result) (bool, error)) (n int, more bool, err error) {
	for _, kr := range ranges {
		s := &hbase.Scan{Table: table, StartRow: kr.Start, StopRow: kr.Stop}
		if limit > 0 && !filtered {
			s.Limit = limit - n + 1 // one more row says whether more follow
		}
		sc, err := c.Scan(ctx, s)
		if err != nil {
			return n, false, err
		}
		for sc.Next() {
			if limit > 0 && n == limit {
				sc.Close()
				return n, true, nil
			}
			res := sc.Result()
			counted, err := fn(res.Row(), res)
			if err != nil {
				sc.Close()
				return n, false, err
			}
			if counted {
				n++
			}
		}
		err = sc.Err()
		sc.Close()
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// argError is an argument that names no table: a usage error.
type argError string

func (e argError) Error() string { return string(e) }
func (e argError) Unwrap() error { return ErrUsage }

// loadViewer resolves --schema (NAME, FILE or FILE#TABLE) and --table.
// An argument that names no one table wraps ErrUsage.
func (e *Env) loadViewer(name, table string) (schema.Viewer, error) {
	d, err := e.loadDefinition(name)
	if err != nil {
		return nil, err
	}
	if table != "" {
		tn, err := schema.ParseTableName(table)
		if err != nil {
			return nil, argError("--table: " + err.Error())
		}
		d = schema.Renamed(d, tn)
	}
	return asViewer(d, name)
}

func asViewer(d schema.Definition, from string) (schema.Viewer, error) {
	v, ok := schema.AsViewer(d)
	if !ok {
		return nil, argError(fmt.Sprintf("table %s of %s cannot be read without its record type (it is no schema.Viewer)", d.Name(), from))
	}
	return v, nil
}

// loadDefinition resolves a --schema or --schema-file argument (NAME,
// FILE or FILE#TABLE) to one table. An argument that names no one table
// wraps ErrUsage.
func (e *Env) loadDefinition(name string) (schema.Definition, error) {
	file, pick, _ := strings.Cut(name, "#")
	defs, err := e.loadSchemas([]string{file})
	if err != nil {
		return nil, err
	}
	switch {
	case pick != "":
		for _, x := range defs {
			if x.Name().String() == pick || x.Name().FullName() == pick {
				return x, nil
			}
		}
		return nil, argError(fmt.Sprintf("--schema %s: no table %q in %s (it declares %s)", name, pick, file, defNames(defs)))
	case len(defs) == 1 || indexesOfFirst(defs):
		return defs[0], nil
	}
	return nil, argError(fmt.Sprintf("--schema %s declares %s: pick one with --schema %s#TABLE", name, defNames(defs), name))
}

// indexesOfFirst reports whether defs are a data table and its index
// tables, as a schema document declares them: the data table is then the
// one meant.
func indexesOfFirst(defs []schema.Definition) bool {
	for _, d := range defs[1:] {
		if ix, ok := d.(schema.IndexDefinition); !ok || ix.DataTable() != defs[0].Name() {
			return false
		}
	}
	return len(defs) > 0
}

func defNames(defs []schema.Definition) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name().String()
	}
	return strings.Join(names, ", ")
}

// rowPrinter prints rows as text blocks or JSON lines.
type rowPrinter struct {
	w       io.Writer
	table   string
	json    bool
	raw     bool
	rows    int
	skipped int               // rows read that p.want turned down
	want    map[string][]byte // segment name → bytes a row must hold
}

// matches reports whether the row's segments hold the values of p.want,
// the --eq fields that the scan ranges do not fix.
func (p *rowPrinter) matches(rv schema.RowView) bool {
	for _, s := range rv.Segments {
		if b, ok := p.want[s.Name]; ok && string(b) != string(s.Bytes) {
			return false
		}
	}
	return true
}

// wantSegments encodes the --eq values of fields that are key segments of
// v: a row outside them is left out, for the ranges of a key whose leading
// bucket is computed from a field fix only the bucket. Values were checked
// by KeyRanges.
func wantSegments(v schema.Viewer, eq []schema.FieldText) map[string][]byte {
	want := map[string][]byte{}
	for _, s := range v.KeySegments() {
		for _, f := range eq {
			if f.Field != s.Name {
				continue
			}
			if b, err := schema.AppendSegmentText(nil, s, f.Text); err == nil {
				want[s.Name] = b
			}
		}
	}
	return want
}

// rowJSON is the JSON form of a row; its field names are stable.
type rowJSON struct {
	Table   string            `json:"table"`
	Row     keyJSON           `json:"row"`
	Key     map[string]any    `json:"key"`
	Columns map[string]any    `json:"columns"`
	Other   map[string]string `json:"other,omitempty"`
	Errors  map[string]string `json:"errors,omitempty"`
	Raw     *rawJSON          `json:"raw,omitempty"`
	// Cells are a wide table's cells, one record each.
	Cells []cellJSON `json:"cells,omitempty"`
}

// cellJSON is one cell of a wide table: the key fields its qualifier
// holds and its value.
type cellJSON struct {
	Qualifier map[string]any `json:"qualifier"`
	Value     any            `json:"value"`
	Error     string         `json:"error,omitempty"`
	Raw       string         `json:"raw,omitempty"` // qualifier and value, as the shell prints them
}

// wideName shows a wide cell's qualifier fields: [ts=1m30.5s].
func wideName(parts []schema.SegmentView) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, q := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q.Name + "=" + formatValue(q.Value))
	}
	b.WriteByte(']')
	return b.String()
}

type rawJSON struct {
	Key     map[string]string `json:"key"`
	Columns map[string]string `json:"columns"`
}

func (p *rowPrinter) print(v schema.Viewer, key []byte, res *hbase.Result) error {
	cells := make([]schema.Cell, len(res.Cells))
	for i, c := range res.Cells {
		cells[i] = schema.Cell{Family: string(c.Family), Qualifier: string(c.Qualifier), Value: c.Value}
	}
	rv, keyErr := v.ViewRow(key, cells)
	// The index protocol's bookkeeping (versions, entry keys, statuses,
	// the insert token) is not data no column declares: --raw shows it.
	rv.Cells = slices.DeleteFunc(rv.Cells, func(c schema.CellView) bool {
		return c.Column.Name == "" && (c.Qualifier == dao.TokenQualifier || !p.raw && dao.Bookkeeping(c.Qualifier))
	})
	if !p.matches(rv) {
		p.skipped++
		return nil
	}
	p.rows++
	if p.json {
		return p.printJSON(rv, keyErr)
	}
	if p.rows > 1 {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "row %s\n", schema.QuoteKey(key))
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	line := func(name, value, note string, b []byte) {
		fmt.Fprintf(tw, "  %s\t%s\t", name, value)
		if p.raw {
			fmt.Fprintf(tw, "%s\t", schema.QuoteKey(b))
		}
		if note != "" {
			fmt.Fprintf(tw, "(%s)", note)
		}
		fmt.Fprintln(tw)
	}
	for _, s := range rv.Segments {
		note := ""
		if s.Derived {
			note = s.Kind.String()
			if s.From != "" {
				note += " of " + s.From
			}
		}
		line(s.Name, formatValue(s.Value), note, s.Bytes)
	}
	if keyErr != nil {
		line("!", "key does not decode", keyErr.Error(), nil)
	}
	for _, c := range rv.Cells {
		name := c.Column.Name
		note := c.Family + ":" + c.Qualifier
		if c.QualifierParts != nil {
			name, note = name+wideName(c.QualifierParts), c.Family
		}
		value := formatValue(c.Value)
		switch {
		case c.Err != nil:
			value, note = "?", note+", "+c.Err.Error()
		case name == "":
			name = c.Family + ":" + c.Qualifier
			note = "no column declares it"
		}
		line(name, value, note, c.Cell.Value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for l := range bytes.Lines(buf.Bytes()) {
		if _, err := fmt.Fprintf(p.w, "%s\n", bytes.TrimRight(l, " \n")); err != nil {
			return err
		}
	}
	return nil
}

func (p *rowPrinter) printJSON(rv schema.RowView, keyErr error) error {
	j := rowJSON{Table: p.table, Row: keyOf(rv.Key), Key: map[string]any{}, Columns: map[string]any{}}
	errs := map[string]string{}
	if keyErr != nil {
		errs["key"] = keyErr.Error()
	}
	if p.raw {
		j.Raw = &rawJSON{Key: map[string]string{}, Columns: map[string]string{}}
	}
	for _, s := range rv.Segments {
		j.Key[s.Name] = jsonValue(s.Value)
		if p.raw {
			j.Raw.Key[s.Name] = schema.QuoteKey(s.Bytes)
		}
	}
	for _, c := range rv.Cells {
		name := c.Column.Name
		if c.QualifierParts != nil {
			cj := cellJSON{Qualifier: map[string]any{}, Value: jsonValue(c.Value)}
			for _, q := range c.QualifierParts {
				cj.Qualifier[q.Name] = jsonValue(q.Value)
			}
			if c.Err != nil {
				cj.Error = c.Err.Error()
			}
			if p.raw {
				cj.Raw = schema.QuoteKey([]byte(c.Qualifier)) + " " + schema.QuoteKey(c.Cell.Value)
			}
			j.Cells = append(j.Cells, cj)
			continue
		}
		if name == "" {
			if j.Other == nil {
				j.Other = map[string]string{}
			}
			j.Other[c.Family+":"+c.Qualifier] = schema.QuoteKey(c.Cell.Value)
			continue
		}
		if c.Err != nil {
			errs[name] = c.Err.Error()
			j.Columns[name] = nil
		} else {
			j.Columns[name] = jsonValue(c.Value)
		}
		if p.raw {
			j.Raw.Columns[name] = schema.QuoteKey(c.Cell.Value)
		}
	}
	if len(errs) > 0 {
		j.Errors = errs
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.w, "%s\n", b)
	return err
}

// moreJSON is the last line of a --json scan that --limit cut short.
type moreJSON struct {
	More  bool `json:"more"`
	Rows  int  `json:"rows"`
	Limit int  `json:"limit"`
}

func (p *rowPrinter) printMore(rows, limit int) error {
	b, err := json.Marshal(moreJSON{More: true, Rows: rows, Limit: limit})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.w, "%s\n", b)
	return err
}

func rowCount(n int) string {
	if n == 1 {
		return "1 row"
	}
	return strconv.Itoa(n) + " rows"
}

// formatValue renders a decoded value for the text output.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "?"
	case string:
		if x == "" || strings.ContainsFunc(x, func(r rune) bool { return !unicode.IsPrint(r) }) {
			return strconv.Quote(x)
		}
		return x
	case []byte:
		return schema.QuoteKey(x)
	case time.Time:
		return x.Format(keys.TimeLayout)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// jsonValue is v as JSON shows it: times as RFC 3339 text, bytes in the
// shell's form, floats that JSON cannot hold as text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return schema.QuoteKey(x)
	case time.Time:
		return x.Format(keys.TimeLayout)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return v
}
