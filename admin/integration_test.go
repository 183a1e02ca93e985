//go:build integration

package admin_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// These tests run against a real HBase found through HBKIT_ZK (default
// 127.0.0.1:2181, the cluster of "make hbase-up"):
//
//	go test -tags integration -run Integration ./admin
//
// Tables get a run-unique suffix and are dropped afterwards.

func realClient(t *testing.T) *hbase.Client {
	t.Helper()
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatalf("connect to %s: %v", zk, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// renamed gives a built-in definition a run-unique name, keeping its
// families and split keys.
type renamed struct {
	schema.Definition
	name hbapi.TableName
}

func (r renamed) Name() hbapi.TableName { return r.name }

var runSuffix = fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffff)

func unique(t *testing.T, c *hbase.Client, builtinName, ns string) schema.Definition {
	t.Helper()
	def := builtin(t, builtinName)
	name := hbapi.TableName{Namespace: ns, Qualifier: "admin_it_" + strings.ToLower(builtinName) + "_" + runSuffix}
	if ns == "" {
		name.Namespace = schema.DefaultNamespace
	}
	d := renamed{def, name}
	t.Cleanup(func() { dropQuietly(t, c, d.Name().String()) })
	return d
}

func dropQuietly(t *testing.T, c *hbase.Client, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := admin.New(c)
	if err != nil {
		t.Error(err)
		return
	}
	if err := a.Drop(ctx, table); err != nil && !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("cleanup: drop %s: %v", table, err)
	}
}

func itContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestIntegrationPreSplitTables(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	a := newAdmin(t, c)
	tests := []struct {
		builtin string
		regions int
		splits  []string
	}{
		{"sms", 20, []string{"05", "10", "15", "20", "25", "30", "35", "40", "45", "50", "55", "60", "65", "70", "75", "80", "85", "90", "95"}},
		{"sms_index", 10, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}},
	}
	for _, tt := range tests {
		t.Run(tt.builtin, func(t *testing.T) {
			def := unique(t, c, tt.builtin, "")
			name := def.Name().String()
			out, err := a.EnsureTable(ctx, def)
			if err != nil || out != admin.Created {
				t.Fatalf("EnsureTable = %v, %v", out, err)
			}
			// Read back from hbase:meta.
			regions, err := c.TableRegions(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			var starts []string
			for _, r := range regions[1:] {
				starts = append(starts, string(r.StartKey))
			}
			t.Logf("%s: %d regions in hbase:meta, boundaries %q", name, len(regions), starts)
			if len(regions) != tt.regions || !slices.Equal(starts, tt.splits) {
				t.Errorf("%d regions with boundaries %q, want %d with %q", len(regions), starts, tt.regions, tt.splits)
			}
			out, err = a.EnsureTable(ctx, def)
			if err != nil || out != admin.Unchanged {
				t.Errorf("second EnsureTable = %v, %v; want unchanged", out, err)
			}
		})
	}
}

func TestIntegrationSeed001Options(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	a := newAdmin(t, c)
	ns := "admin_it_" + runSuffix
	// Cleanups run last-in first-out: the namespace goes after its table.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.DeleteNamespace(ctx, ns); err != nil && !errors.Is(err, hbase.ErrNamespaceNotFound) {
			t.Errorf("cleanup: delete namespace %s: %v", ns, err)
		}
	})
	def := unique(t, c, "TestTable", ns)
	// The namespace does not exist yet: EnsureTable creates it.
	out, err := a.EnsureTable(ctx, def)
	if err != nil || out != admin.Created {
		t.Fatalf("EnsureTable = %v, %v", out, err)
	}
	d, err := a.Describe(ctx, def.Name().String())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Families) != 1 || d.Families[0].Name != "CF1" || len(d.Regions) != 16 {
		t.Fatalf("described %d families, %d regions", len(d.Families), len(d.Regions))
	}
	want := map[string]string{
		"BLOOMFILTER": "ROW", "BLOCKSIZE": "65536", "VERSIONS": "3", "COMPRESSION": "SNAPPY",
		"BLOCKCACHE": "true", "IN_MEMORY": "false", "TTL": "3600",
	}
	var got []string
	for k, v := range want {
		g, _ := d.Families[0].Attribute(k)
		got = append(got, k+"="+g)
		if g != v {
			t.Errorf("%s = %q, want %q", k, g, v)
		}
	}
	slices.Sort(got)
	t.Logf("%s: describe reports %v, %d regions", d.Table, got, len(d.Regions))
	if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
		t.Errorf("second EnsureTable = %v, %v", out, err)
	}
}

func TestIntegrationDrift(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	a := newAdmin(t, c)
	tests := []struct {
		name  string
		fams  []schema.Family
		split []string
		want  []string
	}{
		{
			name: "other splits", fams: []schema.Family{{Name: "cf", Versions: 3}}, split: []string{"a", "x"},
			want: []string{`split keys: declared 4 regions, actual 3 regions; missing ["b" "c"] (hex 62 63); unexpected ["x"] (hex 78)`},
		},
		{
			name: "other options", fams: []schema.Family{{Name: "cf", Versions: 1, BloomFilter: schema.BloomNone}}, split: []string{"a", "b", "c"},
			want: []string{
				`family "cf": BLOOMFILTER: declared ROW, actual NONE`,
				`family "cf": VERSIONS: declared 3, actual 1`,
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("admin_it_drift%d_%s", i, runSuffix)
			t.Cleanup(func() { dropQuietly(t, c, name) })
			if err := a.Create(ctx, table(t, name, tt.fams, tt.split...)); err != nil {
				t.Fatal(err)
			}
			_, err := a.EnsureTable(ctx, table(t, name, []schema.Family{{Name: "cf", Versions: 3}}, "a", "b", "c"))
			var de *admin.DriftError
			if !errors.As(err, &de) || !errors.Is(err, admin.ErrDrift) {
				t.Fatalf("EnsureTable = %v, want a *DriftError", err)
			}
			var got []string
			for _, d := range de.Diffs {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("diffs:\n got %q\nwant %q", got, tt.want)
			}
			t.Logf("%v", err)
		})
	}
}

func TestIntegrationCrashSafety(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)

	t.Run("create answer lost", func(t *testing.T) {
		def := unique(t, c, "sms_index", "")
		f := &faulty{Client: c, before: map[string]int{}, after: map[string]int{"CreateTable " + def.Name().String(): 1}, hide: map[string]int{}}
		a := newAdmin(t, f)
		if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Created {
			t.Fatalf("EnsureTable = %v, %v", out, err)
		}
		if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
			t.Errorf("second EnsureTable = %v, %v", out, err)
		}
	})

	t.Run("context ends during the create", func(t *testing.T) {
		def := unique(t, c, "sms", "")
		a := newAdmin(t, c)
		short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		_, err := a.EnsureTable(short, def)
		cancel()
		t.Logf("first run with a 30ms deadline: %v", err)
		// Whatever the master did with the procedure, the next run
		// completes it: created, found being created, or found done.
		out, err := a.EnsureTable(ctx, def)
		if err != nil {
			t.Fatalf("second run: %v", err)
		}
		regions, err := c.TableRegions(ctx, def.Name().String())
		if err != nil || len(regions) != 20 {
			t.Fatalf("%d regions, %v", len(regions), err)
		}
		t.Logf("second run: %v, %d regions", out, len(regions))
	})

	t.Run("drop interrupted after disable", func(t *testing.T) {
		def := unique(t, c, "sms_index", "")
		name := def.Name().String()
		f := &faulty{Client: c, before: map[string]int{"DeleteTable " + name: 1}, after: map[string]int{}, hide: map[string]int{}}
		a := newAdmin(t, f)
		if _, err := a.EnsureTable(ctx, def); err != nil {
			t.Fatal(err)
		}
		if err := a.Drop(ctx, name); !errors.Is(err, errInjected) {
			t.Fatalf("Drop = %v", err)
		}
		if on, err := c.IsTableEnabled(ctx, name); err != nil || on {
			t.Fatalf("after the interrupted drop: enabled %v, %v", on, err)
		}
		if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Enabled {
			t.Errorf("EnsureTable = %v, %v; want enabled", out, err)
		}
		// Drop again finishes the job instead.
		if err := a.Drop(ctx, name); err != nil {
			t.Fatal(err)
		}
		if ok, err := c.TableExists(ctx, name); err != nil || ok {
			t.Errorf("after drop: exists %v, %v", ok, err)
		}
	})
}

func TestIntegrationTruncateAndDescribe(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	a := newAdmin(t, c)
	def := unique(t, c, "sms_index", "")
	name := def.Name().String()
	if _, err := a.EnsureTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	if err := a.Truncate(ctx, name); err != nil {
		t.Fatal(err)
	}
	d, err := a.Describe(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Enabled || len(d.Regions) != 10 || string(d.Regions[1].StartKey) != "1" {
		t.Errorf("after truncate: enabled %v, %d regions", d.Enabled, len(d.Regions))
	}
	for _, r := range d.Regions {
		if r.Server == "" {
			t.Errorf("region %q unassigned after truncate", r.StartKey)
		}
	}
	if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
		t.Errorf("EnsureTable after truncate = %v, %v", out, err)
	}
	if _, ok := any(c).(admin.RowScanner); ok {
		d, err := a.Describe(ctx, name, admin.CountRows())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range d.Regions {
			if r.Rows != 0 {
				t.Errorf("region %q: %d rows after truncate", r.StartKey, r.Rows)
			}
		}
	}
	t.Logf("%s: %d regions on %s after truncate", name, len(d.Regions), d.Regions[0].Server)
}

func TestIntegrationGrownRegions(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	def := unique(t, c, "sms_index", "")
	name := def.Name().String()
	strict := newAdmin(t, c)
	if _, err := strict.EnsureTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	// HBase splits a grown region: a boundary nobody declared.
	if err := c.SplitRegion(ctx, name, []byte("55")); err != nil {
		t.Fatal(err)
	}
	_, err := strict.EnsureTable(ctx, def)
	if !errors.Is(err, admin.ErrDrift) || !strings.Contains(err.Error(), `unexpected ["55"] (hex 3535)`) {
		t.Fatalf("strict EnsureTable after a split = %v, want drift naming 55", err)
	}
	t.Logf("strict: %v", err)
	grown := newAdmin(t, c, admin.WithGrownRegions())
	if out, err := grown.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
		t.Errorf("EnsureTable WithGrownRegions = %v, %v; want unchanged", out, err)
	}
}

// TestIntegrationRowCounts writes rows into known regions of the SMS index
// layout and reads the counts back per region.
func TestIntegrationRowCounts(t *testing.T) {
	c := realClient(t)
	ctx := itContext(t)
	a := newAdmin(t, c)
	def := unique(t, c, "sms_index", "")
	name := def.Name().String()
	if _, err := a.EnsureTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	// Bucket i gets i rows.
	for i := 0; i < 10; i++ {
		for j := 0; j < i; j++ {
			err := c.Put(ctx, &hbase.Put{Table: name, Row: []byte(fmt.Sprintf("%d-row%d", i, j)),
				Values: map[string]map[string][]byte{"cf": {"d": []byte("1")}}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	d, err := a.Describe(ctx, name, admin.CountRows())
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, r := range d.Regions {
		rows = append(rows, r.Rows)
	}
	t.Logf("%s: rows per region %v", name, rows)
	if want := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(rows, want) {
		t.Errorf("rows per region %v, want %v", rows, want)
	}
	if err := a.Truncate(ctx, name); err != nil {
		t.Fatal(err)
	}
	if d, err = a.Describe(ctx, name, admin.CountRows()); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Regions {
		if r.Rows != 0 {
			t.Errorf("region %q: %d rows after truncate", r.StartKey, r.Rows)
		}
	}
	if len(d.Regions) != 10 {
		t.Errorf("%d regions after truncate, want 10", len(d.Regions))
	}
}
