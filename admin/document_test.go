package admin_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// docClient is what documentScenario needs: DDL and ModifyTable.
type docClient interface {
	admin.Client
	admin.DescriptorWriter
}

// documentScenario checks, on c, that EnsureTables stores a data table's
// schema document with the table (issue 35), that ReadDocument reads it
// back equal, that a changed declaration is drift, that a table created
// without a document gets it, and that the stored document, given as a
// schema file, is the same schema. name is the data table's name.
func documentScenario(t *testing.T, c docClient, name string) {
	ctx := context.Background()
	a := newAdmin(t, c)
	orders := documentedOrders(t, name)
	defs := admin.WithIndexTables(orders)
	want, err := orders.Document()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.EnsureTables(ctx, defs...); err != nil {
		t.Fatalf("EnsureTables = %v, %v", outcomes(res), err)
	}
	if got, err := a.ReadDocument(ctx, name); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadDocument = %+v, %v; want %+v", got, err, want)
	}
	if _, err := a.ReadDocument(ctx, name+"_by_status"); !errors.Is(err, admin.ErrNoDocument) {
		t.Errorf("ReadDocument of the index table = %v, want ErrNoDocument (its data table's document holds it)", err)
	}

	// A changed declaration of the same table is drift, and names the change.
	changed := want
	changed.Columns = slices.Clone(want.Columns)
	changed.Columns[0].Qualifier = "S"
	t2, err := schema.Open(changed)
	if err != nil {
		t.Fatal(err)
	}
	wantDiff := admin.Diff{Kind: admin.SchemaDocument, Option: "columns[0].qualifier", Declared: `"S"`, Actual: `"s"`}
	_, err = a.EnsureTable(ctx, t2)
	var drift *admin.DriftError
	if !errors.As(err, &drift) || !slices.ContainsFunc(drift.Diffs, func(d admin.Diff) bool { return reflect.DeepEqual(d, wantDiff) }) {
		t.Errorf("EnsureTable of a changed declaration = %v, want drift %v", err, wantDiff)
	}
	if diffs, _, err := a.Check(ctx, orders); err != nil || diffs != nil {
		t.Errorf("Check of the declared table: %v, %v; want no drift", diffs, err)
	}

	// The stored document, read as a schema file, is the same schema: no drift.
	j, err := want.JSON()
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := admin.ParseSchemaFile(bytes.NewReader(j))
	if err != nil || !slices.Equal(tableNamesOf(fromFile), tableNamesOf(defs)) {
		t.Fatalf("ParseSchemaFile of the document = %v, %v; want %v", tableNamesOf(fromFile), err, tableNamesOf(defs))
	}
	if res, err := a.EnsureTables(ctx, fromFile...); err != nil || !slices.Equal(outcomes(res), []admin.Outcome{admin.Unchanged, admin.Unchanged}) {
		t.Errorf("EnsureTables of the document file = %v, %v; want unchanged", outcomes(res), err)
	}

	// A table created before documents were stored gets its document.
	dropAll(t, a, defs[:1])
	p, err := admin.PlanTable(orders)
	if err != nil {
		t.Fatal(err)
	}
	desc := p.Descriptor
	desc.Attributes = nil
	if err := c.CreateTable(ctx, desc, p.SplitKeys); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadDocument(ctx, name); !errors.Is(err, admin.ErrNoDocument) {
		t.Fatalf("ReadDocument before EnsureTable = %v, want ErrNoDocument", err)
	}
	if o, err := a.EnsureTable(ctx, orders); err != nil || o != admin.Unchanged {
		t.Errorf("EnsureTable of a table without a document = %v, %v; want unchanged", o, err)
	}
	if got, err := a.ReadDocument(ctx, name); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadDocument after EnsureTable = %+v, %v; want the declared document", got, err)
	}
	dropAll(t, a, defs)
	if _, err := a.ReadDocument(ctx, name); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("ReadDocument of a dropped table = %v, want ErrTableNotFound", err)
	}
}

// documentedOrders is ordersTable with the source of its hash declared
// (Spec.From), which its document needs.
func documentedOrders(t testing.TB, name string) *schema.Table[Order] {
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
		Name: name, Families: fams, Key: key, Splits: schema.Splits{Regions: 4}, From: map[string]string{"id_md5": "id"},
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

// TestDocumentNotExportable: a declaration that cannot describe itself
// (a hash whose source is not declared) is created without a document,
// and its plan says why.
func TestDocumentNotExportable(t *testing.T) {
	p, err := admin.PlanTable(ordersTable(t, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Descriptor.Attributes[schema.DocumentAttribute]; ok || !errors.Is(p.DocumentErr, schema.ErrUnknownField) {
		t.Errorf("plan attributes %v, DocumentErr %v; want no document and ErrUnknownField", p.Descriptor.Attributes, p.DocumentErr)
	}
}

func TestDocumentStoredWithTable(t *testing.T) {
	documentScenario(t, newFake(t), "orders")
}

func TestParseSchemaFileDocumentErrors(t *testing.T) {
	_, err := admin.ParseSchemaFile(bytes.NewReader([]byte(`{"version": 1, "name": "t", "families": [{"name": "f"}], "fields": [], "key": [{"name": "k", "kind": "digits"}]}`)))
	var se *schema.Error
	if !errors.Is(err, admin.ErrInvalidSchema) || !errors.As(err, &se) || se.Field != "key[0].width" {
		t.Errorf("document without a width: %v, want ErrInvalidSchema naming key[0].width", err)
	}
}
