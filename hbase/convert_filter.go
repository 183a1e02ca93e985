package hbase

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// Java class names of the filters and comparators (wire protocol
// reference, section 6). The server loads the class by this name.
const (
	filterPkg                   = "org.apache.hadoop.hbase.filter."
	classPrefixFilter           = filterPkg + "PrefixFilter"
	classKeyOnlyFilter          = filterPkg + "KeyOnlyFilter"
	classFirstKeyOnlyFilter     = filterPkg + "FirstKeyOnlyFilter"
	classPageFilter             = filterPkg + "PageFilter"
	classColumnPrefixFilter     = filterPkg + "ColumnPrefixFilter"
	classColumnRangeFilter      = filterPkg + "ColumnRangeFilter"
	classRowFilter              = filterPkg + "RowFilter"
	classFamilyFilter           = filterPkg + "FamilyFilter"
	classQualifierFilter        = filterPkg + "QualifierFilter"
	classValueFilter            = filterPkg + "ValueFilter"
	classSingleColumnValue      = filterPkg + "SingleColumnValueFilter"
	classMultiRowRangeFilter    = filterPkg + "MultiRowRangeFilter"
	classFilterList             = filterPkg + "FilterList"
	classBinaryComparator       = filterPkg + "BinaryComparator"
	classBinaryPrefixComparator = filterPkg + "BinaryPrefixComparator"
	classSubstringComparator    = filterPkg + "SubstringComparator"
)

// filterToPB encodes a validated filter tree.
func filterToPB(f Filter) (*pb.Filter, error) {
	name, msg, err := filterMessage(f)
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode %s: %w", name, err)
	}
	return &pb.Filter{Name: proto.String(name), SerializedFilter: b}, nil
}

// filterMessage is the server's class name of filter f and its message.
func filterMessage(f Filter) (string, proto.Message, error) {
	switch f := f.(type) {
	case *PrefixFilter:
		return classPrefixFilter, &pb.PrefixFilter{Prefix: nonNil(f.Prefix)}, nil
	case *KeyOnlyFilter:
		return classKeyOnlyFilter, &pb.KeyOnlyFilter{LenAsVal: proto.Bool(f.LengthAsValue)}, nil
	case *FirstKeyOnlyFilter:
		return classFirstKeyOnlyFilter, &pb.FirstKeyOnlyFilter{}, nil
	case *PageFilter:
		return classPageFilter, &pb.PageFilter{PageSize: proto.Int64(f.Size)}, nil
	case *ColumnPrefixFilter:
		return classColumnPrefixFilter, &pb.ColumnPrefixFilter{Prefix: nonNil(f.Prefix)}, nil
	case *ColumnRangeFilter:
		return classColumnRangeFilter, &pb.ColumnRangeFilter{
			MinColumn:          f.Min,
			MinColumnInclusive: proto.Bool(f.MinInclusive),
			MaxColumn:          f.Max,
			MaxColumnInclusive: proto.Bool(f.MaxInclusive),
		}, nil
	// A compare filter's message is whole only without an error, which
	// filterToPB checks first.
	case *RowFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		return classRowFilter, &pb.RowFilter{CompareFilter: cf}, err
	case *FamilyFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		return classFamilyFilter, &pb.FamilyFilter{CompareFilter: cf}, err
	case *QualifierFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		return classQualifierFilter, &pb.QualifierFilter{CompareFilter: cf}, err
	case *ValueFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		return classValueFilter, &pb.ValueFilter{CompareFilter: cf}, err
	case *SingleColumnValueFilter:
		cmp, err := comparatorToPB(f.Comparator)
		if err != nil {
			return "", nil, err
		}
		return classSingleColumnValue, &pb.SingleColumnValueFilter{
			ColumnFamily:      f.Family,
			ColumnQualifier:   nonNil(f.Qualifier),
			CompareOp:         compareType(f.Compare),
			Comparator:        cmp,
			FilterIfMissing:   proto.Bool(f.FilterIfMissing),
			LatestVersionOnly: proto.Bool(f.LatestVersionOnly),
		}, nil
	case *MultiRowRangeFilter:
		return classMultiRowRangeFilter, multiRowRangePB(f), nil
	case *FilterList:
		m, err := filterListPB(f)
		return classFilterList, m, err
	}
	return "", nil, invalidf("", "Filter", ErrInvalidFilter, "unsupported filter %T", f)
}

// multiRowRangePB is the message of a MultiRowRangeFilter.
func multiRowRangePB(f *MultiRowRangeFilter) *pb.MultiRowRangeFilter {
	m := &pb.MultiRowRangeFilter{RowRangeList: make([]*pb.RowRange, len(f.Ranges))}
	for i, r := range f.Ranges {
		m.RowRangeList[i] = &pb.RowRange{
			StartRow:          nonNil(r.Start),
			StartRowInclusive: proto.Bool(r.StartInclusive),
			StopRow:           nonNil(r.Stop),
			StopRowInclusive:  proto.Bool(r.StopInclusive),
		}
	}
	return m
}

// filterListPB is the message of a FilterList, its filters encoded.
func filterListPB(f *FilterList) (*pb.FilterList, error) {
	m := &pb.FilterList{Operator: &enumMustPassAll, Filters: make([]*pb.Filter, len(f.Filters))}
	if f.Op == MustPassOne {
		m.Operator = &enumMustPassOne
	}
	for i, sub := range f.Filters {
		pf, err := filterToPB(sub)
		if err != nil {
			return nil, err
		}
		m.Filters[i] = pf
	}
	return m, nil
}

func compareFilterPB(op CompareOp, c Comparator) (*pb.CompareFilter, error) {
	cmp, err := comparatorToPB(c)
	if err != nil {
		return nil, err
	}
	return &pb.CompareFilter{CompareOp: compareType(op), Comparator: cmp}, nil
}

// binaryComparatorPB returns the BinaryComparator of v, its message
// encoded by hand as proto.Marshal encodes it (TestBinaryComparatorBytes):
// ByteArrayComparable{value: v} in field 1.
func binaryComparatorPB(v []byte) *pb.Comparator {
	inner := 1 + protowire.SizeBytes(len(v))
	b := make([]byte, 0, 1+protowire.SizeBytes(inner))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(inner))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, v)
	return &pb.Comparator{Name: &binaryComparatorName, SerializedComparator: b}
}

func comparatorToPB(c Comparator) (*pb.Comparator, error) {
	var name string
	var msg proto.Message
	switch c := c.(type) {
	case *BinaryComparator:
		return binaryComparatorPB(c.Value), nil
	case *BinaryPrefixComparator:
		name, msg = classBinaryPrefixComparator, &pb.BinaryPrefixComparator{Comparable: &pb.ByteArrayComparable{Value: nonNil(c.Prefix)}}
	case *SubstringComparator:
		name, msg = classSubstringComparator, &pb.SubstringComparator{Substr: proto.String(c.Substr)}
	default:
		return nil, invalidf("", "Filter", ErrInvalidFilter, "unsupported comparator %T", c)
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode %s: %w", name, err)
	}
	return &pb.Comparator{Name: proto.String(name), SerializedComparator: b}, nil
}
