package admin

import (
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Plan is what creating a declared table sends to HBase: the descriptor,
// with every family option spelled out (HBase's defaults included, so the
// table reads back exactly as declared) and the table's schema document
// (attribute schema.DocumentAttribute, for a data or wide table), and the
// split keys. PlanTable
// builds it without any I/O; the CLI prints it for --dry-run.
type Plan struct {
	Table      string // canonical name: "t" or "ns:t"
	Namespace  string
	Families   []schema.Family
	Descriptor hbapi.TableDescriptor
	SplitKeys  [][]byte // ascending; len(SplitKeys)+1 regions
	// DocumentErr says why a data table's declaration cannot describe
	// itself as a schema document (a hash whose source it does not
	// name): the table is then created and checked without one.
	DocumentErr error
}

// Regions returns the number of regions the table is created with.
func (p *Plan) Regions() int { return len(p.SplitKeys) + 1 }

// PlanTable validates def and returns what creating it sends. Every check
// runs here, before any RPC: the table name, each family and option, no
// family twice, and split keys that are non-empty, strictly ascending and
// not longer than HBase's row-key limit. A rejected declaration is an
// error wrapping ErrInvalidSchema (and the *schema.Error or
// *hbase.InvalidRequestError that says why).
func PlanTable(def schema.Definition) (*Plan, error) {
	if def == nil {
		return nil, fmt.Errorf("%w: nil definition", ErrInvalidSchema)
	}
	name := def.Name()
	table := name.String()
	bad := func(err error) (*Plan, error) {
		return nil, fmt.Errorf("%w: table %q: %w", ErrInvalidSchema, table, err)
	}
	if _, err := schema.NewTableName(name.Namespace, name.Qualifier); err != nil {
		return bad(err)
	}
	fams := def.Families()
	if len(fams) == 0 {
		return bad(errors.New("no column families"))
	}
	seen := make(map[string]bool, len(fams))
	desc := hbapi.TableDescriptor{Name: table}
	for _, f := range fams {
		if err := f.Validate(); err != nil {
			return bad(err)
		}
		if seen[f.Name] {
			return bad(fmt.Errorf("family %q declared twice", f.Name))
		}
		seen[f.Name] = true
		desc.Families = append(desc.Families, hbapi.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
	}
	doc, docErr := schema.StoredDocument(def)
	if doc != "" {
		desc.Attributes = map[string]string{schema.DocumentAttribute: doc}
	}
	splits := def.SplitKeys()
	if err := keys.ValidateSplits(splits); err != nil {
		return bad(err)
	}
	for i, k := range splits {
		if len(k) > hbapi.MaxRowLength {
			return bad(fmt.Errorf("split key %d is %d bytes, longer than a row key may be (%d)", i, len(k), hbapi.MaxRowLength))
		}
	}
	if err := desc.Validate(); err != nil {
		return bad(err)
	}
	if err := hbapi.ValidateSplitKeys(splits); err != nil {
		return bad(err)
	}
	ns := name.Namespace
	if ns == "" {
		ns = schema.DefaultNamespace
	}
	return &Plan{Table: table, Namespace: ns, Families: fams, Descriptor: desc, SplitKeys: splits, DocumentErr: docErr}, nil
}

// checkName validates a table name given as a string before any RPC.
func checkName(table string) (string, error) {
	n, err := schema.ParseTableName(table)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	return n.String(), nil
}
