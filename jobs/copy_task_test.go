package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
)

// inboxRecords returns users×perUser messages, the same on every call.
func inboxRecords(users, perUser int) []schema.Values {
	out := make([]schema.Values, 0, users*perUser)
	for u := range users {
		for i := range perUser {
			out = append(out, inboxRecord(u, uint64(u*perUser+i), fmt.Sprintf("hello %d", i), i%2 == 0))
		}
	}
	return out
}

// loadInbox writes users×perUser messages (inboxRecords) into the inbox
// store.
func loadInbox(t testing.TB, r *dao.Repo[schema.Values], users, perUser int) []schema.Values {
	t.Helper()
	out := inboxRecords(users, perUser)
	recs := make([]*schema.Values, len(out))
	for i := range out {
		recs[i] = &out[i]
	}
	if _, err := r.PutBatch(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	return out
}

// regionCounts counts the rows of each region of table.
func regionCounts(t testing.TB, c jobs.Client, table string) []int {
	t.Helper()
	ctx := context.Background()
	regions, err := c.TableRegions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(regions))
	for i, r := range regions {
		s := &hbapi.Scan{Table: table, StartRow: r.StartKey, StopRow: r.EndKey,
			Filter: &hbapi.FilterList{Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}}}
		for _, err := range hbapi.ScanAll(ctx, c, s) {
			if err != nil {
				t.Fatal(err)
			}
			out[i]++
		}
	}
	return out
}

// checkSpread fails unless each region holds n/len(counts) rows within
// tolerance (a fraction).
func checkSpread(t testing.TB, counts []int, n int, tolerance float64) {
	t.Helper()
	fair := float64(n) / float64(len(counts))
	for i, got := range counts {
		if f := float64(got); f < fair*(1-tolerance) || f > fair*(1+tolerance) {
			t.Errorf("region %d holds %d rows, want %.0f ± %.0f%% (all: %v)", i, got, fair, 100*tolerance, counts)
		}
	}
}

// checkRecords fails unless the store holds exactly recs (by Get).
func checkRecords(t testing.TB, r *dao.Repo[schema.Values], recs []schema.Values) {
	t.Helper()
	for _, want := range recs {
		got, ok, err := r.Get(context.Background(), &want)
		switch {
		case err != nil:
			t.Fatal(err)
		case !ok:
			t.Fatalf("%s: missing from %s", describe(want), r.Name())
		case !sameValues(*got, want):
			t.Fatalf("%s: got %s", describe(want), describe(*got))
		}
	}
}

func TestCopyInboxIntoBucketedTarget(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	src := createTable(t, c, parseDoc(t, inboxDoc("inbox")))
	recs := loadInbox(t, src, 40, 100)
	target := parseDoc(t, inboxBucketedDoc("chat:inbox_v2"))
	splits, err := jobs.PrepareTarget(ctx, c, c, "inbox", target, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 7 {
		t.Fatalf("got %d split keys, want 7", len(splits))
	}
	again, err := jobs.PrepareTarget(ctx, c, c, "inbox", target, 8) // a second run
	if err != nil || len(again) != 7 || !bytes.Equal(again[3], splits[3]) {
		t.Fatalf("PrepareTarget again: %q, %v; want the splits of the first run %q", again, err, splits)
	}
	spec := jobs.Spec{Kind: jobs.KindCopy, Table: "inbox", Target: "chat:inbox_v2"}
	for run := range 2 { // a second run changes nothing
		counts := runJob(t, c, spec)
		if counts["rows"] != int64(len(recs)) || counts["written"] != int64(len(recs)) || counts["undecodable"] != 0 {
			t.Fatalf("run %d: counts %v, want %d rows all written", run, counts, len(recs))
		}
		cmp := runJob(t, c, jobs.Spec{Kind: jobs.KindCompare, Table: "inbox", Target: "chat:inbox_v2"})
		if cmp["same"] != int64(len(recs)) || cmp["missing"]+cmp["different"]+cmp["extra"]+cmp["undecodable"] != 0 {
			t.Fatalf("run %d: compare %v", run, cmp)
		}
	}
	counts := regionCounts(t, c, "chat:inbox_v2")
	checkSpread(t, counts, len(recs), 0.25)
	tgt := openStore(t, c, target)
	checkRecords(t, tgt, recs)
	byID, err := tgt.Index("chat:inbox_v2_by_id")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range recs[:50] {
		n := 0
		for got, err := range byID.Find(ctx, dao.Eq(&schema.Values{"id": want["id"]}, "id")) {
			if err != nil {
				t.Fatal(err)
			}
			if !sameValues(*got, want) {
				t.Fatalf("index read %s: got %s", describe(want), describe(*got))
			}
			n++
		}
		if n != 1 {
			t.Fatalf("index read %s: %d records", describe(want), n)
		}
	}
}

// A unit stopped after its first batch and resumed from its checkpoint
// redoes nothing wrong: the target ends as after one clean run.
func TestCopyResumes(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	src := createTable(t, c, parseDoc(t, readingsDoc("readings")))
	var recs []schema.Values
	var ptrs []*schema.Values
	for s := range 30 {
		for i := range 100 {
			v := readingRecord(s, i, float64(i)/4)
			recs, ptrs = append(recs, v), append(ptrs, &v)
		}
	}
	if _, err := src.PutBatch(ctx, ptrs); err != nil {
		t.Fatal(err)
	}
	target := parseDoc(t, readingsByDayDoc("readings_by_day"))
	if _, err := jobs.PrepareTarget(ctx, c, c, "readings", target, 4); err != nil {
		t.Fatal(err)
	}
	task, err := jobs.NewTask(ctx, c, jobs.Spec{Kind: jobs.KindCopy, Table: "readings", Target: "readings_by_day"})
	if err != nil {
		t.Fatal(err)
	}
	u := jobs.Unit{ID: "all", Table: "readings"}
	var last []byte
	total := jobs.Counts{}
	stop := errors.New("worker killed")
	err = task.Run(ctx, u, nil, func(l []byte, d jobs.Counts) error {
		if last != nil {
			return stop // dies before its second checkpoint
		}
		last = bytes.Clone(l)
		total.Add(d)
		return nil
	})
	if !errors.Is(err, stop) || last == nil {
		t.Fatalf("first run: %v (checkpoint %q)", err, last)
	}
	if err := task.Run(ctx, u, last, func(_ []byte, d jobs.Counts) error { total.Add(d); return nil }); err != nil {
		t.Fatal(err)
	}
	if total["rows"] != int64(len(recs)) || total["written"] != int64(len(recs)) {
		t.Fatalf("counts %v, want %d rows written once each", total, len(recs))
	}
	if got := regionCounts(t, c, "readings_by_day"); sum(got) != len(recs) {
		t.Fatalf("target holds %d rows, want %d", sum(got), len(recs))
	}
	checkRecords(t, openStore(t, c, target), recs)
	cmp := runJob(t, c, jobs.Spec{Kind: jobs.KindCompare, Table: "readings", Target: "readings_by_day"})
	if cmp["same"] != int64(len(recs)) || cmp["missing"]+cmp["different"]+cmp["extra"] != 0 {
		t.Fatalf("compare %v", cmp)
	}
}

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

// A copy of a row read before a newer write, or before a delete, lands
// after it and changes nothing: its cells carry the older version.
func TestCopyNeverUndoesANewerWrite(t *testing.T) {
	cases := []struct {
		name           string
		srcDoc, dstDoc string
		rec, updated   schema.Values
	}{
		{"inbox without index", inboxDoc("inbox"), inboxBucketedDoc("inbox_v2"),
			inboxRecord(1, 7, "first", false), inboxRecord(1, 7, "second", true)},
		{"readings, strict with index", readingsDoc("readings"), readingsByDayDoc("readings_v2"),
			readingRecord(4, 9, 20.5), func() schema.Values { v := readingRecord(4, 9, 21); v["site"] = "moved"; return v }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := newFake(t)
			srcDoc, dstDoc := parseDoc(t, tc.srcDoc), parseDoc(t, tc.dstDoc)
			plain := createTable(t, c, srcDoc)
			rec := tc.rec
			if err := plain.Put(ctx, &rec); err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.PrepareTarget(ctx, c, c, srcDoc.Name, dstDoc, 2); err != nil {
				t.Fatal(err)
			}
			key, err := plain.Table().AppendKey(nil, &rec)
			if err != nil {
				t.Fatal(err)
			}
			stale, err := c.Get(ctx, &hbapi.Get{Table: srcDoc.Name, Row: key})
			if err != nil {
				t.Fatal(err)
			}
			cp, err := dao.NewCopier(c, dao.CopySpec{Source: srcDoc, Target: dstDoc})
			if err != nil {
				t.Fatal(err)
			}
			mirrored := openStore(t, c, srcDoc, dao.WithMirror(cp))
			tgt := openStore(t, c, dstDoc)
			upd := tc.updated
			if err := mirrored.Put(ctx, &upd); err != nil {
				t.Fatal(err)
			}
			sendStale := func() {
				acts, o, err := cp.Actions(nil, key, stale, 0)
				if err != nil || o != dao.CopyRecord {
					t.Fatalf("stale copy: %v, %v", o, err)
				}
				if _, err := c.Batch(ctx, acts); err != nil {
					t.Fatal(err)
				}
			}
			sendStale()
			checkRecords(t, tgt, []schema.Values{upd})
			if err := mirrored.Delete(ctx, &upd); err != nil {
				t.Fatal(err)
			}
			sendStale()
			runJob(t, c, jobs.Spec{Kind: jobs.KindCopy, Table: srcDoc.Name, Target: dstDoc.Name})
			if _, ok, err := tgt.Get(ctx, &upd); err != nil || ok {
				t.Fatalf("deleted record in the target after stale copies: %v, %v", ok, err)
			}
		})
	}
}

// Quantiles cut a sample into equal parts and never return an empty or
// repeated key.
func TestQuantiles(t *testing.T) {
	var sample [][]byte
	for i := range 1000 {
		sample = append(sample, []byte(fmt.Sprintf("%04d", i)))
	}
	got := jobs.Quantiles(sample, 4)
	want := []string{"0250", "0500", "0750"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	few := jobs.Quantiles([][]byte{{}, []byte("a"), []byte("a"), []byte("b")}, 8)
	for i, k := range few {
		if len(k) == 0 || i > 0 && bytes.Compare(few[i-1], k) >= 0 {
			t.Fatalf("got %q: empty or not ascending", few)
		}
	}
}

// A copy into an insert-only target (messages are never rewritten): its
// store then reads the copied records, refuses to insert them again, and
// its index comes out clean of a repair.
func TestCopyIntoInsertOnlyTarget(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	src := createTable(t, c, parseDoc(t, inboxDoc("inbox")))
	recs := loadInbox(t, src, 5, 40)
	target := parseDoc(t, inboxBucketedDoc("inbox_v2"))
	target.Writes = "insert-only"
	if _, err := jobs.PrepareTarget(ctx, c, c, "inbox", target, 4); err != nil {
		t.Fatal(err)
	}
	if counts := runJob(t, c, jobs.Spec{Kind: jobs.KindCopy, Table: "inbox", Target: "inbox_v2"}); counts["written"] != int64(len(recs)) {
		t.Fatalf("copy counts %v", counts)
	}
	tgt := openStore(t, c, target)
	checkRecords(t, tgt, recs)
	if rep, err := tgt.Check(ctx, dao.ModeRepair); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("repair: %+v", rep)
	}
	rep, err := tgt.Check(ctx, dao.ModeVerify)
	if err != nil || rep.Missing+rep.Orphaned+rep.Stale+rep.Undecodable != 0 || rep.DataRows != int64(len(recs)) {
		t.Fatalf("verify after repair: %+v, %v", rep, err)
	}
	again := recs[7]
	if err := tgt.Insert(ctx, &again); !errors.Is(err, dao.ErrExists) {
		t.Fatalf("insert of a copied message: got %v, want ErrExists", err)
	}
	if err := tgt.Put(ctx, &again); err != nil {
		t.Fatalf("put of a copied message again: %v", err)
	}
}

// The copy and compare jobs through the runner of package jobs: planned
// from the regions, checkpointed in the store, on two workers.
func TestCopyThroughRunner(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	src := createTable(t, c, parseDoc(t, readingsDoc("readings")))
	var ptrs []*schema.Values
	for s := range 20 {
		for i := range 50 {
			v := readingRecord(s, i, float64(i))
			ptrs = append(ptrs, &v)
		}
	}
	if _, err := src.PutBatch(ctx, ptrs); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.PrepareTarget(ctx, c, c, "readings", parseDoc(t, readingsByDayDoc("readings_by_day")), 4); err != nil {
		t.Fatal(err)
	}
	if err := jobs.EnsureStore(ctx, c); err != nil {
		t.Fatal(err)
	}
	r, err := jobs.Run(ctx, c, jobs.Spec{Kind: jobs.KindCopy, Table: "readings", Target: "readings_by_day"}, jobs.WithWorkers(2))
	if err != nil || !r.Complete || r.Counts["written"] != int64(len(ptrs)) {
		t.Fatalf("copy: %+v, %v", r, err)
	}
	r, err = jobs.Run(ctx, c, jobs.Spec{Kind: jobs.KindCompare, Table: "readings", Target: "readings_by_day"}, jobs.WithWorkers(2))
	if err != nil || !r.Complete || r.Counts["same"] != int64(len(ptrs)) || r.Counts["missing"]+r.Counts["different"]+r.Counts["extra"] != 0 {
		t.Fatalf("compare: %+v, %v", r, err)
	}
}
