// Package nsclient runs an HBase client's tables in a namespace of their
// own, for the examples' tests: every table name "t" becomes "ns:t" on the
// cluster and names coming back are mapped back, so that the examples,
// which use their schemas' table names, can run in tests next to the demo
// and to each other on one shared HBase. It is for tests, not for
// applications (which name their tables in their schemas).
package nsclient

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hbkit/hbkit/hbase"
)

// Client is a data and admin client, such as *hbase.Client or
// *fake.Client.
type Client interface {
	hbase.DataClient
	hbase.AdminClient
}

// Namespaced is a Client whose tables live in one namespace.
type Namespaced struct {
	c  Client
	ns string
}

var _ Client = (*Namespaced)(nil)

// New returns c with its tables in namespace ns, which must exist (see
// Setup).
func New(c Client, ns string) *Namespaced { return &Namespaced{c: c, ns: ns} }

// Namespace returns the namespace.
func (n *Namespaced) Namespace() string { return n.ns }

// Setup creates namespace ns on c if it is missing and returns c in it,
// with a cleanup that drops every table of ns and then ns itself.
func Setup(ctx context.Context, c Client, ns string) (*Namespaced, func(context.Context) error, error) {
	have, err := c.ListNamespaces(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(have, ns) {
		if err := c.CreateNamespace(ctx, ns); err != nil {
			return nil, nil, err
		}
	}
	cleanup := func(ctx context.Context) error {
		tables, err := c.ListTables(ctx, ns)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if err := c.DisableTable(ctx, t); err != nil && !errors.Is(err, hbase.ErrTableDisabled) {
				return err
			}
			if err := c.DeleteTable(ctx, t); err != nil {
				return err
			}
		}
		return c.DeleteNamespace(ctx, ns)
	}
	return New(c, ns), cleanup, nil
}

func (n *Namespaced) to(t string) string {
	if t == "" || strings.Contains(t, ":") {
		return t
	}
	return n.ns + ":" + t
}

func (n *Namespaced) from(t string) string { return strings.TrimPrefix(t, n.ns+":") }

func (n *Namespaced) mutations(ms []hbase.Mutation) []hbase.Mutation {
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

func (n *Namespaced) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	if g == nil {
		return n.c.Get(ctx, g)
	}
	cp := *g
	cp.Table = n.to(cp.Table)
	return n.c.Get(ctx, &cp)
}

func (n *Namespaced) Put(ctx context.Context, p *hbase.Put) error {
	if p == nil {
		return n.c.Put(ctx, p)
	}
	cp := *p
	cp.Table = n.to(cp.Table)
	return n.c.Put(ctx, &cp)
}

func (n *Namespaced) Delete(ctx context.Context, d *hbase.Delete) error {
	if d == nil {
		return n.c.Delete(ctx, d)
	}
	cp := *d
	cp.Table = n.to(cp.Table)
	return n.c.Delete(ctx, &cp)
}

func (n *Namespaced) Increment(ctx context.Context, inc *hbase.Increment) (*hbase.Result, error) {
	if inc == nil {
		return n.c.Increment(ctx, inc)
	}
	cp := *inc
	cp.Table = n.to(cp.Table)
	return n.c.Increment(ctx, &cp)
}

func (n *Namespaced) Append(ctx context.Context, a *hbase.Append) (*hbase.Result, error) {
	if a == nil {
		return n.c.Append(ctx, a)
	}
	cp := *a
	cp.Table = n.to(cp.Table)
	return n.c.Append(ctx, &cp)
}

func (n *Namespaced) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if cam == nil {
		return n.c.CheckAndMutate(ctx, cam)
	}
	cp := *cam
	cp.Table = n.to(cp.Table)
	cp.Mutations = n.mutations(cp.Mutations)
	return n.c.CheckAndMutate(ctx, &cp)
}

func (n *Namespaced) MutateRow(ctx context.Context, rm *hbase.RowMutations) error {
	if rm == nil {
		return n.c.MutateRow(ctx, rm)
	}
	cp := *rm
	cp.Table = n.to(cp.Table)
	cp.Mutations = n.mutations(cp.Mutations)
	return n.c.MutateRow(ctx, &cp)
}

func (n *Namespaced) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	if s == nil {
		return n.c.Scan(ctx, s)
	}
	cp := *s
	cp.Table = n.to(cp.Table)
	return n.c.Scan(ctx, &cp)
}

func (n *Namespaced) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
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
		case *hbase.CheckAndMutate:
			if a == nil {
				out[i] = a
				continue
			}
			cp := *a
			cp.Table = n.to(cp.Table)
			cp.Mutations = n.mutations(cp.Mutations)
			out[i] = &cp
		default:
			out[i] = a
		}
	}
	return n.c.Batch(ctx, out)
}

func (n *Namespaced) CreateNamespace(ctx context.Context, ns string) error {
	return n.c.CreateNamespace(ctx, ns)
}

func (n *Namespaced) DeleteNamespace(ctx context.Context, ns string) error {
	return n.c.DeleteNamespace(ctx, ns)
}

func (n *Namespaced) ListNamespaces(ctx context.Context) ([]string, error) {
	return n.c.ListNamespaces(ctx)
}

func (n *Namespaced) CreateTable(ctx context.Context, desc hbase.TableDescriptor, splitKeys [][]byte) error {
	desc.Name = n.to(desc.Name)
	return n.c.CreateTable(ctx, desc, splitKeys)
}

func (n *Namespaced) DeleteTable(ctx context.Context, t string) error {
	return n.c.DeleteTable(ctx, n.to(t))
}

func (n *Namespaced) EnableTable(ctx context.Context, t string) error {
	return n.c.EnableTable(ctx, n.to(t))
}

func (n *Namespaced) DisableTable(ctx context.Context, t string) error {
	return n.c.DisableTable(ctx, n.to(t))
}

func (n *Namespaced) TruncateTable(ctx context.Context, t string, preserveSplits bool) error {
	return n.c.TruncateTable(ctx, n.to(t), preserveSplits)
}

func (n *Namespaced) ModifyTable(ctx context.Context, desc hbase.TableDescriptor) error {
	desc.Name = n.to(desc.Name)
	return n.c.ModifyTable(ctx, desc)
}

func (n *Namespaced) TableExists(ctx context.Context, t string) (bool, error) {
	return n.c.TableExists(ctx, n.to(t))
}

func (n *Namespaced) IsTableEnabled(ctx context.Context, t string) (bool, error) {
	return n.c.IsTableEnabled(ctx, n.to(t))
}

func (n *Namespaced) ListTables(ctx context.Context, ns string) ([]string, error) {
	ts, err := n.c.ListTables(ctx, ns)
	for i := range ts {
		ts[i] = n.from(ts[i])
	}
	return ts, err
}

func (n *Namespaced) DescribeTable(ctx context.Context, t string) (hbase.TableDescriptor, error) {
	d, err := n.c.DescribeTable(ctx, n.to(t))
	d.Name = n.from(d.Name)
	return d, err
}

func (n *Namespaced) TableRegions(ctx context.Context, t string) ([]hbase.RegionInfo, error) {
	rs, err := n.c.TableRegions(ctx, n.to(t))
	for i := range rs {
		rs[i].Table = n.from(rs[i].Table)
	}
	return rs, err
}

func (n *Namespaced) SplitRegion(ctx context.Context, t string, splitKey []byte) error {
	return n.c.SplitRegion(ctx, n.to(t), splitKey)
}
