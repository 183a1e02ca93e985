package schema

import "github.com/hbkit/hbkit/keys"

// UIDRow is one row of a UID table: a kind's
// counter, a name's id (forward) or an id's name (reverse). Package dao
// (dao.UIDs) reads and writes these rows; UIDTable declares them so that
// admin can create the table and tools can decode it.
type UIDRow struct {
	Type    string // UIDCounterRow, UIDReverseRow or UIDForwardRow
	Kind    string // the kind of name, such as "host"
	Key     string // the name (forward), the id's bytes (reverse), empty (counter)
	ID      []byte // forward rows: the id, big-endian in the kind's width
	Name    string // reverse rows: the name
	Counter int64  // counter rows: the last id handed out
}

// The row types of a UID table, the first byte of every row key. They
// sort counters first, then reverse rows, then forward rows.
const (
	UIDCounterRow = "c"
	UIDReverseRow = "i"
	UIDForwardRow = "n"
)

// The family and qualifiers of a UID table's cells.
const (
	UIDFamily           = "u"
	UIDIDQualifier      = "i" // forward rows: the id
	UIDNameQualifier    = "n" // reverse rows: the name
	UIDCounterQualifier = "c" // counter rows: an 8-byte HBase counter
)

// UIDTable returns a UID table called name, keyed [type][kind][name or id]:
// the type is one byte (UIDCounterRow, UIDReverseRow, UIDForwardRow), the
// kind an escaped, self-delimiting string (keys.String), then the name or
// the id's bytes to the end of the key (keys.TrailingString). One family
// "u" of one version, with a row Bloom filter: every read is a Get of one
// row. A UID table stays small (a kind holds at most 2^(8·width) names),
// so it starts with one region.
func UIDTable(name string) (*Table[UIDRow], error) {
	key, err := keys.NewLayout(
		keys.Fixed("type", 1, 0, func(r *UIDRow) string { return r.Type }, func(r *UIDRow, v string) { r.Type = v }),
		keys.String("kind", func(r *UIDRow) string { return r.Kind }, func(r *UIDRow, v string) { r.Kind = v }),
		keys.TrailingString("key", func(r *UIDRow) string { return r.Key }, func(r *UIDRow, v string) { r.Key = v }),
	)
	if err != nil {
		return nil, keyError(name, err)
	}
	return New(Spec[UIDRow]{
		Name:     name,
		Families: []Family{{Name: UIDFamily, BloomFilter: BloomRow, Versions: 1}},
		Key:      key,
		Columns: []Column[UIDRow]{
			BytesColumn("id", UIDFamily, UIDIDQualifier, func(r *UIDRow) []byte { return r.ID }, func(r *UIDRow, v []byte) { r.ID = v }),
			StringColumn("name", UIDFamily, UIDNameQualifier, func(r *UIDRow) string { return r.Name }, func(r *UIDRow, v string) { r.Name = v }),
			Int64Column("counter", UIDFamily, UIDCounterQualifier, func(r *UIDRow) int64 { return r.Counter }, func(r *UIDRow, v int64) { r.Counter = v }),
		},
	})
}
