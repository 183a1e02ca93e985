package main

import (
	"context"
	"strings"

	"github.com/hbkit/hbkit/hbase"
)

// namespaced runs a Client's tables in a namespace of their own: every
// table name "t" the demo uses becomes "ns:t" on the cluster, and names
// coming back are mapped back. Tests use it so that their tables never
// clash with the demo's or with other tests' on a shared HBase.
type namespaced struct {
	c  Client
	ns string
}

var _ Client = (*namespaced)(nil)

func (n *namespaced) to(t string) string {
	if t == "" || strings.Contains(t, ":") {
		return t
	}
	return n.ns + ":" + t
}

func (n *namespaced) from(t string) string { return strings.TrimPrefix(t, n.ns+":") }

func (n *namespaced) mutations(ms []hbase.Mutation) []hbase.Mutation {
	out := make([]hbase.Mutation, len(ms))
	for i, m := range ms {
		switch m := m.(type) {
		case *hbase.Put:
			cp := *m
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		case *hbase.Delete:
			cp := *m
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		default:
			out[i] = m
		}
	}
	return out
}

func (n *namespaced) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	if g == nil {
		return n.c.Get(ctx, g)
	}
	cp := *g
	cp.Table = n.to(cp.Table)
	return n.c.Get(ctx, &cp)
}

func (n *namespaced) Put(ctx context.Context, p *hbase.Put) error {
	if p == nil {
		return n.c.Put(ctx, p)
	}
	cp := *p
	cp.Table = n.to(cp.Table)
	return n.c.Put(ctx, &cp)
}

func (n *namespaced) Delete(ctx context.Context, d *hbase.Delete) error {
	if d == nil {
		return n.c.Delete(ctx, d)
	}
	cp := *d
	cp.Table = n.to(cp.Table)
	return n.c.Delete(ctx, &cp)
}

func (n *namespaced) Increment(ctx context.Context, inc *hbase.Increment) (*hbase.Result, error) {
	if inc == nil {
		return n.c.Increment(ctx, inc)
	}
	cp := *inc
	cp.Table = n.to(cp.Table)
	return n.c.Increment(ctx, &cp)
}

func (n *namespaced) Append(ctx context.Context, a *hbase.Append) (*hbase.Result, error) {
	if a == nil {
		return n.c.Append(ctx, a)
	}
	cp := *a
	cp.Table = n.to(cp.Table)
	return n.c.Append(ctx, &cp)
}

func (n *namespaced) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if cam == nil {
		return n.c.CheckAndMutate(ctx, cam)
	}
	cp := *cam
	cp.Table = n.to(cp.Table)
	cp.Mutations = n.mutations(cp.Mutations)
	return n.c.CheckAndMutate(ctx, &cp)
}

func (n *namespaced) MutateRow(ctx context.Context, rm *hbase.RowMutations) error {
	if rm == nil {
		return n.c.MutateRow(ctx, rm)
	}
	cp := *rm
	cp.Table = n.to(cp.Table)
	cp.Mutations = n.mutations(cp.Mutations)
	return n.c.MutateRow(ctx, &cp)
}

func (n *namespaced) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	if s == nil {
		return n.c.Scan(ctx, s)
	}
	cp := *s
	cp.Table = n.to(cp.Table)
	return n.c.Scan(ctx, &cp)
}

func (n *namespaced) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	out := make([]hbase.Action, len(actions))
	for i, a := range actions {
		switch a := a.(type) {
		case *hbase.Get:
			cp := *a
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		case *hbase.Put:
			cp := *a
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		case *hbase.Delete:
			cp := *a
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		case *hbase.Increment:
			cp := *a
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		case *hbase.Append:
			cp := *a
			cp.Table = n.to(cp.Table)
			out[i] = &cp
		default:
			out[i] = a
		}
	}
	return n.c.Batch(ctx, out)
}

func (n *namespaced) CreateNamespace(ctx context.Context, ns string) error {
	return n.c.CreateNamespace(ctx, ns)
}

func (n *namespaced) DeleteNamespace(ctx context.Context, ns string) error {
	return n.c.DeleteNamespace(ctx, ns)
}

func (n *namespaced) ListNamespaces(ctx context.Context) ([]string, error) {
	return n.c.ListNamespaces(ctx)
}

func (n *namespaced) CreateTable(ctx context.Context, desc hbase.TableDescriptor, splitKeys [][]byte) error {
	desc.Name = n.to(desc.Name)
	return n.c.CreateTable(ctx, desc, splitKeys)
}

func (n *namespaced) DeleteTable(ctx context.Context, t string) error {
	return n.c.DeleteTable(ctx, n.to(t))
}

func (n *namespaced) EnableTable(ctx context.Context, t string) error {
	return n.c.EnableTable(ctx, n.to(t))
}

func (n *namespaced) DisableTable(ctx context.Context, t string) error {
	return n.c.DisableTable(ctx, n.to(t))
}

func (n *namespaced) TruncateTable(ctx context.Context, t string, preserveSplits bool) error {
	return n.c.TruncateTable(ctx, n.to(t), preserveSplits)
}

func (n *namespaced) ModifyTable(ctx context.Context, desc hbase.TableDescriptor) error {
	desc.Name = n.to(desc.Name)
	return n.c.ModifyTable(ctx, desc)
}

func (n *namespaced) TableExists(ctx context.Context, t string) (bool, error) {
	return n.c.TableExists(ctx, n.to(t))
}

func (n *namespaced) IsTableEnabled(ctx context.Context, t string) (bool, error) {
	return n.c.IsTableEnabled(ctx, n.to(t))
}

func (n *namespaced) ListTables(ctx context.Context, ns string) ([]string, error) {
	ts, err := n.c.ListTables(ctx, ns)
	for i := range ts {
		ts[i] = n.from(ts[i])
	}
	return ts, err
}

func (n *namespaced) DescribeTable(ctx context.Context, t string) (hbase.TableDescriptor, error) {
	d, err := n.c.DescribeTable(ctx, n.to(t))
	d.Name = n.from(d.Name)
	return d, err
}

func (n *namespaced) TableRegions(ctx context.Context, t string) ([]hbase.RegionInfo, error) {
	rs, err := n.c.TableRegions(ctx, n.to(t))
	for i := range rs {
		rs[i].Table = n.from(rs[i].Table)
	}
	return rs, err
}

func (n *namespaced) SplitRegion(ctx context.Context, t string, splitKey []byte) error {
	return n.c.SplitRegion(ctx, n.to(t), splitKey)
}
