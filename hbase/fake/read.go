package fake

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// readSpec is what a Get or Scan selects within a row.
type readSpec struct {
	families    [][]byte
	columns     []hbapi.Column
	maxVersions int
	timeRange   *hbapi.TimeRange
	filter      hbapi.Filter
}

func (t *table) checkSelection(s readSpec) error {
	for _, f := range s.families {
		if err := t.checkFamily(f); err != nil {
			return err
		}
	}
	for _, col := range s.columns {
		if err := t.checkFamily(col.Family); err != nil {
			return err
		}
	}
	return nil
}

func (s readSpec) selected(c hbapi.Cell) bool {
	if len(s.families) == 0 && len(s.columns) == 0 {
		return true
	}
	for _, f := range s.families {
		if bytes.Equal(f, c.Family) {
			return true
		}
	}
	for _, col := range s.columns {
		if bytes.Equal(col.Family, c.Family) && bytes.Equal(col.Qualifier, c.Qualifier) {
			return true
		}
	}
	return false
}

// readRow returns the cells of a row as a Get or Scan sees them, copied.
// ok is false when the row has no cells to return.
//
// As in HBase, filters see every version in the time range before
// MaxVersions is applied.
func (t *table) readRow(key []byte, s readSpec, now int64) (cells []hbapi.Cell, ok bool) {
	r := t.rows[string(key)]
	if r == nil {
		return nil, false
	}
	for _, c := range t.visible(r, now) {
		if s.selected(c) && s.timeRange.Contains(c.Timestamp) {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil, false
	}
	if s.filter != nil {
		var keep bool
		cells, keep = applyFilter(s.filter, key, cells)
		if !keep {
			return nil, false
		}
	}
	maxV := s.maxVersions
	if maxV == 0 {
		maxV = 1
	}
	out := make([]hbapi.Cell, 0, len(cells))
	newestVersions(cells, func(hbapi.Cell) int { return maxV }, func(c hbapi.Cell) { out = append(out, cloneCell(c)) })
	return out, len(out) > 0
}

// newestVersions calls keep with each of cells (sorted by
// hbapi.CompareCells, so newest first within a column) that is one of the
// newest limit(cell) versions of its column.
func newestVersions(cells []hbapi.Cell, limit func(hbapi.Cell) int, keep func(hbapi.Cell)) {
	n := 0
	for i, c := range cells {
		if i > 0 && bytes.Equal(c.Family, cells[i-1].Family) && bytes.Equal(c.Qualifier, cells[i-1].Qualifier) {
			n++
		} else {
			n = 0
		}
		if n < limit(c) {
			keep(c)
		}
	}
}

// applyFilter evaluates a filter on one row. It returns the cells that
// remain and whether the row passes. cells are sorted; the result is too.
func applyFilter(f hbapi.Filter, row []byte, cells []hbapi.Cell) ([]hbapi.Cell, bool) {
	switch f := f.(type) {
	case *hbapi.PrefixFilter:
		return cells, bytes.HasPrefix(row, f.Prefix)
	case *hbapi.RowFilter:
		return cells, f.Compare.Matches(f.Comparator.Compare(row))
	case *hbapi.MultiRowRangeFilter:
		for _, rr := range f.Ranges {
			if rr.Contains(row) {
				return cells, true
			}
		}
		return nil, false
	case *hbapi.KeyOnlyFilter:
		return keyOnly(cells, f.LengthAsValue), true
	case *hbapi.FirstKeyOnlyFilter:
		if len(cells) == 0 {
			return nil, false
		}
		return cells[:1:1], true
	case *hbapi.PageFilter:
		// Row counting is done by the scan loop (see pageLimit).
		return cells, true
	case *hbapi.ColumnPrefixFilter:
		return keepCells(cells, func(c hbapi.Cell) bool { return bytes.HasPrefix(c.Qualifier, f.Prefix) })
	case *hbapi.ColumnRangeFilter:
		return keepCells(cells, func(c hbapi.Cell) bool { return inColumnRange(f, c.Qualifier) })
	case *hbapi.FamilyFilter:
		return keepCells(cells, func(c hbapi.Cell) bool { return f.Compare.Matches(f.Comparator.Compare(c.Family)) })
	case *hbapi.QualifierFilter:
		return keepCells(cells, func(c hbapi.Cell) bool { return f.Compare.Matches(f.Comparator.Compare(c.Qualifier)) })
	case *hbapi.ValueFilter:
		return keepCells(cells, func(c hbapi.Cell) bool { return f.Compare.Matches(f.Comparator.Compare(c.Value)) })
	case *hbapi.SingleColumnValueFilter:
		return singleColumnValue(f, cells)
	case *hbapi.FilterList:
		return applyFilterList(f, row, cells)
	}
	return cells, true
}

// keepCells returns the cells that pred keeps, and whether there are any.
func keepCells(cells []hbapi.Cell, pred func(hbapi.Cell) bool) ([]hbapi.Cell, bool) {
	var out []hbapi.Cell
	for _, c := range cells {
		if pred(c) {
			out = append(out, c)
		}
	}
	return out, len(out) > 0
}

// keyOnly returns copies of cells without their values: empty, or the
// value's length as 4 big-endian bytes when lengthAsValue.
func keyOnly(cells []hbapi.Cell, lengthAsValue bool) []hbapi.Cell {
	out := make([]hbapi.Cell, len(cells))
	for i, c := range cells {
		if lengthAsValue {
			c.Value = binary.BigEndian.AppendUint32(nil, uint32(len(c.Value)))
		} else {
			c.Value = []byte{}
		}
		out[i] = c
	}
	return out
}

// inColumnRange reports whether qualifier q lies within f's bounds.
func inColumnRange(f *hbapi.ColumnRangeFilter, q []byte) bool {
	if f.Min != nil {
		cmp := bytes.Compare(q, f.Min)
		if cmp < 0 || (cmp == 0 && !f.MinInclusive) {
			return false
		}
	}
	if f.Max != nil {
		cmp := bytes.Compare(q, f.Max)
		if cmp > 0 || (cmp == 0 && !f.MaxInclusive) {
			return false
		}
	}
	return true
}

// singleColumnValue passes the row whole when its column f.Family:f.Qualifier
// matches (the newest version only when f.LatestVersionOnly), or when the
// row lacks the column and !f.FilterIfMissing.
func singleColumnValue(f *hbapi.SingleColumnValueFilter, cells []hbapi.Cell) ([]hbapi.Cell, bool) {
	found := false
	for _, c := range cells { // newest first within the column
		if !bytes.Equal(c.Family, f.Family) || !bytes.Equal(c.Qualifier, f.Qualifier) {
			continue
		}
		found = true
		if f.Compare.Matches(f.Comparator.Compare(c.Value)) {
			return cells, true
		}
		if f.LatestVersionOnly {
			return nil, false
		}
	}
	if found {
		return nil, false
	}
	return cells, !f.FilterIfMissing
}

// applyFilterList chains f's filters (MustPassAll: each sees what the
// previous kept) or unites what each passing one keeps (MustPassOne).
func applyFilterList(f *hbapi.FilterList, row []byte, cells []hbapi.Cell) ([]hbapi.Cell, bool) {
	if len(f.Filters) == 0 {
		return cells, true
	}
	if f.Op == hbapi.MustPassAll {
		out := cells
		for _, sub := range f.Filters {
			var keep bool
			out, keep = applyFilter(sub, row, out)
			if !keep {
				return nil, false
			}
		}
		return out, true
	}
	var union []hbapi.Cell
	pass := false
	for _, sub := range f.Filters {
		out, keep := applyFilter(sub, row, cells)
		if keep {
			pass = true
			union = append(union, out...)
		}
	}
	if !pass {
		return nil, false
	}
	slices.SortStableFunc(union, hbapi.CompareCells)
	union = slices.CompactFunc(union, func(a, b hbapi.Cell) bool { return hbapi.CompareCells(a, b) == 0 })
	return union, true
}

// pageLimit returns the row limit set by PageFilters that every row must
// pass (top level or in MustPassAll lists), or -1 if there is none.
func pageLimit(f hbapi.Filter) int64 {
	switch f := f.(type) {
	case *hbapi.PageFilter:
		return f.Size
	case *hbapi.FilterList:
		if f.Op != hbapi.MustPassAll {
			return -1
		}
		limit := int64(-1)
		for _, sub := range f.Filters {
			if l := pageLimit(sub); l >= 0 && (limit < 0 || l < limit) {
				limit = l
			}
		}
		return limit
	}
	return -1
}

// Scan implements hbase.DataClient. The scanner works on a snapshot of the
// range taken when the scan is opened; it honours ctx on every Next.
func (c *Client) Scan(ctx context.Context, s *hbapi.Scan) (hbapi.Scanner, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	t, err := c.beginData(ctx, "scan", s.Table)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	spec := readSpec{families: s.Families, columns: s.Columns, maxVersions: s.MaxVersions, timeRange: s.TimeRange, filter: s.Filter}
	if err := t.checkSelection(spec); err != nil {
		return nil, opErr("scan", s.Table, err)
	}
	limit := int64(s.Limit)
	if limit == 0 {
		limit = -1
	}
	if p := pageLimit(s.Filter); p >= 0 && (limit < 0 || p < limit) {
		limit = p
	}
	now := c.nowMs()
	var rows []*hbapi.Result
	var n int64 // rows emitted
	emit := func(key string) bool {
		if limit >= 0 && n >= limit {
			return false
		}
		if cells, ok := t.readRow([]byte(key), spec, now); ok {
			// Batch splits a row into Results of Batch cells (the last
			// may hold fewer); AllowPartial allows whole rows.
			for s.Batch > 0 && len(cells) > s.Batch {
				rows = append(rows, &hbapi.Result{Cells: cells[:s.Batch:s.Batch]})
				cells = cells[s.Batch:]
			}
			rows = append(rows, &hbapi.Result{Cells: cells})
			n++
		}
		return limit < 0 || n < limit
	}
	if !s.Reversed {
		i, _ := slices.BinarySearch(t.keys, string(s.StartRow))
		for ; i < len(t.keys); i++ {
			k := t.keys[i]
			if len(s.StopRow) > 0 && k >= string(s.StopRow) {
				break
			}
			if !emit(k) {
				break
			}
		}
	} else {
		i := len(t.keys) - 1
		if len(s.StartRow) > 0 {
			j, found := slices.BinarySearch(t.keys, string(s.StartRow))
			i = j - 1
			if found {
				i = j
			}
		}
		for ; i >= 0; i-- {
			k := t.keys[i]
			if len(s.StopRow) > 0 && k <= string(s.StopRow) {
				break
			}
			if !emit(k) {
				break
			}
		}
	}
	return &scanner{ctx: ctx, rows: rows}, nil
}

type scanner struct {
	ctx    context.Context
	rows   []*hbapi.Result
	cur    *hbapi.Result
	err    error
	closed bool
}

func (s *scanner) Next() bool {
	if s.closed || s.err != nil {
		return false
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	if len(s.rows) == 0 {
		s.cur = nil
		return false
	}
	s.cur, s.rows = s.rows[0], s.rows[1:]
	return true
}

func (s *scanner) Result() *hbapi.Result { return s.cur }
func (s *scanner) Err() error            { return s.err }

func (s *scanner) Close() error {
	s.closed = true
	s.rows = nil
	return nil
}
