package dao

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/keys"
)

// Query selects rows of a Repo's table for Scan and Page.
//
// The rows are chosen either by typed bounds or by explicit row ranges:
//
//   - Lo, Hi and Fields: rows whose first Fields key fields, as encoded,
//     sort between those of Lo and Hi, both included
//     (keys.Layout.Ranges). Hi nil means Hi = Lo, a prefix query (see
//     Prefix and Between). Fields 0 (Lo and Hi nil) is the whole table.
//     Only the first Fields key fields of Lo and Hi are read. For a salted
//     layout the bounds give one range per salt value.
//   - Ranges: explicit half-open row ranges [Start, Stop), in increasing
//     order and not overlapping, for example one per bucket of a bucketed
//     key (BucketRanges). Lo, Hi and Fields must then be unset.
//
// More than one range runs one scan per range, concurrently (see
// WithScanConcurrency), merged into one ordered stream: in row-key order,
// or, with MergeSkip > 0, in the order of the row keys without their first
// MergeSkip bytes (a bucket or salt prefix), ties broken by the whole key.
// With MergeSkip, every range must lie within one value of those leading
// bytes.
//
// Reversed returns the rows in the opposite order (newest first becomes
// oldest first on a reversed-timestamp key). Limit caps the number of
// records (0: no limit). Resume continues after the last record of a page
// (see Page); it must come from the same query.
type Query[T any] struct {
	Lo, Hi    *T
	Fields    int
	Where     []string
	Ranges    []keys.KeyRange
	MergeSkip int
	Reversed  bool
	Limit     int
	Resume    Token
}

// Where, instead of Fields, names the key fields Lo and Hi set: record
// fields or key segment names, such as "province" and "age", or "day"
// and "account" for an index keyed [hash(mobile)][day][md5(account)]…
// The named fields must form a prefix of the key once its leading
// buckets (hash or ts%N segments computed from fields the query does not
// name) are set aside; those buckets are read one range per value
// (keys.Layout.SpreadRanges). A named field restricts every segment
// computed from it that falls in that prefix (Spec.From on the data
// table, IndexSpec.From on an index): Eq on user over a key
// [md5(user)][user][time] is one range. Build it with Eq or Range.
//
// Prefix returns the query of the rows whose first n key fields equal
// those of rec.
func Prefix[T any](rec *T, n int) Query[T] { return Query[T]{Lo: rec, Hi: rec, Fields: n} }

// Between returns the query of the rows whose first n key fields sort
// between those of lo and hi, both included.
func Between[T any](lo, hi *T, n int) Query[T] { return Query[T]{Lo: lo, Hi: hi, Fields: n} }

// Eq returns the query of the rows whose named key fields equal those of
// rec (see Query.Where): Eq(&User{Province: "辽宁省", Age: 20}, "province",
// "age").
func Eq[T any](rec *T, fields ...string) Query[T] {
	return Query[T]{Lo: rec, Hi: rec, Where: fields}
}

// Range returns the query of the rows whose named key fields sort between
// those of lo and hi, both included: the fields before the last are
// usually equal in lo and hi, the last one spans the range, such as a
// time range over LOG_DATA keyed [ts % 10][ts][host]:
// Range(&LogEvent{At: from}, &LogEvent{At: to}, "ts").
func Range[T any](lo, hi *T, fields ...string) Query[T] {
	return Query[T]{Lo: lo, Hi: hi, Where: fields}
}

// BucketRanges returns one range per bucket 0 .. n-1 of a key that starts
// with the bucket number as width decimal digits (keys.Decimal,
// keys.HashBucket, keys.Salt): bucket + start up to bucket + stop. A nil
// stop runs to the end of the bucket; an empty start from its start. Use
// it with MergeSkip = width to read a bucketed table in the order of the
// key behind the bucket.
func BucketRanges(n, width int, start, stop []byte) ([]keys.KeyRange, error) {
	if n < 1 || width < 1 || width > 20 {
		return nil, fmt.Errorf("%w: BucketRanges(%d, %d): want n >= 1 and width in [1, 20]", ErrInvalidQuery, n, width)
	}
	out := make([]keys.KeyRange, n)
	for b := 0; b < n; b++ {
		p, err := keys.AppendDecimal(nil, uint64(b), width)
		if err != nil {
			return nil, fmt.Errorf("%w: BucketRanges(%d, %d): %w", ErrInvalidQuery, n, width, err)
		}
		r := keys.KeyRange{Start: append(slices.Clip(p), start...)}
		if stop == nil {
			r.Stop = keys.PrefixEnd(p)
		} else {
			r.Stop = append(slices.Clip(p), stop...)
		}
		out[b] = r
	}
	return out, nil
}

// Token is an opaque resume token: where a paged query stopped. The empty
// Token starts a query from its beginning, and Page returns it when there
// is nothing more. A token names the query it came from; handing it to
// another query is an error wrapping ErrTokenMismatch. It holds the last
// row key returned, so it carries personal data when the keys do: treat
// it as such.
type Token string

const tokenVersion = 1

// plan is a validated query: the ranges to scan and where to resume.
type plan struct {
	ranges   []keys.KeyRange // in increasing order, not overlapping
	reversed bool
	skip     int
	limit    int
	fp       uint64
	after    []byte // last key already returned, nil at the start
	// afterCell, for an inverted index, is the qualifier of the last
	// record returned, in row after: that row is read again, from the
	// next cell (see dao/inverted.go).
	afterCell []byte
}

// planOf sets the ids of the names q's bounds give (UID fields) and
// plans q.
func (r *Repo[T]) planOf(ctx context.Context, q Query[T]) (*plan, error) {
	if err := r.usable(); err != nil {
		return nil, err
	}
	if err := r.setQueryIDs(ctx, q); err != nil {
		return nil, err
	}
	return r.plan(q)
}

func (r *Repo[T]) plan(q Query[T]) (*plan, error) {
	return planQuery(r.name, r.t.Key(), r.dataSource, q)
}

// dataSource returns the record field a data-key segment holds or is
// computed from (Spec.From: the hash of a field), "" when the schema does
// not say. A query naming that field then computes the segment from its
// value instead of reading every value of it.
func (r *Repo[T]) dataSource(segment string) string {
	src, _ := r.t.Source(segment)
	return src
}

// planQuery validates q against a key layout of table name; source maps a
// segment to the record field it is computed from ("" if unknown).
func planQuery[T any](name string, layout *keys.Layout[T], source func(string) string, q Query[T]) (*plan, error) {
	if q.Limit < 0 {
		return nil, queryErr(name, "Limit", "negative limit", nil)
	}
	if q.MergeSkip < 0 {
		return nil, queryErr(name, "MergeSkip", "negative", nil)
	}
	p := &plan{reversed: q.Reversed, skip: q.MergeSkip, limit: q.Limit}
	var err error
	if p.ranges, err = queryRanges(name, layout, source, q); err != nil {
		return nil, err
	}
	if err := checkRanges(name, p); err != nil {
		return nil, err
	}
	p.fp = fingerprint(name, p)
	if q.Resume != "" {
		after, err := p.decodeToken(q.Resume)
		if err != nil {
			return nil, fmt.Errorf("dao: table %q: %w", name, err)
		}
		p.after = after
	}
	return p, nil
}

// queryErr is the *QueryError of a query of table name.
func queryErr(name, field, reason string, err error) error {
	return &QueryError{Table: name, Field: field, Reason: reason, Err: err}
}

// queryRanges returns the key ranges q selects: explicit Ranges, the
// spread of a Where query, the whole table, or the Fields leading
// segments between Lo and Hi.
func queryRanges[T any](name string, layout *keys.Layout[T], source func(string) string, q Query[T]) ([]keys.KeyRange, error) {
	switch {
	case q.Ranges != nil:
		if q.Lo != nil || q.Hi != nil || q.Fields != 0 || q.Where != nil {
			return nil, queryErr(name, "Ranges", "set with Lo, Hi, Fields or Where", nil)
		}
		if len(q.Ranges) == 0 {
			return nil, queryErr(name, "Ranges", "empty", nil)
		}
		rs := make([]keys.KeyRange, len(q.Ranges))
		for i, kr := range q.Ranges {
			rs[i] = keys.KeyRange{Start: bytes.Clone(kr.Start), Stop: bytes.Clone(kr.Stop)}
		}
		return rs, nil
	case q.Where != nil && q.Fields != 0:
		return nil, queryErr(name, "Where", "set with Fields", nil)
	case q.Fields == 0 && q.Where == nil:
		if q.Lo != nil || q.Hi != nil {
			return nil, queryErr(name, "Fields", "0 with bounds: say how many key fields Lo and Hi set", nil)
		}
		return []keys.KeyRange{{}}, nil
	case q.Where == nil && (q.Fields < 0 || q.Fields > layout.Len()):
		return nil, queryErr(name, "Fields", strconv.Itoa(q.Fields)+" outside [0, "+strconv.Itoa(layout.Len())+"]", nil)
	case q.Lo == nil:
		return nil, queryErr(name, "Lo", "nil bound", nil)
	}
	hi := q.Hi
	if hi == nil {
		hi = q.Lo
	}
	var rs []keys.KeyRange
	var err error
	if q.Where != nil {
		spread, n, werr := layout.Where(q.Where, fixedSource(q, source))
		if werr != nil {
			_, reason := describe(werr)
			return nil, queryErr(name, "Where", reason, nil)
		}
		rs, err = layout.SpreadRanges(q.Lo, hi, spread, n)
	} else {
		rs, err = layout.Ranges(q.Lo, hi, q.Fields)
	}
	if err != nil {
		field, reason := describe(err)
		return nil, queryErr(name, field, reason, err)
	}
	return rs, nil
}

// checkRanges refuses ranges that are empty, reversed, overlapping or out
// of order, and, with MergeSkip, ranges that span more than one value of
// their first MergeSkip bytes.
func checkRanges(name string, p *plan) error {
	for i, kr := range p.ranges {
		at := "range " + strconv.Itoa(i)
		if kr.Stop != nil && bytes.Compare(kr.Start, kr.Stop) >= 0 {
			return queryErr(name, "Ranges", at+" is empty or reversed (Start >= Stop)", nil)
		}
		if i > 0 {
			prev := p.ranges[i-1]
			if prev.Stop == nil || bytes.Compare(prev.Stop, kr.Start) > 0 {
				return queryErr(name, "Ranges", at+" overlaps or precedes range "+strconv.Itoa(i-1), nil)
			}
		}
		if p.skip > 0 {
			if len(kr.Start) < p.skip {
				return queryErr(name, "MergeSkip", at+" starts with fewer than MergeSkip bytes", nil)
			}
			end := keys.PrefixEnd(kr.Start[:p.skip])
			if end != nil && (kr.Stop == nil || bytes.Compare(kr.Stop, end) > 0) {
				return queryErr(name, "MergeSkip", at+" spans more than one value of its first MergeSkip bytes", nil)
			}
		}
	}
	return nil
}

// fixedSource is source for the segments a Where query q can compute:
// in a Range (Hi set apart from Lo) the last named field spans the range,
// so a segment computed from it (ts % 10) takes other values between the
// bounds and is read one range per value instead.
func fixedSource[T any](q Query[T], source func(string) string) func(string) string {
	if q.Hi == nil || q.Hi == q.Lo || len(q.Where) == 0 {
		return source
	}
	bounded := q.Where[len(q.Where)-1]
	return func(segment string) string {
		if src := source(segment); src != bounded {
			return src
		}
		return "" // its own segment is still matched by name
	}
}

// fingerprint identifies the query a token belongs to: the table, the
// ranges, the direction and the merge order. The limit is left out, so
// pages of any size continue each other.
func fingerprint(name string, p *plan) uint64 {
	h := fnv.New64a()
	var buf []byte
	buf = binary.AppendUvarint(buf, uint64(len(name)))
	buf = append(buf, name...)
	if p.reversed {
		buf = append(buf, 1)
	} else {
		buf = append(buf, 0)
	}
	buf = binary.AppendUvarint(buf, uint64(p.skip))
	buf = binary.AppendUvarint(buf, uint64(len(p.ranges)))
	for _, kr := range p.ranges {
		buf = binary.AppendUvarint(buf, uint64(len(kr.Start)))
		buf = append(buf, kr.Start...)
		if kr.Stop == nil {
			buf = append(buf, 0)
		} else {
			buf = append(buf, 1)
			buf = binary.AppendUvarint(buf, uint64(len(kr.Stop)))
			buf = append(buf, kr.Stop...)
		}
	}
	h.Write(buf)
	return h.Sum64()
}

func (p *plan) token(last []byte) Token {
	buf := make([]byte, 0, 9+len(last))
	buf = append(buf, tokenVersion)
	buf = binary.BigEndian.AppendUint64(buf, p.fp)
	buf = append(buf, last...)
	return Token(base64.RawURLEncoding.EncodeToString(buf))
}

func (p *plan) decodeToken(t Token) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(string(t))
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrInvalidToken)
	}
	if len(b) < 10 || b[0] != tokenVersion {
		return nil, fmt.Errorf("%w: unknown version or too short", ErrInvalidToken)
	}
	if binary.BigEndian.Uint64(b[1:9]) != p.fp {
		return nil, ErrTokenMismatch
	}
	key := b[9:]
	for _, kr := range p.ranges {
		if kr.Contains(key) {
			if p.skip > 0 && len(key) < p.skip {
				break
			}
			return key, nil
		}
	}
	return nil, fmt.Errorf("%w: key outside the query's ranges", ErrInvalidToken)
}

// resumed returns the ranges left to scan after p.after, in merge order
// terms: for MergeSkip 0 the keys after (before, if reversed) p.after;
// otherwise, in each range, the keys whose (suffix, key) pair comes after
// that of p.after.
func (p *plan) resumed() []keys.KeyRange {
	if p.after == nil {
		return p.ranges
	}
	last := p.after
	next := func(k []byte) []byte { return append(bytes.Clone(k), 0) } // smallest key > k
	if p.afterCell != nil {
		next = bytes.Clone // the row of the last record holds more
	}
	out := make([]keys.KeyRange, 0, len(p.ranges))
	for _, kr := range p.ranges {
		lo, hi := kr.Start, kr.Stop
		if p.skip == 0 {
			if p.reversed {
				hi = minStop(hi, last)
			} else {
				lo = maxStart(lo, next(last))
			}
		} else {
			prefix, lastPrefix, lastSuffix := kr.Start[:p.skip], last[:p.skip], last[p.skip:]
			bound := append(bytes.Clone(prefix), lastSuffix...) // prefix + suffix of last
			c := bytes.Compare(prefix, lastPrefix)
			if p.reversed {
				// keep keys whose (suffix, key) < (lastSuffix, last)
				switch {
				case c < 0:
					hi = minStop(hi, next(bound))
				case c > 0:
					hi = minStop(hi, bound)
				default:
					hi = minStop(hi, last)
				}
			} else {
				// keep keys whose (suffix, key) > (lastSuffix, last)
				switch {
				case c < 0:
					lo = maxStart(lo, next(bound))
				case c > 0:
					lo = maxStart(lo, bound)
				default:
					lo = maxStart(lo, next(last))
				}
			}
		}
		if hi != nil && bytes.Compare(lo, hi) >= 0 {
			continue
		}
		out = append(out, keys.KeyRange{Start: lo, Stop: hi})
	}
	return out
}

func maxStart(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

// minStop is the smaller of two exclusive upper bounds; nil is +infinity.
func minStop(a, b []byte) []byte {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case bytes.Compare(a, b) <= 0:
		return a
	}
	return b
}

// mergeCmp orders keys for the merge: by the bytes after skip, then by the
// whole key.
func mergeCmp(a, b []byte, skip int) int {
	if skip > 0 {
		if c := bytes.Compare(a[min(skip, len(a)):], b[min(skip, len(b)):]); c != 0 {
			return c
		}
	}
	return bytes.Compare(a, b)
}
