// The test of the scratch module tools/scratch-module.sh creates outside
// the checkout: a user's own module, importing only hbkit's released paths.
package scratch

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbasecontainer"
	"github.com/hbkit/hbkit/schema"
)

type Order struct {
	ID       string
	Customer string
	Status   string
	Cents    int64
}

func TestStoreRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ctr, err := hbasecontainer.Run(ctx, os.Getenv("HBKIT_IMAGE"), hbasecontainer.WithHeap("512m"))
	if ctr != nil {
		t.Cleanup(func() {
			if err := ctr.Terminate(context.Background()); err != nil {
				t.Errorf("terminate: %v", err)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	zk, err := ctr.ZK(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatalf("hbase.New(%s): %v", zk, err)
	}
	t.Cleanup(func() { c.Close() })
	ns := hbasecontainer.Namespace(t, c)

	doc := schema.Document{
		Name:     ns + ":orders",
		Families: []schema.DocFamily{{Name: "f"}},
		Key: []schema.DocSegment{
			{Name: "id_md5", Kind: "md5_hex", Width: 2, From: "id"},
			{Name: "id", Kind: "string"},
		},
		Splits: &schema.DocSplits{Regions: 4},
		Columns: []schema.DocColumn{
			{Name: "customer", Family: "f", Qualifier: "c"},
			{Name: "status", Family: "f", Qualifier: "s"},
			{Name: "cents", Family: "f", Qualifier: "a"},
		},
		Indexes: []schema.DocIndex{{
			Name: ns + ":orders_by_status", Families: []schema.DocFamily{{Name: "f"}},
			Key: []schema.DocSegment{{Name: "status", Kind: "string"}, {Name: "id", Kind: "string"}},
		}},
	}
	store, err := dao.Open[Order](ctx, c, doc)
	if err != nil {
		t.Fatalf("dao.Open: %v", err)
	}
	in := Order{ID: "o-1", Customer: "ann", Status: "paid", Cents: 1250}
	if err := store.Put(ctx, &in); err != nil {
		t.Fatal(err)
	}
	got, ok, err := store.Get(ctx, &Order{ID: "o-1"})
	if err != nil || !ok || *got != in {
		t.Fatalf("Get = %+v, %v, %v; want %+v", got, ok, err, in)
	}
	ix, err := store.Index(ns + ":orders_by_status")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for o, err := range ix.Find(ctx, dao.Eq(&Order{Status: "paid"}, "status")) {
		if err != nil {
			t.Fatal(err)
		}
		if o.ID != "o-1" {
			t.Errorf("found %+v", o)
		}
		n++
	}
	if n != 1 {
		t.Errorf("found %d paid orders, want 1", n)
	}
	if err := store.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := store.Put(ctx, &in); !errors.Is(err, dao.ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	t.Logf("round trip through %s (ZooKeeper %s, namespace %s)", os.Getenv("HBKIT_IMAGE"), zk, ns)
}
