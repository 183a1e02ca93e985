package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// ledgerJSON is a schema the project has never seen, written as a test
// would receive it: a ledger keyed by a hash bucket of the account, with
// a status that moves, a day in Shanghai from a UTC time, an int64 and a
// float64, and two indexes: by status and day (carrying the amount), and
// by transaction reference, which is unique; both point to the row.
const ledgerJSON = `{
  "version": 1,
  "name": %q,
  "families": [{"name": "e", "versions": 1}],
  "fields": [
    {"name": "account", "type": "string"}, {"name": "seq", "type": "int64"},
    {"name": "ref", "type": "string"}, {"name": "status", "type": "string"},
    {"name": "at", "type": "time"}, {"name": "amount", "type": "int64"},
    {"name": "rate", "type": "float64"}
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
    {"name": "rate", "family": "e", "qualifier": "r", "type": "float64"},
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

// ledgerEntry is the test's own record type for the ledger document.
type ledgerEntry struct {
	Account string
	Seq     int64
	Ref     string
	Status  string
	At      time.Time
	Amount  int64
	Rate    float64
}

// ledgerClient is what the scenario needs: the CLI's client, which can
// also create tables for dao.Open.
type ledgerClient interface {
	Client
	dao.Conn
}

// ledgerScenario writes a new schema document at run time, creates the
// tables from it and loads rows through a Go store over ledgerEntry, then
// damages the indexes in known ways and runs the CLI with no --schema:
// index verify --json reports exactly the damage, index repair fixes it,
// verify is then clean, and get and scan print the records by field name.
func ledgerScenario(t *testing.T, c ledgerClient, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	byStatus, byRef := name+"_by_status", name+"_by_ref"
	doc, err := schema.ParseDocument([]byte(fmt.Sprintf(ledgerJSON, name, byStatus, byRef)))
	if err != nil {
		t.Fatal(err)
	}
	if ns, _, ok := strings.Cut(name, ":"); ok {
		if err := c.CreateNamespace(ctx, ns); err != nil && !errors.Is(err, hbase.ErrNamespaceExists) {
			t.Fatal(err)
		}
	}
	repo, err := dao.Open[ledgerEntry](ctx, c, doc)
	if err != nil {
		t.Fatal(err)
	}
	// 17:30 UTC is 01:30 the next day in Shanghai: the index's day differs
	// from the UTC date.
	at := time.Date(2026, 11, 27, 17, 30, 0, 0, time.UTC)
	var recs []*ledgerEntry
	for i := range 12 {
		recs = append(recs, &ledgerEntry{
			Account: fmt.Sprintf("acct-%02d", i%4), Seq: int64(i / 4), Ref: fmt.Sprintf("tx-%04d", 7919*(i+1)%10000),
			Status: "pending", At: at.Add(time.Duration(i) * time.Minute), Amount: -1250 * int64(i+1), Rate: 0.0725 * float64(i+1),
		})
	}
	if _, err := repo.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[8:] { // the status moves: their pending entries go
		r.Status = "settled"
		if err := repo.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := ledgerVerify(ctx, t, c, name, nil); !rep.Clean() || rep.DataRows != 12 || rep.Entries != 24 {
		t.Fatalf("verify of the store's own writes: %+v, want clean, 12 rows, 24 entries", rep)
	}

	damage := ledgerDamage(ctx, t, c, repo.Table(), recs, byStatus, byRef)
	want := index.Report{DataRows: 12, Entries: 24 - damage.missing + damage.orphaned,
		Missing: damage.missing, Orphaned: damage.orphaned, Stale: damage.stale}
	if rep := ledgerVerify(ctx, t, c, name, ErrDiverged); rep != want {
		t.Fatalf("verify of the damaged indexes:\n got %+v\nwant %+v", rep, want)
	}
	out, stderr, err := ledgerRun(ctx, c, "index", "repair", "--table", name, "--grace", "0s")
	if err != nil {
		t.Fatalf("index repair: %v\n%s%s", err, out, stderr)
	}
	if rep := ledgerVerify(ctx, t, c, name, nil); !rep.Clean() || rep.DataRows != 12 || rep.Entries != 24 {
		t.Fatalf("verify after repair: %+v, want clean, 12 rows, 24 entries", rep)
	}
	ledgerRead(ctx, t, c, name, recs)
}

// ledgerDamaged counts the damage ledgerDamage did, by the kind verify
// reports it as.
type ledgerDamaged struct{ missing, orphaned, stale int64 }

// ledgerDamage damages the indexes of the ledger: it deletes an entry of
// each index (missing), writes an entry of each index for records that do
// not exist (orphaned), writes back the entry of a moved record's old
// status (orphaned: its row derives another key) and changes the amount
// an entry carries (stale). It waits until the damage is older than the
// clock of the store, so that repair with --grace 0s takes it as dead.
func ledgerDamage(ctx context.Context, t *testing.T, c ledgerClient, tbl *schema.Table[ledgerEntry], recs []*ledgerEntry, byStatus, byRef string) ledgerDamaged {
	t.Helper()
	entry := func(index string, r *ledgerEntry) *schema.Row {
		ix, ok := tbl.Index(index)
		if !ok {
			t.Fatalf("no index %s", index)
		}
		var row schema.Row
		if err := ix.EncodeEntry(&row, r); err != nil {
			t.Fatal(err)
		}
		return &row
	}
	put := func(table string, row *schema.Row) {
		if err := c.Put(ctx, &hbase.Put{Table: table, Row: row.Key, Values: row.Values()}); err != nil {
			t.Fatal(err)
		}
	}
	var d ledgerDamaged
	for _, del := range []struct {
		index string
		r     *ledgerEntry
	}{{byStatus, recs[0]}, {byRef, recs[1]}} {
		if err := c.Delete(ctx, &hbase.Delete{Table: del.index, Row: entry(del.index, del.r).Key}); err != nil {
			t.Fatal(err)
		}
		d.missing++
	}
	ghost := *recs[2]
	ghost.Account, ghost.Ref = "acct-99", "tx-ghost"
	put(byStatus, entry(byStatus, &ghost))
	put(byRef, entry(byRef, &ghost))
	old := *recs[9]
	old.Status = "pending"
	put(byStatus, entry(byStatus, &old))
	d.orphaned += 3
	staled := *recs[3]
	staled.Amount = 999
	last := entry(byStatus, &staled)
	put(byStatus, last)
	d.stale++
	// The server stamped the damage; the store stamps its repairs with its
	// own clock. Wait until that clock has passed the damage (the fake's
	// runs ahead under bursts of writes), so that repair's writes are newer
	// and the damage is older than --grace 0s.
	res, err := c.Get(ctx, &hbase.Get{Table: byStatus, Row: last.Key})
	if err != nil || len(res.Cells) == 0 {
		t.Fatalf("read back the stale entry: %v, %d cells", err, len(res.Cells))
	}
	var newest int64
	for _, cell := range res.Cells {
		newest = max(newest, cell.Timestamp)
	}
	time.Sleep(time.Until(time.UnixMilli(newest + 20)))
	return d
}

// ledgerRun runs the hbkit command args over c.
func ledgerRun(ctx context.Context, c ledgerClient, args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" },
		Connect: func(context.Context, string) (Client, io.Closer, error) { return c, io.NopCloser(nil), nil }}
	err = Run(ctx, env, args)
	return out.String(), errw.String(), err
}

// ledgerVerify runs index verify --json --table name and returns its
// report; its error must be want.
func ledgerVerify(ctx context.Context, t *testing.T, c ledgerClient, name string, want error) index.Report {
	t.Helper()
	return ledgerVerifyOf(ctx, t, c, name, 2, want)
}

// ledgerVerifyOf runs index verify --json --table name (then args) on a
// table of indexes index tables and returns its report; its error must be
// want.
func ledgerVerifyOf(ctx context.Context, t *testing.T, c ledgerClient, name string, indexes int, want error, args ...string) index.Report {
	t.Helper()
	out, stderr, err := ledgerRun(ctx, c, append([]string{"index", "verify", "--table", name, "--json"}, args...)...)
	if !errors.Is(err, want) || (want == nil && err != nil) {
		t.Fatalf("index verify --table %s: %v, want %v\n%s%s", name, err, want, out, stderr)
	}
	var got struct {
		Data    string       `json:"data_table"`
		Indexes []string     `json:"index_tables"`
		Report  index.Report `json:"report"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	if got.Data != name || len(got.Indexes) != indexes {
		t.Fatalf("verify --json names %s and %v, want %s and its %d index tables", got.Data, got.Indexes, name, indexes)
	}
	return got.Report
}

// ledgerRead checks that get and scan of the table, with no --schema,
// print the records by field name, and scan --index the entries of an
// index.
func ledgerRead(ctx context.Context, t *testing.T, c ledgerClient, name string, recs []*ledgerEntry) {
	t.Helper()
	r := recs[9]
	out, stderr, err := ledgerRun(ctx, c, "get", "--table", name, "--json", "account="+r.Account, fmt.Sprintf("seq=%d", r.Seq))
	if err != nil {
		t.Fatalf("get: %v\n%s%s", err, out, stderr)
	}
	var row struct {
		Key     map[string]any `json:"key"`
		Columns map[string]any `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("get --json: %v\n%s", err, out)
	}
	wantCols := map[string]any{"status": "settled", "at": r.At.Format("2006-01-02T15:04:05.000Z07:00"),
		"amount": float64(r.Amount), "rate": r.Rate, "ref": r.Ref}
	for k, v := range wantCols {
		if row.Columns[k] != v {
			t.Errorf("get: column %s = %v (%T), want %v\n%s", k, row.Columns[k], row.Columns[k], v, out)
		}
	}
	if row.Key["account"] != r.Account || row.Key["seq"] != float64(r.Seq) {
		t.Errorf("get: key %v, want account %s seq %d", row.Key, r.Account, r.Seq)
	}
	out, stderr, err = ledgerRun(ctx, c, "scan", "--table", name, "--eq", "account="+r.Account)
	if err != nil {
		t.Fatalf("scan: %v\n%s%s", err, out, stderr)
	}
	lines := textLines(out)
	for _, want := range []string{"account " + r.Account, "status settled", "amount " + fmt.Sprint(r.Amount),
		"ref " + r.Ref, "at " + r.At.Format("2006-01-02T15:04:05.000Z07:00"), "3 rows"} {
		if !lines[want] {
			t.Errorf("scan --eq account=%s: no line %q in\n%s", r.Account, want, out)
		}
	}
	byStatus := name + "_by_status"
	out, stderr, err = ledgerRun(ctx, c, "scan", "--table", name, "--index", byStatus, "--eq", "status=settled")
	if err != nil {
		t.Fatalf("scan --index: %v\n%s%s", err, out, stderr)
	}
	lines = textLines(out)
	// 01:30 on the 28th in Shanghai, 17:30 on the 27th in UTC.
	for _, want := range []string{"status settled", "day 2026-11-28", "account " + r.Account, "amount " + fmt.Sprint(r.Amount), "4 rows"} {
		if !lines[want] {
			t.Errorf("scan --index %s --eq status=settled: no line %q in\n%s", byStatus, want, out)
		}
	}
}

// textLines returns the first two fields of each line of a text output,
// joined by a space.
func textLines(out string) map[string]bool {
	lines := map[string]bool{}
	for l := range strings.Lines(out) {
		if f := strings.Fields(l); len(f) >= 2 {
			lines[f[0]+" "+f[1]] = true
		}
	}
	return lines
}

// TestIndexVerifyRepairOwnDocument is the ledger scenario on the fake,
// in the default namespace and in one of its own.
func TestIndexVerifyRepairOwnDocument(t *testing.T) {
	for _, name := range []string{"ledger", "books:ledger"} {
		t.Run(name, func(t *testing.T) {
			c, err := fake.New()
			if err != nil {
				t.Fatal(err)
			}
			ledgerScenario(t, c, name)
		})
	}
}
