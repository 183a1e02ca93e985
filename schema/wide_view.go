package schema

import (
	"slices"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

var _ Viewer = (*WideTable[struct{}])(nil)

// ViewRow decodes a row of the wide table without the record type: the row
// key's segments, and each cell of the value family with its qualifier cut
// into the key fields it holds (CellView.QualifierParts) and its value
// decoded by the value column's type. UID segments show their ids.
func (t *WideTable[T]) ViewRow(key []byte, cells []Cell) (RowView, error) {
	table := t.name.String()
	col := ColumnInfo{Name: t.value.Name, Family: t.value.Family, Type: t.value.Type}
	v := RowView{Key: key, Cells: make([]CellView, 0, len(cells))}
	for _, c := range cells {
		cv := CellView{Cell: c, Column: ColumnInfo{Family: c.Family, Qualifier: c.Qualifier}}
		if c.Family == col.Family {
			cv.Column = col
			var err error
			if cv.QualifierParts, err = viewParts(t.qual, []byte(c.Qualifier)); err != nil {
				cv.Err = keyError(table, err)
				v.Cells = append(v.Cells, cv)
				continue
			}
		}
		cv.decodeValue(table)
		v.Cells = append(v.Cells, cv)
	}
	return v, viewKey(&v, table, t.key, t.source)
}

// source is the field a row-key segment holds, or none for a derived one.
func (t *WideTable[T]) source(segment string) string {
	if slices.Contains(t.fields, segment) {
		return segment
	}
	return ""
}

// setText sets a field of rec from its text: a row-key or qualifier field
// through its segment, the value through its column's type.
func (t *WideTable[T]) setText(rec *T, f FieldText) error {
	table := t.name.String()
	for _, l := range []*keys.Layout[T]{t.key, t.qual} {
		i := l.SegmentIndex(f.Field)
		if i < 0 || !slices.Contains(t.fields, f.Field) {
			continue
		}
		b, err := AppendSegmentText(nil, l.Segments()[i], f.Text)
		if err != nil {
			return keyError(table, err)
		}
		if err := l.DecodeField(i, b, rec); err != nil {
			return keyError(table, err)
		}
		return nil
	}
	if f.Field == t.value.Name {
		c := ColumnInfo{Name: t.value.Name, Family: t.value.Family}
		b, err := t.value.Type.AppendText(nil, f.Text)
		if err != nil {
			return withField(err, table, c)
		}
		if err := t.value.Set(rec, b); err != nil {
			return withField(err, table, c)
		}
		return nil
	}
	return &Error{Table: table, Field: f.Field, Reason: "not a field of the table (known: " + strings.Join(t.fields, ", ") + ")", Kind: ErrUnknownField}
}

// RowKeys returns the row key the given row-key fields make: one row of the
// wide table, holding many records.
func (t *WideTable[T]) RowKeys(fields []FieldText) ([][]byte, error) {
	return rowKeys(t.name.String(), t.key, t.setText, t.source, fields)
}

// KeyRanges returns the ranges of the rows q selects by row-key fields.
func (t *WideTable[T]) KeyRanges(q TextQuery) ([]keys.KeyRange, error) {
	return keyRanges(t.name.String(), t.key, t.setText, t.source, q)
}
