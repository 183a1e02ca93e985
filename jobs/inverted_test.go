package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// readingsDoc is a second schema of the tests' own: sensor readings keyed
// by a hash bucket of the sensor and the reversed time, with an inverted
// index by site and local day in Los Angeles (one row per site and day,
// one cell per reading), whose rows hold far more cells than a batch.
const readingsDoc = `{
  "version": 1, "name": "readings",
  "families": [{"name": "r"}],
  "fields": [{"name": "sensor", "type": "string"}, {"name": "at", "type": "time"},
    {"name": "site", "type": "string"}, {"name": "celsius", "type": "float64"}],
  "key": [{"name": "bucket", "kind": "hash_bucket", "buckets": 4, "from": "sensor"},
    {"name": "sensor", "kind": "string"}, {"name": "at", "kind": "reversed_timestamp"}],
  "columns": [{"name": "site", "family": "r", "qualifier": "s", "type": "string"},
    {"name": "celsius", "family": "r", "qualifier": "c", "type": "float64"}],
  "splits": {"regions": 4},
  "indexes": [{"name": "readings_by_site_day", "families": [{"name": "i"}],
    "key": [{"name": "site", "kind": "string"}, {"name": "day", "kind": "date", "from": "at", "zone": "America/Los_Angeles"}],
    "qualifier": [{"name": "sensor", "kind": "string"}, {"name": "at", "kind": "reversed_timestamp"}]}]
}`

type reading struct {
	Sensor  string
	At      time.Time
	Site    string
	Celsius float64
}

// TestIndexTaskInverted: the index jobs over an inverted index whose rows
// (a site's day) hold more cells than a batch: verify counts exactly
// cells deleted behind the store, a unit of the index table stopped after
// any commit and resumed handles every cell once (positions are committed
// at row ends), and repair then leaves it clean.
func TestIndexTaskInverted(t *testing.T) {
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
	// 06:00 UTC is the previous day in Los Angeles.
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	var recs []*reading
	for i := range 2400 {
		recs = append(recs, &reading{Sensor: fmt.Sprintf("s-%02d", i%40), At: at.Add(time.Duration(i) * 17 * time.Minute),
			Site: []string{"north", "south", "east"}[i%3], Celsius: float64(i%50) / 4})
	}
	for i := range 700 { // one hot row: a site's day holding more cells than a batch
		recs = append(recs, &reading{Sensor: fmt.Sprintf("h-%02d", i%7), At: at.Add(time.Duration(i) * time.Second), Site: "hot", Celsius: 40})
	}
	if _, err := repo.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	var dmg []hbapi.Action
	for _, r := range recs[100:107] {
		var rec schema.Record
		if err := repo.Table().EncodeRecord(&rec, r); err != nil {
			t.Fatal(err)
		}
		e := rec.Entries[0]
		dmg = append(dmg, &hbapi.Delete{Table: "readings_by_site_day", Row: e.Key, Family: []byte(e.Cells[0].Family),
			Qualifier: []byte(e.Cells[0].Qualifier), Timestamp: now, AllVersions: true})
	}
	if _, err := c.Batch(ctx, dmg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "readings"})
	wantCounts(t, "verify", got, Counts{"rows": 3100, "entries": 3100 - 7, "missing": 7, "orphaned": 0})

	task, err := NewTask(ctx, c, Spec{Kind: KindVerify, Table: "readings"})
	if err != nil {
		t.Fatal(err)
	}
	u := Unit{ID: "ix", Table: "readings_by_site_day"}
	whole, commits := Counts{}, 0
	if err := task.Run(ctx, u, nil, func(_ []byte, d Counts) error { whole.Add(d); commits++; return nil }); err != nil {
		t.Fatal(err)
	}
	if commits < 2 {
		t.Fatalf("%d commits over the inverted index, want several", commits)
	}
	for stopAt := 1; stopAt < commits; stopAt++ {
		total, n := Counts{}, 0
		var after []byte
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
		wantCounts(t, fmt.Sprintf("resumed after commit %d", stopAt), total, whole)
	}

	runJob(ctx, t, c, Spec{Kind: KindRepair, Table: "readings"})
	got = runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "readings"})
	if !IndexReport(got).Clean() || got["entries"] != 3100 {
		t.Errorf("verify after repair: %v, want clean with 3100 entries", got)
	}
	// The bulk rebuild writes an inverted index's cells too.
	if err := c.DisableTable(ctx, "readings_by_site_day"); err != nil {
		t.Fatal(err)
	}
	if err := c.TruncateTable(ctx, "readings_by_site_day", true); err != nil {
		t.Fatal(err)
	}
	got = runJob(ctx, t, c, Spec{Kind: KindRebuild, Table: "readings"})
	wantCounts(t, "rebuild", got, Counts{"rows": 3100, "repaired": 3100, "entries": 3100, "orphaned": 0})
	got = runJob(ctx, t, c, Spec{Kind: KindVerify, Table: "readings"})
	if !IndexReport(got).Clean() || got["entries"] != 3100 {
		t.Errorf("verify after rebuild: %v, want clean with 3100 entries", got)
	}
}
