package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

// Viewer is a Definition whose rows can be read, and whose keys and key ranges can be
// built from field values given as text, without the record type: what a command
// line or a browser needs. *Table[T] and *Index[T] implement it; another kind of
// table (wide rows, an inverted index) may too. AsViewer finds it behind Renamed.
type Viewer interface {
	Definition
	// ViewRow decodes a row: its key cut into named segments with their values,
	// and its cells with the values of the columns that declare them. A key that
	// does not decode still gives the segments decoded before the failure, and the
	// error; cells always decode one by one (CellView.Err).
	ViewRow(key []byte, cells []Cell) (RowView, error)
	// RowKeys returns the row key of the record whose key fields are given: one
	// key, or one per value of leading buckets (a salt) the fields cannot compute.
	// A missing or unknown field, or a value that does not parse, is a *Error.
	RowKeys(fields []FieldText) ([][]byte, error)
	// KeyRanges returns the ranges of the rows q selects, in key order.
	KeyRanges(q TextQuery) ([]keys.KeyRange, error)
}

var (
	_ Viewer = (*Table[SMS])(nil)
	_ Viewer = (*Index[SMS])(nil)
)

// AsViewer returns d as a Viewer, also when Renamed wraps one (the result then
// carries the new name).
func AsViewer(d Definition) (Viewer, bool) {
	if r, ok := d.(renamed); ok {
		v, ok := r.Definition.(Viewer)
		if !ok {
			return nil, false
		}
		return renamedViewer{Viewer: v, name: r.name}, true
	}
	v, ok := d.(Viewer)
	return v, ok
}

type renamedViewer struct {
	Viewer
	name TableName
}

func (r renamedViewer) Name() TableName { return r.name }

// FieldText is a record field and its value as a user writes it (see
// keys.Segment.AppendText and ColumnType.AppendText for the forms).
type FieldText struct {
	Field string
	Text  string
}

// TextQuery selects rows by field values, as dao.Query does by records:
//
//   - Eq fixes key fields (or the fields key segments are computed from): the
//     named fields must form a prefix of the key once leading buckets they do not
//     determine are set aside (keys.Layout.Where); those buckets take every value;
//   - Lo and Hi, when set, bound the key field that follows those, both included
//     and in the field's own order (a reversed timestamp's "from" is its older
//     end). Either may be nil for a range open on that side. They name the same
//     field, which must sort in some order (not a hash or a reversed digit string).
//
// The zero TextQuery is the whole table.
type TextQuery struct {
	Eq     []FieldText
	Lo, Hi *FieldText
}

// RowView is a row read without its record type.
type RowView struct {
	Key      []byte
	Segments []SegmentView // key order; fewer than the layout's when the key did not decode
	Cells    []CellView    // in the order given
}

// SegmentView is one key segment of a row.
type SegmentView struct {
	keys.Segment
	Bytes []byte // the segment's bytes, aliasing the key
	// Value is the decoded value (keys.Segment.Value). Segments that are not record
	// fields (Derived) show their encoded value: a hash's hex, a bucket's number.
	Value   any
	Derived bool
	// From is the record field a derived segment is computed from, when the
	// schema says (an index's From); empty otherwise.
	From string
}

// CellView is one cell of a row.
type CellView struct {
	// Column is the declared column; its Name is empty for a cell no column
	// declares, whose Type is then ColumnBytes.
	Column ColumnInfo
	Cell
	Value any   // decoded by Column.Type; nil when Err is set
	Err   error // a value the column's type does not accept
	// QualifierParts is, in a wide table, the qualifier cut into the key
	// fields it holds (WideTable.Qualifier); nil in other tables.
	QualifierParts []SegmentView
}

// viewRow is ViewRow over a layout and the columns of a table or index.
func viewRow[T any](table string, l *keys.Layout[T], source func(string) string, cols []ColumnInfo, key []byte, cells []Cell) (RowView, error) {
	v := RowView{Key: key, Cells: make([]CellView, 0, len(cells))}
	for _, c := range cells {
		cv := CellView{Cell: c, Column: ColumnInfo{Family: c.Family, Qualifier: c.Qualifier}}
		if i := slices.IndexFunc(cols, func(ci ColumnInfo) bool { return ci.Family == c.Family && ci.Qualifier == c.Qualifier }); i >= 0 {
			cv.Column = cols[i]
		}
		val, err := cv.Column.Type.Value(c.Value)
		if err != nil {
			cv.Err = withField(err, table, cv.Column)
		} else {
			cv.Value = val
		}
		v.Cells = append(v.Cells, cv)
	}
	segs := l.Segments()
	parts, err := l.Parts(key)
	for i, b := range parts {
		val, verr := SegmentValue(segs[i], b)
		if verr != nil {
			return v, keyError(table, verr)
		}
		sv := SegmentView{Segment: segs[i], Bytes: b, Value: val}
		if src := source(segs[i].Name); segs[i].Kind != keys.KindLiteral && src != segs[i].Name {
			sv.Derived, sv.From = true, src
		}
		v.Segments = append(v.Segments, sv)
	}
	if err != nil {
		return v, keyError(table, err)
	}
	return v, nil
}

func withField(err error, table string, c ColumnInfo) error {
	if e, ok := err.(*Error); ok {
		cp := *e
		cp.Table, cp.Family, cp.Field = table, c.Family, c.Name
		if cp.Field == "" {
			cp.Field = c.Family + ":" + c.Qualifier
		}
		return &cp
	}
	return err
}

// ViewRow decodes a row of the table without the record type.
func (t *Table[T]) ViewRow(key []byte, cells []Cell) (RowView, error) {
	return viewRow(t.name.String(), t.key, t.source, t.Columns(), key, cells)
}

// ViewRow decodes an index entry without the record type. The cell holding the
// data row key (RowKeyColumn) shows as a bytes column named "row key".
func (ix *Index[T]) ViewRow(key []byte, cells []Cell) (RowView, error) {
	cols := ix.Columns()
	if ix.rowKeyQ != "" {
		cols = append(cols, ColumnInfo{Name: "row key", Family: ix.family, Qualifier: ix.rowKeyQ, Type: ColumnBytes})
	}
	v, err := viewRow(ix.name.String(), ix.key, ix.source, cols, key, cells)
	if ix.qual != nil {
		ix.viewEntries(&v) // inverted.go
	}
	return v, err
}

// setText sets the field of rec named field from its text: a decodable key field
// through its segment's encoding (keys.Segment.AppendText, keys.Layout.DecodeField),
// a column through its type (ColumnType.AppendText, Column.Set).
func (t *Table[T]) setText(rec *T, f FieldText) error {
	table := t.name.String()
	if i := t.key.SegmentIndex(f.Field); i >= 0 && t.HasField(f.Field) {
		seg := t.key.Segments()[i]
		b, err := AppendSegmentText(nil, seg, f.Text)
		if err != nil {
			return keyError(table, err)
		}
		if err := t.key.DecodeField(i, b, rec); err != nil {
			return keyError(table, err)
		}
		return nil
	}
	for _, c := range t.columns {
		if c.Name != f.Field {
			continue
		}
		b, err := c.Type.AppendText(nil, f.Text)
		if err != nil {
			return withField(err, table, ColumnInfo{Name: c.Name, Family: c.Family, Qualifier: c.Qualifier})
		}
		if err := c.Set(rec, b); err != nil {
			return withField(err, table, ColumnInfo{Name: c.Name, Family: c.Family, Qualifier: c.Qualifier})
		}
		return nil
	}
	return &Error{Table: table, Field: f.Field, Reason: "not a field of the table (known: " + strings.Join(t.fields, ", ") + ")", Kind: ErrUnknownField}
}

// source is the field a key segment of the table holds or is computed from:
// Spec.From, else its name when it is a field, else none.
func (t *Table[T]) source(segment string) string {
	if src, ok := t.from[segment]; ok {
		return src
	}
	if t.HasField(segment) {
		return segment
	}
	return ""
}

// keyFrom checks Spec.From against the key's segments and the table's
// fields, and returns a copy.
func keyFrom[T any](l *keys.Layout[T], from map[string]string, fields map[string]bool) (map[string]string, error) {
	out := make(map[string]string, len(from))
	for seg, src := range from {
		switch {
		case l.SegmentIndex(seg) < 0:
			return nil, &Error{Field: "From " + seg, Reason: "not a segment of the key", Kind: ErrUnknownField}
		case !fields[src]:
			return nil, &Error{Field: "From " + seg, Value: src, Reason: "computed from a field the table does not declare", Kind: ErrUnknownField}
		}
		out[seg] = src
	}
	return out, nil
}

// RowKeys returns the row key of the record whose key fields are given as text.
func (t *Table[T]) RowKeys(fields []FieldText) ([][]byte, error) {
	return rowKeys(t.name.String(), t.key, t.setText, t.source, fields)
}

// KeyRanges returns the ranges of the table's rows q selects.
func (t *Table[T]) KeyRanges(q TextQuery) ([]keys.KeyRange, error) {
	return keyRanges(t.name.String(), t.key, t.setText, t.source, q)
}

// RowKeys returns the index row key of the entry whose fields are given as text:
// the fields of the data table its segments are computed from.
func (ix *Index[T]) RowKeys(fields []FieldText) ([][]byte, error) {
	return rowKeys(ix.name.String(), ix.key, ix.table.setText, ix.source, fields)
}

// KeyRanges returns the ranges of the index rows q selects; q names fields of the
// data table, from which the index segments are computed.
func (ix *Index[T]) KeyRanges(q TextQuery) ([]keys.KeyRange, error) {
	return keyRanges(ix.name.String(), ix.key, ix.table.setText, ix.source, q)
}

func (ix *Index[T]) source(segment string) string {
	src, _ := ix.Source(segment)
	return src
}

type setTextFunc[T any] func(rec *T, f FieldText) error

func rowKeys[T any](table string, l *keys.Layout[T], set setTextFunc[T], source func(string) string, fields []FieldText) ([][]byte, error) {
	var rec T
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		if slices.Contains(names, f.Field) {
			return nil, &Error{Table: table, Field: f.Field, Reason: "given twice", Kind: ErrInvalidValue}
		}
		if err := set(&rec, f); err != nil {
			return nil, err
		}
		names = append(names, f.Field)
	}
	if len(names) == 0 {
		return nil, &Error{Table: table, Field: "key", Reason: "no key field given", Kind: ErrInvalidKey}
	}
	spread, n, err := l.Where(names, source)
	if err != nil {
		return nil, keyError(table, err)
	}
	if n < l.Len() {
		seg := l.Segments()[n]
		return nil, &Error{Table: table, Field: seg.Name, Reason: "missing: a row key needs every key field", Kind: ErrInvalidKey}
	}
	rs, err := spreadRanges(table, l, &rec, &rec, spread, n)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r.Start
	}
	return out, nil
}

// keyRanges is the key ranges of layout l that hold the rows q selects:
// its Eq fields fixed, then at most one field bounded by Lo and/or Hi.
func keyRanges[T any](table string, l *keys.Layout[T], set setTextFunc[T], source func(string) string, q TextQuery) ([]keys.KeyRange, error) {
	var lo, hi T
	names, err := setEq(table, set, &lo, &hi, q.Eq)
	if err != nil {
		return nil, err
	}
	bounded, err := boundedField(table, q, names)
	if err != nil {
		return nil, err
	}
	if bounded == "" {
		if len(names) == 0 {
			return []keys.KeyRange{{}}, nil
		}
		spread, n, err := l.Where(names, source)
		if err != nil {
			return nil, keyError(table, err)
		}
		return spreadRanges(table, l, &lo, &hi, spread, n)
	}
	if q.Lo != nil {
		if err := set(&lo, *q.Lo); err != nil {
			return nil, err
		}
	}
	if q.Hi != nil {
		if err := set(&hi, *q.Hi); err != nil {
			return nil, err
		}
	}
	return boundedRanges(table, l, source, q, names, bounded, &lo, &hi)
}

// queryError is an ErrInvalidValue of a query's field.
func queryError(table, field, reason string) error {
	return &Error{Table: table, Field: field, Reason: reason, Kind: ErrInvalidValue}
}

// setEq sets the fixed fields eq in both lo and hi, returning their names;
// a field given twice is an error.
func setEq[T any](table string, set setTextFunc[T], lo, hi *T, eq []FieldText) ([]string, error) {
	var names []string
	for _, f := range eq {
		if slices.Contains(names, f.Field) {
			return nil, queryError(table, f.Field, "given twice")
		}
		if err := set(lo, f); err != nil {
			return nil, err
		}
		if err := set(hi, f); err != nil {
			return nil, err
		}
		names = append(names, f.Field)
	}
	return names, nil
}

// boundedField is the field q's bounds name ("" without bounds): both
// bounds must name it, and it must not be one of the fixed names.
func boundedField(table string, q TextQuery, names []string) (string, error) {
	bounded := ""
	for _, b := range []*FieldText{q.Lo, q.Hi} {
		if b == nil {
			continue
		}
		if bounded != "" && b.Field != bounded {
			return "", queryError(table, b.Field, "the two bounds name different fields ("+bounded+")")
		}
		if slices.Contains(names, b.Field) {
			return "", queryError(table, b.Field, "both fixed and bounded")
		}
		bounded = b.Field
	}
	return bounded, nil
}

// spreadRanges is l.SpreadRanges with the table named on errors.
func spreadRanges[T any](table string, l *keys.Layout[T], lo, hi *T, spread, n int) ([]keys.KeyRange, error) {
	rs, err := l.SpreadRanges(lo, hi, spread, n)
	if err != nil {
		return nil, keyError(table, err)
	}
	return rs, nil
}

// boundedRanges is keyRanges of a query that bounds the field bounded,
// the key segment after the fixed ones: lo and hi hold the fixed fields
// and the bounds given.
func boundedRanges[T any](table string, l *keys.Layout[T], source func(string) string, q TextQuery, names []string, bounded string, lo, hi *T) ([]keys.KeyRange, error) {
	// The bounded field gives its own segment only: a bucket computed from it
	// takes another value at each end, so it is spread.
	own := func(seg string) string {
		if src := source(seg); src != bounded {
			return src
		}
		return ""
	}
	spread, n, err := l.Where(append(slices.Clip(names), bounded), own)
	if err != nil {
		return nil, keyError(table, err)
	}
	seg := l.Segments()[n-1]
	if seg.Name != bounded && own(seg.Name) != bounded {
		return nil, queryError(table, bounded, "bounds must name the key field after the fixed ones")
	}
	if seg.Order == keys.Unordered {
		return nil, queryError(table, bounded, "a "+seg.Kind.String()+" segment keeps no order of its values: give it with --eq")
	}
	if q.Lo != nil && q.Hi != nil {
		return spreadRanges(table, l, lo, hi, spread, n)
	}
	// One bound: the prefix the fixed fields give, cut at the bound.
	if seg.Order != keys.Ascending && seg.Order != keys.Descending {
		return nil, queryError(table, bounded, "a one-sided range needs a segment whose bytes sort as its values (it sorts "+seg.Order.String()+"): give both bounds")
	}
	rec := lo
	if q.Lo == nil {
		rec = hi
	}
	// Values at or above the lower bound are the keys from it (ascending) or up to
	// it (descending); values up to the upper bound the other way round.
	fromBound := (q.Lo != nil) == (seg.Order == keys.Ascending)
	return oneSidedRanges(table, l, rec, spread, n, fromBound)
}

// oneSidedRanges cuts the ranges of rec's first n-1 segments at rec's n-th:
// from it to the prefix's end when fromBound, else from the prefix's start
// up to it.
func oneSidedRanges[T any](table string, l *keys.Layout[T], rec *T, spread, n int, fromBound bool) ([]keys.KeyRange, error) {
	prefix, err := spreadRanges(table, l, rec, rec, spread, n-1)
	if err != nil {
		return nil, err
	}
	at, err := spreadRanges(table, l, rec, rec, spread, n)
	if err != nil {
		return nil, err
	}
	out := make([]keys.KeyRange, len(prefix))
	for i := range prefix {
		if fromBound {
			out[i] = keys.KeyRange{Start: at[i].Start, Stop: prefix[i].Stop}
		} else {
			out[i] = keys.KeyRange{Start: prefix[i].Start, Stop: at[i].Stop}
		}
	}
	return out, nil
}

// SegmentValue is keys.Segment.Value, which also reads the ids of UID
// segments (UID.Field, a custom codec named "uid") as uint64.
func SegmentValue(s keys.Segment, b []byte) (any, error) {
	if s.Kind == keys.KindCustom && s.Codec == "uid" {
		id, rest, err := DecodeUID(b, s.Width)
		if err == nil && len(rest) != 0 {
			err = &Error{Field: s.Name, Reason: "bytes after the id", Kind: ErrInvalidKey}
		}
		return id, err
	}
	return s.Value(b)
}

// AppendSegmentText is keys.Segment.AppendText, which also takes the ids
// of UID segments in decimal.
func AppendSegmentText(dst []byte, s keys.Segment, text string) ([]byte, error) {
	if s.Kind == keys.KindCustom && s.Codec == "uid" {
		id, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return dst, &Error{Field: s.Name, Value: text, Reason: "want a decimal id", Kind: ErrInvalidKey}
		}
		return AppendUID(dst, id, s.Width)
	}
	return s.AppendText(dst, text)
}
