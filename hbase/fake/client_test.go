package fake_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

func newFake(t *testing.T, opts ...fake.Option) *fake.Client {
	t.Helper()
	c, err := fake.New(opts...)
	if err != nil {
		t.Fatalf("fake.New: %v", err)
	}
	return c
}

func createTable(t *testing.T, c *fake.Client, name string, fams ...hbase.FamilyDescriptor) {
	t.Helper()
	if len(fams) == 0 {
		fams = []hbase.FamilyDescriptor{{Name: "cf"}}
	}
	if err := c.CreateTable(context.Background(), hbase.TableDescriptor{Name: name, Families: fams}, nil); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
}

func TestNewOptions(t *testing.T) {
	if _, err := fake.New(fake.WithClock(nil)); err == nil {
		t.Error("New(WithClock(nil)) succeeded")
	}
	if _, err := fake.New(fake.WithServer("")); err == nil {
		t.Error(`New(WithServer("")) succeeded`)
	}
}

func TestClockTimestamps(t *testing.T) {
	fixed := time.UnixMilli(1_700_000_000_000)
	c := newFake(t, fake.WithClock(func() time.Time { return fixed }))
	createTable(t, c, "t")
	ctx := context.Background()
	var got []int64
	for i := range 3 {
		if err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte(fmt.Sprint(i)), Values: map[string]map[string][]byte{"cf": {"q": {}}}}); err != nil {
			t.Fatal(err)
		}
		r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Cells[0].Timestamp)
	}
	// The table creation took 1_700_000_000_000 as region id.
	want := []int64{1_700_000_000_001, 1_700_000_000_002, 1_700_000_000_003}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("timestamps = %v, want %v", got, want)
	}
	regions, err := c.TableRegions(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 1 || regions[0].ID != 1_700_000_000_000 || regions[0].Server != "localhost:16020" {
		t.Errorf("regions = %+v", regions)
	}
	// Region names follow HBase: table,start,id.md5hex.
	name := string(regions[0].RegionName)
	if !strings.HasPrefix(name, "t,,1700000000000.") || !strings.HasSuffix(name, ".") || len(name) != len("t,,1700000000000.")+33 {
		t.Errorf("region name = %q", name)
	}
}

func TestTTL(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	c := newFake(t, fake.WithClock(func() time.Time { return now }))
	createTable(t, c, "t", hbase.FamilyDescriptor{Name: "cf", Attributes: map[string]string{"TTL": "60"}})
	ctx := context.Background()
	put := func(ts int64) {
		if err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte("r"), Timestamp: ts, Values: map[string]map[string][]byte{"cf": {fmt.Sprint(ts): {}}}}); err != nil {
			t.Fatal(err)
		}
	}
	put(now.UnixMilli() - 61_000)
	put(now.UnixMilli() - 59_000)
	r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 1 || r.Cells[0].Timestamp != now.UnixMilli()-59_000 {
		t.Errorf("cells = %+v, want only the unexpired one", r.Cells)
	}
}

func TestClose(t *testing.T) {
	c := newFake(t)
	createTable(t, c, "t")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(context.Background(), &hbase.Get{Table: "t", Row: []byte("r")})
	if !errors.Is(err, hbase.ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	if _, err := c.TableExists(context.Background(), "t"); !errors.Is(err, hbase.ErrClosed) {
		t.Errorf("TableExists after Close = %v, want ErrClosed", err)
	}
}

func TestResultsDoNotAliasStorage(t *testing.T) {
	c := newFake(t)
	createTable(t, c, "t")
	ctx := context.Background()
	val := []byte("value")
	if err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"q": val}}}); err != nil {
		t.Fatal(err)
	}
	val[0] = 'X' // caller reuses its buffer
	r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	r.Cells[0].Value[0] = 'Y' // caller scribbles on the result
	r, err = c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Value([]byte("cf"), []byte("q"))); got != "value" {
		t.Errorf("stored value = %q, want value", got)
	}
}

func TestScannerContext(t *testing.T) {
	c := newFake(t)
	createTable(t, c, "t")
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 3 {
		if err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte{byte('a' + i)}, Values: map[string]map[string][]byte{"cf": {"q": {}}}}); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := c.Scan(ctx, &hbase.Scan{Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if !sc.Next() {
		t.Fatal("Next() = false")
	}
	cancel()
	if sc.Next() {
		t.Error("Next() after cancel = true")
	}
	if !errors.Is(sc.Err(), context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled", sc.Err())
	}
}

func TestModifyTable(t *testing.T) {
	c := newFake(t)
	ctx := context.Background()
	createTable(t, c, "t", hbase.FamilyDescriptor{Name: "a"}, hbase.FamilyDescriptor{Name: "b"})
	if err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"a": {"q": []byte("1")}, "b": {"q": []byte("2")}}}); err != nil {
		t.Fatal(err)
	}
	err := c.ModifyTable(ctx, hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "a", Attributes: map[string]string{"VERSIONS": "4"}}, {Name: "c"}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, "default:t")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Families) != 2 || d.Families[0].Name != "a" || d.Families[0].Attributes["VERSIONS"] != "4" || d.Families[1].Name != "c" || d.Families[1].Attributes["VERSIONS"] != "1" {
		t.Errorf("descriptor = %+v", d)
	}
	r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 1 || string(r.Cells[0].Family) != "a" {
		t.Errorf("cells after dropping family b = %+v", r.Cells)
	}
	err = c.Put(ctx, &hbase.Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"b": {"q": []byte("2")}}})
	if !errors.Is(err, hbase.ErrNoSuchFamily) {
		t.Errorf("Put to dropped family = %v, want ErrNoSuchFamily", err)
	}
	err = c.ModifyTable(ctx, hbase.TableDescriptor{Name: "nope", Families: []hbase.FamilyDescriptor{{Name: "a"}}})
	if !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("ModifyTable(missing) = %v, want ErrTableNotFound", err)
	}
}

func TestAdminEdgeCases(t *testing.T) {
	c := newFake(t)
	ctx := context.Background()
	if err := c.DeleteNamespace(ctx, "default"); !errors.Is(err, hbase.ErrInvalidNamespace) {
		t.Errorf("DeleteNamespace(default) = %v", err)
	}
	if err := c.CreateNamespace(ctx, "bad-ns"); !errors.Is(err, hbase.ErrInvalidNamespace) {
		t.Errorf("CreateNamespace(bad-ns) = %v", err)
	}
	err := c.CreateTable(ctx, hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "cf"}}}, [][]byte{[]byte("a"), []byte("a")})
	if !errors.Is(err, hbase.ErrInvalidSplitKeys) {
		t.Errorf("CreateTable with duplicate split keys = %v", err)
	}
	createTable(t, c, "t")
	if err := c.SplitRegion(ctx, "t", []byte("m")); err != nil {
		t.Fatal(err)
	}
	if err := c.SplitRegion(ctx, "t", []byte("m")); !errors.Is(err, hbase.ErrInvalidSplitKeys) {
		t.Errorf("SplitRegion at an existing boundary = %v", err)
	}
	if err := c.DisableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.TruncateTable(ctx, "t", false); err != nil {
		t.Fatal(err)
	}
	regions, err := c.TableRegions(ctx, "t")
	if err != nil || len(regions) != 1 {
		t.Errorf("regions after truncate without splits = %v, %v", regions, err)
	}
	tables, err := c.ListTables(ctx, "hbase")
	if err != nil || len(tables) != 0 {
		t.Errorf("ListTables(hbase) = %v, %v", tables, err)
	}
}

func TestIncrementTimestampAfterExplicitFuture(t *testing.T) {
	c := newFake(t, fake.WithClock(func() time.Time { return time.UnixMilli(1000) }))
	createTable(t, c, "t")
	ctx := context.Background()
	err := c.Put(ctx, &hbase.Put{Table: "t", Row: []byte("r"), Timestamp: 5000, Values: map[string]map[string][]byte{"cf": {"n": {0, 0, 0, 0, 0, 0, 0, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Increment(ctx, &hbase.Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Cells[0]; c.Timestamp != 5001 || !bytes.Equal(c.Value, []byte{0, 0, 0, 0, 0, 0, 0, 2}) {
		t.Errorf("increment cell = %+v, want ts 5001 value 2", c)
	}
	_, err = c.Increment(ctx, &hbase.Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Value([]byte("cf"), []byte("n")), []byte{0, 0, 0, 0, 0, 0, 0, 3}) {
		t.Errorf("counter = %x, want 3", g.Value([]byte("cf"), []byte("n")))
	}
}

func TestConcurrentUse(t *testing.T) {
	c := newFake(t)
	createTable(t, c, "t")
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				row := []byte(fmt.Sprintf("w%d-%03d", w, i))
				if err := c.Put(ctx, &hbase.Put{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": {"q": row}}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Increment(ctx, &hbase.Increment{Table: "t", Row: []byte("counter"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}}); err != nil {
					t.Error(err)
					return
				}
				for _, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: "t", Limit: 5}) {
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: []byte("counter")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value([]byte("cf"), []byte("n")); !bytes.Equal(got, []byte{0, 0, 0, 0, 0, 0, 0, 200}) {
		t.Errorf("counter = %x, want 200", got)
	}
}
