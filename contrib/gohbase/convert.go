package gohbase

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"

	"github.com/hbkit/hbkit/hbase"
)

// Conversions between hbkit's request and result types and gohbase's.
// Requests are validated (hbase's Validate methods) before they get here.

// tableName is a validated table name as gohbase matches it against
// hbase:meta: "table" in the default namespace, never "default:table".
func tableName(name string) []byte {
	tn, err := hbase.ParseTableName(name)
	if err != nil {
		return []byte(name) // not reached: requests are validated first
	}
	return []byte(tn.String())
}

// readOptions are the options a Get and a Scan share.
func readOptions(families [][]byte, columns []hbase.Column, maxVersions int, tr *hbase.TimeRange, f hbase.Filter) ([]func(hrpc.Call) error, error) {
	var opts []func(hrpc.Call) error
	if fams := familyMap(families, columns); fams != nil {
		opts = append(opts, hrpc.Families(fams))
	}
	if maxVersions > 1 {
		opts = append(opts, hrpc.MaxVersions(uint32(min(maxVersions, math.MaxInt32))))
	}
	if tr != nil {
		opts = append(opts, hrpc.TimeRangeUint64(uint64(tr.From), uint64(tr.To)))
	}
	if f != nil {
		gf, err := toFilter(f)
		if err != nil {
			return nil, err
		}
		opts = append(opts, hrpc.Filters(gf))
	}
	return opts, nil
}

// familyMap is the selection of a Get or Scan in gohbase's form: family →
// qualifiers, nil for the whole family. A family listed whole wins over
// single columns of it.
func familyMap(families [][]byte, columns []hbase.Column) map[string][]string {
	if len(families) == 0 && len(columns) == 0 {
		return nil
	}
	m := make(map[string][]string, len(families)+len(columns))
	whole := make(map[string]bool, len(families))
	for _, f := range families {
		m[string(f)] = nil
		whole[string(f)] = true
	}
	for _, c := range columns {
		if whole[string(c.Family)] {
			continue
		}
		m[string(c.Family)] = append(m[string(c.Family)], string(c.Qualifier))
	}
	return m
}

func toGet(ctx context.Context, g *hbase.Get) (*hrpc.Get, error) {
	opts, err := readOptions(g.Families, g.Columns, g.MaxVersions, g.TimeRange, g.Filter)
	if err != nil {
		return nil, err
	}
	get, err := hrpc.NewGet(ctx, tableName(g.Table), g.Row, opts...)
	if err != nil {
		return nil, err
	}
	if g.ExistenceOnly {
		get.ExistsOnly()
	}
	return get, nil
}

// mutationOptions: timestamp 0 and LatestTimestamp both mean "the server
// assigns it", which in gohbase is "no Timestamp option".
func mutationOptions(ts int64, d hbase.Durability) []func(hrpc.Call) error {
	var opts []func(hrpc.Call) error
	if ts != 0 && ts != hbase.LatestTimestamp {
		opts = append(opts, hrpc.TimestampUint64(uint64(ts)))
	}
	if d != hbase.DurabilityDefault {
		// hbase.Durability uses HBase's codes, as gohbase's DurabilityType does.
		opts = append(opts, hrpc.Durability(hrpc.DurabilityType(d)))
	}
	return opts
}

func toPut(ctx context.Context, p *hbase.Put) (*hrpc.Mutate, error) {
	return hrpc.NewPut(ctx, tableName(p.Table), p.Row, putValues(p), mutationOptions(p.Timestamp, p.Durability)...)
}

// toDelete maps the four kinds of hbase.Delete onto gohbase's delete
// forms: nil values (row), a family with nil qualifiers (family), a
// qualifier with DeleteOneVersion (one version) or without (all versions).
func toDelete(ctx context.Context, d *hbase.Delete) (*hrpc.Mutate, error) {
	opts := mutationOptions(d.Timestamp, d.Durability)
	var values map[string]map[string][]byte
	switch {
	case d.Family == nil:
	case len(d.Qualifier) == 0:
		values = map[string]map[string][]byte{string(d.Family): nil}
	default:
		values = map[string]map[string][]byte{string(d.Family): {string(d.Qualifier): nil}}
		if !d.AllVersions {
			opts = append(opts, hrpc.DeleteOneVersion())
		}
	}
	return hrpc.NewDel(ctx, tableName(d.Table), d.Row, values, opts...)
}

func toIncrement(ctx context.Context, inc *hbase.Increment) (*hrpc.Mutate, error) {
	values := make(map[string]map[string][]byte, len(inc.Deltas))
	for f, qs := range inc.Deltas {
		m := make(map[string][]byte, len(qs))
		for q, d := range qs {
			m[q] = binary.BigEndian.AppendUint64(nil, uint64(d))
		}
		values[f] = m
	}
	return hrpc.NewInc(ctx, tableName(inc.Table), inc.Row, values, mutationOptions(0, inc.Durability)...)
}

func toAppend(ctx context.Context, a *hbase.Append) (*hrpc.Mutate, error) {
	return hrpc.NewApp(ctx, tableName(a.Table), a.Row, a.Values, mutationOptions(0, a.Durability)...)
}

// oneMutation turns the mutations of a CheckAndMutate or RowMutations
// into the single gohbase Mutate it can send atomically: one Delete, or
// Puts that share a timestamp and durability and write distinct columns
// (merged into one Put). Anything else needs HBase's atomic multi-action
// request, which gohbase does not offer.
func oneMutation(ctx context.Context, op, table string, row []byte, muts []hbase.Mutation) (*hrpc.Mutate, error) {
	if len(muts) == 1 {
		if d, ok := muts[0].(*hbase.Delete); ok {
			dd := *d
			dd.Table, dd.Row = table, row
			return toDelete(ctx, &dd)
		}
	}
	var merged *hbase.Put
	for _, m := range muts {
		p, ok := m.(*hbase.Put)
		if !ok {
			return nil, unsupported(op, "a Delete together with other mutations: gohbase sends one mutation per atomic call")
		}
		if merged == nil {
			merged = &hbase.Put{Table: table, Row: row, Timestamp: p.Timestamp, Durability: p.Durability,
				Values: make(map[string]map[string][]byte, 1)}
		} else if normTS(p.Timestamp) != normTS(merged.Timestamp) || p.Durability != merged.Durability {
			return nil, unsupported(op, "Puts with different timestamps or durabilities: gohbase sends one mutation per atomic call")
		}
		for _, c := range p.SortedCells() {
			dst := merged.Values[c.Family]
			if dst == nil {
				dst = make(map[string][]byte)
				merged.Values[c.Family] = dst
			}
			if _, dup := dst[c.Qualifier]; dup {
				return nil, unsupported(op, fmt.Sprintf("two Puts of column %q:%q: gohbase sends one mutation per atomic call", c.Family, c.Qualifier))
			}
			dst[c.Qualifier] = c.Value
		}
	}
	return toPut(ctx, merged)
}

func normTS(ts int64) int64 {
	if ts == hbase.LatestTimestamp {
		return 0
	}
	return ts
}

// toCheckAndMutate builds gohbase's CheckAndMutate for cam, or fails with
// an *UnsupportedError when cam does not fit in it (several mutations
// that do not merge into one, a condition with a TimeRange).
// hbase.CheckAndMutate compares "stored op value", HBase "value op
// stored", so the operator is reversed on the wire.
func toCheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (*hrpc.CheckAndMutate, error) {
	const op = "check and mutate"
	if cam.TimeRange != nil {
		return nil, unsupported(op, "a condition with a TimeRange: gohbase's CheckAndMutate has no time range")
	}
	m, err := oneMutation(ctx, op, cam.Table, cam.Row, cam.Mutations)
	if err != nil {
		return nil, err
	}
	cmp := filter.NewBinaryComparator(filter.NewByteArrayComparable(nonNil(cam.Value)))
	return hrpc.NewCheckAndMutate(m, string(cam.Family), string(cam.Qualifier), pb.CompareType(compareType(cam.Compare.Reverse())), cmp)
}

func compareType(op hbase.CompareOp) filter.CompareType {
	switch op {
	case hbase.CompareEqual:
		return filter.Equal
	case hbase.CompareNotEqual:
		return filter.NotEqual
	case hbase.CompareLess:
		return filter.Less
	case hbase.CompareLessOrEqual:
		return filter.LessOrEqual
	case hbase.CompareGreater:
		return filter.Greater
	case hbase.CompareGreaterOrEqual:
		return filter.GreaterOrEqual
	}
	return filter.NoOp
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// toFilter builds the gohbase filter of a validated hbase.Filter. Both
// name HBase's filter classes, so the mapping is one to one.
func toFilter(f hbase.Filter) (filter.Filter, error) {
	switch f := f.(type) {
	case *hbase.PrefixFilter:
		return filter.NewPrefixFilter(nonNil(f.Prefix)), nil
	case *hbase.KeyOnlyFilter:
		return filter.NewKeyOnlyFilter(f.LengthAsValue), nil
	case *hbase.FirstKeyOnlyFilter:
		return filter.NewFirstKeyOnlyFilter(), nil
	case *hbase.PageFilter:
		return filter.NewPageFilter(f.Size), nil
	case *hbase.ColumnPrefixFilter:
		return filter.NewColumnPrefixFilter(nonNil(f.Prefix)), nil
	case *hbase.ColumnRangeFilter:
		return filter.NewColumnRangeFilter(f.Min, f.Max, f.MinInclusive, f.MaxInclusive), nil
	case *hbase.RowFilter:
		cf, err := compareFilter(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		return filter.NewRowFilter(cf), nil
	case *hbase.FamilyFilter:
		cf, err := compareFilter(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		return filter.NewFamilyFilter(cf), nil
	case *hbase.QualifierFilter:
		cf, err := compareFilter(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		return filter.NewQualifierFilter(cf), nil
	case *hbase.ValueFilter:
		cf, err := compareFilter(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		return filter.NewValueFilter(cf), nil
	case *hbase.SingleColumnValueFilter:
		c, err := comparator(f.Comparator)
		if err != nil {
			return nil, err
		}
		return filter.NewSingleColumnValueFilter(f.Family, nonNil(f.Qualifier), compareType(f.Compare), c,
			f.FilterIfMissing, f.LatestVersionOnly), nil
	case *hbase.MultiRowRangeFilter:
		ranges := make([]*filter.RowRange, len(f.Ranges))
		for i, r := range f.Ranges {
			ranges[i] = filter.NewRowRange(nonNil(r.Start), nonNil(r.Stop), r.StartInclusive, r.StopInclusive)
		}
		return filter.NewMultiRowRangeFilter(ranges), nil
	case *hbase.FilterList:
		subs := make([]filter.Filter, len(f.Filters))
		for i, sub := range f.Filters {
			s, err := toFilter(sub)
			if err != nil {
				return nil, err
			}
			subs[i] = s
		}
		op := filter.MustPassAll
		if f.Op == hbase.MustPassOne {
			op = filter.MustPassOne
		}
		return filter.NewList(op, subs...), nil
	}
	// Unreachable after ValidateFilter: hbase.Filter is a closed set.
	return nil, unsupported("filter", fmt.Sprintf("filter %T", f))
}

func compareFilter(op hbase.CompareOp, c hbase.Comparator) (*filter.CompareFilter, error) {
	gc, err := comparator(c)
	if err != nil {
		return nil, err
	}
	return filter.NewCompareFilter(compareType(op), gc), nil
}

func comparator(c hbase.Comparator) (filter.Comparator, error) {
	switch c := c.(type) {
	case *hbase.BinaryComparator:
		return filter.NewBinaryComparator(filter.NewByteArrayComparable(nonNil(c.Value))), nil
	case *hbase.BinaryPrefixComparator:
		return filter.NewBinaryPrefixComparator(filter.NewByteArrayComparable(nonNil(c.Prefix))), nil
	case *hbase.SubstringComparator:
		return filter.NewSubstringComparator(c.Substr), nil
	}
	return nil, unsupported("filter", fmt.Sprintf("comparator %T", c))
}

// fromResult converts a gohbase result. The cells' slices are gohbase's
// (they point into the response, as the native client's do).
func fromResult(r *hrpc.Result) *hbase.Result {
	out := &hbase.Result{}
	if r == nil {
		return out
	}
	if r.Exists != nil {
		out.Exists = *r.Exists
	}
	if len(r.Cells) > 0 {
		out.Cells = make([]hbase.Cell, len(r.Cells))
		for i, c := range r.Cells {
			out.Cells[i] = fromCell(c)
		}
	}
	return out
}

func fromPBResult(r *pb.Result) *hbase.Result { return fromResult(hrpc.ToLocalResult(r)) }

func fromCell(c *hrpc.Cell) hbase.Cell {
	typ := hbase.CellTypePut
	if c.CellType != nil {
		typ = hbase.CellType(*c.CellType)
	}
	var ts int64
	if c.Timestamp != nil {
		ts = int64(*c.Timestamp)
	}
	return hbase.Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier, Timestamp: ts, Type: typ, Value: c.Value}
}

// putValues returns the cells of p in the map gohbase takes.
func putValues(p *hbase.Put) map[string]map[string][]byte {
	if len(p.Cells) == 0 {
		return p.Values
	}
	m := make(map[string]map[string][]byte, 1)
	for _, c := range p.Cells {
		if m[c.Family] == nil {
			m[c.Family] = make(map[string][]byte)
		}
		m[c.Family][c.Qualifier] = c.Value
	}
	return m
}
