package hbapi

import (
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/hbkit/hbkit/hbase/internal/flat"
)

// DataClient is the data half of an HBase client: exactly the calls that
// read and write rows. Packages that store data depend on this interface,
// not on the concrete client, so that the in-memory fake (package
// hbase/fake) or a mock can stand in.
//
// Every request is validated before anything is sent; a rejected request
// returns an *InvalidRequestError wrapping one of the Err* sentinels.
// A nil request is rejected the same way.
type DataClient interface {
	// Get reads one row. A missing row yields an empty Result, not an error.
	Get(ctx context.Context, g *Get) (*Result, error)
	// Put writes cells to one row.
	Put(ctx context.Context, p *Put) error
	// Delete writes a delete marker (row, family, column or version).
	Delete(ctx context.Context, d *Delete) error
	// Increment adds to 8-byte big-endian counters and returns their new
	// values.
	Increment(ctx context.Context, inc *Increment) (*Result, error)
	// Append appends to values and returns the new values.
	Append(ctx context.Context, a *Append) (*Result, error)
	// CheckAndMutate atomically applies the mutations when the condition
	// holds and reports whether it held. When an attempt that may have
	// reached the server was lost, a "condition failed" is not reported as
	// false but as ErrOutcomeUnknown: the lost attempt's own write may be
	// what failed it.
	CheckAndMutate(ctx context.Context, cam *CheckAndMutate) (bool, error)
	// MutateRow applies several Puts and Deletes to one row atomically.
	MutateRow(ctx context.Context, rm *RowMutations) error
	// Scan opens a scanner over a range of rows. The scanner uses ctx for
	// the whole scan; the caller must Close it.
	Scan(ctx context.Context, s *Scan) (Scanner, error)
	// Batch runs independent actions (not atomically) and returns one
	// BatchResult per action, in order. If some actions failed, the error
	// is a *BatchError listing them and the other results are valid. Any
	// other error means the batch as a whole failed. A *CheckAndMutate
	// action is atomic on its row and reports in BatchResult.Processed
	// whether its condition held.
	Batch(ctx context.Context, actions []Action) ([]BatchResult, error)
}

// AdminClient is the DDL half of an HBase client. Table names are "table"
// (default namespace) or "ns:table". Calls return when the operation has
// completed on the cluster.
type AdminClient interface {
	CreateNamespace(ctx context.Context, namespace string) error
	// DeleteNamespace removes an empty namespace.
	DeleteNamespace(ctx context.Context, namespace string) error
	ListNamespaces(ctx context.Context) ([]string, error)

	// CreateTable creates an enabled table. splitKeys, if any, pre-split it
	// into len(splitKeys)+1 regions; they must be non-empty and distinct
	// (they are sorted before use).
	CreateTable(ctx context.Context, desc TableDescriptor, splitKeys [][]byte) error
	// DeleteTable deletes a disabled table.
	DeleteTable(ctx context.Context, table string) error
	EnableTable(ctx context.Context, table string) error
	DisableTable(ctx context.Context, table string) error
	// TruncateTable removes every row of a disabled table, keeping its
	// descriptor (and its region boundaries if preserveSplits); the table
	// is enabled afterwards.
	TruncateTable(ctx context.Context, table string, preserveSplits bool) error
	// ModifyTable replaces the descriptor of an existing table.
	ModifyTable(ctx context.Context, desc TableDescriptor) error
	TableExists(ctx context.Context, table string) (bool, error)
	IsTableEnabled(ctx context.Context, table string) (bool, error)
	// ListTables returns the canonical names (see TableName.String) of the
	// tables in namespace, sorted; namespace "" lists every namespace except
	// the system one.
	ListTables(ctx context.Context, namespace string) ([]string, error)
	// DescribeTable returns the table's descriptor. Attributes hold at
	// least what was set at creation; the server may add its defaults.
	DescribeTable(ctx context.Context, table string) (TableDescriptor, error)
	// TableRegions lists the regions of a table, sorted by start key.
	TableRegions(ctx context.Context, table string) ([]RegionInfo, error)
	// SplitRegion splits the region containing splitKey at splitKey, which
	// must lie strictly inside it.
	SplitRegion(ctx context.Context, table string, splitKey []byte) error
}

// Scanner iterates over the rows of a scan, in the style of sql.Rows:
//
//	sc, err := c.Scan(ctx, &hbase.Scan{Table: "t"})
//	if err != nil { ... }
//	defer sc.Close()
//	for sc.Next() {
//		r := sc.Result()
//		...
//	}
//	if err := sc.Err(); err != nil { ... }
//
// A Scanner is not safe for concurrent use.
type Scanner interface {
	// Next advances to the next row and reports whether there is one. It
	// returns false at the end of the scan or on error.
	Next() bool
	// Result returns the current row. It stays valid after later calls.
	Result() *Result
	// Err returns the error that stopped the scan, or nil at the normal end
	// (io.EOF is never returned).
	Err() error
	// Close releases the scanner. It is safe to call more than once and
	// after the end of the scan. A call for the next rows still on the
	// server (see WithScanReadAhead, or a Next whose context ended) is
	// given up at once; the server-side scanner its answer leaves open is
	// closed when that answer comes.
	Close() error
}

// All returns an iterator over the rest of the scanner's rows. It closes
// the scanner when the loop ends or breaks. A scan error, or ctx being done
// between rows, is yielded once as the last element, with a nil Result.
//
//	for r, err := range hbase.All(ctx, sc) { ... }
func All(ctx context.Context, s Scanner) iter.Seq2[*Result, error] {
	return func(yield func(*Result, error) bool) {
		defer s.Close()
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !s.Next() {
				break
			}
			if !yield(s.Result(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
			return
		}
		if err := s.Close(); err != nil {
			yield(nil, err)
		}
	}
}

// ScanAll opens the scan on c and iterates over its rows like All. An
// error opening the scan is yielded as the only element.
func ScanAll(ctx context.Context, c DataClient, s *Scan) iter.Seq2[*Result, error] {
	return func(yield func(*Result, error) bool) {
		sc, err := c.Scan(ctx, s)
		if err != nil {
			yield(nil, err)
			return
		}
		for r, err := range All(ctx, sc) {
			if !yield(r, err) {
				return
			}
		}
	}
}

// Get reads one row.
type Get struct {
	Table string
	Row   []byte
	// Families selects whole families; Columns selects single columns. If
	// both are empty every family is read. A family listed in Families is
	// read whole even if Columns names some of its columns.
	Families [][]byte
	Columns  []Column
	// MaxVersions is the number of versions per column to return; 0 means
	// 1. Use AllVersions for every stored version (up to the family's
	// VERSIONS setting).
	MaxVersions int
	TimeRange   *TimeRange // nil: all time
	Filter      Filter
	// ExistenceOnly asks only whether the row (as selected) exists: the
	// Result has no cells and Exists set.
	ExistenceOnly bool
}

// Put writes cells to one row. Its cells are Cells or Values (not both).
type Put struct {
	Table string
	Row   []byte
	// Cells are the cells to write, sorted by family then qualifier, each
	// column once: the order of the wire, which sends them as they are
	// (a client sorts a copy of cells out of order). Values must not be
	// nil (use []byte{} for an empty value).
	Cells []PutCell
	// Values maps family to qualifier to value, for Puts built by hand.
	// Values must not be nil (use []byte{} for an empty value).
	Values map[string]map[string][]byte
	// Timestamp of every cell, in milliseconds; 0 (or LatestTimestamp)
	// lets the server assign the current time.
	Timestamp  int64
	Durability Durability
}

// PutCell is one cell of a Put: a column and its value.
type PutCell struct {
	Family, Qualifier string
	Value             []byte
}

// ComparePutCells orders cells by family, then qualifier: the order of a
// Put's Cells.
func ComparePutCells(a, b PutCell) int {
	if c := strings.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	return strings.Compare(a.Qualifier, b.Qualifier)
}

// SortedCells returns the cells of p sorted by family then qualifier:
// Cells itself when they are sorted, else a sorted copy of Cells, or of
// Values when Cells is empty.
func (p *Put) SortedCells() []PutCell {
	if len(p.Cells) == 0 {
		cols := flat.Map(p.Values)
		out := make([]PutCell, len(cols))
		for i, c := range cols {
			out[i] = PutCell{Family: c.Family, Qualifier: c.Qualifier, Value: c.V}
		}
		return out
	}
	if slices.IsSortedFunc(p.Cells, ComparePutCells) {
		return p.Cells
	}
	return slices.SortedStableFunc(slices.Values(p.Cells), ComparePutCells)
}

// Value returns the value p writes to the column, and whether it writes
// one.
func (p *Put) Value(family, qualifier string) ([]byte, bool) {
	for _, c := range p.Cells {
		if c.Family == family && c.Qualifier == qualifier {
			return c.Value, true
		}
	}
	v, ok := p.Values[family][qualifier]
	return v, ok
}

// ColumnValue is one cell of a Put, Append or Increment, flattened.
type ColumnValue struct {
	Family    []byte
	Qualifier []byte
	Value     []byte
}

// ColumnValues returns the cells of p sorted by family then qualifier.
func (p *Put) ColumnValues() []ColumnValue {
	cells := p.SortedCells()
	out := make([]ColumnValue, len(cells))
	for i, c := range cells {
		out[i] = ColumnValue{Family: []byte(c.Family), Qualifier: []byte(c.Qualifier), Value: c.Value}
	}
	return out
}

// Delete removes data from one row by writing a delete marker. What it
// covers depends on the fields set:
//
//   - Family nil: the whole row, every version at or before Timestamp.
//   - Family set, Qualifier empty: the whole family, every version at or
//     before Timestamp.
//   - Family and Qualifier set, AllVersions: every version of the column at
//     or before Timestamp.
//   - Family and Qualifier set, not AllVersions: one version of the column,
//     the newest one if Timestamp is 0, else exactly the version at
//     Timestamp.
//
// Timestamp 0 (or LatestTimestamp) means "now". A column with an empty
// qualifier can only be removed with a family or row delete.
type Delete struct {
	Table       string
	Row         []byte
	Family      []byte
	Qualifier   []byte
	Timestamp   int64
	AllVersions bool
	Durability  Durability
}

// Increment adds deltas to counters: 8-byte big-endian signed integers. A
// missing counter counts as 0. The returned Result holds the new values.
type Increment struct {
	Table      string
	Row        []byte
	Deltas     map[string]map[string]int64 // family → qualifier → delta
	Durability Durability
}

// ColumnDelta is one counter of an Increment, flattened.
type ColumnDelta struct {
	Family    []byte
	Qualifier []byte
	Delta     int64
}

// ColumnDeltas returns the deltas of inc sorted by family then qualifier.
func (inc *Increment) ColumnDeltas() []ColumnDelta {
	cols := flat.Map(inc.Deltas)
	out := make([]ColumnDelta, len(cols))
	for i, c := range cols {
		out[i] = ColumnDelta{Family: []byte(c.Family), Qualifier: []byte(c.Qualifier), Delta: c.V}
	}
	return out
}

// Append appends bytes to values (a missing value counts as empty). The
// returned Result holds the new values.
type Append struct {
	Table      string
	Row        []byte
	Values     map[string]map[string][]byte // family → qualifier → suffix
	Durability Durability
}

// ColumnValues returns the suffixes of a sorted by family then qualifier.
func (a *Append) ColumnValues() []ColumnValue { return flatten(a.Values) }

// CheckAndMutate applies Mutations to Row atomically if the newest version
// of the column Family:Qualifier (within TimeRange, if set) satisfies the
// condition "current Compare Value".
//
// The operand order is the same as in filters (current value on the left):
// CompareGreater holds when the stored value is greater than Value. (HBase
// itself compares the other way round; implementations reverse the
// operator on the wire.)
//
// An empty Value (nil or zero length) tests for absence: with CompareEqual
// the condition holds when the column is absent or has an empty value,
// with CompareNotEqual when it has a non-empty value. Other operators are
// rejected with an empty Value. With a non-empty Value, an absent column
// never satisfies the condition, whatever the operator.
type CheckAndMutate struct {
	Table     string
	Row       []byte
	Family    []byte
	Qualifier []byte
	Compare   CompareOp
	Value     []byte
	TimeRange *TimeRange
	// Mutations are Puts and Deletes of Row; their Table and Row may be
	// left empty (if set they must match).
	Mutations []Mutation
}

// RowMutations applies several Puts and Deletes to one row atomically, in
// order.
//
// As in HBase, all mutations without an explicit timestamp get the same
// server time, and a delete marker hides puts at or before its timestamp
// whatever their order: a Delete followed by a Put of the same column in
// one RowMutations leaves the column deleted. Give the Put a later
// explicit timestamp (or use two calls) to replace a column's versions.
type RowMutations struct {
	Table string
	Row   []byte
	// Mutations are Puts and Deletes of Row; their Table and Row may be
	// left empty (if set they must match).
	Mutations []Mutation
}

// Scan reads a range of rows.
//
// Forward scans return rows with StartRow <= row < StopRow in increasing
// order. Reversed scans return rows with StopRow < row <= StartRow in
// decreasing order: StartRow is the high bound. An empty bound is
// unbounded.
type Scan struct {
	Table    string
	StartRow []byte
	StopRow  []byte
	// Reversed scans walk down from StartRow. (Implementations must turn
	// off on-demand column family loading for them: HBase 2.6 rejects a
	// reversed scan with a SingleColumnValueFilter otherwise.)
	Reversed bool
	// Families and Columns select what to read, as in Get.
	Families    [][]byte
	Columns     []Column
	Filter      Filter
	MaxVersions int        // 0 means 1; AllVersions for every version
	TimeRange   *TimeRange // nil: all time
	// Caching is the number of rows fetched per RPC (0: client default).
	Caching int
	// MaxResultSize bounds the bytes fetched per RPC (0: client default).
	MaxResultSize int64
	// Limit is the maximum number of rows returned in total (0: no limit).
	Limit int
	// Batch, if > 0, splits wide rows: each Result holds at most Batch
	// cells, and a row with more comes as consecutive Results of the same
	// row (all of Batch cells but the last). Limit still counts rows.
	// HBase rejects Batch with filters that need whole rows, such as
	// SingleColumnValueFilter or PageFilter.
	Batch int
	// AllowPartial lets a row come as several consecutive Results, cut
	// where the server's size or time limits fell, instead of being
	// joined by the client (which holds a whole row in memory). Ignored
	// when Batch is set.
	AllowPartial bool
	// ReuseMemory lets the scanner read each response into the memory
	// of the one before: a Result, and every slice of its cells, is then
	// valid only until the next call of Next (the next round of
	// ScanAll's loop). For scans that look at each row once and keep
	// nothing of it, or copy what they keep (exports, counts, checks):
	// they no longer allocate, zero and collect a response (2 MiB by
	// default) per call. Implementations may ignore it.
	ReuseMemory bool
}

// Mutation is a *Put or a *Delete inside a CheckAndMutate or RowMutations.
type Mutation interface {
	isMutation()
}

func (*Put) isMutation()    {}
func (*Delete) isMutation() {}

// Action is one element of a Batch: a *Get, *Put, *Delete, *Increment,
// *Append or *CheckAndMutate.
//
// The actions of a Batch are independent: a Batch gives no ordering
// between them, except that the CheckAndMutates of one row are applied in
// the order of the Batch, each seeing the effect of the earlier ones, as
// long as none of them has to be retried (a retried action runs after the
// others of its round).
type Action interface {
	isAction()
}

func (*Get) isAction()            {}
func (*Put) isAction()            {}
func (*Delete) isAction()         {}
func (*Increment) isAction()      {}
func (*Append) isAction()         {}
func (*CheckAndMutate) isAction() {}

// BatchResult is the outcome of one Batch action. Result is set for a
// successful Get, Increment or Append (an empty Result for Put, Delete and
// CheckAndMutate); Err is set when the action failed. Processed reports,
// for a successful CheckAndMutate, whether its condition held and its
// mutations were applied; it is false for the other actions.
type BatchResult struct {
	Result    *Result
	Err       error
	Processed bool
}

func actionName(a Action) string {
	switch a.(type) {
	case *Get:
		return "get"
	case *Put:
		return "put"
	case *Delete:
		return "delete"
	case *Increment:
		return "increment"
	case *Append:
		return "append"
	case *CheckAndMutate:
		return "check_and_mutate"
	case nil:
		return "nil"
	}
	return "unknown"
}

func flatten(m map[string]map[string][]byte) []ColumnValue {
	cols := flat.Map(m)
	out := make([]ColumnValue, len(cols))
	for i, c := range cols {
		out[i] = ColumnValue{Family: []byte(c.Family), Qualifier: []byte(c.Qualifier), Value: c.V}
	}
	return out
}
