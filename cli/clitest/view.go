package clitest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// viewRow is a line of "scan --json" and "get --json", by its documented
// field names.
type viewRow struct {
	Table string `json:"table"`
	Row   struct {
		Key string `json:"key"`
		Hex string `json:"hex"`
	} `json:"row"`
	Key     map[string]any    `json:"key"`
	Columns map[string]any    `json:"columns"`
	Other   map[string]string `json:"other"`
	Errors  map[string]string `json:"errors"`
}

func parseRows(t *testing.T, out string) []viewRow {
	t.Helper()
	var rows []viewRow
	for line := range strings.Lines(out) {
		var r viewRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("JSON line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// smsOf is the message a data-table row shows.
func smsOf(t *testing.T, r viewRow) seeds.SMS {
	t.Helper()
	sent, err := time.Parse(time.RFC3339, r.Key["sent"].(string))
	if err != nil {
		t.Fatalf("sent %v: %v", r.Key["sent"], err)
	}
	m := seeds.SMS{Mobile: r.Key["mobile"].(string), SentAt: sent, Seq: uint64(r.Key["unique"].(float64))}
	m.Account, _ = r.Columns["account"].(string)
	m.Content, _ = r.Columns["content"].(string)
	m.Delivered, _ = r.Columns["delivered"].(bool)
	return m
}

// View runs get and scan on SMS tables made with "table create" and
// written through dao: every message scan shows decodes to the message
// written, in key order; --eq on a mobile, on the data table and on its
// index (whose leading bucket is computed from the mobile), returns
// exactly that mobile's messages; --from and --to bound the send time; get reads one message
// by its key fields and fails with exit status 1 on an absent one.
func View(t *testing.T, h Harness) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c := h.client(ctx, t)
	data, ix := h.name("view"), h.name("view_index")
	h.createSMS(ctx, t, c, data, ix)
	s, err := seedstore.NewSMS(c, dao.WithTableNames(map[string]string{seeds.SMSTableName: data, seeds.SMSIndexTableName: ix}))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var recs []*seeds.SMS
	for i := range 30 {
		recs = append(recs, &seeds.SMS{Mobile: fmt.Sprintf("1380000%04d", i%6), SentAt: base.Add(time.Duration(i) * time.Minute).Add(123 * time.Millisecond),
			Seq: uint64(i % 3), Account: fmt.Sprintf("acct%d", i%4), Content: fmt.Sprintf("消息 %d", i), Delivered: i%2 == 0})
	}
	if _, err := s.Send(ctx, recs); err != nil {
		t.Fatal(err)
	}
	zk := []string{"--zk", h.zk()}
	scan := func(args ...string) []viewRow {
		t.Helper()
		r := h.mustMain(ctx, t, append(append([]string{"scan", "--json", "--limit", "0"}, zk...), args...)...)
		return parseRows(t, r.stdout)
	}

	// The whole table: every message, in key order, as written.
	rows := scan("--schema", "sms", "--table", data)
	if len(rows) != len(recs) {
		t.Fatalf("scan: %d rows, want %d", len(rows), len(recs))
	}
	if !slices.IsSortedFunc(rows, func(a, b viewRow) int { return strings.Compare(a.Row.Hex, b.Row.Hex) }) {
		t.Error("scan: rows out of key order")
	}
	written := map[string]seeds.SMS{}
	tb, _ := seeds.SMSTable()
	for _, m := range recs {
		k, err := tb.AppendKey(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		written[schema.QuoteKey(k)] = *m
	}
	for _, r := range rows {
		got, want := smsOf(t, r), written[r.Row.Key]
		if r.Table != data || !got.SentAt.Equal(want.SentAt) || got.Mobile != want.Mobile || got.Seq != want.Seq ||
			got.Account != want.Account || got.Content != want.Content || got.Delivered != want.Delivered || len(r.Errors) > 0 {
			t.Errorf("row %s of %s: got %+v (errors %v), want %+v", r.Row.Key, r.Table, got, r.Errors, want)
		}
	}

	// One mobile, by brute force over what was written.
	mobile := recs[4].Mobile
	var want []seeds.SMS
	for _, m := range recs {
		if m.Mobile == mobile {
			want = append(want, *m)
		}
	}
	slices.SortFunc(want, func(a, b seeds.SMS) int { return b.SentAt.Compare(a.SentAt) }) // newest first
	rows = scan("--schema", "sms", "--table", data, "--eq", "mobile="+mobile)
	var got []seeds.SMS
	for _, r := range rows {
		got = append(got, smsOf(t, r))
	}
	if !slices.EqualFunc(got, want, func(a, b seeds.SMS) bool { return a.SentAt.Equal(b.SentAt) && a.Mobile == b.Mobile }) {
		t.Errorf("--eq mobile=%s: got %v, want %v", mobile, got, want)
	}
	from, to := want[3].SentAt.Format(time.RFC3339Nano), want[1].SentAt.Format(time.RFC3339Nano)
	if rows := scan("--schema", "sms", "--table", data, "--eq", "mobile="+mobile, "--from", "sent="+from, "--to", "sent="+to); len(rows) != 3 ||
		rows[0].Key["sent"] != want[1].SentAt.Format("2006-01-02T15:04:05.000Z07:00") {
		t.Errorf("--from %s --to %s: got %v, want the 3 messages of want[1..3]", from, to, rows)
	}
	for _, args := range [][]string{
		{"--schema", "sms_index", "--table", ix},
	} {
		rows := scan(append(args, "--eq", "mobile="+mobile)...)
		if len(rows) != len(want) {
			t.Errorf("%v --eq mobile=%s: %d index rows, want %d", args, mobile, len(rows), len(want))
		}
		for _, r := range rows {
			if r.Key["mobile"] != mobile {
				t.Errorf("%v: row %s has mobile %v", args, r.Row.Key, r.Key["mobile"])
			}
		}
	}

	// get: one message by its key fields; an absent one fails.
	m := recs[7]
	key := []string{"mobile=" + m.Mobile, "sent=" + m.SentAt.Format(time.RFC3339Nano), fmt.Sprintf("unique=%d", m.Seq)}
	r := h.mustMain(ctx, t, append(append([]string{"get", "--schema", "sms", "--table", data, "--json"}, zk...), key...)...)
	if rows := parseRows(t, r.stdout); len(rows) != 1 || smsOf(t, rows[0]).Content != m.Content {
		t.Errorf("get %v: %s", key, r.stdout)
	}
	key[2] = "unique=9"
	if r := h.main(ctx, append(append([]string{"get", "--schema", "sms", "--table", data}, zk...), key...)...); r.code != 1 ||
		!strings.Contains(r.stderr, "no row in table "+data) {
		t.Errorf("get of an absent row: exit %d, stderr %q; want 1 and the key", r.code, r.stderr)
	}
	if r := h.mustMain(ctx, t, append([]string{"scan", "--schema", "sms", "--table", data, "--limit", "5"}, zk...)...); !strings.HasSuffix(r.stdout, "\n5 rows; --limit 5 reached, more follow\n") {
		t.Errorf("scan --limit 5 ends %q", r.stdout[max(0, len(r.stdout)-80):])
	}
}
