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
	var name string
	var msg proto.Message
	switch f := f.(type) {
	case *PrefixFilter:
		name, msg = classPrefixFilter, &pb.PrefixFilter{Prefix: nonNil(f.Prefix)}
	case *KeyOnlyFilter:
		name, msg = classKeyOnlyFilter, &pb.KeyOnlyFilter{LenAsVal: proto.Bool(f.LengthAsValue)}
	case *FirstKeyOnlyFilter:
		name, msg = classFirstKeyOnlyFilter, &pb.FirstKeyOnlyFilter{}
	case *PageFilter:
		name, msg = classPageFilter, &pb.PageFilter{PageSize: proto.Int64(f.Size)}
	case *ColumnPrefixFilter:
		name, msg = classColumnPrefixFilter, &pb.ColumnPrefixFilter{Prefix: nonNil(f.Prefix)}
	case *ColumnRangeFilter:
		m := &pb.ColumnRangeFilter{
			MinColumn:          f.Min,
			MinColumnInclusive: proto.Bool(f.MinInclusive),
			MaxColumn:          f.Max,
			MaxColumnInclusive: proto.Bool(f.MaxInclusive),
		}
		name, msg = classColumnRangeFilter, m
	case *RowFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		name, msg = classRowFilter, &pb.RowFilter{CompareFilter: cf}
	case *FamilyFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		name, msg = classFamilyFilter, &pb.FamilyFilter{CompareFilter: cf}
	case *QualifierFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		name, msg = classQualifierFilter, &pb.QualifierFilter{CompareFilter: cf}
	case *ValueFilter:
		cf, err := compareFilterPB(f.Compare, f.Comparator)
		if err != nil {
			return nil, err
		}
		name, msg = classValueFilter, &pb.ValueFilter{CompareFilter: cf}
	case *SingleColumnValueFilter:
		cmp, err := comparatorToPB(f.Comparator)
		if err != nil {
			return nil, err
		}
		name, msg = classSingleColumnValue, &pb.SingleColumnValueFilter{
			ColumnFamily:      f.Family,
			ColumnQualifier:   nonNil(f.Qualifier),
			CompareOp:         compareType(f.Compare),
			Comparator:        cmp,
			FilterIfMissing:   proto.Bool(f.FilterIfMissing),
			LatestVersionOnly: proto.Bool(f.LatestVersionOnly),
		}
	case *MultiRowRangeFilter:
		m := &pb.MultiRowRangeFilter{RowRangeList: make([]*pb.RowRange, len(f.Ranges))}
		for i, r := range f.Ranges {
			m.RowRangeList[i] = &pb.RowRange{
				StartRow:          nonNil(r.Start),
				StartRowInclusive: proto.Bool(r.StartInclusive),
				StopRow:           nonNil(r.Stop),
				StopRowInclusive:  proto.Bool(r.StopInclusive),
			}
		}
		name, msg = classMultiRowRangeFilter, m
	case *FilterList:
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
		name, msg = classFilterList, m
	default:
		return nil, invalidf("", "Filter", ErrInvalidFilter, "unsupported filter %T", f)
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode %s: %w", name, err)
	}
	return &pb.Filter{Name: proto.String(name), SerializedFilter: b}, nil
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
