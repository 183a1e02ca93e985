package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// viewFixture is the SMS tables on the fake, holding msgs written through
// dao.
func viewFixture(t *testing.T) (*fake.Client, []*seeds.SMS) {
	t.Helper()
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, admin.WithIndexes(tb)...); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var msgs []*seeds.SMS
	for i, mobile := range []string{"13812345678", "13812345678", "13812345678", "13900000001", "13700000002"} {
		msgs = append(msgs, &seeds.SMS{Mobile: mobile, SentAt: base.Add(time.Duration(i) * time.Minute),
			Account: "acct" + string(rune('a'+i%2)), Content: "msg " + string(rune('0'+i)), Delivered: i%2 == 0})
	}
	repo, err := seedstore.NewSMS(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Send(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	return c, msgs
}

// runViewOn runs get or scan over c through Main and Run: exit status,
// stdout, stderr and Run's error.
func runViewOn(t *testing.T, c *fake.Client, args ...string) (int, string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	e := *withSeeds(&Env{Stdout: &out, Stderr: &errw, Connect: func(context.Context, string) (Client, io.Closer, error) {
		return c, nopCloser{}, nil
	}})
	code := Main(context.Background(), e, args)
	o, ew := out.String(), errw.String()
	err := Run(context.Background(), e, args)
	return code, o, ew, err
}

// scanJSON runs a scan with --json and returns its rows.
func scanJSON(t *testing.T, c *fake.Client, args ...string) []rowJSON {
	t.Helper()
	rows, _ := scanJSONMore(t, c, args...)
	return rows
}

// scanJSONMore runs a scan with --json and returns its rows and the last
// line that says --limit cut it, if there is one.
func scanJSONMore(t *testing.T, c *fake.Client, args ...string) ([]rowJSON, *moreJSON) {
	t.Helper()
	code, out, errOut, err := runViewOn(t, c, append([]string{"scan", "--json"}, args...)...)
	if code != 0 || err != nil {
		t.Fatalf("scan %v: exit %d, %v\n%s", args, code, err, errOut)
	}
	var rows []rowJSON
	var more *moreJSON
	for line := range strings.Lines(out) {
		if more != nil {
			t.Fatalf("line %q after the \"more\" line", line)
		}
		var r rowJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if r.Table == "" {
			more = new(moreJSON)
			if err := json.Unmarshal([]byte(line), more); err != nil || !more.More {
				t.Fatalf("line %q is neither a row nor the \"more\" line: %v", line, err)
			}
			continue
		}
		rows = append(rows, r)
	}
	return rows, more
}

// TestScanJSONSaysWhenTheLimitCutIt: --json ends with {"more": true, ...}
// when --limit stopped the scan with rows left, and only then.
func TestScanJSONSaysWhenTheLimitCutIt(t *testing.T) {
	c, msgs := viewFixture(t)
	for _, tc := range []struct {
		limit string
		rows  int
		more  *moreJSON
	}{
		{"2", 2, &moreJSON{More: true, Rows: 2, Limit: 2}},
		{"4", 4, &moreJSON{More: true, Rows: 4, Limit: 4}},
		{"5", 5, nil}, // exactly every row: nothing left
		{"0", 5, nil},
	} {
		t.Run("limit "+tc.limit, func(t *testing.T) {
			rows, more := scanJSONMore(t, c, "--schema", "sms", "--limit", tc.limit)
			if len(rows) != tc.rows || len(msgs) != 5 {
				t.Errorf("got %d rows, want %d", len(rows), tc.rows)
			}
			if (more == nil) != (tc.more == nil) || more != nil && *more != *tc.more {
				t.Errorf("more line: got %+v, want %+v", more, tc.more)
			}
		})
	}
}

// mobiles lists the "mobile" key field of rows, in order.
func mobiles(rows []rowJSON) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Key["mobile"].(string))
	}
	return out
}

func TestScanJSON(t *testing.T) {
	c, msgs := viewFixture(t)
	rows := scanJSON(t, c, "--schema", "sms")
	if len(rows) != len(msgs) {
		t.Fatalf("got %d rows, want %d", len(rows), len(msgs))
	}
	tb, _ := seeds.SMSTable()
	for _, m := range msgs {
		key, err := tb.AppendKey(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rows, func(r rowJSON) bool { return r.Row.Key == schema.QuoteKey(key) })
		if i < 0 {
			t.Errorf("no row %s", schema.QuoteKey(key))
			continue
		}
		r := rows[i]
		want := rowJSON{Table: "sms", Row: keyOf(key),
			Key:     map[string]any{"mobile": m.Mobile, "sent": m.SentAt.Format(keys.TimeLayout), "unique": float64(m.Seq)},
			Columns: map[string]any{"account": m.Account, "content": m.Content, "delivered": m.Delivered}}
		if g, w := mustJSON(t, r), mustJSON(t, want); g != w {
			t.Errorf("row of %+v:\ngot  %s\nwant %s", *m, g, w)
		}
	}
	// Rows come in key order.
	if !slices.IsSortedFunc(rows, func(a, b rowJSON) int { return strings.Compare(a.Row.Hex, b.Row.Hex) }) {
		t.Errorf("rows out of key order: %v", mobiles(rows))
	}
	raw := scanJSON(t, c, "--schema", "sms", "--raw", "--limit", "1")
	if len(raw) != 1 || raw[0].Raw == nil || raw[0].Raw.Key["mobile"] == "" || raw[0].Raw.Columns["delivered"] == "" {
		t.Errorf("--raw: got %+v, want the bytes of each segment and column", raw)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestScanRanges(t *testing.T) {
	c, msgs := viewFixture(t)
	at := func(i int) string { return msgs[i].SentAt.Format(keys.TimeLayout) }
	for _, tc := range []struct {
		name string
		args []string
		want []int // indexes into msgs, in key order
	}{
		{"eq mobile", []string{"--eq", "mobile=13812345678"}, []int{2, 1, 0}}, // newest first
		{"eq mobile on the index, through its bucket", []string{"--schema", "sms_index", "--eq", "mobile=13812345678"}, []int{0, 2, 1}},
		{"eq mobile, from and to", []string{"--eq", "mobile=13812345678", "--from", "sent=" + at(1), "--to", "sent=" + at(2)}, []int{2, 1}},
		{"eq mobile, from only", []string{"--eq", "mobile=13812345678", "--from", "sent=" + at(1)}, []int{2, 1}},
		{"eq mobile, to only", []string{"--eq", "mobile=13812345678", "--to", "sent=" + at(1)}, []int{1, 0}},
		{"exact key", []string{"--eq", "mobile=13900000001", "--eq", "sent=" + at(3), "--eq", "unique=0"}, []int{3}},
		{"no such mobile", []string{"--eq", "mobile=13000000000"}, nil},
		{"limit", []string{"--eq", "mobile=13812345678", "--limit", "2"}, []int{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !slices.Contains(args, "--schema") {
				args = append([]string{"--schema", "sms"}, args...)
			}
			rows := scanJSON(t, c, args...)
			var got, want []string
			for _, r := range rows {
				if tm, ok := r.Key["time"].(string); ok { // an index row: time of day
					got = append(got, r.Key["mobile"].(string)+"@"+tm)
					continue
				}
				got = append(got, r.Key["mobile"].(string)+"@"+r.Key["sent"].(string))
			}
			for _, i := range tc.want {
				if slices.Contains(args, "sms_index") {
					want = append(want, msgs[i].Mobile+"@"+msgs[i].SentAt.Format("15:04:05.000"))
					continue
				}
				want = append(want, msgs[i].Mobile+"@"+at(i))
			}
			if slices.Contains(args, "sms_index") {
				// In index-key order: by md5(account) first.
				slices.Sort(got)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestScanText(t *testing.T) {
	c, msgs := viewFixture(t)
	code, out, _, err := runViewOn(t, c, "scan", "--schema", "sms", "--eq", "mobile=13900000001", "--raw")
	if code != 0 || err != nil {
		t.Fatalf("exit %d: %v", code, err)
	}
	tb, _ := seeds.SMSTable()
	key, _ := tb.AppendKey(nil, msgs[3])
	for _, want := range []string{
		"row " + schema.QuoteKey(key) + "\n",
		"  mobile     13900000001               \"10000000931\"\n",
		"  sent       " + msgs[3].SentAt.Format(keys.TimeLayout),
		"  delivered  false                     \"\\x00\"                 (cf:d)\n",
		"\n1 row\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _, _ = runViewOn(t, c, "scan", "--schema", "sms", "--limit", "2")
	if code != 0 || !strings.HasSuffix(out, "\n2 rows; --limit 2 reached, more follow\n") {
		t.Errorf("--limit 2: exit %d, output ends %q", code, out[max(0, len(out)-60):])
	}
}

func TestGet(t *testing.T) {
	c, msgs := viewFixture(t)
	m := msgs[1]
	sent := "sent=" + m.SentAt.Format(keys.TimeLayout)
	code, out, errOut, err := runViewOn(t, c, "get", "--schema", "sms", "mobile="+m.Mobile, sent, "unique=0", "--json")
	if code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, errOut)
	}
	var r rowJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Columns["content"] != m.Content {
		t.Errorf("got %s (%v), want the row of %+v", out, err, *m)
	}
	code, _, errOut, err = runViewOn(t, c, "get", "--schema", "sms", "mobile="+m.Mobile, "sent=2020-01-01", "unique=0")
	var nf *RowNotFoundError
	if code != 1 || !errors.Is(err, ErrRowNotFound) || !errors.As(err, &nf) || nf.Table != "sms" || !strings.Contains(errOut, "no row in table sms at key") {
		t.Errorf("absent row: exit %d, %v, stderr %q; want exit 1 and a *RowNotFoundError", code, err, errOut)
	}
}

func TestViewBadInput(t *testing.T) {
	c, _ := viewFixture(t)
	for _, tc := range []struct {
		name string
		args []string
		kind error // a *schema.Error of this kind, or nil for a plain usage error
	}{
		{"unknown field", []string{"scan", "--schema", "sms", "--eq", "nope=1"}, schema.ErrUnknownField},
		{"bad mobile", []string{"scan", "--schema", "sms", "--eq", "mobile=12"}, schema.ErrInvalidKey},
		{"bad time", []string{"scan", "--schema", "sms", "--eq", "mobile=13812345678", "--from", "sent=yesterday"}, schema.ErrInvalidKey},
		{"not a key prefix", []string{"scan", "--schema", "sms", "--eq", "sent=2026-11-23"}, schema.ErrInvalidKey},
		{"bounds on two fields", []string{"scan", "--schema", "sms", "--from", "mobile=13812345678", "--to", "sent=2026-11-23"}, schema.ErrInvalidValue},
		{"range on a reversed mobile", []string{"scan", "--schema", "sms", "--from", "mobile=13812345678"}, schema.ErrInvalidValue},
		{"bad column value", []string{"scan", "--schema", "sms_index", "--eq", "mobile=13812345678", "--eq", "delivered=maybe"}, schema.ErrInvalidValue},
		{"get without every field", []string{"get", "--schema", "sms", "mobile=13812345678"}, schema.ErrInvalidKey},
		{"get with a bad value", []string{"get", "--schema", "sms", "mobile=1381234567x", "sent=0", "unique=0"}, schema.ErrInvalidKey},
		{"negative limit", []string{"scan", "--schema", "sms", "--limit", "-1"}, nil},
		{"limit not a number", []string{"scan", "--schema", "sms", "--limit", "ten"}, nil},
		{"no schema", []string{"scan"}, nil},
		{"unknown schema", []string{"scan", "--schema", "no_such_schema_or_file"}, nil},
		{"not FIELD=VALUE", []string{"scan", "--schema", "sms", "--eq", "mobile"}, nil},
		{"scan takes no argument", []string{"scan", "--schema", "sms", "mobile=1"}, nil},
		{"get needs fields", []string{"get", "--schema", "sms"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut, err := runViewOn(t, c, tc.args...)
			if tc.name == "unknown schema" {
				// Not a usage error: the file cannot be read.
				if code != 1 || err == nil {
					t.Errorf("exit %d, %v; want exit 1", code, err)
				}
				return
			}
			if code != 2 || out != "" || errOut == "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, an explanation on stderr only", code, out, errOut)
			}
			if tc.kind == nil {
				return
			}
			var ie *InputError
			var se *schema.Error
			if !errors.As(err, &ie) || !errors.As(err, &se) || !errors.Is(err, tc.kind) || !errors.Is(err, ErrUsage) {
				t.Errorf("got %v, want an *InputError wrapping a *schema.Error of kind %v", err, tc.kind)
			}
		})
	}
}

// A table declared in a schema file, with typed columns and a bucket
// computed from the uid: --eq uid computes the bucket, and the columns
// read back typed.
func TestScanSchemaFile(t *testing.T) {
	const file = "../admin/testdata/columns.json"
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defs, err := admin.LoadSchemaFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := admin.New(c)
	if _, err := a.EnsureTables(ctx, defs...); err != nil {
		t.Fatal(err)
	}
	v, _ := schema.AsViewer(defs[0])
	for i, uid := range []string{"u1", "u2", "u3"} {
		k, err := v.RowKeys([]schema.FieldText{{Field: "uid", Text: uid}})
		if err != nil {
			t.Fatal(err)
		}
		age, _ := schema.ColumnInt64.AppendText(nil, fmt.Sprint(20+i))
		if err := c.Put(ctx, &hbase.Put{Table: "users", Row: k[0], Values: map[string]map[string][]byte{"u": {"n": []byte("用户" + uid), "a": age}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, schemaArg := range []string{file, file + "#users"} {
		rows := scanJSON(t, c, "--schema", schemaArg, "--eq", "uid=u2")
		if len(rows) != 1 || rows[0].Key["uid"] != "u2" || rows[0].Columns["name"] != "用户u2" || rows[0].Columns["age"] != float64(21) {
			t.Errorf("--schema %s --eq uid=u2: got %+v", schemaArg, rows)
		}
	}
	if code, _, errOut, _ := runViewOn(t, c, "scan", "--schema", file+"#nope"); code != 2 || !strings.Contains(errOut, `no table "nope"`) {
		t.Errorf("FILE#nope: exit %d, %q; want 2 naming the table", code, errOut)
	}
}

// A wide table (rows as columns): each cell shows the key fields its
// qualifier holds and its value.
func TestScanWide(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	w, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := admin.New(c)
	if _, err := a.EnsureTables(ctx, w); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 1, 30, 500e6, time.UTC)
	for i, msg := range []string{"login ok", "login failed"} {
		e := seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: "web1", Event: "login", At: at.Add(time.Duration(i) * time.Second), Message: msg}, HostID: 3, EventID: 7}
		var cell schema.WideCell
		if err := w.EncodeCell(&cell, &e); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, &hbase.Put{Table: w.Name().String(), Row: cell.Row, Values: map[string]map[string][]byte{w.Family(): {string(cell.Qualifier): cell.Value}}}); err != nil {
			t.Fatal(err)
		}
	}
	rows := scanJSON(t, c, "--schema", "log_data_wide", "--eq", "host_id=3")
	if len(rows) != 1 || len(rows[0].Cells) != 2 || rows[0].Key["host_id"] != float64(3) {
		t.Fatalf("got %+v, want one row of host 3 with two cells", rows)
	}
	for i, want := range []string{"1m30.5s", "1m31.5s"} {
		if c := rows[0].Cells[i]; c.Qualifier["ts"] != want || c.Value != []string{"login ok", "login failed"}[i] {
			t.Errorf("cell %d: %+v, want offset %s", i, c, want)
		}
	}
	code, out, _, _ := runViewOn(t, c, "scan", "--schema", "log_data_wide")
	if code != 0 || !strings.Contains(out, "  message[ts=1m30.5s]  login ok") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}
