package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// digestVerify verifies table as a digest job would: every region of the
// data and index tables digested (Span.Digest, no random read), then
// the buckets not zero judged exactly (Span.Buckets). It returns the
// counts (missing, orphaned and stale from the second pass) and how many
// buckets differed.
func digestVerify(ctx context.Context, t testing.TB, c Client, table string, buckets int) (Counts, int) {
	t.Helper()
	task, err := NewTask(ctx, c, Spec{Kind: KindVerify, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	repo := task.(*indexTask).repo
	units := regionUnits(ctx, t, c, task)
	var dig index.Digest
	total := Counts{}
	for _, u := range units {
		var last dao.Checkpoint
		rep, err := repo.CheckRange(ctx, dao.ModeVerify, dao.Span{Table: u.Table, Start: u.Start, Stop: u.Stop, Digest: buckets},
			dao.WithCheckpoint(func(cp dao.Checkpoint) error { last = cp; return nil }))
		if err != nil {
			t.Fatal(err)
		}
		total.Add(IndexCounts(rep))
		dig = dig.Add(last.Digest)
	}
	if total["missing"] != 0 || total["orphaned"] != 0 || total["stale"] != 0 {
		t.Errorf("the digest pass judged: %v", total)
	}
	diff := dig.Differing()
	if len(diff) == 0 {
		return total, 0
	}
	for _, u := range units {
		rep, err := repo.CheckRange(ctx, dao.ModeVerify, dao.Span{Table: u.Table, Start: u.Start, Stop: u.Stop, Digest: buckets, Buckets: diff})
		if err != nil {
			t.Fatal(err)
		}
		total["missing"] += rep.Missing
		total["orphaned"] += rep.Orphaned
		total["stale"] += rep.Stale
	}
	return total, len(diff)
}

// sameVerify fails unless the digest verify of table counts what the
// verify job counts, and returns how many buckets differed.
func sameVerify(ctx context.Context, t testing.TB, c Client, table string, buckets int) (Counts, int) {
	t.Helper()
	want := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: table})
	got, n := digestVerify(ctx, t, c, table, buckets)
	for _, k := range []string{"rows", "entries", "missing", "orphaned", "stale", "undecodable", "tombstones", "duplicates"} {
		if got[k] != want[k] {
			t.Errorf("%s: digest verify %s = %d, verify job %d (digest %v, job %v)", table, k, got[k], want[k], got, want)
		}
	}
	return want, n
}

// TestDigestVerifyLedger: on a clean ledger no bucket differs; damaged
// behind the store (entries deleted, a data row deleted, a carried cell
// changed, an orphan written), the digest verify counts exactly what the
// verify job counts, judging only the few buckets that differ.
func TestDigestVerifyLedger(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_dg")
	repo, recs := loadLedger(ctx, t, c, doc, 1500)
	if got, n := sameVerify(ctx, t, c, "ledger_dg", 64); n != 0 || !IndexReport(got).Clean() {
		t.Fatalf("clean ledger: %d buckets differ, %v", n, got)
	}
	now := time.Now().UnixMilli()
	var dmg []hbapi.Action
	for _, rec := range recs[10:15] {
		e := encoded(t, repo, rec).Entries[0]
		dmg = append(dmg, &hbapi.Delete{Table: "ledger_dg_by_status", Row: e.Key, Timestamp: now})
	}
	dmg = append(dmg, &hbapi.Delete{Table: "ledger_dg", Row: encoded(t, repo, recs[20]).Data.Key, Timestamp: now})
	st := encoded(t, repo, recs[30]).Entries[0]
	for _, cell := range st.Cells {
		if cell.Qualifier == "a" {
			dmg = append(dmg, &hbapi.Put{Table: "ledger_dg_by_status", Row: st.Key, Timestamp: now,
				Cells: []hbapi.PutCell{{Family: cell.Family, Qualifier: cell.Qualifier, Value: []byte("changed!")}}})
		}
	}
	// A copy of an entry under another key: an orphan whose row derives
	// another key.
	orphan := encoded(t, repo, recs[40]).Entries[1]
	p := &hbapi.Put{Table: "ledger_dg_by_ref", Row: append([]byte("zz-orphan-"), orphan.Key...), Timestamp: now}
	p.Cells = append(p.Cells, orphan.Cells...)
	dmg = append(dmg, p)
	if _, err := c.Batch(ctx, dmg); err != nil {
		t.Fatal(err)
	}
	got, n := sameVerify(ctx, t, c, "ledger_dg", 64)
	wantCounts(t, "damaged", got, Counts{"missing": 5, "orphaned": 3, "stale": 1})
	if n == 0 || n > 9 {
		t.Errorf("damaged ledger: %d of 64 buckets differ, want 1 to 9 (one per damaged entry at most)", n)
	}
}

// TestDigestVerifyForeign: rows another client wrote (no version cell)
// with entries without a status, as repair writes them for such rows,
// then damaged: the digest verify counts what the verify job counts.
func TestDigestVerifyForeign(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc := ledgerTables(t, "ledger_df")
	tbl, err := schema.Bind[ledger](doc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	old, err := dao.New(c, tbl, dao.WithUnindexedWrites())
	if err != nil {
		t.Fatal(err)
	}
	var recs []*ledger
	for i := range 600 {
		recs = append(recs, ledgerRecord(i, []string{"pending", "settled", "held"}[i%3]))
	}
	if _, err := old.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, admin.WithIndexTables(tbl)...); err != nil {
		t.Fatal(err)
	}
	if got, _ := sameVerify(ctx, t, c, "ledger_df", 64); got["missing"] != 1200 {
		t.Fatalf("no entries: %v, want 1200 missing", got)
	}
	time.Sleep(5 * time.Millisecond)
	runJob(ctx, t, c, Spec{Kind: KindRepair, Table: "ledger_df"})
	if got, n := sameVerify(ctx, t, c, "ledger_df", 64); n != 0 || !IndexReport(got).Clean() {
		t.Fatalf("repaired: %d buckets differ, %v", n, got)
	}
	var r schema.Record
	if err := tbl.EncodeRecord(&r, recs[7]); err != nil {
		t.Fatal(err)
	}
	// The fake stamped the repair's cells itself, ahead of the clock.
	now := time.Now().Add(time.Hour).UnixMilli()
	dmg := []hbapi.Action{&hbapi.Delete{Table: "ledger_df_by_status", Row: r.Entries[0].Key, Timestamp: now}}
	var r8 schema.Record
	if err := tbl.EncodeRecord(&r8, recs[8]); err != nil {
		t.Fatal(err)
	}
	for _, cell := range r8.Entries[0].Cells {
		if cell.Qualifier == "a" {
			dmg = append(dmg, &hbapi.Put{Table: "ledger_df_by_status", Row: r8.Entries[0].Key, Timestamp: now,
				Cells: []hbapi.PutCell{{Family: cell.Family, Qualifier: cell.Qualifier, Value: []byte("changed!")}}})
		}
	}
	if _, err := c.Batch(ctx, dmg); err != nil {
		t.Fatal(err)
	}
	got, _ := sameVerify(ctx, t, c, "ledger_df", 64)
	wantCounts(t, "foreign, damaged", got, Counts{"missing": 1, "stale": 1})
}

// TestDigestVerifyInverted: over an inverted index whose hot row holds
// more cells than a batch, the digest verify is clean on a clean table
// and, with cells deleted and a cell of no reading added, counts what the
// verify job counts.
func TestDigestVerifyInverted(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	doc, err := schema.ParseDocument([]byte(readingsDoc))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.Open[reading](ctx, c, doc)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	var recs []*reading
	for i := range 1200 {
		recs = append(recs, &reading{Sensor: fmt.Sprintf("s-%02d", i%40), At: at.Add(time.Duration(i) * 17 * time.Minute),
			Site: []string{"north", "south", "east"}[i%3], Celsius: float64(i%50) / 4})
	}
	for i := range 700 {
		recs = append(recs, &reading{Sensor: fmt.Sprintf("h-%02d", i%7), At: at.Add(time.Duration(i) * time.Second), Site: "hot", Celsius: 40})
	}
	if _, err := repo.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, n := sameVerify(ctx, t, c, "readings", 64); n != 0 || !IndexReport(got).Clean() {
		t.Fatalf("clean readings: %d buckets differ, %v", n, got)
	}
	now := time.Now().Add(time.Hour).UnixMilli()
	var dmg []hbapi.Action
	for _, r := range []*reading{recs[100], recs[101], recs[1500]} {
		var rec schema.Record
		if err := repo.Table().EncodeRecord(&rec, r); err != nil {
			t.Fatal(err)
		}
		e := rec.Entries[0]
		dmg = append(dmg, &hbapi.Delete{Table: "readings_by_site_day", Row: e.Key, Family: []byte(e.Cells[0].Family),
			Qualifier: []byte(e.Cells[0].Qualifier), Timestamp: now, AllVersions: true})
		if r == recs[1500] { // a cell in the hot row that no reading derives
			dmg = append(dmg, &hbapi.Put{Table: "readings_by_site_day", Row: e.Key, Timestamp: now,
				Cells: []hbapi.PutCell{{Family: e.Cells[0].Family, Qualifier: "zz" + e.Cells[0].Qualifier, Value: e.Cells[0].Value}}})
		}
	}
	if _, err := c.Batch(ctx, dmg); err != nil {
		t.Fatal(err)
	}
	got, _ := sameVerify(ctx, t, c, "readings", 64)
	wantCounts(t, "damaged", got, Counts{"missing": 3, "orphaned": 1})
}
