package jobs

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

func newFake(t testing.TB) *fake.Client {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loadLedger writes n ledger records through the store (every 5th one
// then moves from pending to settled) and returns the store and the
// records.
func loadLedger(ctx context.Context, t testing.TB, c dao.Conn, doc schema.Document, n int) (*dao.Repo[ledger], []*ledger) {
	t.Helper()
	repo, err := dao.Open[ledger](ctx, c, doc)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*ledger, n)
	for i := range recs {
		recs[i] = ledgerRecord(i, "pending")
	}
	if _, err := repo.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	var moved []*ledger
	for i := 0; i < n; i += 5 {
		recs[i].Status = "settled"
		moved = append(moved, recs[i])
	}
	if _, err := repo.PutBatch(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return repo, recs
}

// encoded returns rec as the store writes it.
func encoded(t testing.TB, repo *dao.Repo[ledger], rec *ledger) *schema.Record {
	t.Helper()
	var r schema.Record
	if err := repo.Table().EncodeRecord(&r, rec); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestIndexTaskVerifyRepair: over a schema of its own, read from the
// table's stored document, the verify job's units (the data table's
// regions, then the index tables') count the damage done behind the
// store exactly: entries deleted (missing), a data row deleted (its two
// entries orphaned), a carried cell changed (stale); the repair job fixes
// it and verify is then clean.
func TestIndexTaskVerifyRepair(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_vr")
	repo, recs := loadLedger(ctx, t, c, doc, 1500)
	// Explicit timestamps: the fake stamps a write it times itself above
	// every earlier one, ahead of the writers' clocks after many writes.
	now := time.Now().UnixMilli()
	var dmg []hbapi.Action
	for _, rec := range recs[10:15] {
		e := encoded(t, repo, rec).Entries[0]
		dmg = append(dmg, &hbapi.Delete{Table: "ledger_vr_by_status", Row: e.Key, Timestamp: now})
	}
	dmg = append(dmg, &hbapi.Delete{Table: "ledger_vr", Row: encoded(t, repo, recs[20]).Data.Key, Timestamp: now})
	st := encoded(t, repo, recs[30]).Entries[0]
	var amount schema.Cell
	for _, cell := range st.Cells {
		if cell.Qualifier == "a" {
			amount = cell
		}
	}
	dmg = append(dmg, &hbapi.Put{Table: "ledger_vr_by_status", Row: st.Key, Timestamp: now,
		Cells: []hbapi.PutCell{{Family: amount.Family, Qualifier: amount.Qualifier, Value: []byte("changed!")}}})
	if _, err := c.Batch(ctx, dmg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // repairs write above the damage
	task, err := NewTask(ctx, c, Spec{Kind: KindVerify, Table: "ledger_vr"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := task.Sources(), []string{"ledger_vr", "ledger_vr_by_status", "ledger_vr_by_ref"}; !slices.Equal(got, want) {
		t.Fatalf("sources %q, want %q", got, want)
	}
	got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_vr"})
	wantCounts(t, "verify", got, Counts{"rows": 1499, "entries": 2*1499 - 5 + 2, "missing": 5, "orphaned": 2, "stale": 1, "repaired": 0})
	if IndexReport(got).Clean() {
		t.Error("the damaged ledger verifies clean")
	}
	got = runJob(ctx, t, c, Spec{Kind: KindRepair, Table: "ledger_vr", Grace: time.Nanosecond})
	wantCounts(t, "repair", got, Counts{"missing": 5, "orphaned": 2, "stale": 1, "repaired": 5 + 2 + 1})
	got = runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_vr"})
	wantCounts(t, "verify after repair", got, Counts{"rows": 1499, "entries": 2 * 1499})
	if !IndexReport(got).Clean() {
		t.Errorf("verify after repair: %v, want clean", got)
	}
}

// TestIndexTaskRebuildBulk: a rebuild writes every entry of the
// versioned rows as plain Puts, with no protocol round trip (the data
// rows keep their version), restoring an index table truncated behind
// the store; verify is then clean and Find answers.
func TestIndexTaskRebuildBulk(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_rb")
	repo, recs := loadLedger(ctx, t, c, doc, 1200)
	before := rowVersions(ctx, t, c, "ledger_rb")
	if err := c.DisableTable(ctx, "ledger_rb_by_status"); err != nil {
		t.Fatal(err)
	}
	if err := c.TruncateTable(ctx, "ledger_rb_by_status", true); err != nil {
		t.Fatal(err)
	}
	got := runJob(ctx, t, c, Spec{Kind: KindRebuild, Table: "ledger_rb", Index: "ledger_rb_by_status"})
	wantCounts(t, "rebuild", got, Counts{"rows": 1200, "repaired": 1200, "entries": 1200, "orphaned": 0})
	if after := rowVersions(ctx, t, c, "ledger_rb"); !slices.Equal(before, after) {
		t.Error("the bulk rebuild rewrote data rows")
	}
	got = runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_rb"})
	if !IndexReport(got).Clean() || got["rows"] != 1200 {
		t.Errorf("verify after rebuild: %v", got)
	}
	settled := 0
	for _, r := range recs {
		if r.Status == "settled" {
			settled++
		}
	}
	if n := findStatus(ctx, t, repo, "settled"); len(n) != settled {
		t.Errorf("Find settled: %d records, want %d", len(n), settled)
	}
}

// rowVersions returns the version cells of a data table, in key order.
func rowVersions(ctx context.Context, t testing.TB, c Client, table string) []string {
	t.Helper()
	sc, err := c.Scan(ctx, &hbapi.Scan{Table: table})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for r, err := range hbapi.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		c, _ := r.Latest([]byte("e"), []byte("_v"))
		out = append(out, string(r.Row())+"@"+string(c.Value))
	}
	return out
}

// findStatus returns the records Find answers for a status, by key.
func findStatus(ctx context.Context, t testing.TB, repo *dao.Repo[ledger], status string) map[int64]*ledger {
	t.Helper()
	x, err := repo.Index(repo.Table().Indexes()[0].Name().String()) // the status index
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]*ledger{}
	for rec, err := range x.Find(ctx, dao.Prefix(&ledger{Status: status}, 1)) {
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out[rec.Seq]; dup {
			t.Errorf("Find %s: record %d twice", status, rec.Seq)
		}
		out[rec.Seq] = rec
	}
	return out
}

// TestIndexTaskBuild: an index table created over a data table that
// holds rows is building, and Find through it refuses; the build job
// writes the entries of the rows already there (its units are the data
// table's only), Finish marks it active, and Find answers every old row.
func TestIndexTaskBuild(t *testing.T) {
	buildScenario(context.Background(), t, newFake(t), "ledger_b", 1100)
}

func buildScenario(ctx context.Context, t testing.TB, c jobClient, name string, n int) {
	doc := ledgerTables(t, name)
	_, recs := loadLedger(ctx, t, c, doc, n)
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
	if st, err := a.IndexState(ctx, name+"_by_status"); err != nil || st != schema.IndexBuilding {
		t.Fatalf("state of the new index table: %q, %v; want building", st, err)
	}
	fresh, err := dao.New(c, tbl)
	if err != nil {
		t.Fatal(err)
	}
	x, err := fresh.Index(name + "_by_status")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range x.Find(ctx, dao.Query[ledger]{Ranges: []keys.KeyRange{{}}}) {
		if !errors.Is(err, dao.ErrIndexBuilding) {
			t.Fatalf("Find before the build: %v, want ErrIndexBuilding", err)
		}
		break
	}
	task, err := NewTask(ctx, c, Spec{Kind: KindBuild, Table: name, Index: name + "_by_status"})
	if err != nil {
		t.Fatal(err)
	}
	if got := task.Sources(); !slices.Equal(got, []string{name}) {
		t.Fatalf("build sources %q, want the data table only", got)
	}
	got := runJob(ctx, t, c, Spec{Kind: KindBuild, Table: name, Index: name + "_by_status"})
	wantCounts(t, "build", got, Counts{"rows": int64(n), "repaired": int64(n)})
	if st, err := a.IndexState(ctx, name+"_by_status"); err != nil || st != schema.IndexActive {
		t.Fatalf("state after the build: %q, %v; want active", st, err)
	}
	for _, status := range []string{"pending", "settled"} {
		want := 0
		for _, r := range recs {
			if r.Status == status {
				want++
			}
		}
		if n := findStatus(ctx, t, fresh, status); len(n) != want {
			t.Errorf("Find %s after the build: %d records, want %d", status, len(n), want)
		}
	}
	if got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: name}); !IndexReport(got).Clean() {
		t.Errorf("verify after build: %v", got)
	}
}

// TestIndexTaskResume: a unit stopped after any commit and run again
// from the position committed handles the rest exactly once: the counts
// committed add up to those of a run that never stopped, for the data
// table's unit and the index tables'.
func TestIndexTaskResume(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_rs")
	loadLedger(ctx, t, c, doc, 2600)
	for _, kind := range []Kind{KindVerify, KindRebuild} {
		task, err := NewTask(ctx, c, Spec{Kind: kind, Table: "ledger_rs"})
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range task.Sources() {
			u := Unit{ID: table, Table: table}
			whole := Counts{}
			commits := 0
			if err := task.Run(ctx, u, nil, func(_ []byte, d Counts) error { whole.Add(d); commits++; return nil }); err != nil {
				t.Fatal(err)
			}
			if commits < 4 {
				t.Fatalf("%s %s: %d commits, want several batches", kind, table, commits)
			}
			for stopAt := 1; stopAt < commits; stopAt++ {
				total := Counts{}
				var after []byte
				n := 0
				err := task.Run(ctx, u, nil, func(last []byte, d Counts) error {
					if n++; n > stopAt {
						return errStopRun
					}
					total.Add(d)
					after = last
					return nil
				})
				if !errors.Is(err, errStopRun) {
					t.Fatalf("stopped run: %v", err)
				}
				if err := task.Run(ctx, u, after, func(_ []byte, d Counts) error { total.Add(d); return nil }); err != nil {
					t.Fatal(err)
				}
				wantCounts(t, string(kind)+" "+table+" resumed", total, whole)
			}
		}
	}
}

// TestIndexTaskRebuildModes: the bulk rebuild in each write mode the
// schema may choose. The entries it writes are withdrawn by the mode's
// own writers afterwards: a mutable writer's validation deletes the old
// entry of a record it moves (named by the history cell of the row's
// version, which the bulk path requires), so verify stays clean; in the
// verify-on-read mode old entries stay, as that mode's own writes leave
// them, and Find still answers exactly.
func TestIndexTaskRebuildModes(t *testing.T) {
	for _, mode := range []string{"mutable", "verify-on-read", "insert-only"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			c := newFake(t)
			doc := ledgerTables(t, "ledger_m")
			doc.Writes = mode
			repo, err := dao.Open[ledger](ctx, c, doc)
			if err != nil {
				t.Fatal(err)
			}
			live := map[int64]*ledger{}
			var recs []*ledger
			for i := range 900 {
				recs = append(recs, ledgerRecord(i, "pending"))
				live[int64(i)] = recs[i]
			}
			if _, err := repo.PutBatch(ctx, recs); err != nil {
				t.Fatal(err)
			}
			if err := repo.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			before := rowVersions(ctx, t, c, "ledger_m")
			if err := c.DisableTable(ctx, "ledger_m_by_status"); err != nil {
				t.Fatal(err)
			}
			if err := c.TruncateTable(ctx, "ledger_m_by_status", true); err != nil {
				t.Fatal(err)
			}
			got := runJob(ctx, t, c, Spec{Kind: KindRebuild, Table: "ledger_m", Index: "ledger_m_by_status"})
			wantCounts(t, "rebuild", got, Counts{"rows": 900, "repaired": 900, "entries": 900})
			if after := rowVersions(ctx, t, c, "ledger_m"); !slices.Equal(before, after) {
				t.Error("the rebuild went through the protocol: data rows rewritten")
			}
			if got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_m"}); !IndexReport(got).Clean() {
				t.Errorf("verify after rebuild: %v", got)
			}
			if mode == "insert-only" {
				checkFindExact(ctx, t, repo, live, "after the rebuild")
				return
			}
			var moved []*ledger
			for i := 0; i < 900; i += 9 {
				m := *recs[i]
				m.Status = "settled"
				moved, live[m.Seq] = append(moved, &m), &m
			}
			if _, err := repo.PutBatch(ctx, moved); err != nil {
				t.Fatal(err)
			}
			if _, err := repo.DeleteBatch(ctx, recs[1:40]); err != nil {
				t.Fatal(err)
			}
			for _, r := range recs[1:40] {
				delete(live, r.Seq)
			}
			if err := repo.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			checkFindExact(ctx, t, repo, live, "after the writes")
			if got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_m"}); mode == "mutable" && !IndexReport(got).Clean() {
				t.Errorf("verify after the mutable writes: %v, want clean (the writers withdrew the rebuilt entries)", got)
			}
		})
	}
}

// TestIndexTaskBuildUnversioned: rows written without the protocol (no
// version cell: WithUnindexedWrites, as another client writes them) take
// the protocol's path in a build of every index, which adopts them (they
// get their version); Finish marks both indexes active, and Find answers
// every record.
func TestIndexTaskBuildUnversioned(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_u")
	tbl, err := schema.Bind[ledger](doc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, tbl); err != nil { // the data table alone
		t.Fatal(err)
	}
	old, err := dao.New(c, tbl, dao.WithUnindexedWrites())
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]*ledger{}
	var recs []*ledger
	for i := range 700 {
		r := ledgerRecord(i, []string{"pending", "settled", "held"}[i%3])
		recs, live[r.Seq] = append(recs, r), r
	}
	if _, err := old.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, admin.WithIndexTables(tbl)...); err != nil {
		t.Fatal(err)
	}
	got := runJob(ctx, t, c, Spec{Kind: KindBuild, Table: "ledger_u"})
	wantCounts(t, "build", got, Counts{"rows": 700, "repaired": 700, "skipped": 0})
	sc, err := c.Scan(ctx, &hbapi.Scan{Table: "ledger_u"})
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range hbapi.All(ctx, sc) {
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Value([]byte("e"), []byte("_v")); len(v) != 8 {
			t.Fatalf("row %q has no version after the build: not adopted", r.Row())
		}
	}
	repo, err := dao.New(c, tbl)
	if err != nil {
		t.Fatal(err)
	}
	checkFindExact(ctx, t, repo, live, "after the build")
	if got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "ledger_u"}); !IndexReport(got).Clean() || got["entries"] != 1400 {
		t.Errorf("verify after the build: %v", got)
	}
}
