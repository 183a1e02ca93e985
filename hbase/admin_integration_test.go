//go:build integration

package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The admin half of the native client against a real HBase (make
// hbase-up). HBKIT_ZK names the ZooKeeper quorum (default
// 127.0.0.1:2181). Every table is run-unique and dropped at the end.
//
//	go test -tags integration -run TestAdminIntegration ./hbase/

func adminITClient(t *testing.T) *Client {
	t.Helper()
	zkq := os.Getenv("HBKIT_ZK")
	if zkq == "" {
		zkq = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := New(ctx, zkq)
	if err != nil {
		t.Fatalf("New(%s): %v", zkq, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func adminITCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// adminITName returns a run-unique table qualifier.
func adminITName(base string) string {
	return "hbkit_it_" + base + "_" + strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
}

// adminITDrop disables and deletes a table at the end of the test.
func adminITDrop(t *testing.T, c *Client, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if ok, err := c.TableExists(ctx, table); err != nil || !ok {
			return
		}
		_ = c.DisableTable(ctx, table)
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Errorf("cleanup: DeleteTable(%s): %v", table, err)
		}
	})
}

func adminITWant(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: err = %v, want %v", what, err, sentinel)
	}
}

// regionBounds renders regions as "start-end" with hex keys.
func regionBounds(regions []RegionInfo) []string {
	out := make([]string, len(regions))
	for i, r := range regions {
		out[i] = fmt.Sprintf("%x-%x", r.StartKey, r.EndKey)
	}
	return out
}

func wantBounds(splits [][]byte) []string {
	var out []string
	prev := []byte{}
	for _, k := range splits {
		out = append(out, fmt.Sprintf("%x-%x", prev, k))
		prev = k
	}
	return append(out, fmt.Sprintf("%x-", prev))
}

func checkRegionsOpen(t *testing.T, table string, regions []RegionInfo) {
	t.Helper()
	for i, r := range regions {
		if r.Server == "" {
			t.Errorf("region %d (%q) of %s has no server", i, r.RegionName, table)
		}
		if r.Table != table {
			t.Errorf("region %d table = %q, want %q", i, r.Table, table)
		}
		if len(r.RegionName) == 0 || r.ID <= 0 {
			t.Errorf("region %d: name %q, id %d", i, r.RegionName, r.ID)
		}
	}
}

// adminITCount counts the rows of a table.
func adminITCount(t *testing.T, ctx context.Context, c *Client, table string) int {
	t.Helper()
	n := 0
	for _, err := range ScanAll(ctx, c, &Scan{Table: table}) {
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		n++
	}
	return n
}

// Pre-split create, split, truncate keeping the splits.
func TestAdminIntegrationRegions(t *testing.T) {
	c := adminITClient(t)
	ctx := adminITCtx(t)
	table := adminITName("regions")
	adminITDrop(t, c, table)

	// 20 binary split keys, given out of order.
	var splits [][]byte
	for i := 1; i <= 20; i++ {
		splits = append(splits, []byte{byte(i * 12), 0x00, byte(i)})
	}
	shuffled := slices.Clone(splits)
	slices.Reverse(shuffled)
	shuffled[3], shuffled[11] = shuffled[11], shuffled[3]
	if err := c.CreateTable(ctx, TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "cf"}}}, shuffled); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	regions, err := c.TableRegions(ctx, table)
	if err != nil {
		t.Fatalf("TableRegions: %v", err)
	}
	if len(regions) != 21 {
		t.Fatalf("got %d regions, want 21: %v", len(regions), regionBounds(regions))
	}
	if got, want := regionBounds(regions), wantBounds(splits); !slices.Equal(got, want) {
		t.Errorf("region bounds\n got %v\nwant %v", got, want)
	}
	checkRegionsOpen(t, table, regions)

	// Split the region [splits[4], splits[5]) in its middle.
	mid := []byte{splits[4][0] + 6}
	if err := c.SplitRegion(ctx, table, mid); err != nil {
		t.Fatalf("SplitRegion(%x): %v", mid, err)
	}
	regions, err = c.TableRegions(ctx, table)
	if err != nil {
		t.Fatalf("TableRegions after split: %v", err)
	}
	withMid := slices.Insert(slices.Clone(splits), 5, mid)
	if got, want := regionBounds(regions), wantBounds(withMid); !slices.Equal(got, want) {
		t.Errorf("region bounds after split\n got %v\nwant %v", got, want)
	}
	if len(regions) == 22 {
		a, b := regions[5], regions[6]
		if !bytes.Equal(a.StartKey, splits[4]) || !bytes.Equal(a.EndKey, mid) || !bytes.Equal(b.StartKey, mid) || !bytes.Equal(b.EndKey, splits[5]) {
			t.Errorf("daughters = [%x,%x) [%x,%x), want [%x,%x) [%x,%x)", a.StartKey, a.EndKey, b.StartKey, b.EndKey, splits[4], mid, mid, splits[5])
		}
		if a.ID == regions[4].ID && a.ID == regions[7].ID {
			t.Errorf("daughters kept the parent's region id %d", a.ID)
		}
	}
	checkRegionsOpen(t, table, regions)
	err = c.SplitRegion(ctx, table, splits[7])
	adminITWant(t, "SplitRegion at a region boundary", err, ErrInvalidSplitKeys)

	// Rows in several regions, gone after the truncate.
	for _, k := range [][]byte{{0x01}, splits[4], mid, {0xff, 0xff}} {
		if err := c.Put(ctx, &Put{Table: table, Row: k, Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}}); err != nil {
			t.Fatalf("Put(%x): %v", k, err)
		}
	}
	if n := adminITCount(t, ctx, c, table); n != 4 {
		t.Fatalf("rows before truncate = %d, want 4", n)
	}

	// Truncate, keeping the splits: same boundaries, table enabled.
	if err := c.DisableTable(ctx, table); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	adminITWant(t, "SplitRegion of a disabled table", c.SplitRegion(ctx, table, []byte{0x01}), ErrTableDisabled)
	if err := c.TruncateTable(ctx, table, true); err != nil {
		t.Fatalf("TruncateTable(preserveSplits): %v", err)
	}
	if ok, err := c.IsTableEnabled(ctx, table); err != nil || !ok {
		t.Errorf("IsTableEnabled after truncate = %v, %v; want true", ok, err)
	}
	regions, err = c.TableRegions(ctx, table)
	if err != nil {
		t.Fatalf("TableRegions after truncate: %v", err)
	}
	if got, want := regionBounds(regions), wantBounds(withMid); !slices.Equal(got, want) {
		t.Errorf("region bounds after truncate\n got %v\nwant %v", got, want)
	}
	checkRegionsOpen(t, table, regions)
	if n := adminITCount(t, ctx, c, table); n != 0 {
		t.Errorf("rows after truncate = %d, want 0", n)
	}

	// Truncate without the splits: one region.
	if err := c.DisableTable(ctx, table); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := c.TruncateTable(ctx, table, false); err != nil {
		t.Fatalf("TruncateTable: %v", err)
	}
	regions, err = c.TableRegions(ctx, table)
	if err != nil || len(regions) != 1 {
		t.Errorf("TableRegions after truncate without splits = %v, %v; want one region", regionBounds(regions), err)
	}
}

// The seed-001 family options in a namespace, Snappy included: the table's
// regions open only if the region server can load the codec.
func TestAdminIntegrationNamespaceAndOptions(t *testing.T) {
	c := adminITClient(t)
	ctx := adminITCtx(t)
	const ns = "hbkit_it_ns"
	if err := c.CreateNamespace(ctx, ns); err != nil && !errors.Is(err, ErrNamespaceExists) {
		t.Fatalf("CreateNamespace(%s): %v", ns, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// Another run may still use the namespace.
		if err := c.DeleteNamespace(ctx, ns); err != nil && !errors.Is(err, ErrNamespaceNotEmpty) {
			t.Errorf("cleanup: DeleteNamespace(%s): %v", ns, err)
		}
	})
	adminITWant(t, "CreateNamespace twice", c.CreateNamespace(ctx, ns), ErrNamespaceExists)
	nss, err := c.ListNamespaces(ctx)
	if err != nil || !slices.Contains(nss, ns) || !slices.Contains(nss, DefaultNamespace) || !slices.Contains(nss, SystemNamespace) {
		t.Errorf("ListNamespaces = %v, %v; want %s, default and hbase in it", nss, err, ns)
	}

	table := ns + ":" + adminITName("tbl")
	seed := map[string]string{
		"BLOOMFILTER": "ROW",
		"BLOCKSIZE":   "65536",
		"VERSIONS":    "3",
		"COMPRESSION": "SNAPPY",
		"BLOCKCACHE":  "true",
		"IN_MEMORY":   "false",
		"TTL":         "3600",
	}
	desc := TableDescriptor{Name: table, Families: []FamilyDescriptor{
		{Name: "d", Attributes: seed},
		{Name: "m", Attributes: map[string]string{"VERSIONS": "1", "BLOOMFILTER": "rowcol", "DATA_BLOCK_ENCODING": "FAST_DIFF"}},
	}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("5")}); err != nil {
		t.Fatalf("CreateTable(%s): %v", table, err)
	}
	adminITDrop(t, c, table)

	regions, err := c.TableRegions(ctx, table)
	if err != nil || len(regions) != 2 {
		t.Fatalf("TableRegions = %v, %v; want 2 regions", regionBounds(regions), err)
	}
	checkRegionsOpen(t, table, regions)

	// Both regions serve the Snappy family.
	for _, row := range []string{"1", "7"} {
		if err := c.Put(ctx, &Put{Table: table, Row: []byte(row), Values: map[string]map[string][]byte{"d": {"q": []byte("snappy " + row)}}}); err != nil {
			t.Fatalf("Put(%s): %v", row, err)
		}
		r, err := c.Get(ctx, &Get{Table: table, Row: []byte(row)})
		if err != nil || string(r.Value([]byte("d"), []byte("q"))) != "snappy "+row {
			t.Fatalf("Get(%s) = %v, %v", row, r, err)
		}
	}

	got, err := c.DescribeTable(ctx, table)
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	if got.Name != table {
		t.Errorf("DescribeTable name = %q, want %q", got.Name, table)
	}
	d, ok := got.Family("d")
	if !ok {
		t.Fatalf("DescribeTable families = %+v, want d", got.Families)
	}
	for k, v := range seed {
		if d.Attributes[k] != v {
			t.Errorf("family d %s = %q, want %q (all: %v)", k, d.Attributes[k], v, d.Attributes)
		}
	}
	m, _ := got.Family("m")
	if m.Attributes["BLOOMFILTER"] != "ROWCOL" || m.Attributes["DATA_BLOCK_ENCODING"] != "FAST_DIFF" || m.Attributes["TTL"] != "2147483647" {
		t.Errorf("family m = %v; want BLOOMFILTER ROWCOL, DATA_BLOCK_ENCODING FAST_DIFF and the default TTL", m.Attributes)
	}

	tables, err := c.ListTables(ctx, ns)
	if err != nil || !slices.Contains(tables, table) {
		t.Errorf("ListTables(%s) = %v, %v; want %s in it", ns, tables, err, table)
	}
	all, err := c.ListTables(ctx, "")
	if err != nil || !slices.Contains(all, table) || slices.ContainsFunc(all, func(s string) bool { return s == "hbase:meta" }) {
		t.Errorf("ListTables(\"\") = %v, %v; want %s and no system table", all, err, table)
	}
	if sys, err := c.ListTables(ctx, SystemNamespace); err != nil || !slices.Contains(sys, "hbase:meta") {
		t.Errorf("ListTables(hbase) = %v, %v; want hbase:meta in it", sys, err)
	}
	adminITWant(t, "DeleteNamespace of a non-empty namespace", c.DeleteNamespace(ctx, ns), ErrNamespaceNotEmpty)

	// ModifyTable: describe, change, send back.
	got.Families = slices.DeleteFunc(got.Families, func(f FamilyDescriptor) bool { return f.Name == "m" })
	got.Families[0].Attributes["VERSIONS"] = "5"
	got.Families = append(got.Families, FamilyDescriptor{Name: "n", Attributes: map[string]string{"IN_MEMORY": "TRUE"}})
	if err := c.ModifyTable(ctx, got); err != nil {
		t.Fatalf("ModifyTable: %v", err)
	}
	after, err := c.DescribeTable(ctx, table)
	if err != nil {
		t.Fatalf("DescribeTable after ModifyTable: %v", err)
	}
	var names []string
	for _, f := range after.Families {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"d", "n"}) {
		t.Errorf("families after ModifyTable = %v, want [d n]", names)
	}
	if d, _ := after.Family("d"); d.Attributes["VERSIONS"] != "5" || d.Attributes["COMPRESSION"] != "SNAPPY" {
		t.Errorf("family d after ModifyTable = %v, want VERSIONS 5, COMPRESSION SNAPPY", d.Attributes)
	}
	if n, _ := after.Family("n"); n.Attributes["IN_MEMORY"] != "true" {
		t.Errorf("family n after ModifyTable = %v, want IN_MEMORY true", n.Attributes)
	}
	regions, err = c.TableRegions(ctx, table)
	if err != nil || len(regions) != 2 {
		t.Fatalf("TableRegions after ModifyTable = %v, %v; want 2 regions", regionBounds(regions), err)
	}
	checkRegionsOpen(t, table, regions)
}

// State changes and the errors of each call.
func TestAdminIntegrationStatesAndErrors(t *testing.T) {
	c := adminITClient(t)
	ctx := adminITCtx(t)
	table := adminITName("errors")
	missing := adminITName("missing")
	desc := TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "cf"}}}
	if err := c.CreateTable(ctx, desc, nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	adminITDrop(t, c, table)

	adminITWant(t, "CreateTable twice", c.CreateTable(ctx, desc, nil), ErrTableExists)
	adminITWant(t, "CreateTable in a missing namespace",
		c.CreateTable(ctx, TableDescriptor{Name: "hbkit_it_no_ns:t", Families: []FamilyDescriptor{{Name: "f"}}}, nil), ErrNamespaceNotFound)
	adminITWant(t, "DeleteTable of an enabled table", c.DeleteTable(ctx, table), ErrTableNotDisabled)
	adminITWant(t, "TruncateTable of an enabled table", c.TruncateTable(ctx, table, true), ErrTableNotDisabled)
	adminITWant(t, "EnableTable of an enabled table", c.EnableTable(ctx, table), ErrTableNotDisabled)
	_, err := c.DescribeTable(ctx, missing)
	adminITWant(t, "DescribeTable of a missing table", err, ErrTableNotFound)
	_, err = c.IsTableEnabled(ctx, missing)
	adminITWant(t, "IsTableEnabled of a missing table", err, ErrTableNotFound)
	_, err = c.TableRegions(ctx, missing)
	adminITWant(t, "TableRegions of a missing table", err, ErrTableNotFound)
	adminITWant(t, "ModifyTable of a missing table",
		c.ModifyTable(ctx, TableDescriptor{Name: missing, Families: []FamilyDescriptor{{Name: "f"}}}), ErrTableNotFound)
	adminITWant(t, "DeleteTable of a missing table", c.DeleteTable(ctx, missing), ErrTableNotFound)
	adminITWant(t, "DisableTable of a missing table", c.DisableTable(ctx, missing), ErrTableNotFound)
	adminITWant(t, "SplitRegion of a missing table", c.SplitRegion(ctx, missing, []byte("k")), ErrTableNotFound)
	_, err = c.ListTables(ctx, "hbkit_it_no_ns")
	adminITWant(t, "ListTables of a missing namespace", err, ErrNamespaceNotFound)
	adminITWant(t, "DeleteNamespace of a missing namespace", c.DeleteNamespace(ctx, "hbkit_it_no_ns"), ErrNamespaceNotFound)
	if ok, err := c.TableExists(ctx, missing); err != nil || ok {
		t.Errorf("TableExists(missing) = %v, %v; want false", ok, err)
	}
	if ok, err := c.TableExists(ctx, "hbkit_it_no_ns:t"); err != nil || ok {
		t.Errorf("TableExists(missing namespace) = %v, %v; want false", ok, err)
	}

	if ok, err := c.TableExists(ctx, table); err != nil || !ok {
		t.Errorf("TableExists = %v, %v; want true", ok, err)
	}
	if ok, err := c.TableExists(ctx, "default:"+table); err != nil || !ok {
		t.Errorf("TableExists(default:%s) = %v, %v; want true", table, ok, err)
	}
	if ok, err := c.IsTableEnabled(ctx, table); err != nil || !ok {
		t.Errorf("IsTableEnabled = %v, %v; want true", ok, err)
	}
	if err := c.DisableTable(ctx, table); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if ok, err := c.IsTableEnabled(ctx, table); err != nil || ok {
		t.Errorf("IsTableEnabled after disable = %v, %v; want false", ok, err)
	}
	adminITWant(t, "DisableTable twice", c.DisableTable(ctx, table), ErrTableDisabled)
	if ok, err := c.TableExists(ctx, table); err != nil || !ok {
		t.Errorf("TableExists of a disabled table = %v, %v; want true", ok, err)
	}
	if err := c.EnableTable(ctx, table); err != nil {
		t.Fatalf("EnableTable: %v", err)
	}
	if ok, err := c.IsTableEnabled(ctx, table); err != nil || !ok {
		t.Errorf("IsTableEnabled after enable = %v, %v; want true", ok, err)
	}
	regions, err := c.TableRegions(ctx, table)
	if err != nil || len(regions) != 1 {
		t.Fatalf("TableRegions after enable = %v, %v", regionBounds(regions), err)
	}
	checkRegionsOpen(t, table, regions)

	if err := c.DisableTable(ctx, table); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := c.DeleteTable(ctx, table); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	if ok, err := c.TableExists(ctx, table); err != nil || ok {
		t.Errorf("TableExists after delete = %v, %v; want false", ok, err)
	}
	_, err = c.DescribeTable(ctx, table)
	adminITWant(t, "DescribeTable after delete", err, ErrTableNotFound)
	if tables, err := c.ListTables(ctx, ""); err != nil || slices.Contains(tables, table) {
		t.Errorf("ListTables after delete = %v, %v; want %s gone", tables, err, table)
	}
}
