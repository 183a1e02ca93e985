package index

import (
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// RowDecoder decodes the data rows of a table into records: the one
// decoder of a data row, used by the protocol's readers and checks and
// by package dao's reads. It is safe for concurrent use.
type RowDecoder[T any] struct {
	t *schema.Table[T]
	// cols maps family then qualifier to the strings the schema uses, so
	// decoding converts no bytes to strings.
	cols map[string]map[string]colName
}

type colName struct{ family, qualifier string }

// NewRowDecoder returns the decoder of the data rows of t.
func NewRowDecoder[T any](t *schema.Table[T]) *RowDecoder[T] {
	d := &RowDecoder[T]{t: t, cols: make(map[string]map[string]colName)}
	for _, ci := range t.Columns() {
		fam := d.cols[ci.Family]
		if fam == nil {
			fam = make(map[string]colName)
			d.cols[ci.Family] = fam
		}
		fam[ci.Qualifier] = colName{ci.Family, ci.Qualifier}
	}
	return d
}

// Decode decodes row r into v from the newest version of each column the
// schema declares, leaving out cells older than since (an older version
// of the record: see Table.Since) and delete markers of raw scans. cells
// is scratch space; the slice used is returned for reuse, its cells
// aliasing r. The error is the schema's (*schema.Error).
func (d *RowDecoder[T]) Decode(r *hbapi.Result, since int64, cells []schema.Cell, v *T) ([]schema.Cell, error) {
	cells = cells[:0]
	for _, c := range r.Cells {
		if c.Type != 0 && c.Type != hbapi.CellTypePut || c.Timestamp < since {
			continue
		}
		fam, ok := d.cols[string(c.Family)]
		if !ok {
			continue
		}
		n, ok := fam[string(c.Qualifier)]
		if !ok {
			continue
		}
		if k := len(cells); k > 0 && cells[k-1].Family == n.family && cells[k-1].Qualifier == n.qualifier {
			continue // an older version; Cells are newest first per column
		}
		cells = append(cells, schema.Cell{Family: n.family, Qualifier: n.qualifier, Value: c.Value})
	}
	return cells, d.t.DecodeRow(r.Row(), cells, v)
}
