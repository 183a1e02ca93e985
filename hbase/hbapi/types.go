package hbapi

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Limits enforced client-side (wire protocol reference, section 9).
const (
	// MaxRowLength is the longest row key HBase accepts (KeyValue row
	// length is an int16).
	MaxRowLength = math.MaxInt16
	// MaxFamilyLength is the longest column family name (a signed byte).
	MaxFamilyLength = math.MaxInt8
	// LatestTimestamp is HBase's LATEST_TIMESTAMP (Long.MAX_VALUE). As a
	// mutation timestamp it means "let the server assign the current time",
	// exactly like 0.
	LatestTimestamp int64 = math.MaxInt64
	// AllVersions as MaxVersions asks for every stored version.
	AllVersions = math.MaxInt32
	// DefaultNamespace is the namespace of tables named without one.
	DefaultNamespace = "default"
	// SystemNamespace holds HBase's own tables (hbase:meta, ...).
	SystemNamespace = "hbase"
)

// CellType is the kind of a cell; the values are HBase's KeyValue.Type codes.
type CellType uint8

const (
	CellTypePut                 CellType = 4
	CellTypeDelete              CellType = 8  // one version of a column
	CellTypeDeleteFamilyVersion CellType = 10 // one version of every column of a family
	CellTypeDeleteColumn        CellType = 12 // all versions of a column
	CellTypeDeleteFamily        CellType = 14 // all versions of every column of a family
)

func (t CellType) String() string {
	switch t {
	case CellTypePut:
		return "Put"
	case CellTypeDelete:
		return "Delete"
	case CellTypeDeleteFamilyVersion:
		return "DeleteFamilyVersion"
	case CellTypeDeleteColumn:
		return "DeleteColumn"
	case CellTypeDeleteFamily:
		return "DeleteFamily"
	}
	return "CellType(" + itoa(int64(t)) + ")"
}

// Cell is one version of one column of one row.
//
// The byte slices of the cells a Client returns point into the buffer of
// the RPC response that carried them, shared by every cell of that
// response (up to MaxResultSize bytes for a scan). Each slice is capped
// at its own length, so writing into one or appending to it never
// touches another; but a cell kept alive keeps its whole response in
// memory: copy (bytes.Clone) what you keep long after the read.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp int64 // milliseconds since the Unix epoch, as assigned by HBase or the writer
	Type      CellType
	Value     []byte
}

// Result is the answer for one row. Cells are sorted by family, then
// qualifier (unsigned byte order), then timestamp, newest first.
type Result struct {
	Cells []Cell
	// Exists is set by a Get with ExistenceOnly (which returns no cells).
	Exists bool
}

// Row returns the row key of the result, or nil if it has no cells.
func (r *Result) Row() []byte {
	if r == nil || len(r.Cells) == 0 {
		return nil
	}
	return r.Cells[0].Row
}

// Empty reports whether the result has no cells.
func (r *Result) Empty() bool { return r == nil || len(r.Cells) == 0 }

// Value returns the newest value of the column, or nil if the result holds
// no cell for it. An empty, non-nil slice is a stored empty value.
func (r *Result) Value(family, qualifier []byte) []byte {
	c, ok := r.Latest(family, qualifier)
	if !ok {
		return nil
	}
	if c.Value == nil {
		return []byte{}
	}
	return c.Value
}

// Latest returns the newest cell of the column.
func (r *Result) Latest(family, qualifier []byte) (Cell, bool) {
	if r == nil {
		return Cell{}, false
	}
	var best Cell
	found := false
	for _, c := range r.Cells {
		if bytes.Equal(c.Family, family) && bytes.Equal(c.Qualifier, qualifier) {
			if !found || c.Timestamp > best.Timestamp {
				best, found = c, true
			}
		}
	}
	return best, found
}

// Versions returns the cells of the column, newest first.
func (r *Result) Versions(family, qualifier []byte) []Cell {
	if r == nil {
		return nil
	}
	var out []Cell
	for _, c := range r.Cells {
		if bytes.Equal(c.Family, family) && bytes.Equal(c.Qualifier, qualifier) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Cell) int { return cmpInt64(b.Timestamp, a.Timestamp) })
	return out
}

// Families returns the newest value of every column, keyed by family then
// qualifier.
func (r *Result) Families() map[string]map[string][]byte {
	m := make(map[string]map[string][]byte)
	if r == nil {
		return m
	}
	for _, c := range r.Cells {
		fam := m[string(c.Family)]
		if fam == nil {
			fam = make(map[string][]byte)
			m[string(c.Family)] = fam
		}
		if _, ok := fam[string(c.Qualifier)]; ok {
			continue
		}
		fam[string(c.Qualifier)] = r.Value(c.Family, c.Qualifier)
	}
	return m
}

// CompareCells orders cells the way HBase sorts them within a row: family,
// qualifier, timestamp descending, then type descending (delete markers
// before puts of the same timestamp). Rows are compared first.
func CompareCells(a, b Cell) int {
	if c := bytes.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	if c := cmpInt64(b.Timestamp, a.Timestamp); c != 0 {
		return c
	}
	return int(b.Type) - int(a.Type)
}

// Column names one column: a family and a qualifier (which may be empty).
type Column struct {
	Family    []byte
	Qualifier []byte
}

// TimeRange selects cell versions with From <= timestamp < To.
type TimeRange struct {
	From int64 // inclusive, >= 0
	To   int64 // exclusive, > From; LatestTimestamp for no upper bound
}

// AtTimestamp returns the time range holding exactly ts.
func AtTimestamp(ts int64) *TimeRange { return &TimeRange{From: ts, To: ts + 1} }

// Contains reports whether ts lies in the range. A nil range contains every
// timestamp.
func (tr *TimeRange) Contains(ts int64) bool {
	return tr == nil || (ts >= tr.From && ts < tr.To)
}

// Durability says how a mutation is written to the write-ahead log. The
// values are HBase's Durability codes.
type Durability uint8

const (
	DurabilityDefault Durability = iota // the table's setting
	SkipWAL
	AsyncWAL
	SyncWAL
	FsyncWAL
)

// CompareOp is a comparison operator for filters and check-and-mutate. The
// zero value is CompareEqual. Note: these are not HBase's CompareType codes;
// implementations map them.
type CompareOp uint8

const (
	CompareEqual CompareOp = iota
	CompareNotEqual
	CompareLess
	CompareLessOrEqual
	CompareGreater
	CompareGreaterOrEqual
	CompareNoOp // never matches
)

func (op CompareOp) String() string {
	switch op {
	case CompareEqual:
		return "EQUAL"
	case CompareNotEqual:
		return "NOT_EQUAL"
	case CompareLess:
		return "LESS"
	case CompareLessOrEqual:
		return "LESS_OR_EQUAL"
	case CompareGreater:
		return "GREATER"
	case CompareGreaterOrEqual:
		return "GREATER_OR_EQUAL"
	case CompareNoOp:
		return "NO_OP"
	}
	return "CompareOp(" + itoa(int64(op)) + ")"
}

func (op CompareOp) valid() bool { return op <= CompareNoOp }

// Matches reports whether a comparison result c (negative, zero or
// positive, as from bytes.Compare(left, right)) satisfies "left op right".
func (op CompareOp) Matches(c int) bool {
	switch op {
	case CompareEqual:
		return c == 0
	case CompareNotEqual:
		return c != 0
	case CompareLess:
		return c < 0
	case CompareLessOrEqual:
		return c <= 0
	case CompareGreater:
		return c > 0
	case CompareGreaterOrEqual:
		return c >= 0
	}
	return false
}

// Reverse returns the operator with its operands swapped: "a op b" equals
// "b op.Reverse() a".
func (op CompareOp) Reverse() CompareOp {
	switch op {
	case CompareLess:
		return CompareGreater
	case CompareLessOrEqual:
		return CompareGreaterOrEqual
	case CompareGreater:
		return CompareLess
	case CompareGreaterOrEqual:
		return CompareLessOrEqual
	}
	return op
}

// TableName is an HBase table name: a namespace and a qualifier. The zero
// Namespace means DefaultNamespace. It is the one table-name type of hbkit:
// package schema names its tables with it too.
type TableName struct {
	Namespace string // never empty after ParseTableName: "default" when omitted
	Qualifier string
}

// disallowedQualifier is the one table qualifier HBase refuses in every
// namespace (TableName.DISALLOWED_TABLE_NAME).
const disallowedQualifier = "zookeeper"

// ParseTableName parses "table" (default namespace) or "ns:table" the way
// HBase's TableName.valueOf does, and checks both parts with the rules of
// [TableName.Validate].
func ParseTableName(s string) (TableName, error) {
	if s == "" {
		return TableName{}, invalid("", "", ErrEmptyTableName, "")
	}
	t := TableName{Namespace: DefaultNamespace, Qualifier: s}
	if ns, q, ok := strings.Cut(s, ":"); ok {
		if ns == "" {
			return TableName{}, invalidf("", "", ErrInvalidTableName, "%q: empty namespace", s)
		}
		t = TableName{Namespace: ns, Qualifier: q}
	}
	if _, _, detail := t.fault(); detail != "" {
		return TableName{}, invalidf("", "", ErrInvalidTableName, "%q: %s", s, detail)
	}
	return t, nil
}

// Validate checks the name with HBase's rules, restricted to ASCII: the
// namespace is [A-Za-z0-9_]+, the qualifier is [A-Za-z0-9_.-]+, does not
// start with '.' or '-', and is not "zookeeper". (HBase also accepts
// non-ASCII letters and digits; hbkit does not, so names stay portable
// across shells and file systems.) A failure is an *InvalidRequestError
// wrapping ErrInvalidTableName; its Field is "namespace" or "qualifier" and
// its Reason the rule broken.
func (t TableName) Validate() error {
	if field, rule, _ := t.fault(); rule != "" {
		return invalid("", field, ErrInvalidTableName, rule)
	}
	return nil
}

// fault returns the part of the name that breaks a rule, the rule, and
// what exactly breaks it; all empty when the name is valid.
func (t TableName) fault() (field, rule, detail string) {
	ns := t.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	if err := checkNamespace(ns); err != nil {
		return "namespace", "may only contain [A-Za-z0-9_]", err.Error()
	}
	q := t.Qualifier
	switch {
	case q == "":
		return "qualifier", "must not be empty", "empty qualifier"
	case q[0] == '.' || q[0] == '-':
		return "qualifier", "must not start with '.' or '-'", "qualifier starts with " + quoteByte(q[0])
	case q == disallowedQualifier:
		return "qualifier", "is reserved by HBase", "qualifier " + strconv.Quote(q) + " is reserved by HBase"
	}
	for i := 0; i < len(q); i++ {
		if c := q[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return "qualifier", "may only contain [A-Za-z0-9_.-]", "illegal character " + quoteByte(c) + " in qualifier"
		}
	}
	return "", "", ""
}

// String returns "qualifier" for the default namespace and "ns:qualifier"
// otherwise: the canonical spelling used by ListTables and RegionInfo
// (HBase's TableName.getNameAsString).
func (t TableName) String() string {
	if t.Namespace == "" || t.Namespace == DefaultNamespace {
		return t.Qualifier
	}
	return t.Namespace + ":" + t.Qualifier
}

// FullName always includes the namespace: "default:t" for a default table.
func (t TableName) FullName() string {
	ns := t.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return ns + ":" + t.Qualifier
}

// ValidateNamespace checks a namespace name ([A-Za-z0-9_]+).
func ValidateNamespace(ns string) error {
	if err := checkNamespace(ns); err != nil {
		return invalid("", "", ErrInvalidNamespace, err.Error())
	}
	return nil
}

type reason string

func (r reason) Error() string { return string(r) }

func checkNamespace(ns string) error {
	if ns == "" {
		return reason("empty namespace")
	}
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; !(isAlnum(c) || c == '_') {
			return reason("illegal character " + quoteByte(c) + " in namespace")
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TableDescriptor describes a table for CreateTable and DescribeTable.
// Attribute keys are HBase's own ("VERSIONS", "TTL", "BLOOMFILTER",
// "COMPRESSION", "BLOCKSIZE", "IN_MEMORY", "BLOCKCACHE",
// "DATA_BLOCK_ENCODING", ...), values their string forms ("3", "ROW",
// "SNAPPY", "true").
type TableDescriptor struct {
	Name       string
	Families   []FamilyDescriptor
	Attributes map[string]string // table-level, e.g. "MAX_FILESIZE"; may be nil
}

// FamilyDescriptor describes one column family.
type FamilyDescriptor struct {
	Name       string
	Attributes map[string]string // may be nil: HBase defaults apply
}

// Family returns the descriptor of the named family.
func (d *TableDescriptor) Family(name string) (FamilyDescriptor, bool) {
	for _, f := range d.Families {
		if f.Name == name {
			return f, true
		}
	}
	return FamilyDescriptor{}, false
}

// RegionInfo describes one region of a table.
type RegionInfo struct {
	Table      string // canonical name, see TableName.String
	StartKey   []byte // inclusive; empty for the first region
	EndKey     []byte // exclusive; empty for the last region
	Server     string // "host:port" of the hosting region server; empty if unassigned
	RegionName []byte // full region name as in hbase:meta
	ID         int64  // region id (creation timestamp)
}

// ContainsRow reports whether row falls in [StartKey, EndKey).
func (r RegionInfo) ContainsRow(row []byte) bool {
	return bytes.Compare(row, r.StartKey) >= 0 && (len(r.EndKey) == 0 || bytes.Compare(row, r.EndKey) < 0)
}

// RegionLoad is the load a region server reports for one of its regions
// in its heartbeat to the master (every 3 s by default), so the counts lag
// by up to one report interval.
type RegionLoad struct {
	RegionName           []byte // full region name, as in hbase:meta
	ReadRequests         uint64
	WriteRequests        uint64
	FilteredReadRequests uint64
	StoreFiles           uint32
	StoreFileSizeMB      uint32
	MemStoreSizeMB       uint32
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func quoteByte(c byte) string { return strconv.QuoteRune(rune(c)) }
