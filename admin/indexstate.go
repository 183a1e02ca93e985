package admin

import (
	"context"
	"fmt"
	"maps"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// indexed is a data table's definition that declares index tables
// (*schema.Table[T]).
type indexed interface {
	IndexDefinitions() []schema.Definition
}

// WithIndexTables returns defs with, after each data table that declares
// indexes, its index tables, each table once: what an admin job given a
// schema creates, checks, truncates and drops. Tables already in defs are
// not repeated. WithIndexes does the same for one typed table.
func WithIndexTables(defs ...schema.Definition) []schema.Definition {
	listed := make(map[string]bool, len(defs))
	for _, d := range defs {
		if d != nil {
			listed[d.Name().String()] = true
		}
	}
	out := make([]schema.Definition, 0, len(defs))
	for _, d := range defs {
		out = append(out, d)
		ix, ok := d.(indexed)
		if !ok {
			continue
		}
		for _, x := range ix.IndexDefinitions() {
			if n := x.Name().String(); !listed[n] {
				listed[n] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// IndexState returns the state of an index table, from its descriptor
// (schema.IndexStateAttribute; a table without it is active). A missing
// table is an error wrapping hbase.ErrTableNotFound.
func (a *Admin) IndexState(ctx context.Context, table string) (schema.IndexState, error) {
	name, err := checkName(table)
	if err != nil {
		return "", err
	}
	desc, err := a.c.DescribeTable(ctx, name)
	if err != nil {
		return "", fmt.Errorf("admin: describe table %q: %w", name, err)
	}
	return schema.IndexStateOf(desc.Attributes), nil
}

// withInitialState returns p with the state a new index table starts in
// when def is an index table that does not exist yet; p itself otherwise.
// fresh names the data tables created by this run.
func (a *Admin) withInitialState(ctx context.Context, p *Plan, def schema.Definition, fresh map[string]bool) (*Plan, error) {
	ix, ok := def.(schema.IndexDefinition)
	if !ok {
		return p, nil
	}
	if exists, err := a.c.TableExists(ctx, p.Table); err != nil || exists {
		return p, nil // ensure reports the error, or checks the existing table
	}
	state, err := a.initialState(ctx, ix.DataTable().String(), fresh)
	if err != nil {
		return nil, err
	}
	cp := *p
	cp.Descriptor.Attributes = maps.Clone(p.Descriptor.Attributes)
	if cp.Descriptor.Attributes == nil {
		cp.Descriptor.Attributes = map[string]string{}
	}
	cp.Descriptor.Attributes[schema.IndexStateAttribute] = string(state)
	return &cp, nil
}

// initialState decides how a new index table of data starts: active when
// the data table was created by this run, does not exist or holds no row;
// building when it holds rows, which have no entry yet. A client that
// cannot scan (no RowScanner) cannot tell, and its index tables start
// active, as tables created without the attribute are.
func (a *Admin) initialState(ctx context.Context, data string, fresh map[string]bool) (schema.IndexState, error) {
	if fresh[data] {
		return schema.IndexActive, nil
	}
	exists, err := a.c.TableExists(ctx, data)
	if err != nil {
		return "", fmt.Errorf("admin: table exists %q: %w", data, err)
	}
	if !exists {
		return schema.IndexActive, nil
	}
	rs, ok := a.c.(RowScanner)
	if !ok {
		// It cannot tell; the table starts as tables without the
		// attribute do.
		return schema.IndexActive, nil
	}
	sc, err := rs.Scan(ctx, &hbapi.Scan{Table: data, Limit: 1, Caching: 1, Filter: &hbapi.FirstKeyOnlyFilter{}})
	if err != nil {
		return "", fmt.Errorf("admin: scan %q for rows: %w", data, err)
	}
	for _, err := range hbapi.All(ctx, sc) {
		if err != nil {
			return "", fmt.Errorf("admin: scan %q for rows: %w", data, err)
		}
		return schema.IndexBuilding, nil
	}
	return schema.IndexActive, nil
}

// ensureDef is ensure, giving a new index table its initial state and
// reporting an index table that is building as NeedsBuilding.
func (a *Admin) ensureDef(ctx context.Context, p *Plan, def schema.Definition, fresh map[string]bool) (Outcome, error) {
	p, err := a.withInitialState(ctx, p, def, fresh)
	if err != nil {
		return 0, err
	}
	o, err := a.ensure(ctx, p)
	if _, ok := def.(schema.IndexDefinition); !ok || err != nil {
		return o, err
	}
	state, err := a.IndexState(ctx, p.Table)
	if err != nil {
		return 0, err
	}
	if state == schema.IndexBuilding {
		return NeedsBuilding, nil
	}
	return o, nil
}
