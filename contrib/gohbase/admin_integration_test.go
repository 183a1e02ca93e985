//go:build integration

package gohbase_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	hbgohbase "github.com/hbkit/hbkit/contrib/gohbase"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
)

var itNames = conformance.NameGenerator("itgohbase")

func itCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error = %v, want errors.Is(%v)", what, err, target)
	}
}

// dropLater drops table through a when t
// ends, if it still exists.
func dropLater(t testing.TB, a hbase.AdminClient, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if ok, err := a.TableExists(ctx, table); err != nil || !ok {
			return
		}
		_ = a.DisableTable(ctx, table)
		if err := a.DeleteTable(ctx, table); err != nil {
			t.Errorf("cleanup: delete %s: %v", table, err)
		}
	})
}

// TestIntegrationAdmin covers the admin calls the adapter offers, the
// ones conformance's Admin test cannot reach without namespaces: table
// DDL with split keys and family attributes, state, regions, listing,
// HBase's errors mapped onto hbase's sentinels, and the calls it refuses.
func TestIntegrationAdmin(t *testing.T) {
	c := adapter(t)
	ctx := itCtx(t, 5*time.Minute)
	name := itNames("admin")
	dropLater(t, c, name)
	desc := hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{
		{Name: "f1", Attributes: map[string]string{"VERSIONS": "5", "BLOOMFILTER": "ROWCOL"}},
		{Name: "f2"},
	}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("m"), []byte("g"), []byte("t")}); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	wantErr(t, "CreateTable twice", c.CreateTable(ctx, desc, nil), hbase.ErrTableExists)

	if ok, err := c.TableExists(ctx, name); err != nil || !ok {
		t.Errorf("TableExists = %v, %v; want true", ok, err)
	}
	if ok, err := c.TableExists(ctx, name+"_nothing"); err != nil || ok {
		t.Errorf("TableExists(missing) = %v, %v; want false", ok, err)
	}
	// A name that only matches as a regular expression is not the table.
	if ok, err := c.TableExists(ctx, strings.Replace(name, "_", ".", 1)); err != nil || ok {
		t.Errorf("TableExists(a regexp of the name) = %v, %v; want false", ok, err)
	}
	if ok, err := c.TableExists(ctx, "nsnothing_x:t"); err != nil || ok {
		t.Errorf("TableExists(missing namespace) = %v, %v; want false", ok, err)
	}
	if ok, err := c.TableExists(ctx, "hbase:meta"); err != nil || !ok {
		t.Errorf("TableExists(hbase:meta) = %v, %v; want true", ok, err)
	}
	if tables, err := c.ListTables(ctx, ""); err != nil || !slices.Contains(tables, name) || !slices.IsSorted(tables) {
		t.Errorf("ListTables(\"\") = %d tables, %v; want %s among them, sorted", len(tables), err, name)
	} else if slices.ContainsFunc(tables, func(s string) bool { return strings.HasPrefix(s, "hbase:") }) {
		t.Errorf("ListTables(\"\") lists system tables: %v", tables)
	}
	if tables, err := c.ListTables(ctx, "default"); err != nil || !slices.Contains(tables, name) {
		t.Errorf("ListTables(default) = %d tables, %v; want %s among them", len(tables), err, name)
	}
	if tables, err := c.ListTables(ctx, "hbase"); err != nil || !slices.Contains(tables, "hbase:meta") {
		t.Errorf("ListTables(hbase) = %v, %v; want hbase:meta among them", tables, err)
	}
	_, err := c.ListTables(ctx, "nsnothing_x")
	wantErr(t, "ListTables of a missing namespace", err, hbase.ErrNamespaceNotFound)

	if ok, err := c.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled = %v, %v; want true", ok, err)
	}
	_, err = c.IsTableEnabled(ctx, name+"_nothing")
	wantErr(t, "IsTableEnabled of a missing table", err, hbase.ErrTableNotFound)

	regions, err := c.TableRegions(ctx, name)
	if err != nil {
		t.Fatalf("TableRegions: %v", err)
	}
	var bounds []string
	for i, r := range regions {
		bounds = append(bounds, string(r.StartKey)+","+string(r.EndKey))
		if r.Table != name || len(r.RegionName) == 0 || r.Server == "" || r.ID == 0 {
			t.Errorf("region %d = %+v, want table %s, a name, a server and an id", i, r, name)
		}
	}
	if got := strings.Join(bounds, " "); got != ",g g,m m,t t," {
		t.Errorf("regions = %q, want \",g g,m m,t t,\"", got)
	}
	_, err = c.TableRegions(ctx, name+"_nothing")
	wantErr(t, "TableRegions of a missing table", err, hbase.ErrTableNotFound)

	// Families get HBase's defaults, not gohbase's: f2 keeps one version
	// (gohbase alone would create it with three), f1 the five declared.
	for _, ts := range []int64{100, 200, 300, 400, 500, 600} {
		v := fmt.Sprint(ts)
		if err := c.Put(ctx, &hbase.Put{Table: name, Row: []byte("h"), Timestamp: ts,
			Values: map[string]map[string][]byte{"f1": {"q": []byte(v)}, "f2": {"q": []byte(v)}}}); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	// "default:" spells the same table.
	r, err := c.Get(ctx, &hbase.Get{Table: "default:" + name, Row: []byte("h"), MaxVersions: hbase.AllVersions})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if n1, n2 := len(r.Versions([]byte("f1"), []byte("q"))), len(r.Versions([]byte("f2"), []byte("q"))); n1 != 5 || n2 != 1 {
		t.Errorf("versions kept: f1 %d, f2 %d; want 5 and 1", n1, n2)
	}

	wantErr(t, "DeleteTable of an enabled table", c.DeleteTable(ctx, name), hbase.ErrTableNotDisabled)
	wantErr(t, "EnableTable of an enabled table", c.EnableTable(ctx, name), hbase.ErrTableNotDisabled)
	if err := c.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if ok, err := c.IsTableEnabled(ctx, name); err != nil || ok {
		t.Errorf("IsTableEnabled after disable = %v, %v; want false", ok, err)
	}
	wantErr(t, "DisableTable twice", c.DisableTable(ctx, name), hbase.ErrTableDisabled)
	// gohbase waits for a disabled table until the call's context ends.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = c.Get(short, &hbase.Get{Table: name, Row: []byte("h")})
	cancel()
	wantErr(t, "Get on a disabled table", err, context.DeadlineExceeded)
	if err := c.EnableTable(ctx, name); err != nil {
		t.Fatalf("EnableTable: %v", err)
	}
	if r, err := c.Get(ctx, &hbase.Get{Table: name, Row: []byte("h"), Families: [][]byte{[]byte("f2")}}); err != nil || string(r.Value([]byte("f2"), []byte("q"))) != "600" {
		t.Errorf("Get after enable = %v, %v; want f2:q=600", r, err)
	}
	if err := c.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := c.DeleteTable(ctx, name); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	if ok, err := c.TableExists(ctx, name); err != nil || ok {
		t.Errorf("TableExists after delete = %v, %v; want false", ok, err)
	}
	_, err = c.Get(ctx, &hbase.Get{Table: name, Row: []byte("h")})
	wantErr(t, "Get on a deleted table", err, hbase.ErrTableNotFound)
	wantErr(t, "DisableTable of a deleted table", c.DisableTable(ctx, name), hbase.ErrTableNotFound)
	wantErr(t, "DeleteTable of a deleted table", c.DeleteTable(ctx, name), hbase.ErrTableNotFound)

	// What gohbase cannot do fails before anything is sent.
	fam := []hbase.FamilyDescriptor{{Name: "f"}}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"CreateNamespace", c.CreateNamespace(ctx, "ns_x")},
		{"DeleteNamespace", c.DeleteNamespace(ctx, "ns_x")},
		{"ListNamespaces", second(c.ListNamespaces(ctx))},
		{"TruncateTable", c.TruncateTable(ctx, name, true)},
		{"ModifyTable", c.ModifyTable(ctx, hbase.TableDescriptor{Name: name, Families: fam})},
		{"DescribeTable", second(c.DescribeTable(ctx, name))},
		{"SplitRegion", c.SplitRegion(ctx, name, []byte("p"))},
		{"CreateTable in a namespace", c.CreateTable(ctx, hbase.TableDescriptor{Name: "ns_x:t", Families: fam}, nil)},
		{"DisableTable in a namespace", c.DisableTable(ctx, "ns_x:t")},
		{"CreateTable with a family attribute gohbase drops", c.CreateTable(ctx,
			hbase.TableDescriptor{Name: name + "_attr", Families: []hbase.FamilyDescriptor{{Name: "f", Attributes: map[string]string{"IS_MOB": "true"}}}}, nil)},
	} {
		var ue *hbgohbase.UnsupportedError
		if !errors.Is(tc.err, hbgohbase.ErrUnsupported) || !errors.Is(tc.err, errors.ErrUnsupported) || !errors.As(tc.err, &ue) {
			t.Errorf("%s: error = %v, want an *UnsupportedError", tc.name, tc.err)
		}
	}
	if ok, err := c.TableExists(ctx, name+"_attr"); err != nil || ok {
		t.Errorf("TableExists(%s_attr) = %v, %v; want false: nothing was sent", name, ok, err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestIntegrationAdminOtherNamespace: TableExists, IsTableEnabled and
// TableRegions reach tables of every namespace (gohbase's DDL does not);
// the table here is made by hbkit's native client.
func TestIntegrationAdminOtherNamespace(t *testing.T) {
	native := nativeClient(t)
	c := adapter(t)
	ctx := itCtx(t, 5*time.Minute)
	ns := "ns_" + itNames("admin")
	if err := native.CreateNamespace(ctx, ns); err != nil {
		t.Fatalf("CreateNamespace: %v", err)
	}
	name := ns + ":t"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = native.DisableTable(ctx, name)
		_ = native.DeleteTable(ctx, name)
		if err := native.DeleteNamespace(ctx, ns); err != nil {
			t.Errorf("cleanup: delete namespace %s: %v", ns, err)
		}
	})
	if err := native.CreateTable(ctx, hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "f"}}}, [][]byte{[]byte("k")}); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if ok, err := c.TableExists(ctx, name); err != nil || !ok {
		t.Errorf("TableExists(%s) = %v, %v; want true", name, ok, err)
	}
	if ok, err := c.TableExists(ctx, ns+":other"); err != nil || ok {
		t.Errorf("TableExists(%s:other) = %v, %v; want false", ns, ok, err)
	}
	if tables, err := c.ListTables(ctx, ns); err != nil || fmt.Sprint(tables) != "["+name+"]" {
		t.Errorf("ListTables(%s) = %v, %v; want [%s]", ns, tables, err, name)
	}
	if ok, err := c.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled(%s) = %v, %v; want true", name, ok, err)
	}
	regions, err := c.TableRegions(ctx, name)
	if err != nil || len(regions) != 2 || string(regions[1].StartKey) != "k" || regions[0].Table != name {
		t.Errorf("TableRegions(%s) = %+v, %v; want two regions split at k", name, regions, err)
	}
	// Data calls reach every namespace.
	if err := c.Put(ctx, &hbase.Put{Table: name, Row: []byte("z"), Values: map[string]map[string][]byte{"f": {"q": []byte("v")}}}); err != nil {
		t.Fatalf("Put: %v", err)
	}
	r, err := native.Get(ctx, &hbase.Get{Table: name, Row: []byte("z")})
	if err != nil || string(r.Value([]byte("f"), []byte("q"))) != "v" {
		t.Errorf("native Get of the adapter's Put = %v, %v", r, err)
	}
}
