package dao

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
)

// Pages of an inverted index (schema.Index.Inverted). Many records share
// one index row, so the position of a record is its row and its cell's
// qualifier: a page token holds both, and the next page reads that row
// again from the cell after it. The records of a row come in qualifier
// order, as HBase returns the cells.

// position is the resume point after rec, read at index key key: the key
// itself for an index whose entries are rows; for an inverted index the
// row, the qualifier, and the qualifier's length in 4 bytes.
func (x *Index[T]) position(key []byte, rec *T) []byte {
	if !x.ix.Inverted() {
		return key
	}
	q, err := x.ix.AppendQualifier(nil, rec)
	if err != nil {
		return key // cannot happen: the record came from a data row that derives its entry
	}
	pos := append(bytes.Clone(key), q...)
	return binary.BigEndian.AppendUint32(pos, uint32(len(q)))
}

// splitPosition cuts a position of an inverted index into row and
// qualifier.
func splitPosition(pos []byte) (row, qual []byte, ok bool) {
	if len(pos) < 4 {
		return nil, nil, false
	}
	n := int(binary.BigEndian.Uint32(pos[len(pos)-4:]))
	if n > len(pos)-4 {
		return nil, nil, false
	}
	end := len(pos) - 4
	return pos[: end-n : end-n], pos[end-n : end : end], true
}

// planCells plans q, which resumes a page of an inverted index: the
// token's row is read again (plan.resumed), and returned skips its cells
// up to the token's.
func (x *Index[T]) planCells(q Query[T]) (*plan, error) {
	tok := q.Resume
	q.Resume = ""
	p, err := planQuery(x.name, x.ix.Key(), x.source, q)
	if err != nil {
		return nil, err
	}
	b, err := base64.RawURLEncoding.DecodeString(string(tok))
	switch {
	case err != nil:
		return nil, fmt.Errorf("dao: table %q: %w: not base64url", x.name, ErrInvalidToken)
	case len(b) < 13 || b[0] != tokenVersion:
		return nil, fmt.Errorf("dao: table %q: %w: unknown version or too short", x.name, ErrInvalidToken)
	case binary.BigEndian.Uint64(b[1:9]) != p.fp:
		return nil, fmt.Errorf("dao: table %q: %w", x.name, ErrTokenMismatch)
	}
	row, qual, ok := splitPosition(b[9:])
	if !ok {
		return nil, fmt.Errorf("dao: table %q: %w: not a position in an inverted index", x.name, ErrInvalidToken)
	}
	inside := false
	for _, kr := range p.ranges {
		inside = inside || kr.Contains(row)
	}
	if !inside {
		return nil, fmt.Errorf("dao: table %q: %w: key outside the query's ranges", x.name, ErrInvalidToken)
	}
	p.after, p.afterCell = row, qual
	return p, nil
}

// returned reports whether rec, read at index key key, was on an earlier
// page: it is in the token's row, at or before the token's cell.
func (x *Index[T]) returned(p *plan, key []byte, rec *T) bool {
	if !bytes.Equal(key, p.after) {
		return false
	}
	q, err := x.ix.AppendQualifier(nil, rec)
	return err == nil && bytes.Compare(q, p.afterCell) <= 0
}

// Keys returns an iterator over the records q selects through the index,
// holding only their key fields (the index key's decodable fields and
// those of the data row key), read from the index alone as Count reads
// it: verified entries are taken as they are, and only unverified ones
// (writes in flight or interrupted) cost a Get of their data row. For
// seed 001's inverted index it lists the uids of a province and age
// without touching the user table. Order, Limit and errors are as in
// Find; Resume is not taken.
func (x *Index[T]) Keys(ctx context.Context, q Query[T]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		// One operation timeout for the whole query (docs/timeouts.md).
		ctx, endOp := hbapi.StartOperation(ctx, x.r.c)
		defer endOp(nil)
		if q.Resume != "" {
			yield(nil, &QueryError{Table: x.name, Field: "Resume", Reason: "Keys takes no resume token"})
			return
		}
		p, err := x.planOf(ctx, q)
		if err != nil {
			yield(nil, err)
			return
		}
		n, stopped := 0, false
		var derr error
		err = x.r.ix.Keys(ctx, x.declared, p.ranges, func(key, dataKey []byte) bool {
			var v T
			if derr = x.ix.DecodeKey(key, &v); derr == nil {
				derr = x.r.t.DecodeKey(dataKey, &v)
			}
			if derr == nil {
				derr = x.r.setNames(ctx, &v)
			}
			if derr != nil {
				return false
			}
			n++
			if !yield(&v, nil) {
				stopped = true
				return false
			}
			return p.limit == 0 || n < p.limit
		})
		if err == nil {
			err = derr
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil && !stopped {
			yield(nil, x.readError(ctx, endOp(err)))
		}
	}
}

// exactRows narrows the ranges of p, planned from q over layout, to single
// rows where q fixes every key field to one value (Hi nil or encoding as
// Lo does) and the key's last segment is trailing (no terminator: the
// last part of keys.Joined, a TrailingString). There a prefix range would
// also match longer values: Eq on province 辽宁省 and age 2 would read the
// rows 辽宁省_20 … 辽宁省_29 too, and count their records as age 2.
func exactRows[T any](layout *keys.Layout[T], source func(string) string, q Query[T], p *plan) {
	segs := layout.Segments()
	if len(segs) == 0 || !segs[len(segs)-1].Trailing || q.Lo == nil {
		return
	}
	n := q.Fields
	if q.Where != nil {
		_, w, err := layout.Where(q.Where, fixedSource(q, source))
		if err != nil {
			return
		}
		n = w
	}
	if n != len(segs) {
		return
	}
	if q.Hi != nil && q.Hi != q.Lo {
		// Two records: one value if their keys are one key.
		lo, err := layout.Append(nil, q.Lo)
		if err != nil {
			return
		}
		if hi, err := layout.Append(nil, q.Hi); err != nil || !bytes.Equal(lo, hi) {
			return
		}
	}
	for i, kr := range p.ranges {
		if end := keys.PrefixEnd(kr.Start); kr.Stop != nil && bytes.Equal(kr.Stop, end) {
			p.ranges[i].Stop = append(bytes.Clone(kr.Start), 0)
		}
	}
}
