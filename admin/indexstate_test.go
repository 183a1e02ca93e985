package admin_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Order is the record of the index-state tests: orders with a status.
type Order struct {
	ID     string
	Status string
}

// ordersTable declares the table name, keyed [md5(id) 2 hex][id] over 4
// regions, with an index name_by_status keyed [status][id] over 2.
func ordersTable(t testing.TB, name string) *schema.Table[Order] {
	t.Helper()
	id := keys.String("id", func(o *Order) string { return o.ID }, func(o *Order, v string) { o.ID = v })
	key, err := keys.NewLayout(keys.MD5Hex("id_md5", 2, func(o *Order) string { return o.ID }), id)
	if err != nil {
		t.Fatal(err)
	}
	byStatus, err := keys.NewLayout(keys.String("status", func(o *Order) string { return o.Status }, func(o *Order, v string) { o.Status = v }), id)
	if err != nil {
		t.Fatal(err)
	}
	fams := []schema.Family{{Name: "o"}}
	tb, err := schema.New(schema.Spec[Order]{
		Name: name, Families: fams, Key: key, Splits: schema.Splits{Regions: 4},
		Columns: []schema.Column[Order]{
			schema.StringColumn("status", "o", "s", func(o *Order) string { return o.Status }, func(o *Order, v string) { o.Status = v }),
		},
		Indexes: []schema.IndexSpec[Order]{{Name: name + "_by_status", Families: fams, Key: byStatus, RowKeyQualifier: "r",
			Splits: schema.Splits{Keys: [][]byte{[]byte("m")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// stateClient is what ordersScenario needs: DDL, scans and a put.
type stateClient interface {
	admin.Client
	admin.RowScanner
	Put(ctx context.Context, p *hbase.Put) error
}

// ordersScenario checks, on c, that an admin job given a table with an
// index creates, checks and drops the index table with it (issue 33,
// item 10), and that a new index table starts active over an empty data
// table and building over one holding rows (item 2). name is the data
// table's name, run-unique on a shared cluster.
func ordersScenario(t *testing.T, c stateClient, name string) {
	ctx := context.Background()
	a := newAdmin(t, c)
	orders := ordersTable(t, name)
	ixName := name + "_by_status"
	defs := admin.WithIndexTables(orders)
	if got := tableNamesOf(defs); !slices.Equal(got, []string{name, ixName}) {
		t.Fatalf("WithIndexTables = %v, want the data table then its index", got)
	}
	if got := tableNamesOf(admin.WithIndexTables(orders, orders.Indexes()[0])); !slices.Equal(got, []string{name, ixName}) {
		t.Errorf("WithIndexTables with the index listed = %v, want each table once", got)
	}

	// Created together: both created, the index active.
	res, err := a.EnsureTables(ctx, defs...)
	if err != nil || !slices.Equal(outcomes(res), []admin.Outcome{admin.Created, admin.Created}) {
		t.Fatalf("EnsureTables = %v, %v; want [created created]", outcomes(res), err)
	}
	wantState(t, a, ixName, schema.IndexActive)
	for _, d := range defs {
		if diffs, enabled, err := a.Check(ctx, d); err != nil || diffs != nil || !enabled {
			t.Errorf("Check %s: diffs %v, enabled %v, %v", d.Name(), diffs, enabled, err)
		}
	}
	dropAll(t, a, defs)

	// The index added to an empty data table: active.
	if err := a.Create(ctx, orders); err != nil {
		t.Fatal(err)
	}
	res, err = a.EnsureTables(ctx, defs...)
	if err != nil || !slices.Equal(outcomes(res), []admin.Outcome{admin.Unchanged, admin.Created}) {
		t.Errorf("index over an empty table: %v, %v; want [unchanged created]", outcomes(res), err)
	}
	wantState(t, a, ixName, schema.IndexActive)
	dropAll(t, a, defs[1:])

	// The index added to a data table holding a row: building, on every
	// run, and not drift.
	if err := c.Put(ctx, &hbase.Put{Table: name, Row: []byte("00o1"), Values: map[string]map[string][]byte{"o": {"s": []byte("new")}}}); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		res, err = a.EnsureTables(ctx, defs...)
		if err != nil || !slices.Equal(outcomes(res), []admin.Outcome{admin.Unchanged, admin.NeedsBuilding}) {
			t.Errorf("run %d over a table with rows: %v, %v; want [unchanged needs building]", run, outcomes(res), err)
		}
	}
	if o, err := a.EnsureTable(ctx, defs[1]); err != nil || o != admin.NeedsBuilding || o.String() != "needs building" {
		t.Errorf("EnsureTable of the index = %v, %v; want needs building", o, err)
	}
	wantState(t, a, ixName, schema.IndexBuilding)
	if diffs, _, err := a.Check(ctx, defs[1]); err != nil || diffs != nil {
		t.Errorf("Check of a building index: %v, %v; want no drift", diffs, err)
	}
	dropAll(t, a, defs)
	if _, err := a.IndexState(ctx, ixName); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("IndexState after the drop = %v, want ErrTableNotFound", err)
	}
}

func TestIndexTablesAndState(t *testing.T) {
	ordersScenario(t, newFake(t), "orders")
}

func wantState(t *testing.T, a *admin.Admin, table string, want schema.IndexState) {
	t.Helper()
	if got, err := a.IndexState(context.Background(), table); err != nil || got != want {
		t.Errorf("IndexState(%s) = %q, %v; want %q", table, got, err, want)
	}
}

func dropAll(t *testing.T, a *admin.Admin, defs []schema.Definition) {
	t.Helper()
	for _, d := range defs {
		if err := a.Drop(context.Background(), d.Name().String()); err != nil {
			t.Fatal(err)
		}
	}
}

func tableNamesOf(defs []schema.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name().String()
	}
	return out
}
