package index

import (
	"encoding/binary"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// RowVersion returns the version of a data row as read, and whether it
// holds a live record (not empty, not a tombstone). The version is the
// version cell's; a row without one (an insert-only row, another
// client's) stands at its newest cell's timestamp.
func (t *Table[T]) RowVersion(r *hbapi.Result) (v int64, live bool) {
	if r.Empty() {
		return 0, false
	}
	if c, ok := r.Latest([]byte(t.fam), []byte(VersionQualifier)); ok {
		switch {
		case len(c.Value) == 9 && c.Value[8] == tombstoneFlag:
			return int64(binary.BigEndian.Uint64(c.Value)), false
		case len(c.Value) == 8:
			return int64(binary.BigEndian.Uint64(c.Value)), true
		}
	}
	for _, c := range r.Cells {
		v = max(v, c.Timestamp)
	}
	return v, true
}

// CopyActions returns the writes that store rec at version v, as a copy
// of a record read elsewhere at that version (a table copy, a migration's
// second table): the data row as a verify-on-read write leaves it (its
// cells, the version cell and the entry keys, all at v), deletes at v of
// the columns rec lacks, and the entries, unverified, at v. For OpDelete
// only rec.Data.Key is read: the row's tombstone at v.
//
// Nothing is read and nothing is conditional. A newer version of the row
// outranks these cells and a delete marker above v masks them, whatever
// the order they arrive in, so sending them again, or late, never undoes
// a newer write. The entries of older values stay behind, unverified:
// readers skip them, and Check in ModeRepair removes them and verifies
// the others.
func (t *Table[T]) CopyActions(op Op, rec *schema.Record, v int64) []hbapi.Action {
	it := &item[T]{op: op, key: rec.Data.Key, enc: rec, v: v}
	if op != OpPut {
		b := t.blindRow(OpDelete, it, 0)
		b.finish(v)
		return []hbapi.Action{&b.put}
	}
	acts := make([]hbapi.Action, 0, 1+len(t.ixs))
	for i, s := range t.ixs {
		acts = append(acts, s.entryActions(&rec.Entries[i], statusUnverified, v)...)
	}
	b := t.blindRow(OpPut, it, len(t.ixs))
	for i, s := range t.ixs {
		b.put.Cells = addCell(b.put.Cells, t.fam, s.keyQ, rec.Entries[i].Key)
	}
	b.finish(v)
	acts = append(acts, &b.put)
	for _, c := range t.dataCols {
		if _, ok := b.put.Value(c.Family, c.Qualifier); !ok {
			acts = append(acts, &hbapi.Delete{Table: t.name, Row: rec.Data.Key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), AllVersions: true, Timestamp: v})
		}
	}
	return acts
}
