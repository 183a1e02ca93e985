package nsclient

import (
	"context"
	"slices"
	"testing"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

func TestNamespaced(t *testing.T) {
	ctx := context.Background()
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, cleanup, err := Setup(ctx, f, "nstest")
	if err != nil {
		t.Fatal(err)
	}
	desc := hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "f"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	// The table lives in the namespace; the wrapper calls it "t".
	if ok, err := f.TableExists(ctx, "nstest:t"); err != nil || !ok {
		t.Fatalf("TableExists(nstest:t) = %v, %v; want true", ok, err)
	}
	if ok, err := f.TableExists(ctx, "t"); err != nil || ok {
		t.Fatalf("TableExists(t) = %v, %v; want false", ok, err)
	}
	regions, err := c.TableRegions(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 2 || regions[0].Table != "t" {
		t.Errorf("TableRegions = %+v, want 2 regions of table t", regions)
	}
	if d, err := c.DescribeTable(ctx, "t"); err != nil || d.Name != "t" {
		t.Errorf("DescribeTable = %q, %v; want t", d.Name, err)
	}
	if ts, err := c.ListTables(ctx, "nstest"); err != nil || !slices.Equal(ts, []string{"t"}) {
		t.Errorf("ListTables = %v, %v; want [t]", ts, err)
	}

	// Data calls, single and batched, go to the namespaced table.
	put := &hbase.Put{Table: "t", Row: []byte("a"), Values: map[string]map[string][]byte{"f": {"q": []byte("1")}}}
	if err := c.Put(ctx, put); err != nil {
		t.Fatal(err)
	}
	if put.Table != "t" {
		t.Errorf("the caller's Put was changed: table %q", put.Table)
	}
	if _, err := c.Batch(ctx, []hbase.Action{&hbase.Put{Table: "t", Row: []byte("z"), Values: put.Values}}); err != nil {
		t.Fatal(err)
	}
	ok, err := c.CheckAndMutate(ctx, &hbase.CheckAndMutate{Table: "t", Row: []byte("a"), Family: []byte("f"), Qualifier: []byte("q"),
		Value: []byte("1"), Mutations: []hbase.Mutation{&hbase.Put{Table: "t", Row: []byte("a"), Values: map[string]map[string][]byte{"f": {"q": []byte("2")}}}}})
	if err != nil || !ok {
		t.Fatalf("CheckAndMutate = %v, %v; want true", ok, err)
	}
	var rows []string
	for r, err := range hbase.ScanAll(ctx, f, &hbase.Scan{Table: "nstest:t"}) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, string(r.Row())+"="+string(r.Value([]byte("f"), []byte("q"))))
	}
	if want := []string{"a=2", "z=1"}; !slices.Equal(rows, want) {
		t.Errorf("rows of nstest:t = %v, want %v", rows, want)
	}

	if err := cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	nss, err := f.ListNamespaces(ctx)
	if err != nil || slices.Contains(nss, "nstest") {
		t.Errorf("namespaces after cleanup = %v, %v; want no nstest", nss, err)
	}
}
