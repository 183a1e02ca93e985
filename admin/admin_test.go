package admin_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func newFake(t *testing.T) *fake.Client {
	t.Helper()
	c, err := fake.New(fake.WithServer("rs1:16020"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func newAdmin(t *testing.T, c admin.Client, opts ...admin.Option) *admin.Admin {
	t.Helper()
	a, err := admin.New(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func builtin(t testing.TB, name string) schema.Definition {
	t.Helper()
	d, err := seeds.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func startKeys(t *testing.T, c admin.Client, table string) [][]byte {
	t.Helper()
	rs, err := c.TableRegions(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, r := range rs[1:] {
		out = append(out, r.StartKey)
	}
	return out
}

func strs(ks [][]byte) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func TestEnsureTableBuiltins(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	tests := []struct {
		name    string
		regions int
		splits  []string
	}{
		{"sms", 20, []string{"05", "10", "15", "20", "25", "30", "35", "40", "45", "50", "55", "60", "65", "70", "75", "80", "85", "90", "95"}},
		{"sms_index", 10, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}},
		{"TestTable", 16, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := builtin(t, tt.name)
			got, err := a.EnsureTable(ctx, def)
			if err != nil {
				t.Fatal(err)
			}
			if got != admin.Created {
				t.Errorf("first EnsureTable = %v, want created", got)
			}
			ks := startKeys(t, c, tt.name)
			if len(ks)+1 != tt.regions || !slices.Equal(strs(ks), tt.splits) {
				t.Errorf("regions start at %q (%d regions), want %q (%d)", strs(ks), len(ks)+1, tt.splits, tt.regions)
			}
			got, err = a.EnsureTable(ctx, def)
			if err != nil || got != admin.Unchanged {
				t.Errorf("second EnsureTable = %v, %v; want unchanged, nil", got, err)
			}
		})
	}
}

func TestEnsureTableSeed001Options(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	if _, err := a.EnsureTable(ctx, builtin(t, "TestTable")); err != nil {
		t.Fatal(err)
	}
	d, err := a.Describe(ctx, "TestTable")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Families) != 1 || d.Families[0].Name != "CF1" {
		t.Fatalf("families = %+v, want CF1", d.Families)
	}
	want := map[string]string{
		"BLOOMFILTER": "ROW", "BLOCKSIZE": "65536", "VERSIONS": "3", "COMPRESSION": "SNAPPY",
		"BLOCKCACHE": "true", "IN_MEMORY": "false", "TTL": "3600",
	}
	for k, v := range want {
		if got, _ := d.Families[0].Attribute(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	f, err := d.Families[0].Family()
	if err != nil {
		t.Fatal(err)
	}
	if diff := seeds.TestTableFamily().Diff(f); diff != nil {
		t.Errorf("described family differs from the declaration: %+v", diff)
	}
}

// table builds a one-family definition with the given family and splits.
func table(t *testing.T, name string, fams []schema.Family, splits ...string) schema.Definition {
	t.Helper()
	key, err := keys.NewLayout(keys.String("k", func(r *struct{ k string }) string { return r.k }, nil))
	if err != nil {
		t.Fatal(err)
	}
	var ks [][]byte
	for _, s := range splits {
		ks = append(ks, []byte(s))
	}
	tb, err := schema.New(schema.Spec[struct{ k string }]{Name: name, Families: fams, Key: key, Splits: schema.Splits{Keys: ks}})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestEnsureTableDrift(t *testing.T) {
	ctx := context.Background()
	cf := schema.Family{Name: "cf", Versions: 3, Compression: schema.CompressionSnappy}
	declared := []schema.Family{cf}
	tests := []struct {
		name     string
		live     []schema.Family
		splits   []string
		opts     []admin.Option
		want     []string // Diff.String of each difference
		disabled bool
	}{
		{
			name: "other splits", live: declared, splits: []string{"b", "d", "e"},
			want: []string{`split keys: declared 4 regions, actual 4 regions; missing ["a" "c"] (hex 61 63); unexpected ["d" "e"] (hex 64 65)`},
		},
		{
			name: "one region", live: declared,
			want: []string{`split keys: declared 4 regions, actual 1 region; missing ["a" "b" "c"] (hex 61 62 63)`},
		},
		{
			name: "grown regions accepted", live: declared, splits: []string{"a", "aa", "b", "c"},
			opts: []admin.Option{admin.WithGrownRegions()},
		},
		{
			name: "grown regions strict", live: declared, splits: []string{"a", "aa", "b", "c"},
			want: []string{`split keys: declared 4 regions, actual 5 regions; unexpected ["aa"] (hex 6161)`},
		},
		{
			name: "other options", splits: []string{"a", "b", "c"},
			live: []schema.Family{{Name: "cf", Versions: 1, TTL: time.Hour, Compression: schema.CompressionSnappy}},
			want: []string{
				`family "cf": VERSIONS: declared 3, actual 1`,
				`family "cf": TTL: declared 2147483647, actual 3600`,
			},
		},
		{
			name: "missing and extra family", splits: []string{"a", "b", "c"},
			live: []schema.Family{{Name: "other"}},
			want: []string{
				`family "cf": declared but missing from the table`,
				`family "other": in the table but not declared`,
			},
		},
		{
			name: "drift and disabled", splits: []string{"a", "b"}, live: declared, disabled: true,
			want: []string{`split keys: declared 4 regions, actual 3 regions; missing ["c"] (hex 63)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake(t)
			a := newAdmin(t, c, tt.opts...)
			live := table(t, "t", tt.live, tt.splits...)
			if err := a.Create(ctx, live); err != nil {
				t.Fatal(err)
			}
			if tt.disabled {
				if err := c.DisableTable(ctx, "t"); err != nil {
					t.Fatal(err)
				}
			}
			out, err := a.EnsureTable(ctx, table(t, "t", declared, "a", "b", "c"))
			if tt.want == nil {
				if err != nil || out != admin.Unchanged {
					t.Fatalf("EnsureTable = %v, %v; want unchanged", out, err)
				}
				return
			}
			if !errors.Is(err, admin.ErrDrift) {
				t.Fatalf("EnsureTable error = %v, want ErrDrift", err)
			}
			var de *admin.DriftError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DriftError", err)
			}
			var got []string
			for _, d := range de.Diffs {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("diffs:\n got %q\nwant %q", got, tt.want)
			}
			if de.Table != "t" || de.Disabled != tt.disabled {
				t.Errorf("DriftError table %q disabled %v, want t %v", de.Table, de.Disabled, tt.disabled)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			// Drift is never repaired silently: the table is as it was.
			if ks := startKeys(t, c, "t"); !slices.Equal(strs(ks), tt.splits) {
				t.Errorf("splits changed to %q", strs(ks))
			}
			if on, _ := c.IsTableEnabled(ctx, "t"); on == tt.disabled {
				t.Errorf("enabled = %v after a drift error", on)
			}
		})
	}
}

// badDef is a Definition that package schema would not build, to check
// that admin validates what it is given.
type badDef struct {
	name   hbapi.TableName
	fams   []schema.Family
	splits [][]byte
}

func (d badDef) Name() hbapi.TableName                         { return d.name }
func (d badDef) Families() []schema.Family                     { return d.fams }
func (d badDef) KeySegments() []keys.Segment                   { return nil }
func (d badDef) SplitKeys() [][]byte                           { return d.splits }
func (d badDef) Columns() []schema.ColumnInfo                  { return nil }
func (d badDef) KeyParts(key []byte) ([]schema.KeyPart, error) { return nil, nil }

// recorder counts the calls that reach the client.
type recorder struct {
	admin.Client
	mu    sync.Mutex
	calls []string
}

func (r *recorder) note(op string) {
	r.mu.Lock()
	r.calls = append(r.calls, op)
	r.mu.Unlock()
}

func (r *recorder) CreateTable(ctx context.Context, d hbase.TableDescriptor, s [][]byte) error {
	r.note("CreateTable")
	return r.Client.CreateTable(ctx, d, s)
}

func (r *recorder) TableExists(ctx context.Context, t string) (bool, error) {
	r.note("TableExists")
	return r.Client.TableExists(ctx, t)
}

func (r *recorder) DescribeTable(ctx context.Context, t string) (hbase.TableDescriptor, error) {
	r.note("DescribeTable")
	return r.Client.DescribeTable(ctx, t)
}

func (r *recorder) DisableTable(ctx context.Context, t string) error {
	r.note("DisableTable")
	return r.Client.DisableTable(ctx, t)
}

func TestInvalidSchemaBeforeAnyRPC(t *testing.T) {
	ctx := context.Background()
	good := schema.Family{Name: "cf"}
	name := hbapi.TableName{Namespace: "default", Qualifier: "t"}
	tests := []struct {
		name string
		def  schema.Definition
		want string
	}{
		{"nil definition", nil, "nil definition"},
		{"bad table name", badDef{name: hbapi.TableName{Qualifier: "-t"}, fams: []schema.Family{good}}, "must not start with"},
		{"no families", badDef{name: name}, "no column families"},
		{"bad option", badDef{name: name, fams: []schema.Family{{Name: "cf", BlockSize: 10}}}, "BLOCKSIZE"},
		{"bad compression", badDef{name: name, fams: []schema.Family{{Name: "cf", Compression: "GZIP"}}}, "unknown compression"},
		{"duplicate family", badDef{name: name, fams: []schema.Family{good, good}}, `family "cf" declared twice`},
		{"unsorted splits", badDef{name: name, fams: []schema.Family{good}, splits: [][]byte{[]byte("b"), []byte("a")}}, "split 1 is not above split 0"},
		{"empty split", badDef{name: name, fams: []schema.Family{good}, splits: [][]byte{{}}}, "split 0 is empty"},
		{"huge split", badDef{name: name, fams: []schema.Family{good}, splits: [][]byte{make([]byte, 40000)}}, "longer than a row key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{Client: newFake(t)}
			a := newAdmin(t, rec)
			_, err := a.EnsureTable(ctx, tt.def)
			if !errors.Is(err, admin.ErrInvalidSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("EnsureTable error = %v, want ErrInvalidSchema mentioning %q", err, tt.want)
			}
			if err := a.Create(ctx, tt.def); !errors.Is(err, admin.ErrInvalidSchema) {
				t.Errorf("Create error = %v, want ErrInvalidSchema", err)
			}
			if _, err := a.EnsureTables(ctx, builtin(t, "sms"), tt.def); !errors.Is(err, admin.ErrInvalidSchema) {
				t.Errorf("EnsureTables error = %v, want ErrInvalidSchema", err)
			}
			if len(rec.calls) != 0 {
				t.Errorf("calls reached the client: %v", rec.calls)
			}
		})
	}
	t.Run("bad name for drop", func(t *testing.T) {
		rec := &recorder{Client: newFake(t)}
		a := newAdmin(t, rec)
		for _, n := range []string{"", "a:b:c", ":t", "bad name"} {
			if err := a.Drop(ctx, n); !errors.Is(err, admin.ErrInvalidSchema) {
				t.Errorf("Drop(%q) = %v, want ErrInvalidSchema", n, err)
			}
		}
		if len(rec.calls) != 0 {
			t.Errorf("calls reached the client: %v", rec.calls)
		}
	})
}

func TestNewOptions(t *testing.T) {
	c := newFake(t)
	tests := []struct {
		name string
		c    admin.Client
		opts []admin.Option
	}{
		{"nil client", nil, nil},
		{"nil loader", c, []admin.Option{admin.WithRegionLoader(nil)}},
		{"negative wait", c, []admin.Option{admin.WithEnableWait(-time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, err := admin.New(tt.c, tt.opts...); err == nil {
				t.Errorf("New = %v, want an error", a)
			}
		})
	}
}

func TestEnsureTablesWithIndexes(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	sms, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	defs := admin.WithIndexes(sms)
	res, err := a.EnsureTables(ctx, defs...)
	if err != nil {
		t.Fatal(err)
	}
	want := []admin.TableResult{{Table: "sms", Outcome: admin.Created}, {Table: "sms_index", Outcome: admin.Created}}
	if !slices.Equal(res, want) {
		t.Errorf("results = %+v, want %+v", res, want)
	}
	if _, err := a.EnsureTables(ctx, builtin(t, "sms"), builtin(t, "sms")); !errors.Is(err, admin.ErrInvalidSchema) {
		t.Errorf("the same table twice: %v, want ErrInvalidSchema", err)
	}
}

func TestCreateInNamespace(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	def := table(t, "app:t", []schema.Family{{Name: "cf"}}, "m")
	if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Created {
		t.Fatalf("EnsureTable = %v, %v", out, err)
	}
	if err := a.Create(ctx, def); !errors.Is(err, hbase.ErrTableExists) {
		t.Errorf("Create of an existing table = %v, want ErrTableExists", err)
	}
}

func TestDropAndTruncate(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	def := builtin(t, "sms_index")
	if _, err := a.EnsureTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"0a", "5b", "9c"} {
		if err := c.Put(ctx, &hbase.Put{Table: "sms_index", Row: []byte(row), Values: map[string]map[string][]byte{"cf": {"q": []byte("v")}}}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := a.Describe(ctx, "sms_index", admin.CountRows())
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, r := range d.Regions {
		rows = append(rows, r.Rows)
	}
	if want := []int64{1, 0, 0, 0, 0, 1, 0, 0, 0, 1}; !slices.Equal(rows, want) {
		t.Errorf("rows per region = %v, want %v", rows, want)
	}

	if err := a.Truncate(ctx, "sms_index"); err != nil {
		t.Fatal(err)
	}
	if ks := startKeys(t, c, "sms_index"); len(ks) != 9 {
		t.Errorf("after truncate %d split keys, want 9", len(ks))
	}
	if d, err = a.Describe(ctx, "sms_index", admin.CountRows()); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Regions {
		if r.Rows != 0 {
			t.Errorf("region %q has %d rows after truncate", r.StartKey, r.Rows)
		}
	}
	if !d.Enabled {
		t.Error("table disabled after truncate")
	}
	if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
		t.Errorf("EnsureTable after truncate = %v, %v", out, err)
	}

	if err := a.Drop(ctx, "sms_index"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.TableExists(ctx, "sms_index"); ok {
		t.Error("table exists after drop")
	}
	if err := a.Drop(ctx, "sms_index"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("second Drop = %v, want ErrTableNotFound", err)
	}
	if err := a.Truncate(ctx, "sms_index"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("Truncate of a missing table = %v, want ErrTableNotFound", err)
	}
	if _, err := a.Describe(ctx, "sms_index"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("Describe of a missing table = %v, want ErrTableNotFound", err)
	}
}

// noLoads is a RegionLoader whose report has none of the table's regions.
type noLoads struct{}

func (noLoads) RegionLoads(ctx context.Context, table string) ([]admin.RegionLoad, error) {
	return nil, nil
}

type loaderClient struct {
	admin.Client
}

func (c loaderClient) RegionLoads(ctx context.Context, table string) ([]admin.RegionLoad, error) {
	rs, err := c.TableRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	out := make([]admin.RegionLoad, len(rs))
	for i, r := range rs {
		out[i] = admin.RegionLoad{RegionName: r.RegionName, ReadRequests: uint64(10 * i), WriteRequests: uint64(i)}
	}
	return out, nil
}

func TestDescribe(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, loaderClient{c})
	if _, err := a.EnsureTable(ctx, builtin(t, "sms")); err != nil {
		t.Fatal(err)
	}
	d, err := a.Describe(ctx, "sms")
	if err != nil {
		t.Fatal(err)
	}
	if d.Table != "sms" || !d.Enabled || len(d.Regions) != 20 {
		t.Fatalf("description: table %q enabled %v, %d regions", d.Table, d.Enabled, len(d.Regions))
	}
	var names []string
	for _, at := range d.Families[0].Attributes {
		names = append(names, at.Name)
	}
	// Modelled options first in schema order, then HBase's others by name.
	want := append(schema.AttributeNames(), "INDEX_BLOCK_ENCODING", "KEEP_DELETED_CELLS", "REPLICATION_SCOPE")
	if !slices.Equal(names, want) {
		t.Errorf("attribute order %q, want %q", names, want)
	}
	for i, r := range d.Regions {
		if r.Server != "rs1:16020" || r.Rows != -1 || r.Load == nil || r.Load.ReadRequests != uint64(10*i) {
			t.Errorf("region %d: %+v", i, r)
		}
		if i > 0 && !bytes.Equal(r.StartKey, d.Regions[i-1].EndKey) {
			t.Errorf("region %d starts at %q, previous ends at %q", i, r.StartKey, d.Regions[i-1].EndKey)
		}
	}
	if string(d.Regions[1].StartKey) != "05" || len(d.Regions[19].EndKey) != 0 {
		t.Errorf("boundaries: %q .. %q", d.Regions[1].StartKey, d.Regions[19].EndKey)
	}

	b := newAdmin(t, c, admin.WithRegionLoader(noLoads{}))
	d, err = b.Describe(ctx, "sms")
	if err != nil {
		t.Fatal(err)
	}
	if d.Regions[0].Load != nil {
		t.Errorf("load %+v for a region missing from the report", d.Regions[0].Load)
	}
	if _, err := newAdmin(t, loaderClient{c}).Describe(ctx, "sms", admin.CountRows()); err == nil {
		t.Error("CountRows without a scanning client: no error")
	}
}
