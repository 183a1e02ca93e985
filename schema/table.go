package schema

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// Spec declares a table whose rows hold records of type T. It is the input
// of New, validated once there; the resulting *Table is immutable.
type Spec[T any] struct {
	// Name is "namespace:qualifier" or a bare qualifier in the default
	// namespace.
	Name string
	// Families are the column families, at least one. Seed 001 explains
	// why one or two is best.
	Families []Family
	// Key is the row-key layout. Its decodable segments are record fields:
	// decoding a row key writes them back into the record.
	Key *keys.Layout[T]
	// Splits pre-splits the table. The zero value means a single region.
	Splits Splits
	// Columns map the remaining record fields to cells.
	Columns []Column[T]
	// Indexes are the secondary index tables kept for this table.
	Indexes []IndexSpec[T]
	// Validate, when set, checks every record before it is encoded for a
	// write (EncodeRecord): the rules its key and columns do not enforce,
	// such as a required field or a range. Report a field with Invalid.
	Validate func(*T) error
	// Writes says how records are written when the table has indexes:
	// Strict (the zero value), Mutable, InsertOnly or VerifyOnRead. See
	// WriteMode.
	Writes WriteMode
	// UIDs declares the key fields that hold ids a UID table assigns to
	// names of the record (see UID). A store of such a table needs the
	// UID table (dao.WithUIDs).
	UIDs []UID[T]
	// From maps a key segment computed from a record field (a hash or a
	// bucket of it) to that field, as IndexSpec.From does, so that reads
	// by field value (Viewer) compute the segment from the value given.
	// Optional; New checks that each segment and field exists.
	From map[string]string
}

// Table is a validated table declaration for records of type T. It is
// immutable and safe for concurrent use, provided the mapping functions of
// its key fields and columns are.
type Table[T any] struct {
	name     TableName
	families []Family
	key      *keys.Layout[T]
	splits   [][]byte
	columns  []Column[T]
	indexes  []*Index[T]
	fields   []string // key fields then columns, declaration order
	validate func(*T) error
	writes   WriteMode
	required [][]ColumnInfo // per index: the columns its key is computed from
	uids     []UID[T]
	from     map[string]string // Spec.From
	split    Splits            // Spec.Splits, as declared
	// opaqueCheck: validate holds a function a document cannot describe
	// (Spec.Validate, WithValidate), not only Open's type check.
	opaqueCheck bool
}

// New validates spec and returns the table it declares. Errors are *Error
// values naming the table and the offending family, field or index.
func New[T any](spec Spec[T]) (*Table[T], error) {
	name, err := ParseTableName(spec.Name)
	if err != nil {
		return nil, err
	}
	t := &Table[T]{name: name, key: spec.Key, validate: spec.Validate, writes: spec.Writes, opaqueCheck: spec.Validate != nil}
	if !spec.Writes.Valid() {
		return nil, &Error{Table: name.String(), Field: "writes", Reason: "unknown write mode " + spec.Writes.String(), Kind: ErrInvalidTable}
	}
	tname := name.String()
	fail := func(err error) (*Table[T], error) { return nil, withTable(err, tname) }

	t.families, err = validateFamilies(spec.Families)
	if err != nil {
		return fail(err)
	}
	if spec.Key == nil {
		return fail(&Error{Field: "key", Reason: "no row-key layout", Kind: ErrInvalidTable})
	}
	if err := validateUIDs(spec.Key, spec.UIDs); err != nil {
		return fail(err)
	}
	t.uids = slices.Clone(spec.UIDs)
	seen := make(map[string]bool)
	for _, s := range spec.Key.Segments() {
		if !s.Decodable || s.Kind == keys.KindLiteral {
			continue // hashes, salts and literals are derived, not record fields
		}
		seen[s.Name] = true
		t.fields = append(t.fields, s.Name)
	}
	names, err := checkColumns(t.families, spec.Columns, seen)
	if err != nil {
		return fail(err)
	}
	t.fields = append(t.fields, names...)
	t.columns = slices.Clone(spec.Columns)
	if t.from, err = keyFrom(spec.Key, spec.From, seen); err != nil {
		return fail(err)
	}

	if t.splits, err = spec.Splits.compute(segmentsOf(spec.Key)); err != nil {
		return fail(err)
	}
	t.split = spec.Splits
	indexNames := make(map[string]bool)
	for _, is := range spec.Indexes {
		ix, err := newIndex(t, is)
		if err != nil {
			return fail(err)
		}
		full := ix.name.FullName()
		if indexNames[full] || full == name.FullName() {
			return fail(&Error{Field: "index " + ix.name.String(), Reason: "duplicate table name", Kind: ErrInvalidTable})
		}
		indexNames[full] = true
		t.indexes = append(t.indexes, ix)
	}
	t.required = t.requiredColumns()
	return t, nil
}

// checkColumns checks the columns of a table with the given families
// and returns their names; seen holds the key fields' names and gets the
// columns' names added. No two columns share a name or a cell.
func checkColumns[T any](families []Family, columns []Column[T], seen map[string]bool) ([]string, error) {
	var names []string
	cells := make(map[[2]string]string)
	for i, c := range columns {
		field := c.Name
		if field == "" {
			field = "column " + strconv.Itoa(i)
		}
		bad := func(reason string) ([]string, error) {
			return nil, &Error{Family: c.Family, Field: field, Reason: reason, Kind: ErrInvalidTable}
		}
		switch {
		case c.Name == "":
			return bad("column has no name")
		case seen[c.Name]:
			return bad("duplicate field name (a key field or another column)")
		case c.Family == "":
			return bad("column has no family")
		case c.Append == nil || c.Set == nil:
			return bad("column needs both Append and Set")
		case !hasFamily(families, c.Family):
			return bad("family is not declared by the table")
		}
		cell := [2]string{c.Family, c.Qualifier}
		if other, dup := cells[cell]; dup {
			return bad("same family and qualifier as column " + strconv.Quote(other))
		}
		cells[cell] = c.Name
		seen[c.Name] = true
		names = append(names, c.Name)
	}
	return names, nil
}

// validateFamilies checks each family and that there is at least one and
// no name twice. It returns a copy.
func validateFamilies(fs []Family) ([]Family, error) {
	if len(fs) == 0 {
		return nil, &Error{Field: "families", Reason: "a table needs at least one column family", Kind: ErrInvalidTable}
	}
	out := make([]Family, len(fs))
	for i, f := range fs {
		if err := f.Validate(); err != nil {
			return nil, err
		}
		if hasFamily(out[:i], f.Name) {
			return nil, &Error{Family: f.Name, Field: "name", Reason: "duplicate column family", Kind: ErrInvalidTable}
		}
		out[i] = f
	}
	return out, nil
}

func hasFamily(fs []Family, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func segmentsOf[T any](l *keys.Layout[T]) []keys.Segment {
	if l == nil {
		return nil
	}
	return l.Segments()
}

// Name returns the table name.
func (t *Table[T]) Name() TableName { return t.name }

// Families returns a copy of the column families.
func (t *Table[T]) Families() []Family { return slices.Clone(t.families) }

// Key returns the row-key layout.
func (t *Table[T]) Key() *keys.Layout[T] { return t.key }

// KeySegments describes the row-key segments in key order.
func (t *Table[T]) KeySegments() []keys.Segment { return t.key.Segments() }

// SplitKeys returns a copy of the split keys the table is created with, in
// ascending byte order; n keys make n+1 regions.
func (t *Table[T]) SplitKeys() [][]byte { return cloneKeys(t.splits) }

// Fields returns the record fields the table declares: the decodable
// row-key segments, then the columns, in declaration order.
func (t *Table[T]) Fields() []string { return slices.Clone(t.fields) }

// HasField reports whether name is a record field of the table.
func (t *Table[T]) HasField(name string) bool { return slices.Contains(t.fields, name) }

// Source returns the record field a key segment holds or is computed
// from: the Spec.From mapping, or the segment itself when it is a field
// (as Index.Source does for an index key).
func (t *Table[T]) Source(segment string) (string, bool) {
	src := t.source(segment)
	return src, src != ""
}

// isKeyField reports whether name is a field the row key holds and gives
// back (a decodable segment of the key), as opposed to a column.
func (t *Table[T]) isKeyField(name string) bool {
	return slices.ContainsFunc(t.key.Segments(), func(s keys.Segment) bool {
		return s.Name == name && s.Decodable && s.Kind != keys.KindLiteral
	})
}

// ColumnInfo describes a column without its mapping functions.
type ColumnInfo struct {
	Name      string
	Family    string
	Qualifier string
	Type      ColumnType // how the cell encodes the value
}

// Columns describes the columns in declaration order.
func (t *Table[T]) Columns() []ColumnInfo { return columnInfos(t.columns) }

func columnInfos[T any](cs []Column[T]) []ColumnInfo {
	out := make([]ColumnInfo, len(cs))
	for i, c := range cs {
		out[i] = ColumnInfo{Name: c.Name, Family: c.Family, Qualifier: c.Qualifier, Type: c.Type}
	}
	return out
}

// Indexes returns the index tables in declaration order.
func (t *Table[T]) Indexes() []*Index[T] { return slices.Clone(t.indexes) }

// Index returns the index whose table name (as written in its spec or in
// String form) is name.
func (t *Table[T]) Index(name string) (*Index[T], bool) {
	for _, ix := range t.indexes {
		if ix.name.String() == name || ix.name.FullName() == name {
			return ix, true
		}
	}
	return nil, false
}

// AppendKey appends the row key of v to dst. On error dst is returned
// unchanged and the error is a *Error with Kind ErrInvalidKey naming the
// table and the key segment, wrapping the *keys.Error.
func (t *Table[T]) AppendKey(dst []byte, v *T) ([]byte, error) {
	out, err := t.key.Append(dst, v)
	if err != nil {
		return dst, keyError(t.name.String(), err)
	}
	return out, nil
}

// DecodeKey decodes a row key into the key fields of v.
func (t *Table[T]) DecodeKey(key []byte, v *T) error {
	if err := t.key.Decode(key, v); err != nil {
		return keyError(t.name.String(), err)
	}
	return nil
}

// EncodeRow encodes v into r: its row key and one cell per column that has
// a value, in column order. r's buffers are reused, so encoding many
// records into one Row allocates nothing once it has grown (provided the
// column functions do not allocate). On error r is left empty.
func (t *Table[T]) EncodeRow(r *Row, v *T) error {
	r.Reset()
	r.grow(t.key.Width(), len(t.columns))
	key, err := t.AppendKey(r.Key, v)
	if err != nil {
		return err
	}
	r.Key = key
	r.Cells, r.buf = appendCells(r.Cells, r.buf, t.columns, "", v)
	return nil
}

// appendCells appends the cells of v for the given columns; family, when
// not empty, replaces each column's family (index entries).
func appendCells[T any](cells []Cell, buf []byte, cols []Column[T], family string, v *T) ([]Cell, []byte) {
	for i := range cols {
		c := &cols[i]
		start := len(buf)
		out, ok := c.Append(buf, v)
		if !ok {
			continue
		}
		buf = out
		fam := c.Family
		if family != "" {
			fam = family
		}
		val := buf[start:len(buf):len(buf)]
		if val == nil {
			// An empty first cell of a fresh Row: HBase takes an empty
			// value, never a missing one.
			val = []byte{}
		}
		cells = append(cells, Cell{Family: fam, Qualifier: c.Qualifier, Value: val})
	}
	return cells, buf
}

// DecodeRow decodes a row key and its cells into v. Cells that no column
// declares are ignored, so rows written by other code or holding other
// record types of the same table do not fail; columns without a cell leave
// their field untouched. Cell values are passed to the columns' Set
// functions as they are (see Column.Set on aliasing).
func (t *Table[T]) DecodeRow(key []byte, cells []Cell, v *T) error {
	if err := t.DecodeKey(key, v); err != nil {
		return err
	}
	return setCells(t.name.String(), t.columns, "", cells, v)
}

func setCells[T any](table string, cols []Column[T], family string, cells []Cell, v *T) error {
	for _, cell := range cells {
		for i := range cols {
			c := &cols[i]
			fam := c.Family
			if family != "" {
				fam = family
			}
			if c.Qualifier != cell.Qualifier || fam != cell.Family {
				continue
			}
			if err := c.Set(v, cell.Value); err != nil {
				return &Error{Table: table, Family: cell.Family, Field: c.Name,
					Reason: "cannot decode cell " + cell.Family + ":" + cell.Qualifier, Kind: ErrInvalidValue, Err: err}
			}
			break
		}
	}
	return nil
}

// keyError wraps a keys error as a *Error naming the table and segment.
func keyError(table string, err error) error {
	e := &Error{Table: table, Reason: "cannot encode or decode key", Kind: ErrInvalidKey, Err: err}
	var ke *keys.Error
	if errors.As(err, &ke) {
		e.Field = ke.Segment
		e.Reason = ke.Reason
		e.Value = ""
	}
	return e
}

func cloneKeys(ks [][]byte) [][]byte {
	out := make([][]byte, len(ks))
	for i, k := range ks {
		out[i] = bytes.Clone(k)
	}
	return out
}
