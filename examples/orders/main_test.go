package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/examples/internal/nsclient"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func newFake(t *testing.T) *fake.Client {
	t.Helper()
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func smallConfig() Config {
	c := DefaultConfig()
	c.Rows, c.Days, c.Batch, c.Concurrency = 2000, 10, 200, 2
	return c
}

// TestSameAsBuiltin checks that the example's table is the built-in
// customer_order row for row: same name, families, split keys, and, for
// every generated record, the same row key and cells.
func TestSameAsBuiltin(t *testing.T) {
	ours, err := CustomerOrders()
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := seeds.CustomerOrderTable()
	if err != nil {
		t.Fatal(err)
	}
	if ours.Name() != builtin.Name() {
		t.Errorf("name %s, want %s", ours.Name(), builtin.Name())
	}
	if !slices.EqualFunc(ours.Families(), builtin.Families(), func(a, b schema.Family) bool { return a.Name == b.Name }) {
		t.Errorf("families %v, want %v", ours.Families(), builtin.Families())
	}
	if !slices.EqualFunc(ours.SplitKeys(), builtin.SplitKeys(), bytes.Equal) {
		t.Errorf("split keys %q, want %q", ours.SplitKeys(), builtin.SplitKeys())
	}
	recs, err := records(smallConfig())
	if err != nil {
		t.Fatal(err)
	}
	var a, b schema.Row
	for i := range recs {
		if err := ours.EncodeRow(&a, &recs[i]); err != nil {
			t.Fatal(err)
		}
		if err := builtin.EncodeRow(&b, &recs[i]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Key, b.Key) {
			t.Fatalf("record %d (%s): key %x, built-in %x", i, describe(recs[i]), a.Key, b.Key)
		}
		if !slices.EqualFunc(a.Cells, b.Cells, func(x, y schema.Cell) bool {
			return x.Family == y.Family && x.Qualifier == y.Qualifier && bytes.Equal(x.Value, y.Value)
		}) {
			t.Fatalf("record %d (%s): cells %v, built-in %v", i, describe(recs[i]), a.Cells, b.Cells)
		}
	}
}

func TestRunFake(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	var out bytes.Buffer
	if err := Run(ctx, smallConfig(), f, &out); err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"table customer_order         created  pre-split into 16 regions",
		"table customer_order_by_date created  pre-split into 8 regions",
		"loaded 2,000 rows",
		"whole history of customer",
		"with its shipping locations and line items",
		"ship to ",
		"through the index customer_order_by_date: 8 scans",
		"rows per region of customer_order (measured, 16 regions)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q\n%s", want, s)
		}
	}
	for _, name := range []string{seeds.CustomerOrderName, ByDateIndexName} {
		if ok, err := f.TableExists(ctx, name); err != nil || ok {
			t.Errorf("TableExists(%s) = %v, %v after the run, want false, nil", name, ok, err)
		}
	}
}

// TestDetectsLostIndexEntry deletes every index entry after a kept run:
// the query by date must then fail its check, and a rerun (which
// recreates the tables) must pass again.
func TestDetectsLostIndexEntry(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c, _, err := nsclient.Setup(ctx, f, "orders_test")
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	cfg.Keep = true
	if err := Run(ctx, cfg, c, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// Remove every index entry.
	sc, err := c.Scan(ctx, &hbase.Scan{Table: ByDateIndexName})
	if err != nil {
		t.Fatal(err)
	}
	var victims [][]byte
	for r, err := range hbase.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		victims = append(victims, r.Row())
	}
	if len(victims) != int(cfg.Rows) {
		t.Fatalf("index holds %d entries, want one per row (%d)", len(victims), cfg.Rows)
	}
	for _, k := range victims {
		if err := c.Delete(ctx, &hbase.Delete{Table: ByDateIndexName, Row: k}); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := CustomerOrders()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := records(cfg)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.New(c, tb)
	if err != nil {
		t.Fatal(err)
	}
	err = ordersOfDay(ctx, repo, tb.Indexes()[0], recs, func(string, ...any) {})
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("orders of a day with the index emptied: err = %v, want a *MismatchError", err)
	}
	// A rerun recreates everything and passes again.
	if err := Run(ctx, cfg, c, &bytes.Buffer{}); err != nil {
		t.Fatalf("rerun: %v", err)
	}
}

func TestRunMainFake(t *testing.T) {
	var out bytes.Buffer
	err := runMain(context.Background(), []string{"--fake", "--rows", "500"}, func(string) string { return "" }, &out, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("runMain: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "loaded 500 rows") {
		t.Errorf("output:\n%s", out.String())
	}
	if err := runMain(context.Background(), []string{"--fake", "--rows", "0"}, func(string) string { return "" }, &out, &bytes.Buffer{}); !errors.Is(err, ErrConfig) {
		t.Errorf("--rows 0: err = %v, want ErrConfig", err)
	}
}
