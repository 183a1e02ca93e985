package hbapi

import (
	"bytes"
	"fmt"
)

// Filter restricts the rows and cells returned by a Get or Scan. The
// filters are the structs of this package (each maps to the HBase filter
// class of the same name); other packages cannot define new ones. Use
// pointers: &hbase.PrefixFilter{Prefix: p}.
//
// Filters that compare values keep a cell or row when
// "stored value Compare comparator value" holds; e.g. RowFilter{Compare:
// CompareLess, Comparator: &BinaryComparator{Value: []byte("m")}} keeps the
// rows before "m".
type Filter interface {
	isFilter()
}

// Comparator is the right-hand side of a comparing filter. The comparators
// are the structs of this package.
type Comparator interface {
	// Compare compares a stored value with the comparator's operand and
	// returns a negative number, zero or a positive number when the stored
	// value is less than, equal to or greater than it.
	Compare(stored []byte) int
	isComparator()
}

// BinaryComparator compares whole values in unsigned byte order.
type BinaryComparator struct{ Value []byte }

// BinaryPrefixComparator compares only the first len(Prefix) bytes of the
// stored value with Prefix.
type BinaryPrefixComparator struct{ Prefix []byte }

// SubstringComparator matches values containing Substr, ignoring case
// (ASCII). Use it only with CompareEqual and CompareNotEqual.
type SubstringComparator struct{ Substr string }

func (c *BinaryComparator) Compare(stored []byte) int { return bytes.Compare(stored, c.Value) }

func (c *BinaryPrefixComparator) Compare(stored []byte) int {
	if len(stored) > len(c.Prefix) {
		stored = stored[:len(c.Prefix)]
	}
	return bytes.Compare(stored, c.Prefix)
}

func (c *SubstringComparator) Compare(stored []byte) int {
	if bytes.Contains(bytes.ToLower(stored), bytes.ToLower([]byte(c.Substr))) {
		return 0
	}
	return 1
}

func (*BinaryComparator) isComparator()       {}
func (*BinaryPrefixComparator) isComparator() {}
func (*SubstringComparator) isComparator()    {}

// PrefixFilter keeps rows whose key starts with Prefix. In a scan, also set
// StartRow to Prefix so that the scan does not read the rows before it.
type PrefixFilter struct{ Prefix []byte }

// KeyOnlyFilter strips values. With LengthAsValue each value is replaced by
// its original length as a 4-byte big-endian integer; otherwise by an
// empty value.
type KeyOnlyFilter struct{ LengthAsValue bool }

// FirstKeyOnlyFilter returns only the first cell of each row: the cheap
// way to list or count rows (combine with KeyOnlyFilter in a MustPassAll
// FilterList).
type FirstKeyOnlyFilter struct{}

// PageFilter limits the number of rows. HBase applies it per region, so a
// scan over several regions may return up to Size rows per region; use
// Scan.Limit for a total limit.
type PageFilter struct{ Size int64 }

// ColumnPrefixFilter keeps the cells whose qualifier starts with Prefix.
type ColumnPrefixFilter struct{ Prefix []byte }

// ColumnRangeFilter keeps the cells whose qualifier lies between Min and
// Max. A nil Min or Max is unbounded.
type ColumnRangeFilter struct {
	Min          []byte
	MinInclusive bool
	Max          []byte
	MaxInclusive bool
}

// RowFilter keeps the rows whose key satisfies "key Compare Comparator".
type RowFilter struct {
	Compare    CompareOp
	Comparator Comparator
}

// FamilyFilter keeps the cells whose family satisfies the comparison.
type FamilyFilter struct {
	Compare    CompareOp
	Comparator Comparator
}

// QualifierFilter keeps the cells whose qualifier satisfies the comparison.
type QualifierFilter struct {
	Compare    CompareOp
	Comparator Comparator
}

// ValueFilter keeps the cells whose value satisfies the comparison.
type ValueFilter struct {
	Compare    CompareOp
	Comparator Comparator
}

// SingleColumnValueFilter keeps whole rows depending on the value of one
// column: a row passes when a version of Family:Qualifier satisfies
// "value Compare Comparator" (only the newest version is tested when
// LatestVersionOnly). Rows without the column pass unless
// FilterIfMissing.
//
// LatestVersionOnly is false in the zero value, as on the wire, unlike the
// Java client whose default is true: set it to true for the usual meaning.
// The column must be among those read (Families/Columns) to be seen.
type SingleColumnValueFilter struct {
	Family            []byte
	Qualifier         []byte
	Compare           CompareOp
	Comparator        Comparator
	FilterIfMissing   bool
	LatestVersionOnly bool
}

// RowRange is one range of a MultiRowRangeFilter. An empty Start or Stop is
// unbounded.
type RowRange struct {
	Start          []byte
	StartInclusive bool
	Stop           []byte
	StopInclusive  bool
}

// Contains reports whether row lies in the range.
func (r RowRange) Contains(row []byte) bool {
	if len(r.Start) > 0 {
		c := bytes.Compare(row, r.Start)
		if c < 0 || (c == 0 && !r.StartInclusive) {
			return false
		}
	}
	if len(r.Stop) > 0 {
		c := bytes.Compare(row, r.Stop)
		if c > 0 || (c == 0 && !r.StopInclusive) {
			return false
		}
	}
	return true
}

// MultiRowRangeFilter keeps the rows that fall in any of Ranges.
type MultiRowRangeFilter struct{ Ranges []RowRange }

// FilterListOp combines the filters of a FilterList.
type FilterListOp uint8

const (
	// MustPassAll keeps what every filter keeps (AND). It is the zero value.
	MustPassAll FilterListOp = iota
	// MustPassOne keeps what any filter keeps (OR).
	MustPassOne
)

// FilterList combines filters.
type FilterList struct {
	Op      FilterListOp
	Filters []Filter
}

func (*PrefixFilter) isFilter()            {}
func (*KeyOnlyFilter) isFilter()           {}
func (*FirstKeyOnlyFilter) isFilter()      {}
func (*PageFilter) isFilter()              {}
func (*ColumnPrefixFilter) isFilter()      {}
func (*ColumnRangeFilter) isFilter()       {}
func (*RowFilter) isFilter()               {}
func (*FamilyFilter) isFilter()            {}
func (*QualifierFilter) isFilter()         {}
func (*ValueFilter) isFilter()             {}
func (*SingleColumnValueFilter) isFilter() {}
func (*MultiRowRangeFilter) isFilter()     {}
func (*FilterList) isFilter()              {}

// maxFilterDepth bounds FilterList nesting.
const maxFilterDepth = 16

// ValidateFilter checks a filter tree: no nil filters or comparators,
// known operators, a non-negative page size, SubstringComparator only with
// CompareEqual or CompareNotEqual.
func ValidateFilter(f Filter) error {
	if err := checkFilter(f, 0); err != nil {
		return invalid("", "", ErrInvalidFilter, err.Error())
	}
	return nil
}

// checkFilter is ValidateFilter's check of f, nested depth lists deep.
func checkFilter(f Filter, depth int) error {
	if depth > maxFilterDepth {
		return fmt.Errorf("filter lists nested deeper than %d", maxFilterDepth)
	}
	switch f := f.(type) {
	case nil:
		return reason("nil filter")
	case *RowFilter, *FamilyFilter, *QualifierFilter, *ValueFilter, *SingleColumnValueFilter:
		return checkCompareFilter(f)
	case *FilterList:
		return checkFilterList(f, depth)
	}
	return checkPlainFilter(f)
}

// checkPlainFilter checks a filter that neither compares nor nests.
func checkPlainFilter(f Filter) error {
	switch f := f.(type) {
	case *PrefixFilter:
		if f == nil {
			return reason("nil *PrefixFilter")
		}
	case *KeyOnlyFilter:
		if f == nil {
			return reason("nil *KeyOnlyFilter")
		}
	case *FirstKeyOnlyFilter:
		if f == nil {
			return reason("nil *FirstKeyOnlyFilter")
		}
	case *PageFilter:
		if f == nil {
			return reason("nil *PageFilter")
		}
		if f.Size < 0 {
			return fmt.Errorf("PageFilter size %d < 0", f.Size)
		}
	case *ColumnPrefixFilter:
		if f == nil {
			return reason("nil *ColumnPrefixFilter")
		}
	case *ColumnRangeFilter:
		if f == nil {
			return reason("nil *ColumnRangeFilter")
		}
	case *MultiRowRangeFilter:
		if f == nil {
			return reason("nil *MultiRowRangeFilter")
		}
		if len(f.Ranges) == 0 {
			return reason("MultiRowRangeFilter: no ranges")
		}
	default:
		return fmt.Errorf("unsupported filter %T", f)
	}
	return nil
}

// checkCompareFilter checks a filter that compares with a comparator.
func checkCompareFilter(f Filter) error {
	switch f := f.(type) {
	case *RowFilter:
		if f == nil {
			return reason("nil *RowFilter")
		}
		return checkCompare("RowFilter", f.Compare, f.Comparator)
	case *FamilyFilter:
		if f == nil {
			return reason("nil *FamilyFilter")
		}
		return checkCompare("FamilyFilter", f.Compare, f.Comparator)
	case *QualifierFilter:
		if f == nil {
			return reason("nil *QualifierFilter")
		}
		return checkCompare("QualifierFilter", f.Compare, f.Comparator)
	case *ValueFilter:
		if f == nil {
			return reason("nil *ValueFilter")
		}
		return checkCompare("ValueFilter", f.Compare, f.Comparator)
	case *SingleColumnValueFilter:
		if f == nil {
			return reason("nil *SingleColumnValueFilter")
		}
		if len(f.Family) == 0 {
			return reason("SingleColumnValueFilter: empty family")
		}
		return checkCompare("SingleColumnValueFilter", f.Compare, f.Comparator)
	}
	return nil
}

// checkFilterList checks a filter list and, one level deeper, its filters.
func checkFilterList(f *FilterList, depth int) error {
	if f == nil {
		return reason("nil *FilterList")
	}
	if f.Op != MustPassAll && f.Op != MustPassOne {
		return fmt.Errorf("FilterList: unknown operator %d", f.Op)
	}
	for i, sub := range f.Filters {
		if err := checkFilter(sub, depth+1); err != nil {
			return fmt.Errorf("FilterList.Filters[%d]: %w", i, err)
		}
	}
	return nil
}

func checkCompare(name string, op CompareOp, c Comparator) error {
	if !op.valid() {
		return fmt.Errorf("%s: unknown operator %d", name, op)
	}
	switch c := c.(type) {
	case nil:
		return fmt.Errorf("%s: nil comparator", name)
	case *BinaryComparator:
		if c == nil {
			return fmt.Errorf("%s: nil *BinaryComparator", name)
		}
	case *BinaryPrefixComparator:
		if c == nil {
			return fmt.Errorf("%s: nil *BinaryPrefixComparator", name)
		}
	case *SubstringComparator:
		if c == nil {
			return fmt.Errorf("%s: nil *SubstringComparator", name)
		}
		if op != CompareEqual && op != CompareNotEqual {
			return fmt.Errorf("%s: SubstringComparator needs EQUAL or NOT_EQUAL, not %v", name, op)
		}
	default:
		return fmt.Errorf("%s: unsupported comparator %T", name, c)
	}
	return nil
}
