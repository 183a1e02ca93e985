package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Drop disables the table (unless it is disabled already) and deletes it.
// A run interrupted between the two steps leaves a disabled table; running
// Drop again finishes the job. A missing table is an error wrapping
// hbase.ErrTableNotFound.
func (a *Admin) Drop(ctx context.Context, table string) error {
	name, err := checkName(table)
	if err != nil {
		return err
	}
	if err := a.disable(ctx, name); err != nil {
		return err
	}
	if err := a.c.DeleteTable(ctx, name); err != nil {
		return fmt.Errorf("admin: delete table %q: %w", name, err)
	}
	return nil
}

// Truncate removes every row of the table and keeps its descriptor and
// its region boundaries: it disables the table (unless it is disabled
// already) and truncates it preserving the splits; HBase enables it
// again. If the truncate fails the table stays disabled; run Truncate
// again, or EnsureTable to enable it with its rows intact.
func (a *Admin) Truncate(ctx context.Context, table string) error {
	name, err := checkName(table)
	if err != nil {
		return err
	}
	if err := a.disable(ctx, name); err != nil {
		return err
	}
	if err := a.c.TruncateTable(ctx, name, true); err != nil {
		return fmt.Errorf("admin: truncate table %q: %w", name, err)
	}
	return nil
}

// disable disables an enabled table and accepts one that is disabled.
func (a *Admin) disable(ctx context.Context, name string) error {
	err := a.c.DisableTable(ctx, name)
	if err == nil || errors.Is(err, hbapi.ErrTableDisabled) {
		return nil
	}
	return fmt.Errorf("admin: disable table %q: %w", name, err)
}

// Description is a live table as HBase describes it.
type Description struct {
	Table   string
	Enabled bool
	// Attributes are the table-level attributes, sorted by name.
	Attributes []schema.Attribute
	Families   []FamilyDescription // sorted by name
	Regions    []Region            // sorted by start key
}

// FamilyDescription is one column family with every attribute HBase
// reports: the options package schema models first, in the order of
// schema.AttributeNames, then the others sorted by name.
type FamilyDescription struct {
	Name       string
	Attributes []schema.Attribute
}

// Attribute returns the value of the named attribute.
func (f FamilyDescription) Attribute(name string) (string, bool) {
	for _, a := range f.Attributes {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Family parses the modelled options into a schema.Family.
func (f FamilyDescription) Family() (schema.Family, error) {
	m := make(map[string]string, len(f.Attributes))
	for _, a := range f.Attributes {
		m[a.Name] = a.Value
	}
	return schema.ParseFamily(f.Name, m)
}

// Region is one region of a table: the client's RegionInfo (start and end
// key, server, region name, id) with what Describe adds to it.
type Region struct {
	hbapi.RegionInfo
	// Load is the region's load report, nil when no RegionLoader is
	// available or the region was not in its report.
	Load *RegionLoad
	// Rows is the number of rows, counted with a key-only scan of the
	// region when Describe was called with CountRows; -1 otherwise.
	Rows int64
}

// DescribeOption configures one Describe call.
type DescribeOption func(*describeOptions)

type describeOptions struct {
	countRows bool
}

// CountRows makes Describe count the rows of every region with a
// key-only scan (HBase does not report row counts). It reads the whole
// table, so keep it for small tables and tests; the Client must implement
// RowScanner.
func CountRows() DescribeOption {
	return func(o *describeOptions) { o.countRows = true }
}

// Describe reads the table's descriptor, state and regions (from
// hbase:meta), the regions' load when a RegionLoader is available, and
// optionally their row counts.
func (a *Admin) Describe(ctx context.Context, table string, opts ...DescribeOption) (*Description, error) {
	var o describeOptions
	for _, opt := range opts {
		opt(&o)
	}
	name, err := checkName(table)
	if err != nil {
		return nil, err
	}
	var scanner RowScanner
	if o.countRows {
		s, ok := a.c.(RowScanner)
		if !ok {
			return nil, errors.New("admin: CountRows needs a client that can scan")
		}
		scanner = s
	}
	desc, err := a.c.DescribeTable(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("admin: describe table %q: %w", name, err)
	}
	enabled, err := a.c.IsTableEnabled(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("admin: is table enabled %q: %w", name, err)
	}
	infos, err := a.c.TableRegions(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("admin: table regions %q: %w", name, err)
	}
	d := &Description{Table: name, Enabled: enabled}
	for _, k := range slices.Sorted(maps.Keys(desc.Attributes)) {
		d.Attributes = append(d.Attributes, schema.Attribute{Name: k, Value: desc.Attributes[k]})
	}
	for _, f := range desc.Families {
		d.Families = append(d.Families, FamilyDescription{Name: f.Name, Attributes: sortAttributes(f.Attributes)})
	}
	slices.SortFunc(d.Families, func(x, y FamilyDescription) int { return bytes.Compare([]byte(x.Name), []byte(y.Name)) })
	slices.SortFunc(infos, func(x, y hbapi.RegionInfo) int { return bytes.Compare(x.StartKey, y.StartKey) })
	for _, r := range infos {
		d.Regions = append(d.Regions, Region{RegionInfo: r, Rows: -1})
	}
	if a.opts.loader != nil {
		loads, err := a.opts.loader.RegionLoads(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("admin: region loads %q: %w", name, err)
		}
		for i := range d.Regions {
			for j := range loads {
				if bytes.Equal(loads[j].RegionName, d.Regions[i].RegionName) {
					l := loads[j]
					d.Regions[i].Load = &l
					break
				}
			}
		}
	}
	if scanner != nil {
		for i := range d.Regions {
			n, err := countRows(ctx, scanner, name, d.Regions[i])
			if err != nil {
				return nil, err
			}
			d.Regions[i].Rows = n
		}
	}
	return d, nil
}

func countRows(ctx context.Context, s RowScanner, table string, r Region) (int64, error) {
	scan := &hbapi.Scan{
		Table: table, StartRow: r.StartKey, StopRow: r.EndKey,
		Filter: &hbapi.FilterList{Op: hbapi.MustPassAll, Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}},
		// Rows are counted, not kept.
		ReuseMemory: true,
	}
	sc, err := s.Scan(ctx, scan)
	if err != nil {
		return 0, fmt.Errorf("admin: count rows of %q: %w", table, err)
	}
	var n int64
	for _, err := range hbapi.All(ctx, sc) {
		if err != nil {
			return 0, fmt.Errorf("admin: count rows of %q from %s: %w", table, schema.QuoteKey(r.StartKey), err)
		}
		n++
	}
	return n, nil
}

// sortAttributes orders family attributes: the modelled ones in
// schema.AttributeNames order, then the rest by name.
func sortAttributes(m map[string]string) []schema.Attribute {
	var out []schema.Attribute
	known := schema.AttributeNames()
	for _, k := range known {
		if v, ok := m[k]; ok {
			out = append(out, schema.Attribute{Name: k, Value: v})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			out = append(out, schema.Attribute{Name: k, Value: m[k]})
		}
	}
	return out
}
