package schema

import (
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
)

// The accessors below read a field of the declared type as the value a
// segment kind encodes: an int64 field as a uint64, a time as Unix
// milliseconds, and so on. Each conversion is the one the seeds' getters
// make (times decode in UTC, at millisecond precision).

// mismatch is the error of a field whose type cannot hold what a segment
// or column needs.
func (b *docBuilder[T]) mismatch(path, field, want string) error {
	return docError(b.doc.Name, path, "field "+strconv.Quote(field)+" of type "+strconv.Quote(b.types[field])+" cannot be read as "+want)
}

func (b *docBuilder[T]) uint(path, field string) (func(*T) uint64, func(*T, uint64), error) {
	switch b.types[field] {
	case "uint64":
		g, s, err := b.f.Uint64(field)
		return g, s, b.fieldErr(path, err)
	case "int64":
		g, s, err := b.f.Int64(field)
		return func(r *T) uint64 { return uint64(g(r)) }, func(r *T, v uint64) { s(r, int64(v)) }, b.fieldErr(path, err)
	}
	return nil, nil, b.mismatch(path, field, "an unsigned integer")
}

func (b *docBuilder[T]) int(path, field string) (func(*T) int64, func(*T, int64), error) {
	switch b.types[field] {
	case "int64":
		g, s, err := b.f.Int64(field)
		return g, s, b.fieldErr(path, err)
	case "uint64":
		g, s, err := b.f.Uint64(field)
		return func(r *T) int64 { return int64(g(r)) }, func(r *T, v int64) { s(r, uint64(v)) }, b.fieldErr(path, err)
	}
	return nil, nil, b.mismatch(path, field, "an integer")
}

// millis reads a field as Unix milliseconds: an int64, or a time.
func (b *docBuilder[T]) millis(path, field string) (func(*T) int64, func(*T, int64), error) {
	if b.types[field] == "time" {
		g, s, err := b.f.Time(field)
		return func(r *T) int64 { return g(r).UnixMilli() },
			func(r *T, ms int64) { s(r, time.UnixMilli(ms).UTC()) }, b.fieldErr(path, err)
	}
	if b.types[field] != "int64" {
		return nil, nil, b.mismatch(path, field, "Unix milliseconds (int64 or time)")
	}
	g, s, err := b.f.Int64(field)
	return g, s, b.fieldErr(path, err)
}

// time reads a field as a time: a time, or Unix milliseconds.
func (b *docBuilder[T]) time(path, field string) (func(*T) time.Time, func(*T, time.Time), error) {
	if b.types[field] == "int64" {
		g, s, err := b.f.Int64(field)
		return func(r *T) time.Time { return time.UnixMilli(g(r)).UTC() },
			func(r *T, t time.Time) { s(r, t.UnixMilli()) }, b.fieldErr(path, err)
	}
	if b.types[field] != "time" {
		return nil, nil, b.mismatch(path, field, "a time (time or int64 milliseconds)")
	}
	g, s, err := b.f.Time(field)
	return g, s, b.fieldErr(path, err)
}

// duration reads a field as a time of day: a duration, or the clock of a
// time (or Unix milliseconds) in zone. The clock of a time cannot be set
// back into it.
func (b *docBuilder[T]) duration(path, field, zone string) (func(*T) time.Duration, func(*T, time.Duration), error) {
	if b.types[field] == "duration" {
		g, s, err := b.f.Duration(field)
		return g, s, b.fieldErr(path, err)
	}
	g, _, err := b.time(path, field)
	if err != nil {
		return nil, nil, b.mismatch(path, field, "a time of day (duration, time or int64 milliseconds)")
	}
	loc, _ := time.LoadLocation(zone)
	return func(r *T) time.Duration { return keys.TimeOfDayIn(g(r), loc) }, nil, nil
}

// modulo reads a numeric or time field as its value mod m (Unix
// milliseconds for a time), in [0, m).
func (b *docBuilder[T]) modulo(path, field string, m uint64) (func(*T) uint64, error) {
	if b.types[field] == "uint64" {
		g, _, err := b.f.Uint64(field)
		return func(r *T) uint64 { return g(r) % m }, b.fieldErr(path, err)
	}
	g, _, err := b.millis(path, field)
	if err != nil {
		return nil, b.mismatch(path, field, "a number (int64, uint64 or time)")
	}
	return func(r *T) uint64 {
		v := g(r) % int64(m)
		if v < 0 {
			v += int64(m)
		}
		return uint64(v)
	}, nil
}

// bucketSet is the setter of the bucket, salt or partition a decodable
// segment writes to the field of its own name; nil when it does not
// decode.
func (b *docBuilder[T]) bucketSet(path string, s DocSegment, dec bool) (func(*T, int), error) {
	if !dec {
		return nil, nil
	}
	_, set, err := b.int(path, s.Name)
	if err != nil {
		return nil, err
	}
	return func(r *T, v int) { set(r, int64(v)) }, nil
}

func (b *docBuilder[T]) fieldErr(path string, err error) error {
	if e, ok := err.(*Error); err == nil || ok && e.Kind == ErrInvalidDocument {
		return err
	}
	return b.wrap(path, err)
}

// column builds a column of the document.
func (b *docBuilder[T]) column(path string, c DocColumn) (Column[T], error) {
	typ, _ := ParseColumnType(c.Type)
	var col Column[T]
	var err error
	switch typ {
	case ColumnString:
		g, s, e := b.f.String(c.Name)
		col, err = StringColumn(c.Name, c.Family, c.Qualifier, g, s), e
	case ColumnInt64:
		g, s, e := b.int(path, c.Name)
		col, err = Int64Column(c.Name, c.Family, c.Qualifier, g, s), e
	case ColumnFloat64:
		g, s, e := b.f.Float64(c.Name)
		col, err = Float64Column(c.Name, c.Family, c.Qualifier, g, s), e
	case ColumnBool:
		g, s, e := b.f.Bool(c.Name)
		col, err = BoolColumn(c.Name, c.Family, c.Qualifier, g, s), e
	case ColumnTime:
		g, s, e := b.time(path, c.Name)
		col, err = TimeColumn(c.Name, c.Family, c.Qualifier, g, s), e
	default:
		g, s, e := b.f.Bytes(c.Name)
		col, err = BytesColumn(c.Name, c.Family, c.Qualifier, g, s), e
	}
	if err != nil {
		return col, b.fieldErr(path, err)
	}
	if p, ok := b.f.(presence[T]); ok {
		col = presentOnly(col, p.Has(c.Name))
	}
	return col, nil
}

// presence is implemented by Fields whose records may lack a field
// (Values): a column of an absent field writes no cell.
type presence[T any] interface {
	Has(name string) func(*T) bool
}

func presentOnly[T any](c Column[T], has func(*T) bool) Column[T] {
	app := c.Append
	c.Append = func(dst []byte, v *T) ([]byte, bool) {
		if !has(v) {
			return dst, false
		}
		return app(dst, v)
	}
	return c
}
