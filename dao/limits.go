package dao

import (
	"fmt"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// writeLimits returns the byte limits of c's writes: its own when it
// tells them (hbase.Client, the fake), else HBase's defaults.
func writeLimits(c Client) hbapi.WriteLimits {
	if l, ok := c.(interface{ WriteLimits() hbapi.WriteLimits }); ok {
		return l.WriteLimits()
	}
	return hbapi.DefaultWriteLimits()
}

// checkCellSizes refuses an encoded record with a cell larger than the
// client sends (hbase.CellSize over WriteLimits.MaxCellSize), naming the
// schema field whose column it is, never the row key.
func (r *Repo[T]) checkCellSizes(rec *schema.Record) error {
	limit := r.limits.MaxCellSize
	if limit <= 0 {
		return nil
	}
	for _, c := range rec.Data.Cells {
		if n := hbapi.CellSize(rec.Data.Key, c.Family, c.Qualifier, c.Value); n > limit {
			return &ValidationError{Table: r.name, Field: r.fieldOf(c.Family, c.Qualifier),
				Reason: fmt.Sprintf("cell %s:%s of %d bytes is larger than the %d HBase takes", c.Family, c.Qualifier, n, limit),
				Err:    hbapi.ErrCellTooLarge}
		}
	}
	for _, e := range rec.Entries {
		for _, c := range e.Cells {
			if n := hbapi.CellSize(e.Key, c.Family, c.Qualifier, c.Value); n > limit {
				return &ValidationError{Table: r.name,
					Reason: fmt.Sprintf("index entry cell %s:%s of %d bytes is larger than the %d HBase takes", c.Family, c.Qualifier, n, limit),
					Err:    hbapi.ErrCellTooLarge}
			}
		}
	}
	return nil
}

// fieldOf returns the name of the field stored in column family:qualifier.
func (r *Repo[T]) fieldOf(family, qualifier string) string {
	for _, ci := range r.t.Columns() {
		if ci.Family == family && ci.Qualifier == qualifier {
			return ci.Name
		}
	}
	return family + ":" + qualifier
}

// recordSize is the bytes of rec's cells, data row and index entries, as
// hbase.CellSize counts them.
func recordSize(rec *schema.Record) int {
	n := 0
	for _, c := range rec.Data.Cells {
		n += hbapi.CellSize(rec.Data.Key, c.Family, c.Qualifier, c.Value)
	}
	for _, e := range rec.Entries {
		for _, c := range e.Cells {
			n += hbapi.CellSize(e.Key, c.Family, c.Qualifier, c.Value)
		}
	}
	if n == 0 { // a delete: its key
		n = hbapi.CellSize(rec.Data.Key, "", "", nil)
	}
	return n
}

// chunkEnd returns the end of the chunk of rows that starts at lo: at
// most r.batchSize records of at most the client's write buffer bytes
// (WriteLimits.WriteBufferSize), or the one record at lo when it is
// larger.
func (r *Repo[T]) chunkEnd(rows []*schema.Record, lo int) int {
	hi, size := lo, 0
	for hi < len(rows) && hi-lo < r.batchSize {
		n := recordSize(rows[hi])
		if hi > lo && size+n > r.limits.WriteBufferSize {
			break
		}
		size += n
		hi++
	}
	return hi
}
