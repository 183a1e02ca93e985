package index

import (
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Inverted indexes (schema.Index.Inverted): an entry is one cell, in the
// row of its index key, under a qualifier that names its record, and the
// protocol is the same as for an entry that is a row. What differs is
// where an entry's parts live:
//
//   - its status is the cell's value (the 9 bytes of a status cell), since
//     the entry has no row of its own to hold a status cell;
//   - the pointer back to the data row is the qualifier, from which the
//     schema rebuilds the data row key (schema.Index.DataKeyOf);
//   - deleting an entry deletes its column (every version at or before the
//     writer's version), never the row, which holds other records'
//     entries.
//
// The data row records the entry's row key (keyQualifierPrefix), as for
// any index; the qualifier is a function of the data row key, so it never
// moves.

// qualifiers returns, per index, the qualifier of the entry of the record
// with data row key key (encoded as enc, nil for a delete) in the inverted
// indexes, nil for the others.
func (t *Table[T]) qualifiers(key []byte, enc *schema.Record) ([][]byte, error) {
	var out [][]byte
	for i, s := range t.ixs {
		if !s.inv {
			continue
		}
		if out == nil {
			out = make([][]byte, len(t.ixs))
		}
		if enc != nil {
			out[i] = []byte(enc.Entries[i].Cells[0].Qualifier)
			continue
		}
		q, err := s.ix.QualifierOf(key)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	if out == nil {
		return t.noKeys, nil
	}
	return out, nil
}

// cellPut is the Put of an inverted entry: its cell, holding the status, at
// version v.
func (s *ixState[T]) cellPut(row, qual []byte, status byte, v int64) *hbapi.Put {
	cells := []hbapi.PutCell{{Family: s.fam, Qualifier: string(qual), Value: statusValue(status, v)}}
	return &hbapi.Put{Table: s.name, Row: row, Cells: cells, Timestamp: v}
}

// markUnverified is the phase-1 write that marks the entry of a record in
// row (its qualifier qual, for an inverted index) unverified at version v.
func (s *ixState[T]) markUnverified(row, qual []byte, v int64) *hbapi.Put {
	if s.inv {
		return s.cellPut(row, qual, statusUnverified, v)
	}
	cells := []hbapi.PutCell{{Family: s.fam, Qualifier: StatusQualifier, Value: statusValue(statusUnverified, v)}}
	return &hbapi.Put{Table: s.name, Row: row, Cells: cells, Timestamp: v}
}

// dropEntry deletes the entry of a record in row (its qualifier qual, for
// an inverted index): every cell at or before v (0: now). For an entry
// that is a row, the row; for an inverted entry, its column. The schema
// never gives an entry an empty qualifier (schema.Index.AppendQualifier),
// and callers skip cells that have one (another client's): should one
// get here, its Delete carries a non-nil empty qualifier, which the
// client refuses, never a nil one, which would delete the family.
func (s *ixState[T]) dropEntry(row, qual []byte, v int64, d hbapi.Durability) *hbapi.Delete {
	if s.inv {
		if qual == nil {
			qual = []byte{}
		}
		return &hbapi.Delete{Table: s.name, Row: row, Family: []byte(s.fam), Qualifier: qual, AllVersions: true, Timestamp: v, Durability: d}
	}
	return &hbapi.Delete{Table: s.name, Row: row, Timestamp: v, Durability: d}
}

// statusColumn is the column whose value a conditional write on entry e
// tests: the status cell of an entry that is a row, the entry's own cell
// for an inverted one.
func (s *ixState[T]) statusColumn(e *entry) (family, qualifier []byte) {
	if s.inv {
		return []byte(s.fam), e.qual
	}
	return []byte(s.fam), []byte(StatusQualifier)
}

// parseCells splits a row (or part of a row) of an inverted index into its
// entries, one per cell of the entry family, newest version of each.
func (s *ixState[T]) parseCells(r *hbapi.Result) []*entry {
	if r.Empty() {
		return nil
	}
	var out []*entry
	var last []byte
	for _, c := range r.Cells {
		if c.Type != 0 && c.Type != hbapi.CellTypePut || string(c.Family) != s.fam {
			continue
		}
		if last != nil && string(c.Qualifier) == string(last) {
			continue // an older version; Cells are newest first per column
		}
		last = c.Qualifier
		e := &entry{key: r.Row(), qual: c.Qualifier, raw: c.Value, maxTS: c.Timestamp,
			cells: []schema.Cell{{Family: s.fam, Qualifier: string(c.Qualifier), Value: c.Value}}}
		if st, ver, ok := parseStatus(c.Value); ok {
			e.status, e.version, e.rawState = st, ver, c.Value
		} else {
			e.version = c.Timestamp // another client's cell (seed 001 writes "1"): no status
		}
		if k, err := s.ix.DataKeyOf(c.Qualifier); err == nil {
			e.dataKey = k
		}
		out = append(out, e)
	}
	return out
}

// parseEntries returns the entries of a result read from index s: the row
// itself, or the cells of an inverted row.
func (s *ixState[T]) parseEntries(r *hbapi.Result) []*entry {
	if s.inv {
		return s.parseCells(r)
	}
	return []*entry{s.parseEntry(r)}
}

// ownsCell reports whether data row d derives the qualifier of entry e of
// index i, always true for an entry that is a row.
func (t *Table[T]) ownsCell(i int, e *entry, d *dataState[T]) bool {
	s := t.ixs[i]
	if !s.inv {
		return true
	}
	q, err := s.ix.AppendQualifier(nil, &d.rec)
	return err == nil && string(q) == string(e.qual)
}
