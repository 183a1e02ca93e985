package index

import (
	"bytes"
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
)

// Keys scans the given ranges of the named index and calls fn, in index
// order, with the key and the data row key of each entry that belongs to
// a live record, from the index alone as Count reads it: verified entries
// are taken as they are, and only unverified ones (writes in flight or
// interrupted) and those without a status (written by other clients) cost
// a Get of their data row, and count if it derives them (every entry, in
// the verify-on-read mode). fn returning
// false ends the read. Each data row key comes once per call, though its
// record moves during the read (see passKeys). Its answer is as exact as
// Count's in each mode (see
// Modes in the package documentation); Find, which fetches every data
// row, is exact in all.
func (t *Table[T]) Keys(ctx context.Context, index string, ranges []keys.KeyRange, fn func(key, dataKey []byte) bool) (err error) {
	s, err := t.readable(ctx, index)
	if err != nil {
		return err
	}
	ctx, span := t.span(ctx, "keys", s.name, attribute.Int("ranges", len(ranges)))
	defer func() { end(span, err) }()
	ctx, endOp := hbapi.StartOperation(ctx, t.c)
	defer func() { err = endOp(err) }()
	i := slices.Index(t.ixs, s)
	stopped := false
	var seen passKeys // a record moving during the read is listed once
	err = t.scanEntries(ctx, s, ranges, nil, func(es []*entry) error {
		var check []*entry
		for _, e := range es {
			if !t.trusted(e) && e.dataKey != nil {
				check = append(check, e)
			}
		}
		ds, err := t.dataRows(ctx, check)
		if err != nil {
			return err
		}
		j := 0
		for _, e := range es {
			switch {
			case e.dataKey == nil:
				continue
			case !t.trusted(e):
				d := ds[j]
				j++
				if d == nil || !d.exists || !d.decoded || !bytes.Equal(d.derived[i], e.key) || !t.ownsCell(i, e, d) {
					continue
				}
			}
			if !seen.first(e.dataKey) {
				continue
			}
			if !fn(e.key, e.dataKey) {
				stopped = true
				return errStop
			}
		}
		return nil
	})
	if stopped {
		err = nil
	}
	return err
}
