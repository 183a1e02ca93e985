package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
)

// Schemas of our own: a chat inbox keyed by user then time, with no hash
// and no index, moved to a key led by a hash bucket of the user with an
// index by message id; sensor readings in strict mode with an index,
// keyed by sensor and time, moved to a bucketed key holding the reading's
// day in São Paulo.

func inboxDoc(name string) string {
	return fmt.Sprintf(`{
  "version": 1, "name": %q,
  "families": [{"name": "m", "versions": 1}],
  "fields": [{"name": "user", "type": "string"}, {"name": "sent", "type": "time"},
             {"name": "id", "type": "uint64"}, {"name": "body", "type": "string"},
             {"name": "read", "type": "bool"}],
  "key": [{"name": "user", "kind": "string"}, {"name": "sent", "kind": "reversed_timestamp"},
          {"name": "id", "kind": "uint64"}],
  "columns": [{"name": "body", "family": "m", "qualifier": "b", "type": "string"},
              {"name": "read", "family": "m", "qualifier": "r", "type": "bool"}]
}`, name)
}

func inboxBucketedDoc(name string) string {
	return fmt.Sprintf(`{
  "version": 1, "name": %q,
  "families": [{"name": "m", "versions": 1}],
  "fields": [{"name": "user", "type": "string"}, {"name": "sent", "type": "time"},
             {"name": "id", "type": "uint64"}, {"name": "body", "type": "string"},
             {"name": "read", "type": "bool"}],
  "key": [{"name": "bucket", "kind": "hash_bucket", "buckets": 64, "from": "user"},
          {"name": "user", "kind": "string"}, {"name": "sent", "kind": "reversed_timestamp"},
          {"name": "id", "kind": "uint64"}],
  "columns": [{"name": "body", "family": "m", "qualifier": "b", "type": "string"},
              {"name": "read", "family": "m", "qualifier": "r", "type": "bool"}],
  "indexes": [{"name": %q, "families": [{"name": "i"}],
               "key": [{"name": "id", "kind": "uint64"}, {"name": "user", "kind": "string"},
                       {"name": "sent", "kind": "reversed_timestamp"}], "columns": ["read"]}]
}`, name, name+"_by_id")
}

func readingsDoc(name string) string {
	return fmt.Sprintf(`{
  "version": 1, "name": %q,
  "families": [{"name": "r", "versions": 1}],
  "fields": [{"name": "sensor", "type": "string"}, {"name": "at", "type": "time"},
             {"name": "celsius", "type": "float64"}, {"name": "site", "type": "string"}],
  "key": [{"name": "sensor", "kind": "string"}, {"name": "at", "kind": "reversed_timestamp"}],
  "columns": [{"name": "celsius", "family": "r", "qualifier": "c", "type": "float64"},
              {"name": "site", "family": "r", "qualifier": "s", "type": "string"}],
  "indexes": [{"name": %q, "families": [{"name": "i"}],
               "key": [{"name": "site", "kind": "string"}, {"name": "sensor", "kind": "string"},
                       {"name": "at", "kind": "reversed_timestamp"}]}]
}`, name, name+"_by_site")
}

func readingsByDayDoc(name string) string {
	return fmt.Sprintf(`{
  "version": 1, "name": %q,
  "families": [{"name": "r", "versions": 1}],
  "fields": [{"name": "sensor", "type": "string"}, {"name": "at", "type": "time"},
             {"name": "celsius", "type": "float64"}, {"name": "site", "type": "string"}],
  "key": [{"name": "bucket", "kind": "hash_bucket", "buckets": 16, "from": "sensor"},
          {"name": "day", "kind": "date", "from": "at", "zone": "America/Sao_Paulo"},
          {"name": "sensor", "kind": "string"}, {"name": "at", "kind": "reversed_timestamp"}],
  "columns": [{"name": "celsius", "family": "r", "qualifier": "c", "type": "float64"},
              {"name": "site", "family": "r", "qualifier": "s", "type": "string"}],
  "indexes": [{"name": %q, "families": [{"name": "i"}],
               "key": [{"name": "site", "kind": "string"},
                       {"name": "day", "kind": "date", "from": "at", "zone": "Asia/Kolkata"},
                       {"name": "sensor", "kind": "string"}, {"name": "at", "kind": "reversed_timestamp"}]}]
}`, name, name+"_by_site")
}

func parseDoc(t testing.TB, js string) schema.Document {
	t.Helper()
	doc, err := schema.ParseDocument([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// backend is what the tests need of a client: data, regions and DDL.
type backend interface {
	jobs.Client
	admin.Client
	dao.Conn
}

func newFake(t testing.TB) *fake.Client {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createTable creates doc's tables (its document stored) and returns the
// store over Values.
func createTable(t testing.TB, c backend, doc schema.Document, opts ...dao.Option) *dao.Repo[schema.Values] {
	t.Helper()
	tbl, err := schema.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(context.Background(), admin.WithIndexes(tbl)...); err != nil {
		t.Fatal(err)
	}
	return openStore(t, c, doc, opts...)
}

// openStore opens the store of doc over Values, with each index's row
// pointer as the copy writes it.
func openStore(t testing.TB, c dao.Client, doc schema.Document, opts ...dao.Option) *dao.Repo[schema.Values] {
	t.Helper()
	if len(doc.Indexes) > 0 {
		doc = doc.WithRowPointers()
	}
	tbl, err := schema.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := dao.New(c, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// runJob runs every unit of spec's task, one per region of each source
// table, one after another, and returns the summed counts (a stand-in for
// the runner of package jobs).
func runJob(t testing.TB, c jobs.Client, spec jobs.Spec) jobs.Counts {
	t.Helper()
	counts, err := tryJob(context.Background(), c, spec)
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

func tryJob(ctx context.Context, c jobs.Client, spec jobs.Spec) (jobs.Counts, error) {
	task, err := jobs.NewTask(ctx, c, spec)
	if err != nil {
		return nil, err
	}
	total := jobs.Counts{}
	for _, table := range task.Sources() {
		regions, err := c.TableRegions(ctx, table)
		if err != nil {
			return nil, err
		}
		for i, r := range regions {
			u := jobs.Unit{ID: fmt.Sprintf("%s/%d", table, i), Table: table, Start: r.StartKey, Stop: r.EndKey}
			err := task.Run(ctx, u, nil, func(_ []byte, d jobs.Counts) error { total.Add(d); return nil })
			if err != nil {
				return nil, err
			}
		}
	}
	return total, nil
}

// inboxRecord is message id of user u.
func inboxRecord(u int, id uint64, body string, read bool) schema.Values {
	return schema.Values{
		"user": fmt.Sprintf("user%04d", u),
		"sent": time.UnixMilli(1_760_000_000_000 + int64(id)*1000).In(time.FixedZone("UTC+8", 8*3600)),
		"id":   id, "body": body, "read": read,
	}
}

// readingRecord is reading i of sensor s, at a time in Kolkata.
func readingRecord(s, i int, celsius float64) schema.Values {
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	return schema.Values{
		"sensor":  fmt.Sprintf("s%03d", s),
		"at":      time.UnixMilli(1_760_000_000_000 + int64(i)*3_600_000).In(kolkata),
		"celsius": celsius, "site": []string{"north", "south", "east"}[s%3],
	}
}

// sameValues compares two records field by field (times as instants).
func sameValues(a, b schema.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			return false
		}
		if tx, ok := x.(time.Time); ok {
			ty, ok := y.(time.Time)
			if !ok || !tx.Equal(ty) {
				return false
			}
			continue
		}
		if x != y {
			return false
		}
	}
	return true
}

func describe(v schema.Values) string {
	var b strings.Builder
	for _, k := range []string{"user", "sensor", "id", "at", "sent", "body", "read", "celsius", "site"} {
		if x, ok := v[k]; ok {
			fmt.Fprintf(&b, "%s=%v ", k, x)
		}
	}
	return b.String()
}
