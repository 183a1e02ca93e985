package hbapi

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/hbase/internal/flat"
)

// Validation follows the limits of the wire protocol reference (section 9)
// and HBase's naming rules. Every failure is an *InvalidRequestError whose
// Err is a sentinel, so callers can use errors.Is(err, ErrEmptyRow) etc.

func checkTable(op, table string) error {
	if _, err := ParseTableName(table); err != nil {
		var ie *InvalidRequestError
		if errors.As(err, &ie) {
			return &InvalidRequestError{Op: op, Field: "Table", Reason: ie.Reason, Err: ie.Err}
		}
		return invalid(op, "Table", ErrInvalidTableName, err.Error())
	}
	return nil
}

func checkRow(op, field string, row []byte) error {
	if len(row) == 0 {
		return invalid(op, field, ErrEmptyRow, "")
	}
	if len(row) > MaxRowLength {
		return invalidf(op, field, ErrRowTooLong, "%d bytes", len(row))
	}
	return nil
}

// checkTableRow checks the table and row a request names.
func checkTableRow(op, table string, row []byte) error {
	if err := checkTable(op, table); err != nil {
		return err
	}
	return checkRow(op, "Row", row)
}

func checkFamily(op, field string, family []byte) error {
	if len(family) == 0 {
		return invalid(op, field, ErrEmptyFamily, "")
	}
	if len(family) > MaxFamilyLength {
		return invalidf(op, field, ErrFamilyTooLong, "%d bytes", len(family))
	}
	return nil
}

func checkTimestamp(op, field string, ts int64) error {
	if ts < 0 {
		return invalidf(op, field, ErrNegativeTimestamp, "%d", ts)
	}
	return nil
}

func checkTimeRange(op string, tr *TimeRange) error {
	if tr == nil {
		return nil
	}
	if tr.From < 0 {
		return invalidf(op, "TimeRange", ErrInvalidTimeRange, "From %d < 0", tr.From)
	}
	if tr.To <= tr.From {
		return invalidf(op, "TimeRange", ErrInvalidTimeRange, "To %d <= From %d", tr.To, tr.From)
	}
	return nil
}

func checkDurability(op string, d Durability) error {
	if d > FsyncWAL {
		return invalidf(op, "Durability", ErrInvalidRequest, "unknown durability %d", d)
	}
	return nil
}

func checkSelection(op string, families [][]byte, columns []Column, maxVersions int) error {
	for i, f := range families {
		if err := checkFamily(op, fmt.Sprintf("Families[%d]", i), f); err != nil {
			return err
		}
	}
	for i, c := range columns {
		if err := checkFamily(op, fmt.Sprintf("Columns[%d].Family", i), c.Family); err != nil {
			return err
		}
	}
	if maxVersions < 0 {
		return invalidf(op, "MaxVersions", ErrInvalidRequest, "%d < 0", maxVersions)
	}
	return nil
}

func checkFilterField(op string, f Filter) error {
	if f == nil {
		return nil
	}
	if err := checkFilter(f, 0); err != nil {
		return invalid(op, "Filter", ErrInvalidFilter, err.Error())
	}
	return nil
}

func nilRequest(op string) error {
	return invalid(op, "", ErrInvalidRequest, "nil request")
}

// Validate checks g without sending anything.
func (g *Get) Validate() error {
	const op = "get"
	if g == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, g.Table, g.Row); err != nil {
		return err
	}
	if err := checkSelection(op, g.Families, g.Columns, g.MaxVersions); err != nil {
		return err
	}
	if err := checkTimeRange(op, g.TimeRange); err != nil {
		return err
	}
	return checkFilterField(op, g.Filter)
}

func checkValues(op string, values map[string]map[string][]byte) error {
	if len(values) == 0 {
		return invalid(op, "Values", ErrEmptyMutation, "")
	}
	if valuesOK(values) {
		return nil // the common path: no allocation, no sort
	}
	// Something is wrong: walk in order, so that the error reported is
	// the same whatever the map's iteration order.
	for _, c := range flat.Map(values) {
		field := fmt.Sprintf("Values[%q][%q]", c.Family, c.Qualifier)
		if err := checkFamily(op, field, []byte(c.Family)); err != nil {
			return err
		}
		if c.V == nil {
			return invalid(op, field, ErrNilValue, "use []byte{} for an empty value")
		}
	}
	for _, f := range slices.Sorted(maps.Keys(values)) {
		if len(values[f]) == 0 {
			return invalidf(op, fmt.Sprintf("Values[%q]", f), ErrEmptyMutation, "family without columns")
		}
	}
	return nil
}

// valuesOK reports whether checkValues finds nothing wrong with values.
func valuesOK(values map[string]map[string][]byte) bool {
	for f, qs := range values {
		if len(f) == 0 || len(f) > MaxFamilyLength || len(qs) == 0 {
			return false
		}
		for _, v := range qs {
			if v == nil {
				return false
			}
		}
	}
	return true
}

// Validate checks p without sending anything.
func (p *Put) Validate() error {
	const op = "put"
	if p == nil {
		return nilRequest(op)
	}
	if err := checkTable(op, p.Table); err != nil {
		return err
	}
	if err := checkRow(op, "Row", p.Row); err != nil {
		return err
	}
	if err := checkTimestamp(op, "Timestamp", p.Timestamp); err != nil {
		return err
	}
	if err := checkDurability(op, p.Durability); err != nil {
		return err
	}
	if len(p.Cells) == 0 {
		return checkValues(op, p.Values)
	}
	if len(p.Values) != 0 {
		return invalid(op, "Values", ErrInvalidRequest, "a Put with Cells has no Values")
	}
	return checkCells(op, p.Cells)
}

// checkCells checks the Cells of a Put: families, values, and each column
// once.
func checkCells(op string, cells []PutCell) error {
	sorted := true
	for i, c := range cells {
		if len(c.Family) == 0 || len(c.Family) > MaxFamilyLength {
			return checkFamily(op, fmt.Sprintf("Cells[%d].Family", i), []byte(c.Family))
		}
		if c.Value == nil {
			return invalidf(op, fmt.Sprintf("Cells[%d].Value", i), ErrNilValue, "use []byte{} for an empty value")
		}
		if i > 0 && ComparePutCells(cells[i-1], c) >= 0 {
			sorted = false
		}
	}
	if !sorted {
		cells = slices.SortedFunc(slices.Values(cells), ComparePutCells)
	}
	for i := 1; i < len(cells); i++ {
		if ComparePutCells(cells[i-1], cells[i]) == 0 {
			return invalidf(op, "Cells", ErrInvalidRequest, "column %q:%q given twice", cells[i].Family, cells[i].Qualifier)
		}
	}
	return nil
}

// Validate checks d without sending anything. A non-nil but empty Family
// or Qualifier is rejected rather than read as "whole row" or "whole
// family".
func (d *Delete) Validate() error {
	const op = "delete"
	if d == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, d.Table, d.Row); err != nil {
		return err
	}
	if err := checkTimestamp(op, "Timestamp", d.Timestamp); err != nil {
		return err
	}
	if err := checkDurability(op, d.Durability); err != nil {
		return err
	}
	if d.Family == nil {
		if d.Qualifier != nil {
			return invalid(op, "Qualifier", ErrEmptyFamily, "qualifier without family")
		}
		return nil
	}
	if err := checkFamily(op, "Family", d.Family); err != nil {
		return err
	}
	if d.Qualifier != nil && len(d.Qualifier) == 0 {
		return invalid(op, "Qualifier", ErrInvalidRequest, "empty qualifier; leave it nil to delete the whole family")
	}
	return nil
}

// Validate checks inc without sending anything.
func (inc *Increment) Validate() error {
	const op = "increment"
	if inc == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, inc.Table, inc.Row); err != nil {
		return err
	}
	if err := checkDurability(op, inc.Durability); err != nil {
		return err
	}
	if len(inc.Deltas) == 0 {
		return invalid(op, "Deltas", ErrEmptyMutation, "")
	}
	for _, f := range slices.Sorted(maps.Keys(inc.Deltas)) {
		if err := checkFamily(op, fmt.Sprintf("Deltas[%q]", f), []byte(f)); err != nil {
			return err
		}
		if len(inc.Deltas[f]) == 0 {
			return invalidf(op, fmt.Sprintf("Deltas[%q]", f), ErrEmptyMutation, "family without columns")
		}
	}
	return nil
}

// Validate checks a without sending anything.
func (a *Append) Validate() error {
	const op = "append"
	if a == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, a.Table, a.Row); err != nil {
		return err
	}
	if err := checkDurability(op, a.Durability); err != nil {
		return err
	}
	return checkValues(op, a.Values)
}

// sameTable reports whether two table names denote the same table.
func sameTable(a, b string) bool {
	ta, err1 := ParseTableName(a)
	tb, err2 := ParseTableName(b)
	return err1 == nil && err2 == nil && ta == tb
}

func checkMutations(op, table string, row []byte, muts []Mutation) error {
	if len(muts) == 0 {
		return invalid(op, "Mutations", ErrEmptyMutation, "")
	}
	for i, m := range muts {
		field := "Mutations[" + strconv.Itoa(i) + "]"
		var mt string
		var mrow []byte
		var err error
		switch m := m.(type) {
		case *Put:
			if m == nil {
				return invalid(op, field, ErrInvalidRequest, "nil *Put")
			}
			mt, mrow = m.Table, m.Row
			c := *m
			c.Table, c.Row = table, row
			err = c.Validate()
		case *Delete:
			if m == nil {
				return invalid(op, field, ErrInvalidRequest, "nil *Delete")
			}
			mt, mrow = m.Table, m.Row
			c := *m
			c.Table, c.Row = table, row
			err = c.Validate()
		default:
			return invalidf(op, field, ErrInvalidRequest, "unsupported mutation %T", m)
		}
		if mt != "" && !sameTable(mt, table) {
			return invalidf(op, field+".Table", ErrInvalidRequest, "%q differs from %q", mt, table)
		}
		if len(mrow) != 0 && !bytes.Equal(mrow, row) {
			return invalid(op, field+".Row", ErrRowMismatch, "")
		}
		if err != nil {
			var ie *InvalidRequestError
			if errors.As(err, &ie) {
				return &InvalidRequestError{Op: op, Field: field + "." + ie.Field, Reason: ie.Reason, Err: ie.Err}
			}
			return err
		}
	}
	return nil
}

// Validate checks c without sending anything.
func (c *CheckAndMutate) Validate() error {
	const op = "check and mutate"
	if c == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, c.Table, c.Row); err != nil {
		return err
	}
	if err := checkFamily(op, "Family", c.Family); err != nil {
		return err
	}
	if !c.Compare.valid() || c.Compare == CompareNoOp {
		return invalidf(op, "Compare", ErrInvalidRequest, "unsupported operator %v", c.Compare)
	}
	if len(c.Value) == 0 && c.Compare != CompareEqual && c.Compare != CompareNotEqual {
		return invalidf(op, "Compare", ErrInvalidRequest, "an absence check (empty Value) needs EQUAL or NOT_EQUAL, not %v", c.Compare)
	}
	if err := checkTimeRange(op, c.TimeRange); err != nil {
		return err
	}
	return checkMutations(op, c.Table, c.Row, c.Mutations)
}

// Validate checks rm without sending anything.
func (rm *RowMutations) Validate() error {
	const op = "mutate row"
	if rm == nil {
		return nilRequest(op)
	}
	if err := checkTableRow(op, rm.Table, rm.Row); err != nil {
		return err
	}
	return checkMutations(op, rm.Table, rm.Row, rm.Mutations)
}

// Validate checks s without sending anything.
func (s *Scan) Validate() error {
	const op = "scan"
	if s == nil {
		return nilRequest(op)
	}
	if err := checkTable(op, s.Table); err != nil {
		return err
	}
	if len(s.StartRow) > MaxRowLength {
		return invalidf(op, "StartRow", ErrRowTooLong, "%d bytes", len(s.StartRow))
	}
	if len(s.StopRow) > MaxRowLength {
		return invalidf(op, "StopRow", ErrRowTooLong, "%d bytes", len(s.StopRow))
	}
	if err := checkSelection(op, s.Families, s.Columns, s.MaxVersions); err != nil {
		return err
	}
	if err := checkTimeRange(op, s.TimeRange); err != nil {
		return err
	}
	if err := checkFilterField(op, s.Filter); err != nil {
		return err
	}
	if s.Caching < 0 {
		return invalidf(op, "Caching", ErrInvalidRequest, "%d < 0", s.Caching)
	}
	if s.MaxResultSize < 0 {
		return invalidf(op, "MaxResultSize", ErrInvalidRequest, "%d < 0", s.MaxResultSize)
	}
	if s.Limit < 0 {
		return invalidf(op, "Limit", ErrInvalidRequest, "%d < 0", s.Limit)
	}
	if s.Batch < 0 {
		return invalidf(op, "Batch", ErrInvalidRequest, "%d < 0", s.Batch)
	}
	return nil
}

// ValidateAction validates a Batch action.
func ValidateAction(a Action) error {
	switch a := a.(type) {
	case *Get:
		return a.Validate()
	case *Put:
		return a.Validate()
	case *Delete:
		return a.Validate()
	case *Increment:
		return a.Validate()
	case *Append:
		return a.Validate()
	case *CheckAndMutate:
		return a.Validate()
	case nil:
		return invalid("batch", "", ErrInvalidRequest, "nil action")
	}
	return invalidf("batch", "", ErrInvalidRequest, "unsupported action %T", a)
}

// ActionTable returns the table of a Batch action ("" for nil or unknown
// actions).
func ActionTable(a Action) string {
	switch a := a.(type) {
	case *Get:
		if a != nil {
			return a.Table
		}
	case *Put:
		if a != nil {
			return a.Table
		}
	case *Delete:
		if a != nil {
			return a.Table
		}
	case *Increment:
		if a != nil {
			return a.Table
		}
	case *Append:
		if a != nil {
			return a.Table
		}
	case *CheckAndMutate:
		if a != nil {
			return a.Table
		}
	}
	return ""
}

// ValidateFamilyName checks a column family name for table creation: 1 to
// 127 bytes, not starting with '.', without ':', '\', '/' or control
// characters.
func ValidateFamilyName(name string) error {
	const op = ""
	if err := checkFamily(op, "", []byte(name)); err != nil {
		return err
	}
	if name[0] == '.' {
		return invalidf(op, "", ErrInvalidFamily, "%q starts with '.'", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == ':' || c == '\\' || c == '/' || c < 0x20 || c == 0x7f {
			return invalidf(op, "", ErrInvalidFamily, "%q: illegal character %s", name, quoteByte(c))
		}
	}
	return nil
}

// Validate checks a descriptor for CreateTable or ModifyTable: a valid
// name, at least one family, valid and distinct family names, and values
// of the well-known numeric and boolean attributes that HBase can parse.
func (d *TableDescriptor) Validate() error {
	const op = "create table"
	if d == nil {
		return nilRequest(op)
	}
	if err := checkTable(op, d.Name); err != nil {
		return err
	}
	if len(d.Families) == 0 {
		return invalid(op, "Families", ErrEmptyFamily, "a table needs at least one family")
	}
	seen := make(map[string]bool, len(d.Families))
	for i, f := range d.Families {
		field := fmt.Sprintf("Families[%d]", i)
		if err := ValidateFamilyName(f.Name); err != nil {
			var ie *InvalidRequestError
			if errors.As(err, &ie) {
				return &InvalidRequestError{Op: op, Field: field, Reason: ie.Reason, Err: ie.Err}
			}
			return err
		}
		if seen[f.Name] {
			return invalidf(op, field, ErrInvalidFamily, "duplicate family %q", f.Name)
		}
		seen[f.Name] = true
		for _, k := range slices.Sorted(maps.Keys(f.Attributes)) {
			if err := checkAttribute(k, f.Attributes[k]); err != nil {
				return invalid(op, field+".Attributes["+k+"]", ErrInvalidRequest, err.Error())
			}
		}
	}
	return nil
}

func checkAttribute(key, value string) error {
	intAttr := func(min int64) error {
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil || n < min {
			return fmt.Errorf("%q is not an integer >= %d", value, min)
		}
		return nil
	}
	switch key {
	case "VERSIONS", "TTL":
		return intAttr(1)
	case "MIN_VERSIONS":
		return intAttr(0)
	case "BLOCKSIZE":
		return intAttr(1)
	case "IN_MEMORY", "BLOCKCACHE":
		if !strings.EqualFold(value, "true") && !strings.EqualFold(value, "false") {
			return fmt.Errorf("%q is not true or false", value)
		}
	}
	return nil
}

// ValidateSplitKeys checks split keys for CreateTable: each non-empty and
// at most MaxRowLength bytes, all distinct. Order does not matter.
func ValidateSplitKeys(keys [][]byte) error {
	const op = "create table"
	sorted := slices.Clone(keys)
	for i, k := range keys {
		if len(k) == 0 {
			return invalidf(op, fmt.Sprintf("splitKeys[%d]", i), ErrInvalidSplitKeys, "empty key")
		}
		if len(k) > MaxRowLength {
			return invalidf(op, fmt.Sprintf("splitKeys[%d]", i), ErrInvalidSplitKeys, "%d bytes", len(k))
		}
	}
	slices.SortFunc(sorted, bytes.Compare)
	for i := 1; i < len(sorted); i++ {
		if bytes.Equal(sorted[i-1], sorted[i]) {
			return invalidf(op, "splitKeys", ErrInvalidSplitKeys, "duplicate key %x", sorted[i])
		}
	}
	return nil
}
