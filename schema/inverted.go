package schema

import (
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// InvertedValue returns the value an inverted entry carries in the
// schema's encoding: the byte '1', seed 001's "Value为1". Package index
// stores the entry's status there instead (see its documentation); a cell
// another client wrote with this value is an entry without a status.
func InvertedValue() []byte { return []byte("1") }

// setInverted validates the inverted declaration of spec (IndexSpec.Qualifier)
// and records it: every qualifier segment is a decodable field of the
// data row key (so the qualifier is a function of the data row key),
// together they determine one record of the data table, and the entry
// carries nothing else.
func (ix *Index[T]) setInverted(spec IndexSpec[T]) error {
	bad := func(field, reason string, kind error) error {
		return &Error{Field: field, Reason: reason, Kind: kind}
	}
	switch {
	case spec.RowKeyQualifier != "":
		return bad("row key qualifier", "an inverted entry is one cell whose qualifier points back to the record: no row key cell", ErrInvalidTable)
	case len(spec.Columns) > 0:
		return bad("columns", "an inverted entry is one cell: it carries no columns", ErrInvalidTable)
	}
	segs := spec.Qualifier.Segments()
	if len(segs) == 0 {
		return bad("qualifier", "no segments", ErrInvalidTable)
	}
	for _, s := range segs {
		if s.Kind == keys.KindLiteral {
			continue
		}
		switch {
		case s.Kind == keys.KindSalt:
			return bad("qualifier segment "+s.Name, "a salt cannot point back to a record", ErrInvalidTable)
		case !ix.table.HasField(s.Name):
			return bad("qualifier segment "+s.Name, "not a field of the table", ErrUnknownField)
		case !s.Decodable:
			return bad("qualifier segment "+s.Name, "not decodable: the qualifier must give back the record's key fields", ErrInvalidTable)
		case !ix.table.isKeyField(s.Name):
			// A column would let a record's entry move within its row, and
			// a delete, which knows the data row key alone, would compute
			// another qualifier than the one written.
			return bad("qualifier segment "+s.Name, "not a field of the data row key: the qualifier must be a function of the data row key", ErrInvalidTable)
		}
	}
	ix.qual = spec.Qualifier
	if missing := ix.uncoveredKeyFields(segs); len(missing) > 0 {
		return bad("qualifier", "does not determine a record: "+missingFields(missing, "qualifier"), ErrIndexNotUnique)
	}
	return nil
}

// Inverted reports whether the index is inverted (IndexSpec.Qualifier):
// its row holds one cell per record, as seed 001's province_age index
// holds one column per uid, so reading one row answers "which records
// have this value", and counting its cells "how many".
func (ix *Index[T]) Inverted() bool { return ix.qual != nil }

// QualifierLayout returns the layout of an inverted entry's qualifier, nil
// for an index whose entries are rows.
func (ix *Index[T]) QualifierLayout() *keys.Layout[T] { return ix.qual }

// QualifierSegments describes the segments of an inverted entry's
// qualifier, nil for an index whose entries are rows.
func (ix *Index[T]) QualifierSegments() []keys.Segment {
	if ix.qual == nil {
		return nil
	}
	return ix.qual.Segments()
}

// AppendQualifier appends the qualifier of v's entry in an inverted index
// to dst. A record whose qualifier encodes to nothing (seed 001's empty
// uid) has no entry it could address: it is an error (ErrInvalidKey), since
// a delete without a qualifier deletes the whole family, every other
// record's entry in the row with it. On error dst is returned unchanged.
func (ix *Index[T]) AppendQualifier(dst []byte, v *T) ([]byte, error) {
	if ix.qual == nil {
		return dst, &Error{Table: ix.name.String(), Field: "qualifier", Reason: "not an inverted index", Kind: ErrInvalidTable}
	}
	return ix.appendQualifier(dst, v)
}

// appendQualifier is AppendQualifier on an inverted index.
func (ix *Index[T]) appendQualifier(dst []byte, v *T) ([]byte, error) {
	out, err := ix.qual.Append(dst, v)
	if err != nil {
		return dst, keyError(ix.name.String(), err)
	}
	if len(out) == len(dst) {
		return dst, &Error{Table: ix.name.String(), Field: "qualifier",
			Reason: "encodes to nothing: an entry needs a qualifier of its own (an empty one would be deleted with the whole family)", Kind: ErrInvalidKey}
	}
	return out, nil
}

// QualifierOf returns the qualifier of the entry of the record whose data
// row key is dataKey, in an inverted index: the key's fields are decoded
// and encoded again by the qualifier layout.
func (ix *Index[T]) QualifierOf(dataKey []byte) ([]byte, error) {
	var v T
	if err := ix.table.DecodeKey(dataKey, &v); err != nil {
		return nil, err
	}
	return ix.AppendQualifier(nil, &v)
}

// DataKeyOf returns the data row key of the record an inverted entry's
// qualifier points to: the qualifier's fields are decoded and the data
// row key encoded from them. A qualifier that does not decode, or whose
// fields do not make a row key, is an error (ErrInvalidKey).
func (ix *Index[T]) DataKeyOf(qualifier []byte) ([]byte, error) {
	if ix.qual == nil {
		return nil, &Error{Table: ix.name.String(), Field: "qualifier", Reason: "not an inverted index", Kind: ErrInvalidTable}
	}
	var v T
	if err := ix.qual.Decode(qualifier, &v); err != nil {
		return nil, keyError(ix.name.String(), err)
	}
	return ix.table.AppendKey(nil, &v)
}

// encodeInverted adds the one cell of v's inverted entry to r, whose key is
// set: family, qualifier from the record, value InvertedValue.
func (ix *Index[T]) encodeInverted(r *Row, v *T) error {
	start := len(r.buf)
	buf, err := ix.appendQualifier(r.buf, v)
	if err != nil {
		r.Reset()
		return err
	}
	q := string(buf[start:])
	buf = append(buf[:start], '1')
	r.buf = buf
	r.Cells = append(r.Cells, Cell{Family: ix.family, Qualifier: q, Value: buf[start:len(buf):len(buf)]})
	return nil
}

// decodeInverted decodes the record's key fields from the qualifier of the
// first cell of the index family in cells (an inverted entry's own cell).
func (ix *Index[T]) decodeInverted(cells []Cell, v *T) error {
	for _, c := range cells {
		if c.Family == ix.family {
			if err := ix.qual.Decode([]byte(c.Qualifier), v); err != nil {
				return keyError(ix.name.String(), err)
			}
			return nil
		}
	}
	return &Error{Table: ix.name.String(), Field: "qualifier", Reason: "no cell in family " + strconv.Quote(ix.family), Kind: ErrInvalidKey}
}

// viewEntries marks the cells of an inverted index row as its entries, a
// bytes column named "entry" each, with the qualifier cut into the key
// fields it holds (CellView.QualifierParts), as a wide table's cells are.
func (ix *Index[T]) viewEntries(v *RowView) {
	for i := range v.Cells {
		cv := &v.Cells[i]
		if cv.Family != ix.family {
			continue
		}
		cv.Column = ColumnInfo{Name: "entry", Family: ix.family, Qualifier: cv.Qualifier, Type: ColumnBytes}
		var err error
		cv.QualifierParts, err = viewParts(ix.qual, []byte(cv.Qualifier))
		if err != nil && cv.Err == nil {
			cv.Err = keyError(ix.name.String(), err)
		}
	}
}
