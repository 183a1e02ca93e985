//go:build integration

package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
)

// TestIntegrationIndexJobsWithRunner runs the index Tasks through the
// runner (Run: plan from the regions, checkpoint store, two workers) on
// the real HBase: a build of an index table re-created over 20,000 rows
// ends with Finish run and Find answering every record; a verify job then
// counts every row and entry, nothing missing.
func TestIntegrationIndexJobsWithRunner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := ittest.Connect(t)
	name := itLedger(t, c, "g2ix_e2e", "_jobs")
	sopts := []StoreOption{WithStoreTable(name + "_jobs")}
	if err := EnsureStore(ctx, c, sopts...); err != nil {
		t.Fatal(err)
	}
	store, err := NewStore(c, sopts...)
	if err != nil {
		t.Fatal(err)
	}
	doc := ledgerTables(t, name)
	_, recs := loadLedger(ctx, t, c, doc, 20000)
	if err := c.DisableTable(ctx, name+"_by_status"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTable(ctx, name+"_by_status"); err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.Bind[ledger](doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, admin.WithIndexTables(tbl)...); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, c, Spec{Kind: KindBuild, Table: name, Index: name + "_by_status"}, WithStore(store), WithWorkers(2))
	t.Logf("build: %+v %v", rep, err)
	if err != nil || !rep.Finished || rep.Rows != 20000 {
		t.Fatalf("build: %+v, %v", rep, err)
	}
	fresh, err := dao.New(c, tbl)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]*ledger{}
	for _, r := range recs {
		live[r.Seq] = r
	}
	checkFindExact(ctx, t, fresh, live, "after the build")
	rep, err = Run(ctx, c, Spec{Kind: KindVerify, Table: name}, WithStore(store), WithWorkers(2))
	t.Logf("verify: %+v %v", rep, err)
	if err != nil || !IndexReport(rep.Counts).Clean() || rep.Counts["entries"] != 40000 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
}
