package schema

import (
	"slices"
	"strings"

	"github.com/hbkit/hbkit/keys"
)

// FamilyDrift reports how one column family of a live table differs from
// its declaration.
type FamilyDrift struct {
	Family  string
	Missing bool    // declared but absent from the live table
	Extra   bool    // present in the live table but not declared
	Options []Drift // differing options, when the family exists on both sides
}

// DiffFamilies compares declared families with the families HBase
// describes, given as family name → ColumnFamilySchema attributes. Options
// left undeclared compare against HBase's defaults (see Family.Attributes),
// and attributes this package does not model are ignored. The result is
// sorted by family name and holds only families that differ; it is nil
// when nothing drifted. A described family whose attributes do not parse
// is an error.
func DiffFamilies(declared []Family, described map[string]map[string]string) ([]FamilyDrift, error) {
	var out []FamilyDrift
	for _, f := range declared {
		attrs, ok := described[f.Name]
		if !ok {
			out = append(out, FamilyDrift{Family: f.Name, Missing: true})
			continue
		}
		live, err := ParseFamily(f.Name, attrs)
		if err != nil {
			return nil, err
		}
		if d := f.Diff(live); d != nil {
			out = append(out, FamilyDrift{Family: f.Name, Options: d})
		}
	}
	for name := range described {
		if !hasFamily(declared, name) {
			out = append(out, FamilyDrift{Family: name, Extra: true})
		}
	}
	slices.SortFunc(out, func(a, b FamilyDrift) int { return strings.Compare(a.Family, b.Family) })
	return out, nil
}

// ShellCreate renders d as an HBase shell create command, with every
// family option spelled out and the split keys:
//
//	create 'users', {NAME => 'CF1', BLOOMFILTER => 'ROW', …}, {SPLITS => ['1', …]}
//
// The namespace is written only when it is not the default one.
func ShellCreate(d Definition) string {
	var b strings.Builder
	b.WriteString("create '")
	b.WriteString(d.Name().String())
	b.WriteString("'")
	for _, f := range d.Families() {
		b.WriteString(", {NAME => '")
		b.WriteString(f.Name)
		b.WriteString("'")
		for _, a := range f.SortedAttributes() {
			b.WriteString(", ")
			b.WriteString(a.Name)
			b.WriteString(" => '")
			b.WriteString(a.Value)
			b.WriteString("'")
		}
		b.WriteString("}")
	}
	if splits := d.SplitKeys(); len(splits) > 0 {
		b.WriteString(", {SPLITS => ")
		b.WriteString(keys.ShellSplits(splits))
		b.WriteString("}")
	}
	return b.String()
}
