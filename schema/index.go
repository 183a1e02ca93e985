package schema

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

// IndexSpec declares a secondary index table kept next to a data table,
// the client-managed index of seed 001 §3.3 and seed 000's SMS index: each
// record of the data table has one index entry whose row key is built from
// the record's fields by the index's own layout.
type IndexSpec[T any] struct {
	// Name is the index table's name, "namespace:qualifier" or a bare
	// qualifier.
	Name string
	// Families are the index table's column families, at least one.
	Families []Family
	// Key is the index row-key layout over the same record type. It must
	// determine one record of the data table, or New refuses it with
	// ErrIndexNotUnique: each decodable data-key field (salts and hash
	// buckets aside) needs a segment computed from it in an injective
	// encoding (not a hash, and not a Date or a ReversedTimeOfDay alone),
	// or a Date and a ReversedTimeOfDay both computed from it.
	Key *keys.Layout[T]
	// From maps an index key segment that is not itself a field of the
	// data table to the data-table field it is computed from, e.g. a hash
	// bucket "bucket" from "mobile" or a date "day" from "sent". Every
	// index key segment other than literals and salts must be a data-table
	// field or appear here; New checks that, and that every source exists.
	From map[string]string
	// Splits pre-splits the index table.
	Splits Splits
	// Family is the family the entry's cells go into; empty means the
	// first of Families.
	Family string
	// Columns names the data-table columns the entry carries, stored under
	// the same qualifiers, so that reading the index answers a query
	// without a second Get on the data table.
	Columns []string
	// RowKeyQualifier, when not empty, makes each entry carry the data
	// table's row key in a cell with this qualifier, the pointer back to
	// the record.
	RowKeyQualifier string
	// Qualifier, when set, makes the index inverted (see Inverted): each
	// record's entry is one cell, in Family, of the row its Key derives,
	// under the qualifier this layout encodes from the record's key
	// fields. Key need not then determine a record (many share a row);
	// Qualifier must, and RowKeyQualifier and Columns must be empty.
	Qualifier *keys.Layout[T]
}

// Index is a validated index declaration of a Table[T]. It is immutable
// and safe for concurrent use, provided the mapping functions are.
type Index[T any] struct {
	table    *Table[T]
	name     TableName
	families []Family
	key      *keys.Layout[T]
	from     map[string]string
	splits   [][]byte
	family   string
	columns  []Column[T]
	rowKeyQ  string
	qual     *keys.Layout[T] // inverted indexes only
	split    Splits          // IndexSpec.Splits, as declared
}

// newIndex validates spec against its data table t and returns the index
// it declares; errors name the table and the index.
func newIndex[T any](t *Table[T], spec IndexSpec[T]) (*Index[T], error) {
	name, err := ParseTableName(spec.Name)
	if se, ok := err.(*Error); ok {
		cp := *se
		cp.Table = t.name.String()
		cp.Field = joinField("index "+spec.Name, cp.Field)
		return nil, &cp
	} else if err != nil {
		return nil, err
	}
	iname := name.String()
	fail := func(err error) (*Index[T], error) {
		if se, ok := err.(*Error); ok && se.Table == "" {
			cp := *se
			cp.Table = t.name.String()
			cp.Field = joinField("index "+iname, cp.Field)
			return nil, &cp
		}
		return nil, err
	}
	bad := func(field, reason string, kind error) (*Index[T], error) {
		return fail(&Error{Field: field, Reason: reason, Kind: kind})
	}
	ix := &Index[T]{table: t, name: name, key: spec.Key, family: spec.Family, rowKeyQ: spec.RowKeyQualifier}
	if ix.families, err = validateFamilies(spec.Families); err != nil {
		return fail(err)
	}
	if ix.family == "" {
		ix.family = ix.families[0].Name
	} else if !hasFamily(ix.families, ix.family) {
		return fail(&Error{Family: ix.family, Field: "family", Reason: "not one of the index families", Kind: ErrInvalidTable})
	}
	if spec.Key == nil {
		return bad("key", "no row-key layout", ErrInvalidTable)
	}
	segs := spec.Key.Segments()
	if err := checkIndexSources(t, segs, spec.From); err != nil {
		return fail(err)
	}
	ix.from = make(map[string]string, len(spec.From))
	maps.Copy(ix.from, spec.From)
	if ix.columns, err = indexColumns(t, ix.rowKeyQ, spec.Columns); err != nil {
		return fail(err)
	}
	if ix.splits, err = spec.Splits.compute(segs); err != nil {
		return fail(err)
	}
	ix.split = spec.Splits
	if spec.Qualifier != nil {
		if err := ix.setInverted(spec); err != nil {
			return fail(err)
		}
	} else if missing := ix.uncoveredKeyFields(segs); len(missing) > 0 {
		return bad("", "key does not determine a record: "+missingFields(missing, "index key"), ErrIndexNotUnique)
	}
	return ix, nil
}

// checkIndexSources checks that each segment of an index key is a field
// of t or computed from one (From), and that From maps segments of the key.
func checkIndexSources[T any](t *Table[T], segs []keys.Segment, from map[string]string) error {
	for _, s := range segs {
		if s.Kind == keys.KindLiteral || s.Kind == keys.KindSalt {
			continue
		}
		src, mapped := from[s.Name]
		switch {
		case mapped && !t.HasField(src):
			return &Error{Field: "key segment " + s.Name, Reason: "computed from " + strconv.Quote(src) + ", which is not a field of the table", Kind: ErrUnknownField}
		case !mapped && !t.HasField(s.Name):
			return &Error{Field: "key segment " + s.Name, Reason: "not a field of the table and not mapped to one in From", Kind: ErrUnknownField}
		}
	}
	for seg := range from {
		if !slices.ContainsFunc(segs, func(s keys.Segment) bool { return s.Name == seg }) {
			return &Error{Field: "From " + seg, Reason: "not a segment of the index key", Kind: ErrUnknownField}
		}
	}
	return nil
}

// indexColumns returns the columns of t that an index entry copies, by
// name; no two may share a qualifier, nor one the row key's (rowKeyQ).
func indexColumns[T any](t *Table[T], rowKeyQ string, names []string) ([]Column[T], error) {
	qualifiers := make(map[string]bool)
	if rowKeyQ != "" {
		qualifiers[rowKeyQ] = true
	}
	var out []Column[T]
	for _, name := range names {
		i := slices.IndexFunc(t.columns, func(c Column[T]) bool { return c.Name == name })
		if i < 0 {
			return nil, &Error{Field: "column " + name, Reason: "not a column of the table", Kind: ErrUnknownField}
		}
		c := t.columns[i]
		if qualifiers[c.Qualifier] {
			return nil, invalidTable("column "+name, "qualifier "+strconv.Quote(c.Qualifier)+" used twice in the entry")
		}
		qualifiers[c.Qualifier] = true
		out = append(out, c)
	}
	return out, nil
}

// uncoveredKeyFields returns, in data-key order, the data-key fields that
// the index key does not determine. Two records that differ only in such a
// field would share one index row.
//
// The data-key fields are the decodable segments of the data row key other
// than literals, salts and hash buckets (derived values). A field F is
// determined by an index segment computed from F (Source) whose encoding is
// injective: KindReversedDigits, KindDigits, KindFixed,
// KindString, KindUnique, KindUint64, KindInt64, KindReversedTimestamp,
// KindReversedTimestampBinary, KindTrailingString, KindText,
// KindDecimalText, KindJavaLong, KindJavaInt and KindJavaShort, decodable or
// not. Hashes (KindMD5Hex, KindMD5, KindBucket, KindBucketByte,
// KindJavaPartition) never determine F. A KindDate or a
// KindReversedTimeOfDay alone does not either; the two together, both from
// F, give F to the millisecond (the SMS index's "day" and "time"), when
// their getters read one calendar: keys.Date with keys.TimeOfDay (UTC), or
// keys.DateIn with keys.TimeOfDayIn of its zone (docs/keys.md). A kind
// not named here (a KindDecimal, often a bucket such as ts % 10) counts
// only when the segment is decodable.
//
// The check trusts From and the segment kinds: it cannot see a getter that
// loses information, such as a Decimal of F/1000.
func (ix *Index[T]) uncoveredKeyFields(segs []keys.Segment) []string {
	covered := make(map[string]bool)
	date := make(map[string]bool)
	clock := make(map[string]bool)
	for _, s := range segs {
		if s.Kind == keys.KindLiteral || s.Kind == keys.KindSalt {
			continue
		}
		src, ok := ix.Source(s.Name)
		if !ok {
			continue // cannot happen: newIndex checked every source
		}
		switch s.Kind {
		case keys.KindMD5Hex, keys.KindMD5, keys.KindBucket, keys.KindBucketByte, keys.KindJavaPartition:
		case keys.KindDate:
			date[src] = true
		case keys.KindReversedTimeOfDay:
			clock[src] = true
		case keys.KindReversedDigits, keys.KindDigits, keys.KindFixed,
			keys.KindString, keys.KindUnique, keys.KindUint64, keys.KindInt64,
			keys.KindReversedTimestamp, keys.KindReversedTimestampBinary,
			keys.KindTrailingString, keys.KindText, keys.KindDecimalText,
			keys.KindJavaLong, keys.KindJavaInt, keys.KindJavaShort:
			covered[src] = true
		default:
			if s.Decodable {
				covered[src] = true
			}
		}
	}
	var missing []string
	for _, s := range ix.table.key.Segments() {
		switch {
		case !s.Decodable:
		case s.Kind == keys.KindLiteral, s.Kind == keys.KindSalt,
			s.Kind == keys.KindBucket, s.Kind == keys.KindBucketByte, s.Kind == keys.KindJavaPartition:
		case covered[s.Name], date[s.Name] && clock[s.Name]:
		default:
			missing = append(missing, s.Name)
		}
	}
	return missing
}

// missingFields says which data-key fields an index key (or an inverted
// entry's qualifier: where) lacks.
func missingFields(fs []string, where string) string {
	if len(fs) == 1 {
		return "data-key field " + strconv.Quote(fs[0]) + " is not in the " + where
	}
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = strconv.Quote(f)
	}
	return "data-key fields " + strings.Join(q, ", ") + " are not in the " + where
}

func joinField(prefix, field string) string {
	if field == "" {
		return prefix
	}
	return prefix + ": " + field
}

// Name returns the index table's name.
func (ix *Index[T]) Name() TableName { return ix.name }

// Families returns a copy of the index table's families.
func (ix *Index[T]) Families() []Family { return slices.Clone(ix.families) }

// Key returns the index row-key layout.
func (ix *Index[T]) Key() *keys.Layout[T] { return ix.key }

// KeySegments describes the index row-key segments in key order.
func (ix *Index[T]) KeySegments() []keys.Segment { return ix.key.Segments() }

// SplitKeys returns a copy of the index table's split keys.
func (ix *Index[T]) SplitKeys() [][]byte { return cloneKeys(ix.splits) }

// Source returns the data-table field an index key segment is computed
// from: the From mapping, or the segment itself when it is a field.
func (ix *Index[T]) Source(segment string) (string, bool) {
	if src, ok := ix.from[segment]; ok {
		return src, true
	}
	if ix.table.HasField(segment) {
		return segment, true
	}
	return "", false
}

// Columns describes the cells an entry carries (the data row key cell
// excluded), with the index family.
func (ix *Index[T]) Columns() []ColumnInfo {
	out := columnInfos(ix.columns)
	for i := range out {
		out[i].Family = ix.family
	}
	return out
}

// RowKeyColumn returns the family and qualifier of the cell holding the
// data row key, and false when entries do not carry it.
func (ix *Index[T]) RowKeyColumn() (family, qualifier string, ok bool) {
	return ix.family, ix.rowKeyQ, ix.rowKeyQ != ""
}

// AppendKey appends the index row key of v to dst. On error dst is
// returned unchanged and the error names the index and the segment.
func (ix *Index[T]) AppendKey(dst []byte, v *T) ([]byte, error) {
	out, err := ix.key.Append(dst, v)
	if err != nil {
		return dst, keyError(ix.name.String(), err)
	}
	return out, nil
}

// EncodeEntry encodes the index entry of v into r: the index row key, the
// data row key cell (if declared) and the carried columns. Like
// Table.EncodeRow it reuses r's buffers and allocates nothing once they
// have grown.
func (ix *Index[T]) EncodeEntry(r *Row, v *T) error {
	return ix.encodeEntry(r, v, nil)
}

// encodeEntry is EncodeEntry; a non-nil dataKey is v's data row key,
// already encoded (Table.EncodeRecord), which the entry then copies
// instead of encoding it again.
func (ix *Index[T]) encodeEntry(r *Row, v *T, dataKey []byte) error {
	r.Reset()
	r.grow(ix.key.Width(), 1+len(ix.columns))
	key, err := ix.AppendKey(r.Key, v)
	if err != nil {
		return err
	}
	r.Key = key
	if ix.qual != nil {
		return ix.encodeInverted(r, v)
	}
	if ix.rowKeyQ != "" {
		start := len(r.buf)
		var buf []byte
		if dataKey != nil {
			buf = append(r.buf, dataKey...)
		} else if buf, err = ix.table.AppendKey(r.buf, v); err != nil {
			r.Reset()
			return err
		}
		r.buf = buf
		r.Cells = append(r.Cells, Cell{Family: ix.family, Qualifier: ix.rowKeyQ, Value: buf[start:len(buf):len(buf)]})
	}
	r.Cells, r.buf = appendCells(r.Cells, r.buf, ix.columns, ix.family, v)
	return nil
}

// DecodeEntry decodes an index entry into v: the decodable index key
// segments, the carried columns, and, when the entry carries it, the data
// row key, which restores every key field of the record. Hash segments
// cannot be inverted; fields only they hold stay untouched.
func (ix *Index[T]) DecodeEntry(key []byte, cells []Cell, v *T) error {
	if err := ix.DecodeKey(key, v); err != nil {
		return err
	}
	if ix.qual != nil {
		return ix.decodeInverted(cells, v)
	}
	if ix.rowKeyQ != "" {
		for _, c := range cells {
			if c.Family == ix.family && c.Qualifier == ix.rowKeyQ {
				if err := ix.table.DecodeKey(c.Value, v); err != nil {
					return err
				}
				break
			}
		}
	}
	return setCells(ix.name.String(), ix.columns, ix.family, cells, v)
}

// DecodeKey decodes an index row key into the decodable key fields of v.
// Hash segments are checked and skipped.
func (ix *Index[T]) DecodeKey(key []byte, v *T) error {
	if err := ix.key.Decode(key, v); err != nil {
		return keyError(ix.name.String(), err)
	}
	return nil
}
