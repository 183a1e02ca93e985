package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
)

// valuesStore creates the tables of the document docJSON on c, storing
// the document with the data table, and returns its store over
// schema.Values records.
func valuesStore(t *testing.T, c *fake.Client, docJSON string, opts ...dao.Option) *dao.Repo[schema.Values] {
	t.Helper()
	doc, err := schema.ParseDocument([]byte(docJSON))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := dao.New(c, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CreateTables(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTableFromDocument: table create from a schema document file stores
// the document, and describe, ensure and drop then take the table alone
// (--table), its index tables included.
func TestTableFromDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, ledgerJSON, "ledger", "ledger_by_status", "ledger_by_ref"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := ledgerRun(ctx, c, "table", "create", "--schema-file", file)
	if err != nil {
		t.Fatalf("table create --schema-file: %v\n%s%s", err, out, stderr)
	}
	for _, n := range []string{"ledger: created", "ledger_by_status: created", "ledger_by_ref: created"} {
		if !strings.Contains(out, n) {
			t.Errorf("table create: no %q in\n%s", n, out)
		}
	}
	out, stderr, err = ledgerRun(ctx, c, "table", "describe", "--table", "ledger")
	if err != nil {
		t.Fatalf("table describe --table: %v\n%s%s", err, out, stderr)
	}
	for _, want := range []string{"table ledger: enabled, 4 regions", "attribute hbkit.schema={", "table ledger_by_status: enabled",
		"table ledger_by_ref: enabled", "drift: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("table describe --table ledger: no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "drift: ") != 3 || strings.Count(out, "drift: none") != 3 {
		t.Errorf("table describe --table ledger: drift in\n%s", out)
	}
	if out, stderr, err = ledgerRun(ctx, c, "table", "ensure", "--table", "ledger"); err != nil || strings.Count(out, ": unchanged") != 3 {
		t.Errorf("table ensure --table ledger: %v\n%s%s", err, out, stderr)
	}
	if out, stderr, err = ledgerRun(ctx, c, "table", "drop", "--table", "ledger", "--yes"); err != nil || strings.Count(out, ": dropped") != 3 {
		t.Errorf("table drop --table ledger: %v\n%s%s", err, out, stderr)
	}
}

// TestNoStoredDocument: a table that holds no schema document, named
// without --schema, is a *NoSchemaError that says how to fix it, for every
// command that reads a schema from a table.
func TestNoStoredDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	desc := hbase.TableDescriptor{Name: "bare", Families: []hbase.FamilyDescriptor{{Name: "f"}}}
	if err := c.CreateTable(ctx, desc, nil); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"index", "verify", "--table", "bare"},
		{"scan", "--table", "bare"},
		{"get", "--table", "bare", "row=1"},
		{"table", "describe", "--table", "bare"},
	} {
		_, stderr, err := ledgerRun(ctx, c, args...)
		var ns *NoSchemaError
		if !errors.As(err, &ns) || ns.Table != "bare" || !errors.Is(err, ErrNoSchema) || !errors.Is(err, admin.ErrNoDocument) {
			t.Errorf("%s: %v (%T), want a *NoSchemaError of table bare\n%s", strings.Join(args, " "), err, err, stderr)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "--schema-file FILE") || !strings.Contains(msg, "table ensure") {
			t.Errorf("%s: %q does not say how to fix it", strings.Join(args, " "), msg)
		}
	}
	if _, _, err := ledgerRun(ctx, c, "index", "verify", "--table", "absent"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("index verify of a missing table: %v, want ErrTableNotFound", err)
	}
}

// chatJSON is a chat inbox with an inverted index: one row per room, one
// cell per message.
const chatJSON = `{
  "version": 1, "name": "chat",
  "families": [{"name": "m"}],
  "fields": [{"name": "user", "type": "string"}, {"name": "msg", "type": "int64"},
    {"name": "room", "type": "string"}, {"name": "text", "type": "string"}],
  "key": [{"name": "user_md5", "kind": "md5_hex", "width": 4, "from": "user"},
    {"name": "user", "kind": "string"}, {"name": "msg", "kind": "int64"}],
  "columns": [{"name": "room", "family": "m", "qualifier": "r", "type": "string"},
    {"name": "text", "family": "m", "qualifier": "t", "type": "string"}],
  "indexes": [{"name": "chat_by_room", "families": [{"name": "i"}],
    "key": [{"name": "room", "kind": "string"}],
    "qualifier": [{"name": "user", "kind": "string"}, {"name": "msg", "kind": "int64"}]}]
}`

// TestIndexInvertedDocument: index verify and repair of a document's
// inverted index, from the stored document alone.
func TestIndexInvertedDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	r := valuesStore(t, c, chatJSON)
	for i := range 6 {
		v := schema.Values{"user": fmt.Sprintf("u%d", i%2), "msg": int64(i), "room": []string{"ops", "dev"}[i%2], "text": "hi"}
		if err := r.Put(ctx, &v); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := ledgerVerifyOf(ctx, t, c, "chat", 1, nil); !rep.Clean() || rep.DataRows != 6 || rep.Entries != 6 {
		t.Fatalf("verify: %+v, want clean, 6 rows and entries", rep)
	}
	ix, _ := r.Table().Index("chat_by_room")
	var row schema.Row
	if err := ix.EncodeEntry(&row, &schema.Values{"user": "u0", "msg": int64(2), "room": "ops"}); err != nil {
		t.Fatal(err)
	}
	cell := row.Cells[0]
	if err := c.Delete(ctx, &hbase.Delete{Table: "chat_by_room", Row: row.Key, Family: []byte(cell.Family), Qualifier: []byte(cell.Qualifier)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the fake's clock
	if rep := ledgerVerifyOf(ctx, t, c, "chat", 1, ErrDiverged); rep.Missing != 1 || rep.Entries != 5 || rep.Orphaned != 0 {
		t.Fatalf("verify after deleting one cell: %+v, want 1 missing of 5 entries", rep)
	}
	if out, stderr, err := ledgerRun(ctx, c, "index", "repair", "--table", "chat"); err != nil {
		t.Fatalf("repair: %v\n%s%s", err, out, stderr)
	}
	if rep := ledgerVerifyOf(ctx, t, c, "chat", 1, nil); !rep.Clean() || rep.Entries != 6 {
		t.Fatalf("verify after repair: %+v", rep)
	}
}

// logUIDJSON is a log table keyed by ids of a UID table, with an index by
// event id.
const logUIDJSON = `{
  "version": 1, "name": "log_uid_doc",
  "families": [{"name": "l"}],
  "fields": [{"name": "host_id", "type": "uint64"}, {"name": "event_id", "type": "uint64"},
    {"name": "ts", "type": "int64"}, {"name": "message", "type": "string"},
    {"name": "host", "type": "string"}, {"name": "event", "type": "string"}],
  "key": [{"name": "host_id", "kind": "custom", "width": 3, "codec": "uid"},
    {"name": "event_id", "kind": "custom", "width": 2, "codec": "uid"}, {"name": "ts", "kind": "int64"}],
  "columns": [{"name": "message", "family": "l", "qualifier": "m", "type": "string"}],
  "uids": [{"segment": "host_id", "kind": "host", "width": 3, "field": "host"},
    {"segment": "event_id", "kind": "event", "width": 2, "field": "event"}],
  "indexes": [{"name": "log_uid_doc_by_event", "families": [{"name": "i"}], "row_key_qualifier": "r",
    "key": [{"name": "event_id", "kind": "custom", "width": 2, "codec": "uid"}, {"name": "ts", "kind": "int64"},
      {"name": "host_id", "kind": "custom", "width": 3, "codec": "uid"}]}]
}`

// TestIndexUIDDocument: a document with UID fields is checked with the
// UID table --uid-table names; without it the error says to give it.
func TestIndexUIDDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	u, err := dao.NewUIDs(c, "doc_uids", []dao.UIDKind{{Name: "host", Width: 3}, {Name: "event", Width: 2}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, u.Table()); err != nil {
		t.Fatal(err)
	}
	r := valuesStore(t, c, logUIDJSON, dao.WithUIDs(u))
	for i := range 5 {
		v := schema.Values{"host": fmt.Sprintf("web%d.example.com", i%2), "event": []string{"login", "logout"}[i%2],
			"ts": int64(1_700_000_000_000 + i), "message": "m"}
		if err := r.Put(ctx, &v); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ledgerRun(ctx, c, "index", "verify", "--table", "log_uid_doc"); !errors.Is(err, ErrNeedUIDTable) {
		t.Fatalf("verify without --uid-table: %v, want ErrNeedUIDTable", err)
	}
	if rep := ledgerVerifyOf(ctx, t, c, "log_uid_doc", 1, nil, "--uid-table", "doc_uids"); !rep.Clean() || rep.DataRows != 5 || rep.Entries != 5 {
		t.Fatalf("verify --uid-table: %+v, want clean, 5 rows and entries", rep)
	}
}

// TestIndexWideDocument: a wide table declares no index: index verify of
// one says so (dao.ErrNoIndex).
func TestIndexWideDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := schema.ParseDocument([]byte(`{"version": 1, "name": "sensor_wide", "families": [{"name": "w"}],
	  "fields": [{"name": "sensor", "type": "string"}, {"name": "ts", "type": "int64"}, {"name": "value", "type": "float64"}],
	  "key": [{"name": "sensor", "kind": "string"}],
	  "wide": {"qualifier": [{"name": "ts", "kind": "int64"}], "value": {"name": "value", "family": "w", "type": "float64"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := schema.OpenWide(doc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, w); err != nil {
		t.Fatal(err)
	}
	_, _, err = ledgerRun(ctx, c, "index", "verify", "--table", w.Name().String())
	if !errors.Is(err, dao.ErrNoIndex) || !strings.Contains(err.Error(), "wide table") {
		t.Fatalf("index verify of a wide table: %v, want dao.ErrNoIndex naming a wide table", err)
	}
}

// TestSimulateFromDocument: simulate --sample takes the split keys of a
// schema document file, or of the document stored with a table; without
// --sample a document is ErrNoWorkload.
func TestSimulateFromDocument(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "ledger.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, ledgerJSON, "ledger", "ledger_by_status", "ledger_by_ref"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, stderr, err := ledgerRun(ctx, c, "table", "create", "--schema-file", file); err != nil {
		t.Fatalf("table create: %v\n%s%s", err, out, stderr)
	}
	sample := filepath.Join(dir, "keys.txt")
	var keys strings.Builder
	for b := range 8 {
		fmt.Fprintf(&keys, "%dacct\\x00\\x01\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x01\n", b)
	}
	if err := os.WriteFile(sample, []byte(keys.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate", "--sample", sample, "--schema-file", file, "--json"},
		{"simulate", "--sample", sample, "--table", "ledger", "--json"},
	} {
		out, stderr, err := ledgerRun(ctx, c, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		var rep struct {
			Table   string `json:"table"`
			Regions []struct {
				Rows int64 `json:"rows"`
			} `json:"regions"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if rep.Table != "ledger" || len(rep.Regions) != 4 {
			t.Errorf("%s: table %q, %d regions; want ledger's 4\n%s", strings.Join(args, " "), rep.Table, len(rep.Regions), out)
		}
		for i, r := range rep.Regions {
			if r.Rows != 2 {
				t.Errorf("%s: region %d holds %d keys, want 2 of the 8 (one per bucket, 2 buckets per region)", strings.Join(args, " "), i+1, r.Rows)
			}
		}
	}
	if _, _, err := ledgerRun(ctx, c, "simulate", "--table", "ledger"); !errors.Is(err, ErrNoWorkload) {
		t.Errorf("simulate --table without --sample: %v, want ErrNoWorkload", err)
	}
}

// TestIndexSchemaPrecedence: --schema NAME of Env.Schemas (a Go
// declaration) and --schema-file FILE (a document) run the index jobs as
// the stored document does, and take precedence over it: with --table,
// they serve the schema under that name.
func TestIndexSchemaPrecedence(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	docJSON := fmt.Sprintf(ledgerJSON, "ledger", "ledger_by_status", "ledger_by_ref")
	doc, err := schema.ParseDocument([]byte(docJSON))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.Open[ledgerEntry](ctx, c, doc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := repo.Put(ctx, &ledgerEntry{Account: "a", Seq: int64(i), Ref: fmt.Sprint("r", i), Status: "open", At: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(file, []byte(docJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--schema", "books"},
		{"--schema-file", file},
		{"--schema-file", file, "--table", "ledger"},
	} {
		var out, errw strings.Builder
		env := Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" },
			Schemas: map[string]schema.Definition{"books": repo.Table()},
			Connect: func(context.Context, string) (Client, io.Closer, error) { return c, io.NopCloser(nil), nil }}
		if err := Run(ctx, env, append([]string{"index", "verify"}, args...)); err != nil {
			t.Fatalf("index verify %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errw.String())
		}
		if !strings.Contains(out.String(), "data rows    3\n  entries      6\n") {
			t.Errorf("index verify %s:\n%s", strings.Join(args, " "), out.String())
		}
	}
	// --table serves the schema under another name: a table that does not
	// exist there is an error, not the declared table checked in its place.
	if _, _, err := ledgerRun(ctx, c, "index", "verify", "--schema-file", file, "--table", "elsewhere"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("index verify --schema-file --table elsewhere: %v, want ErrTableNotFound", err)
	}
}
