package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// ledgerDoc is a schema of the tests' own: a ledger keyed by a hash
// bucket of the account, whose status moves, indexed by status and the
// day in Shanghai of a UTC time (carrying the amount), and by an md5-led
// transaction reference.
const ledgerDoc = `{
  "version": 1,
  "name": %q,
  "families": [{"name": "e", "versions": 1}],
  "fields": [
    {"name": "account", "type": "string"}, {"name": "seq", "type": "int64"},
    {"name": "ref", "type": "string"}, {"name": "status", "type": "string"},
    {"name": "at", "type": "time"}, {"name": "amount", "type": "int64"}
  ],
  "key": [
    {"name": "bucket", "kind": "hash_bucket", "buckets": 8, "from": "account"},
    {"name": "account", "kind": "string"},
    {"name": "seq", "kind": "int64"}
  ],
  "columns": [
    {"name": "status", "family": "e", "qualifier": "s", "type": "string"},
    {"name": "at", "family": "e", "qualifier": "t", "type": "time"},
    {"name": "amount", "family": "e", "qualifier": "a", "type": "int64"},
    {"name": "ref", "family": "e", "qualifier": "f", "type": "string"}
  ],
  "splits": {"regions": 4},
  "indexes": [{
    "name": %q,
    "families": [{"name": "i"}],
    "key": [
      {"name": "status", "kind": "string"},
      {"name": "day", "kind": "date", "from": "at", "zone": "Asia/Shanghai"},
      {"name": "account", "kind": "string"},
      {"name": "seq", "kind": "int64"}
    ],
    "splits": {"keys": ["p", "s"]},
    "columns": ["amount"],
    "row_key_qualifier": "row"
  }, {
    "name": %q,
    "families": [{"name": "i"}],
    "key": [
      {"name": "ref_md5", "kind": "md5_hex", "width": 4, "from": "ref"},
      {"name": "ref", "kind": "string"},
      {"name": "account", "kind": "string"},
      {"name": "seq", "kind": "int64"}
    ],
    "row_key_qualifier": "row"
  }]
}`

// ledger is the tests' record type of ledgerDoc.
type ledger struct {
	Account string
	Seq     int64
	Ref     string
	Status  string
	At      time.Time
	Amount  int64
}

// ledgerTables returns the document of a ledger named name, with its
// index tables name_by_status and name_by_ref.
func ledgerTables(t testing.TB, name string) schema.Document {
	t.Helper()
	doc, err := schema.ParseDocument([]byte(fmt.Sprintf(ledgerDoc, name, name+"_by_status", name+"_by_ref")))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// ledgerRecord is record i of a test: accounts spread over the buckets,
// 17:30 UTC and later (the next day in Shanghai).
func ledgerRecord(i int, status string) *ledger {
	return &ledger{
		Account: fmt.Sprintf("acct-%03d", i%97), Seq: int64(i), Ref: fmt.Sprintf("tx-%06d", 7919*(i+1)%1000003),
		Status: status, At: time.Date(2026, 11, 27, 17, 30, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute), Amount: int64(-125 * (i + 1)),
	}
}

// jobClient is what the tests need: a job's client that also creates
// tables (the fake, the real client).
type jobClient interface {
	Client
	admin.Client
	dao.Conn
}

// runJob runs every unit of spec's task, one per region of each source,
// through run, and returns the sum of the commits' counts.
func runJob(ctx context.Context, t testing.TB, c Client, spec Spec) Counts {
	t.Helper()
	task, err := NewTask(ctx, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	total := Counts{}
	for _, u := range regionUnits(ctx, t, c, task) {
		if err := task.Run(ctx, u, nil, func(_ []byte, d Counts) error { total.Add(d); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if f, ok := task.(interface {
		Finish(context.Context, Counts) error
	}); ok {
		if err := f.Finish(ctx, total); err != nil {
			t.Fatal(err)
		}
	}
	return total
}

// regionUnits cuts a unit per region of each of task's sources.
func regionUnits(ctx context.Context, t testing.TB, c Client, task Task) []Unit {
	t.Helper()
	var out []Unit
	for _, table := range task.Sources() {
		regions, err := c.TableRegions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range regions {
			out = append(out, Unit{ID: fmt.Sprintf("%s/%d", table, i), Table: table, Start: r.StartKey, Stop: r.EndKey})
		}
	}
	return out
}

// errStopRun stops a unit's run at a commit, as a killed worker would.
var errStopRun = errors.New("stopped")

// wantCounts fails unless got has the want counts (names not in want
// are not checked).
func wantCounts(t testing.TB, what string, got, want Counts) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %d, want %d (all: %v)", what, k, got[k], v, got)
		}
	}
}
