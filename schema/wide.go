package schema

import (
	"errors"
	"maps"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// WideSpec declares a wide table ("rows as columns", seed 004's LOG_DATA
// on steroids, OpenTSDB's layout): each record of type T is one cell,
// whose row key is built from part of the record's key (Key) and whose
// column qualifier from the rest (Qualifier). A time-series record keeps
// its series in the row key and splits its timestamp with keys.TimeBase
// (row key) and keys.TimeOffset (qualifier), so one row holds a time
// range and one column per instant in it. NewWide validates it once; the
// resulting *WideTable is immutable.
type WideSpec[T any] struct {
	// Name is "namespace:qualifier" or a bare qualifier.
	Name string
	// Families are the column families, at least one.
	Families []Family
	// Key is the row-key layout: the leading key fields of the record.
	// Its decodable segments are record fields. A salt is refused: it
	// would scatter one row's cells over several rows.
	Key *keys.Layout[T]
	// Qualifier is the column-qualifier layout: the remaining key fields.
	// Every segment must be decodable: a qualifier is all a reader has of
	// them.
	Qualifier *keys.Layout[T]
	// Value maps the record's value to the cell's value. Value.Family is
	// the family of every cell; Value.Qualifier must be empty (the
	// qualifier comes from Qualifier). A record for which Append reports
	// no value is written as an empty cell.
	Value Column[T]
	// Splits pre-splits the table on the row key's leading segment.
	Splits Splits
	// Validate, when set, checks every record before it is written.
	Validate func(*T) error
	// UIDs declares row-key fields holding ids of a UID table, as in
	// Spec.UIDs.
	UIDs []UID[T]
	// From maps a row-key segment computed from a record field (a hash of
	// it) to that field, as Spec.From does. Optional; it names what a
	// schema document (WideTable.Document) would otherwise not know.
	From map[string]string
}

// WideTable is a validated wide-table declaration for records of type T.
// It implements Definition, so admin creates and checks it like any table.
// It is immutable and safe for concurrent use, provided its mapping
// functions are.
type WideTable[T any] struct {
	name     TableName
	families []Family
	key      *keys.Layout[T]
	qual     *keys.Layout[T]
	value    Column[T]
	splits   [][]byte
	fields   []string
	validate func(*T) error
	uids     []UID[T]
	from     map[string]string // WideSpec.From
	split    Splits            // WideSpec.Splits, as declared
	// opaqueCheck is Table.opaqueCheck.
	opaqueCheck bool
}

var _ Definition = (*WideTable[LogEvent])(nil)

// derivedKinds are segments computed from other fields (hashes, buckets):
// a reader needs no value from them.
func derived(s keys.Segment) bool {
	switch s.Kind {
	case keys.KindLiteral, keys.KindMD5Hex, keys.KindMD5, keys.KindBucket, keys.KindBucketByte, keys.KindJavaPartition:
		return true
	}
	return false
}

// NewWide validates spec and returns the wide table it declares. Besides
// the checks of New, it checks that row key and qualifier together give
// back every key field when decoded: each segment of either layout is
// decodable (or derived: a literal, hash or bucket, and those only in the
// row key), no field is in both layouts except a timestamp split into a
// keys.TimeBase in the row key and a keys.TimeOffset of the same name and
// span in the qualifier, and neither half of such a split comes alone.
// Errors are *Error values with Kind ErrInvalidTable naming the field.
func NewWide[T any](spec WideSpec[T]) (*WideTable[T], error) {
	name, err := ParseTableName(spec.Name)
	if err != nil {
		return nil, err
	}
	tname := name.String()
	fail := func(err error) (*WideTable[T], error) { return nil, withTable(err, tname) }
	t := &WideTable[T]{name: name, key: spec.Key, qual: spec.Qualifier, value: spec.Value, validate: spec.Validate, opaqueCheck: spec.Validate != nil}
	if t.families, err = validateFamilies(spec.Families); err != nil {
		return fail(err)
	}
	switch {
	case spec.Key == nil:
		return fail(invalidTable("key", "no row-key layout"))
	case spec.Qualifier == nil:
		return fail(invalidTable("qualifier", "no qualifier layout"))
	}
	rowSegs := spec.Key.Segments()
	if t.fields, err = wideFields(rowSegs, spec.Qualifier.Segments()); err != nil {
		return fail(err)
	}
	v := spec.Value
	if err := checkWideValue(v, t.fields, t.families); err != nil {
		return fail(err)
	}
	t.fields = append(t.fields, v.Name)
	if err := t.setFrom(spec); err != nil {
		return fail(err)
	}
	if err := validateUIDs(spec.Key, spec.UIDs); err != nil {
		return fail(err)
	}
	t.uids = slices.Clone(spec.UIDs)
	if t.splits, err = spec.Splits.compute(rowSegs); err != nil {
		return fail(err)
	}
	t.split = spec.Splits
	return t, nil
}

// wideFields checks the segments of a wide table's row key and qualifier
// (see NewWide) and returns the fields they give back, row key first.
func wideFields(rowSegs, qualSegs []keys.Segment) ([]string, error) {
	inRow := make(map[string]keys.Segment, len(rowSegs))
	for _, s := range rowSegs {
		if err := checkWideRowSegment(s); err != nil {
			return nil, err
		}
		inRow[s.Name] = s
	}
	paired := make(map[string]bool)
	for _, s := range qualSegs {
		if err := checkWideQualSegment(s, inRow); err != nil {
			return nil, err
		}
		paired[s.Name] = s.Kind == keys.KindTimeOffset
	}
	var fields []string
	for _, s := range rowSegs {
		if s.Kind == keys.KindTimeBase && !paired[s.Name] {
			return nil, invalidTable(s.Name, "time base without a time offset of the same name in the qualifier: the timestamp would not come back whole")
		}
		if s.Decodable && !derived(s) {
			fields = append(fields, s.Name)
		}
	}
	for _, s := range qualSegs {
		if s.Decodable && s.Kind != keys.KindTimeOffset {
			fields = append(fields, s.Name)
		}
	}
	return fields, nil
}

// checkWideRowSegment checks that a row-key segment of a wide table keeps
// one row's cells together and gives its field back.
func checkWideRowSegment(s keys.Segment) error {
	switch {
	case s.Kind == keys.KindSalt:
		return invalidTable(s.Name, "a salt would scatter one row's cells over several rows")
	case s.Kind == keys.KindTimeOffset:
		return invalidTable(s.Name, "a time offset belongs in the qualifier, its base in the row key")
	case !s.Decodable && !derived(s):
		return invalidTable(s.Name, "row-key segment is not decodable: reads could not give the field back")
	}
	return nil
}

// checkWideQualSegment checks that a qualifier segment gives its field
// back and, against the row key's segments inRow, that only a time offset
// shares its name with a row-key segment: a time base of the same span.
func checkWideQualSegment(s keys.Segment, inRow map[string]keys.Segment) error {
	switch {
	case s.Kind == keys.KindSalt || (derived(s) && s.Kind != keys.KindLiteral):
		return invalidTable(s.Name, "a qualifier segment must be decodable, not a hash, bucket or salt")
	case s.Kind == keys.KindTimeBase:
		return invalidTable(s.Name, "a time base belongs in the row key, its offset in the qualifier")
	case !s.Decodable && s.Kind != keys.KindLiteral:
		return invalidTable(s.Name, "qualifier segment is not decodable: reads could not give the field back")
	}
	r, both := inRow[s.Name]
	switch {
	case s.Kind == keys.KindTimeOffset && !both:
		return invalidTable(s.Name, "time offset without a time base of the same name in the row key")
	case s.Kind == keys.KindTimeOffset && r.Kind != keys.KindTimeBase:
		return invalidTable(s.Name, "time offset whose row-key segment of the same name is not a time base")
	case s.Kind == keys.KindTimeOffset && r.Span != s.Span:
		return invalidTable(s.Name, "time base and offset of different spans ("+r.Span.String()+", "+s.Span.String()+")")
	case both && s.Kind != keys.KindTimeOffset:
		return invalidTable(s.Name, "field in both the row key and the qualifier")
	}
	return nil
}

// checkWideValue checks a wide table's value column against the key
// fields and the table's families.
func checkWideValue[T any](v Column[T], fields []string, families []Family) error {
	switch {
	case v.Name == "":
		return invalidTable("value", "value column has no name")
	case slices.Contains(fields, v.Name):
		return invalidTable(v.Name, "value column has the name of a key field")
	case v.Append == nil || v.Set == nil:
		return invalidTable(v.Name, "value column needs both Append and Set")
	case v.Qualifier != "":
		return invalidTable(v.Name, "value column has a qualifier; the qualifier layout gives it")
	case !hasFamily(families, v.Family):
		return &Error{Family: v.Family, Field: v.Name, Reason: "family is not declared by the table", Kind: ErrInvalidTable}
	}
	return nil
}

// Name returns the table name.
func (t *WideTable[T]) Name() TableName { return t.name }

// Families returns a copy of the column families.
func (t *WideTable[T]) Families() []Family { return slices.Clone(t.families) }

// Key returns the row-key layout.
func (t *WideTable[T]) Key() *keys.Layout[T] { return t.key }

// Qualifier returns the qualifier layout.
func (t *WideTable[T]) Qualifier() *keys.Layout[T] { return t.qual }

// KeySegments describes the row-key segments in key order.
func (t *WideTable[T]) KeySegments() []keys.Segment { return t.key.Segments() }

// QualifierSegments describes the qualifier segments in order.
func (t *WideTable[T]) QualifierSegments() []keys.Segment { return t.qual.Segments() }

// SplitKeys returns a copy of the split keys the table is created with.
func (t *WideTable[T]) SplitKeys() [][]byte { return cloneKeys(t.splits) }

// Family returns the family of the table's cells.
func (t *WideTable[T]) Family() string { return t.value.Family }

// Columns describes the one kind of cell of the table: the value column,
// with an empty qualifier standing for the qualifier layout.
func (t *WideTable[T]) Columns() []ColumnInfo {
	return []ColumnInfo{{Name: t.value.Name, Family: t.value.Family}}
}

// Fields returns the record fields the table declares: the decodable
// row-key segments (a split timestamp once), the qualifier's, then the
// value.
func (t *WideTable[T]) Fields() []string { return slices.Clone(t.fields) }

// UIDs returns the table's UID declarations.
func (t *WideTable[T]) UIDs() []UID[T] { return slices.Clone(t.uids) }

// KeyParts cuts a row key into its segments.
func (t *WideTable[T]) KeyParts(key []byte) ([]KeyPart, error) {
	return keyParts(t.name.String(), t.key, key)
}

// QualifierParts cuts a column qualifier into its segments.
func (t *WideTable[T]) QualifierParts(qualifier []byte) ([]KeyPart, error) {
	return keyParts(t.name.String(), t.qual, qualifier)
}

// AppendKey appends the row key of v to dst. On error dst is returned
// unchanged and the error is a *Error with Kind ErrInvalidKey.
func (t *WideTable[T]) AppendKey(dst []byte, v *T) ([]byte, error) {
	out, err := t.key.Append(dst, v)
	if err != nil {
		return dst, keyError(t.name.String(), err)
	}
	return out, nil
}

// AppendQualifier appends the column qualifier of v to dst, with errors as
// AppendKey.
func (t *WideTable[T]) AppendQualifier(dst []byte, v *T) ([]byte, error) {
	out, err := t.qual.Append(dst, v)
	if err != nil {
		return dst, keyError(t.name.String(), err)
	}
	return out, nil
}

// WideCell is the cell of one record: its row key, qualifier and value,
// all in one reusable buffer.
type WideCell struct {
	Row, Qualifier, Value []byte
	buf                   []byte
}

// EncodeCell checks v (WideSpec.Validate) and encodes its cell into c,
// reusing c's buffer. On error c is left empty; the error is a *Error
// (ErrInvalidKey, or ErrInvalidRecord from the check).
func (t *WideTable[T]) EncodeCell(c *WideCell, v *T) error {
	if err := t.EncodeKey(c, v); err != nil {
		return err
	}
	if err := t.Check(v); err != nil {
		*c = WideCell{buf: c.buf[:0]}
		return err
	}
	start := len(c.buf)
	buf, _ := t.value.Append(c.buf, v)
	c.buf = buf
	c.Value = buf[start:len(buf):len(buf)]
	if c.Value == nil {
		c.Value = []byte{}
	}
	return nil
}

// Check runs WideSpec.Validate on v, if there is one, as Table.Check
// does: its error is a *Error with Kind ErrInvalidRecord naming the field
// the check named.
func (t *WideTable[T]) Check(v *T) error {
	if t.validate == nil {
		return nil
	}
	err := t.validate(v)
	if err == nil {
		return nil
	}
	e := &Error{Table: t.name.String(), Reason: "rejected by the table's check", Kind: ErrInvalidRecord, Err: err}
	var se *Error
	if errors.As(err, &se) && se.Kind == ErrInvalidRecord && se.Err == nil {
		e.Field, e.Reason, e.Err = se.Field, se.Reason, nil
	}
	return e
}

// EncodeKey encodes the row key and qualifier of v into c (deletes and
// reads); c.Value is left nil.
func (t *WideTable[T]) EncodeKey(c *WideCell, v *T) error {
	buf := c.buf[:0]
	row, err := t.AppendKey(buf, v)
	if err != nil {
		*c = WideCell{buf: buf}
		return err
	}
	n := len(row)
	all, err := t.AppendQualifier(row, v)
	if err != nil {
		*c = WideCell{buf: buf}
		return err
	}
	c.buf = all
	c.Row, c.Qualifier, c.Value = all[:n:n], all[n:len(all):len(all)], nil
	return nil
}

// DecodeKey decodes a row key into the row-key fields of v; a split
// timestamp gets its base.
func (t *WideTable[T]) DecodeKey(row []byte, v *T) error {
	if err := t.key.Decode(row, v); err != nil {
		return keyError(t.name.String(), err)
	}
	return nil
}

// DecodeCell decodes a cell into v: row key, qualifier and value. value is
// passed to the value column's Set as it is.
func (t *WideTable[T]) DecodeCell(row, qualifier, value []byte, v *T) error {
	if err := t.DecodeKey(row, v); err != nil {
		return err
	}
	if err := t.qual.Decode(qualifier, v); err != nil {
		return keyError(t.name.String(), err)
	}
	if err := t.value.Set(v, value); err != nil {
		return &Error{Table: t.name.String(), Family: t.value.Family, Field: t.value.Name,
			Reason: "cannot decode the value of a cell of " + strconv.Itoa(len(value)) + " bytes", Kind: ErrInvalidValue, Err: err}
	}
	return nil
}

// setFrom checks and records WideSpec.From: each entry names a row-key
// segment and a field, which may be a field of the record the table does
// not store (the name of a UID).
func (t *WideTable[T]) setFrom(spec WideSpec[T]) error {
	for seg, src := range spec.From {
		switch {
		case t.key.SegmentIndex(seg) < 0:
			return &Error{Field: "From " + seg, Reason: "not a segment of the row key", Kind: ErrUnknownField}
		case src == "":
			return &Error{Field: "From " + seg, Reason: "names no field", Kind: ErrUnknownField}
		}
	}
	t.from = maps.Clone(spec.From)
	return nil
}
