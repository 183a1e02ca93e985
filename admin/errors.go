package admin

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/schema"
)

// Sentinel errors. Errors returned by this package wrap one of these (or a
// sentinel of package hbase for failures reported by the cluster), so
// callers branch with errors.Is.
var (
	// ErrDrift reports a live table that differs from its declaration.
	// The error is a *DriftError listing every difference.
	ErrDrift = errors.New("admin: table drifted from its schema")
	// ErrInvalidSchema reports a declaration rejected before any RPC: a
	// bad name, family option or split key, or a schema file that does not
	// parse. The schema package's *schema.Error, when there is one, stays
	// reachable with errors.As.
	ErrInvalidSchema = errors.New("admin: invalid schema")
	// ErrNotEnabled reports a table that exists but did not become enabled
	// within the wait budget, typically because another procedure (a
	// create or enable still running on the master) holds it.
	ErrNotEnabled = errors.New("admin: table is not enabled")
	// ErrNoDocument reports a table that holds no schema document
	// (ReadDocument): it was created before documents were stored, or
	// from a declaration that has none.
	ErrNoDocument = errors.New("admin: table holds no schema document")
)

// DiffKind says what a Diff is about.
type DiffKind uint8

// Kinds of differences between a declaration and a live table.
const (
	// FamilyMissing: a declared family is absent from the live table.
	FamilyMissing DiffKind = iota + 1
	// FamilyExtra: the live table has a family the declaration lacks.
	FamilyExtra
	// FamilyOption: a family option differs (defaults spelled out).
	FamilyOption
	// SplitKeys: the region boundaries differ from the declared split keys.
	SplitKeys
	// SchemaDocument: the schema document stored with the table
	// (schema.DocumentAttribute) differs from the declared one. Option is
	// the path of the first difference, Declared and Actual its values.
	SchemaDocument
)

func (k DiffKind) String() string {
	switch k {
	case FamilyMissing:
		return "missing family"
	case FamilyExtra:
		return "extra family"
	case FamilyOption:
		return "family option"
	case SplitKeys:
		return "split keys"
	case SchemaDocument:
		return "schema document"
	}
	return "DiffKind(" + strconv.Itoa(int(k)) + ")"
}

// Diff is one difference between a declaration and the live table.
type Diff struct {
	Kind   DiffKind
	Family string // family name, for the family kinds
	Option string // HBase attribute name, for FamilyOption
	// Declared and Actual are the option values for FamilyOption, with
	// HBase's defaults spelled out.
	Declared, Actual string
	// DeclaredSplits and ActualSplits are the declared split keys and the
	// live region boundaries (start keys of every region but the first),
	// for SplitKeys.
	DeclaredSplits, ActualSplits [][]byte
	// Missing are declared split keys that are not region boundaries;
	// Unexpected are region boundaries that were not declared.
	Missing, Unexpected [][]byte
}

// String describes the difference in one line. Split keys are shown
// readably and in hex.
func (d Diff) String() string {
	switch d.Kind {
	case FamilyMissing:
		return "family " + strconv.Quote(d.Family) + ": declared but missing from the table"
	case FamilyExtra:
		return "family " + strconv.Quote(d.Family) + ": in the table but not declared"
	case FamilyOption:
		return "family " + strconv.Quote(d.Family) + ": " + d.Option + ": declared " + d.Declared + ", actual " + d.Actual
	case SchemaDocument:
		return "schema document (" + schema.DocumentAttribute + "): " + d.Option + ": declared " + d.Declared + ", stored " + d.Actual
	case SplitKeys:
		var b strings.Builder
		b.WriteString("split keys: declared ")
		b.WriteString(regionCount(len(d.DeclaredSplits)))
		b.WriteString(", actual ")
		b.WriteString(regionCount(len(d.ActualSplits)))
		if len(d.Missing) > 0 {
			b.WriteString("; missing ")
			b.WriteString(keyList(d.Missing))
		}
		if len(d.Unexpected) > 0 {
			b.WriteString("; unexpected ")
			b.WriteString(keyList(d.Unexpected))
		}
		return b.String()
	}
	return d.Kind.String()
}

func regionCount(splits int) string {
	if splits == 0 {
		return "1 region"
	}
	return strconv.Itoa(splits+1) + " regions"
}

// keyList renders keys readably and in hex: ["05" "10"] (hex 3035 3130).
func keyList(ks [][]byte) string {
	var b strings.Builder
	b.WriteString(schema.QuoteKeys(ks))
	b.WriteString(" (hex")
	for _, k := range ks {
		b.WriteByte(' ')
		b.WriteString(hex.EncodeToString(k))
	}
	b.WriteByte(')')
	return b.String()
}

// DriftError reports every difference between a declared table and the
// live one. errors.Is(err, ErrDrift) holds for it.
type DriftError struct {
	Table string
	Diffs []Diff
	// Disabled reports that the live table is also disabled. EnsureTable
	// enables a disabled table only when nothing else differs.
	Disabled bool
}

func (e *DriftError) Error() string {
	var b strings.Builder
	b.WriteString("admin: table ")
	b.WriteString(strconv.Quote(e.Table))
	b.WriteString(" drifted from its schema (")
	b.WriteString(strconv.Itoa(len(e.Diffs)))
	if len(e.Diffs) == 1 {
		b.WriteString(" difference")
	} else {
		b.WriteString(" differences")
	}
	if e.Disabled {
		b.WriteString(", table disabled")
	}
	b.WriteString("): ")
	for i, d := range e.Diffs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	b.WriteString(". EnsureTable never alters a table: alter the table to match (HBase shell alter, or drop and " +
		"create it if it holds nothing) or change the schema to match the table")
	return b.String()
}

// Is reports whether target is ErrDrift.
func (e *DriftError) Is(target error) bool { return target == ErrDrift }
