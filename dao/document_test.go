package dao_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
)

// parcelsDoc is a document with an index that leaves out its row pointer
// and a UID-coded key segment.
const parcelsDoc = `{
  "version": 1, "name": "parcels_doc",
  "families": [{"name": "p"}],
  "fields": [{"name": "depot_id", "type": "uint64"}, {"name": "depot", "type": "string"},
    {"name": "id", "type": "string"}, {"name": "color", "type": "string"}],
  "key": [{"name": "depot_id", "kind": "custom", "width": 2, "codec": "uid"}, {"name": "id", "kind": "string"}],
  "columns": [{"name": "color", "family": "p", "qualifier": "c", "type": "string"}],
  "uids": [{"segment": "depot_id", "kind": "depot", "width": 2, "field": "depot"}],
  "indexes": [{"name": "parcels_doc_by_color", "families": [{"name": "i"}],
    "key": [{"name": "color", "kind": "string"}, {"name": "depot_id", "kind": "custom", "width": 2, "codec": "uid"},
      {"name": "id", "kind": "string"}]}]
}`

// TestOpenDocument: a store of schema.Values from a document alone, its
// row pointers and UID table filled in; without the UID table the error
// is ErrNeedUIDTable, and a wide table's document is refused.
func TestOpenDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schema.ParseDocument([]byte(parcelsDoc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dao.OpenDocument(c, doc, ""); !errors.Is(err, dao.ErrNeedUIDTable) {
		t.Fatalf("without the UID table: %v, want ErrNeedUIDTable", err)
	}
	u, err := dao.NewUIDs(c, "parcels_doc_uids", []dao.UIDKind{{Name: "depot", Width: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: u.Table().Name().String(),
		Families: []hbase.FamilyDescriptor{{Name: u.Table().Families()[0].Name}}}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := dao.OpenDocument(c, doc, "parcels_doc_uids")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CreateTables(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a1", "a2", "b1"} {
		v := schema.Values{"depot": "north", "id": id, "color": "red"}
		if err := r.Put(ctx, &v); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, err := r.Check(ctx, dao.ModeVerify); err != nil || !rep.Clean() || rep.DataRows != 3 || rep.Entries != 3 {
		t.Fatalf("verify: %+v, %v; want clean, 3 rows and entries", rep, err)
	}
	wide := schema.Document{Version: 1, Name: "w", Wide: &schema.DocWide{}}
	if _, err := dao.OpenDocument(c, wide, ""); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("a wide document: %v, want ErrInvalidOption", err)
	}
}
