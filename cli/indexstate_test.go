package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// Issue 33, item 10: the admin job given a schema with indexes creates,
// checks, truncates and drops its index tables with it.
func TestTableComesWithIndexTables(t *testing.T) {
	ctx := context.Background()
	h := newTableHarness(t)
	out, _, err := h.run(nil, "create", "--schema", "sms")
	if err != nil || out != "sms: created\nsms_index: created\n" {
		t.Fatalf("create --schema sms: %q, %v; want sms and sms_index created", out, err)
	}
	if ok, err := h.c.TableExists(ctx, "sms_index"); err != nil || !ok {
		t.Fatalf("sms_index exists: %v, %v", ok, err)
	}
	out, _, err = h.run(nil, "ensure", "--schema", "sms")
	if err != nil || out != "sms: unchanged\nsms_index: unchanged\n" {
		t.Errorf("ensure --schema sms: %q, %v", out, err)
	}
	out, _, err = h.run(nil, "describe", "--schema", "sms")
	if err != nil || !strings.Contains(out, "table sms: enabled, 20 regions") || !strings.Contains(out, "table sms_index: enabled, 10 regions") ||
		strings.Count(out, "drift: none") != 2 {
		t.Errorf("describe --schema sms: %v\n%s", err, out)
	}
	if out, _, err = h.run(nil, "drop", "--schema", "sms", "--yes"); err != nil || out != "sms: dropped\nsms_index: dropped\n" {
		t.Errorf("drop --schema sms: %q, %v", out, err)
	}
	for _, table := range []string{"sms", "sms_index"} {
		if ok, err := h.c.TableExists(ctx, table); err != nil || ok {
			t.Errorf("%s after drop: exists %v, %v", table, ok, err)
		}
	}

	// An index table already gone is reported, not an error; one named
	// explicitly is.
	if _, _, err := h.run(nil, "create", "--schema", "sms"); err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(h.c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Drop(ctx, "sms_index"); err != nil {
		t.Fatal(err)
	}
	if out, _, err = h.run(nil, "drop", "--schema", "sms", "--yes"); err != nil || out != "sms: dropped\nsms_index: absent\n" {
		t.Errorf("drop with the index table gone: %q, %v", out, err)
	}

	// In another namespace, the index table follows its data table.
	out, _, err = h.run(nil, "create", "--schema", "TestTable", "--namespace", "s2")
	if err != nil || out != "s2:TestTable: created\ns2:TestTable_province_age: created\n" {
		t.Errorf("create --namespace s2: %q, %v", out, err)
	}
	if out, _, err = h.run(nil, "drop", "--schema", "TestTable", "--namespace", "s2", "--yes"); err != nil ||
		out != "s2:TestTable: dropped\ns2:TestTable_province_age: dropped\n" {
		t.Errorf("drop --namespace s2: %q, %v", out, err)
	}
}

// Issue 33, item 2 through the command line: table create over a data
// table holding rows says the index needs building, readers refuse it,
// index build builds it, and then it answers.
func TestTableCreateOverRowsThenIndexBuild(t *testing.T) {
	ctx := context.Background()
	h := newTableHarness(t)
	sms, err := seeds.Builtin("sms")
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(h.c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, sms); err != nil { // the data table alone, as before item 10
		t.Fatal(err)
	}
	old, err := seedstore.NewSMS(h.c, dao.WithUnindexedWrites()) // rows without entries
	if err != nil {
		t.Fatal(err)
	}
	const n = 25
	for i := range n {
		m := &seeds.SMS{Mobile: fmt.Sprintf("1390000%04d", i), SentAt: time.Date(2026, 11, 27, 9, 0, i, 0, time.UTC), Account: "acct", Content: "hi"}
		if err := old.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	out, _, err := h.run(nil, "create", "--schema", "sms")
	if err != nil || !strings.HasPrefix(out, "sms: unchanged\nsms_index: needs building\n  its data table held rows") {
		t.Fatalf("create over rows: %q, %v; want sms_index reported as needing building", out, err)
	}
	if out, _, _ = h.run(nil, "describe", "--schema", "sms_index"); !strings.Contains(out, "attribute hbkit.index.state=building") {
		t.Errorf("describe does not show the state:\n%s", out)
	}
	repo, err := seedstore.NewSMS(h.c)
	if err != nil {
		t.Fatal(err)
	}
	all := dao.Query[seeds.SMS]{Ranges: []keys.KeyRange{{}}}
	x, err := repo.Index("sms_index")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Count(ctx, all, ""); !errors.Is(err, dao.ErrIndexBuilding) || !strings.Contains(err.Error(), "hbkit index build") {
		t.Errorf("Count before the build = %v, want ErrIndexBuilding naming the fix", err)
	}

	out, _, err = runIndexCmd(t, h.c, "build", "--schema", "sms")
	if err != nil || !strings.Contains(out, "build sms (index sms_index)") || !strings.Contains(out, fmt.Sprintf("missing      %d", n)) {
		t.Fatalf("index build: %v\n%s", err, out)
	}
	if out, _, err = h.run(nil, "ensure", "--schema", "sms"); err != nil || out != "sms: unchanged\nsms_index: unchanged\n" {
		t.Errorf("ensure after the build: %q, %v", out, err)
	}
	if got, err := x.Count(ctx, all, ""); err != nil || got[""] != n {
		t.Errorf("Count after the build = %v, %v; want %d", got, err, n)
	}
	if out, _, err = runIndexCmd(t, h.c, "verify", "--schema", "sms"); err != nil || !strings.Contains(out, "missing      0") {
		t.Errorf("verify after the build: %v\n%s", err, out)
	}
}
