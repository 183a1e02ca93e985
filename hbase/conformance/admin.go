package conformance

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// testAdmin walks one table through its life in a namespace of its own:
// create, describe, modify, disable/enable, truncate, split, delete.
func (s *suite) testAdmin(t *testing.T) {
	s.need(t, FullAdmin)
	c := s.newAdminCase(t)
	c.createTable(t)
	c.describeAndModify(t)
	c.wantRegions(t, ",g g,m m,t t,")
	c.disableAndEnable(t)
	c.truncateAndSplit(t)
	c.deleteAll(t)
}

// adminCase is the state testAdmin's steps share: the namespace and the
// table in it, and whether each is dropped already (the cleanups' guard).
type adminCase struct {
	s                  *suite
	ctx                context.Context
	a                  hbapi.AdminClient
	d                  hbapi.DataClient
	ns, name           string
	dropped, nsDropped bool
}

// newAdminCase creates the case's namespace (dropped at cleanup unless
// deleteAll did) and checks it is listed.
func (s *suite) newAdminCase(t *testing.T) *adminCase {
	ctx := s.ctx(t)
	a := s.h.Admin
	base := s.h.NewTableName("conf_admin")
	ns := "ns_" + strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, base)
	c := &adminCase{s: s, ctx: ctx, a: a, d: s.h.Data, ns: ns, name: ns + ":adm"}
	if err := a.CreateNamespace(ctx, ns); err != nil {
		t.Fatalf("CreateNamespace(%s): %v", ns, err)
	}
	t.Cleanup(func() {
		if !c.nsDropped {
			ctx, cancel := context.WithTimeout(context.Background(), s.h.Timeout)
			defer cancel()
			_ = a.DeleteNamespace(ctx, ns)
		}
	})
	wantErr(t, "CreateNamespace twice", a.CreateNamespace(ctx, ns), hbapi.ErrNamespaceExists)
	nss, err := a.ListNamespaces(ctx)
	if err != nil || !slices.Contains(nss, ns) || !slices.Contains(nss, "default") {
		t.Errorf("ListNamespaces = %v, %v; want %s and default in it", nss, err, ns)
	}
	return c
}

// createTable creates the table (pre-split at g, m, t; dropped at cleanup
// unless deleteAll did) and checks the calls that find and list it.
func (c *adminCase) createTable(t *testing.T) {
	ctx, a, ns, name := c.ctx, c.a, c.ns, c.name
	desc := hbapi.TableDescriptor{Name: name, Families: []hbapi.FamilyDescriptor{
		{Name: "f1", Attributes: map[string]string{"VERSIONS": "5", "BLOOMFILTER": "ROWCOL"}},
		{Name: "f2"},
	}}
	if err := a.CreateTable(ctx, desc, [][]byte{b("m"), b("g"), b("t")}); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	t.Cleanup(func() {
		if !c.dropped {
			c.s.dropTable(name)
		}
	})
	wantErr(t, "CreateTable twice", a.CreateTable(ctx, desc, nil), hbapi.ErrTableExists)
	wantErr(t, "CreateTable in a missing namespace",
		a.CreateTable(ctx, hbapi.TableDescriptor{Name: ns + "_missing:t", Families: []hbapi.FamilyDescriptor{{Name: "f"}}}, nil),
		hbapi.ErrNamespaceNotFound)

	if ok, err := a.TableExists(ctx, name); err != nil || !ok {
		t.Errorf("TableExists = %v, %v; want true", ok, err)
	}
	if ok, err := a.TableExists(ctx, ns+":nothing"); err != nil || ok {
		t.Errorf("TableExists(missing) = %v, %v; want false", ok, err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled = %v, %v; want true", ok, err)
	}
	if tables, err := a.ListTables(ctx, ns); err != nil || fmt.Sprint(tables) != "["+name+"]" {
		t.Errorf("ListTables(%s) = %v, %v; want [%s]", ns, tables, err, name)
	}
	if tables, err := a.ListTables(ctx, ""); err != nil || !slices.Contains(tables, name) || !slices.Contains(tables, c.s.data) {
		t.Errorf("ListTables(\"\") = %v, %v; want %s and %s in it", tables, err, name, c.s.data)
	}
}

// describeAndModify checks DescribeTable before and after a ModifyTable
// that changes a family's attribute and adds a family.
func (c *adminCase) describeAndModify(t *testing.T) {
	ctx, a, ns, name := c.ctx, c.a, c.ns, c.name
	got, err := a.DescribeTable(ctx, name)
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	if tn, _ := hbapi.ParseTableName(got.Name); tn.String() != name {
		t.Errorf("DescribeTable name = %q, want %q", got.Name, name)
	}
	if f1, ok := got.Family("f1"); !ok || f1.Attributes["VERSIONS"] != "5" || f1.Attributes["BLOOMFILTER"] != "ROWCOL" {
		t.Errorf("DescribeTable f1 = %+v, want VERSIONS 5 and BLOOMFILTER ROWCOL", f1)
	}
	if _, ok := got.Family("f2"); !ok || len(got.Families) != 2 {
		t.Errorf("DescribeTable families = %+v, want f1 and f2", got.Families)
	}

	// ModifyTable: change a family attribute and add a family.
	mod := hbapi.TableDescriptor{Name: name, Families: []hbapi.FamilyDescriptor{
		{Name: "f1", Attributes: map[string]string{"VERSIONS": "2", "BLOOMFILTER": "ROWCOL"}},
		{Name: "f2"},
		{Name: "f3", Attributes: map[string]string{"IN_MEMORY": "true"}},
	}}
	if err := a.ModifyTable(ctx, mod); err != nil {
		t.Fatalf("ModifyTable: %v", err)
	}
	got, err = a.DescribeTable(ctx, name)
	if err != nil {
		t.Fatalf("DescribeTable after ModifyTable: %v", err)
	}
	if f1, _ := got.Family("f1"); f1.Attributes["VERSIONS"] != "2" {
		t.Errorf("f1 after ModifyTable = %+v, want VERSIONS 2", f1)
	}
	if f3, ok := got.Family("f3"); !ok || !strings.EqualFold(f3.Attributes["IN_MEMORY"], "true") {
		t.Errorf("f3 after ModifyTable = %+v, %v; want IN_MEMORY true", f3, ok)
	}
	wantErr(t, "ModifyTable of a missing table",
		a.ModifyTable(ctx, hbapi.TableDescriptor{Name: ns + ":nothing", Families: []hbapi.FamilyDescriptor{{Name: "f"}}}),
		hbapi.ErrTableNotFound)
	_, err = a.IsTableEnabled(ctx, ns+":nothing")
	wantErr(t, "IsTableEnabled of a missing table", err, hbapi.ErrTableNotFound)
}

// wantRegions checks the table's regions against want (see checkRegions).
func (c *adminCase) wantRegions(t *testing.T, want string) {
	t.Helper()
	regions, err := c.a.TableRegions(c.ctx, c.name)
	if err != nil {
		t.Fatalf("TableRegions: %v", err)
	}
	checkRegions(t, c.name, regions, want)
}

// disableAndEnable checks what an enabled table refuses, what a disabled
// one refuses, and that data survives disable and enable.
func (c *adminCase) disableAndEnable(t *testing.T) {
	s, ctx, a, d, ns, name := c.s, c.ctx, c.a, c.d, c.ns, c.name
	s.put(t, ctx, name, "row-h", 0, "f1", "q", "v")
	s.put(t, ctx, name, "row-z", 0, "f1", "q", "v")
	if got, _ := s.scanTable(t, ctx, name); got != "row-h row-z" {
		t.Errorf("rows = %q, want row-h row-z", got)
	}

	wantErr(t, "DeleteTable of an enabled table", a.DeleteTable(ctx, name), hbapi.ErrTableNotDisabled)
	wantErr(t, "EnableTable of an enabled table", a.EnableTable(ctx, name), hbapi.ErrTableNotDisabled)
	wantErr(t, "TruncateTable of an enabled table", a.TruncateTable(ctx, name, true), hbapi.ErrTableNotDisabled)
	wantErr(t, "DeleteNamespace of a non-empty namespace", a.DeleteNamespace(ctx, ns), hbapi.ErrNamespaceNotEmpty)

	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || ok {
		t.Errorf("IsTableEnabled after disable = %v, %v; want false", ok, err)
	}
	wantErr(t, "DisableTable twice", a.DisableTable(ctx, name), hbapi.ErrTableDisabled)
	_, err := d.Get(ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantErr(t, "Get on a disabled table", err, hbapi.ErrTableDisabled)
	wantErr(t, "Put on a disabled table", d.Put(ctx, &hbapi.Put{Table: name, Row: b("row-h"), Values: vals("f1", "q", "v")}), hbapi.ErrTableDisabled)
	wantErr(t, "Scan on a disabled table", scanErr(ctx, d, &hbapi.Scan{Table: name}), hbapi.ErrTableDisabled)

	if err := a.EnableTable(ctx, name); err != nil {
		t.Fatalf("EnableTable: %v", err)
	}
	r := s.get(t, ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantCells(t, "data survives disable/enable", r, false, "f1:q=v")
}

// truncateAndSplit truncates the table (keeping its splits), splits a
// region and writes across the new boundary and to the added family.
func (c *adminCase) truncateAndSplit(t *testing.T) {
	s, ctx, a, name := c.s, c.ctx, c.a, c.name
	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := a.TruncateTable(ctx, name, true); err != nil {
		t.Fatalf("TruncateTable: %v", err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled after truncate = %v, %v; want true", ok, err)
	}
	if got, _ := s.scanTable(t, ctx, name); got != "" {
		t.Errorf("rows after truncate = %q, want none", got)
	}
	c.wantRegions(t, ",g g,m m,t t,")

	if err := a.SplitRegion(ctx, name, b("p")); err != nil {
		t.Fatalf("SplitRegion: %v", err)
	}
	// The new boundaries may take a moment to show in hbase:meta.
	deadline := time.Now().Add(30 * time.Second)
	for {
		regions, err := a.TableRegions(ctx, name)
		if err == nil && len(regions) == 5 {
			checkRegions(t, name, regions, ",g g,m m,p p,t t,")
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("after SplitRegion(p): regions %v, %v; want 5", regions, err)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.put(t, ctx, name, "q-row", 0, "f2", "q", "after split", "f3", "q", "new family")
	r := s.get(t, ctx, &hbapi.Get{Table: name, Row: b("q-row")})
	wantCells(t, "write after split", r, false, "f2:q=after split f3:q=new family")
}

// deleteAll deletes the table, then the namespace, and checks the calls
// that must find neither.
func (c *adminCase) deleteAll(t *testing.T) {
	ctx, a, d, ns, name := c.ctx, c.a, c.d, c.ns, c.name
	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := a.DeleteTable(ctx, name); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	c.dropped = true
	if ok, err := a.TableExists(ctx, name); err != nil || ok {
		t.Errorf("TableExists after delete = %v, %v; want false", ok, err)
	}
	_, err := d.Get(ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantErr(t, "Get on a deleted table", err, hbapi.ErrTableNotFound)
	_, err = a.DescribeTable(ctx, name)
	wantErr(t, "DescribeTable of a deleted table", err, hbapi.ErrTableNotFound)
	wantErr(t, "DisableTable of a deleted table", a.DisableTable(ctx, name), hbapi.ErrTableNotFound)

	if err := a.DeleteNamespace(ctx, ns); err != nil {
		t.Fatalf("DeleteNamespace: %v", err)
	}
	c.nsDropped = true
	_, err = a.ListTables(ctx, ns)
	wantErr(t, "ListTables of a deleted namespace", err, hbapi.ErrNamespaceNotFound)
	wantErr(t, "DeleteNamespace twice", a.DeleteNamespace(ctx, ns), hbapi.ErrNamespaceNotFound)
}

// scanTable returns the row keys of a whole table.
func (s *suite) scanTable(t *testing.T, ctx context.Context, table string) (string, int) {
	t.Helper()
	var rows []string
	for r, err := range hbapi.ScanAll(ctx, s.h.Data, &hbapi.Scan{Table: table}) {
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		rows = append(rows, string(r.Row()))
	}
	return strings.Join(rows, " "), len(rows)
}

// checkRegions compares region boundaries with want, written as
// "start,end start,end ..." and checks that the regions tile the key space.
func checkRegions(t *testing.T, table string, regions []hbapi.RegionInfo, want string) {
	t.Helper()
	var got []string
	for i, r := range regions {
		got = append(got, string(r.StartKey)+","+string(r.EndKey))
		if tn, _ := hbapi.ParseTableName(r.Table); tn.String() != table {
			t.Errorf("region %d table = %q, want %q", i, r.Table, table)
		}
		if len(r.RegionName) == 0 {
			t.Errorf("region %d has no name", i)
		}
		if i > 0 && !bytes.Equal(regions[i-1].EndKey, r.StartKey) {
			t.Errorf("region %d starts at %q, previous ends at %q", i, r.StartKey, regions[i-1].EndKey)
		}
	}
	if strings.Join(got, " ") != want {
		t.Errorf("regions = %q, want %q", strings.Join(got, " "), want)
	}
}
