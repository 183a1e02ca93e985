package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/sim"
)

// shellRow is one row of get or scan --shell --json.
type shellRow struct {
	Table string `json:"table"`
	Row   string `json:"row"`
	Hex   string `json:"hex"`
	Cells []struct {
		Column    string `json:"column"`
		Timestamp int64  `json:"timestamp"`
		Value     string `json:"value"`
	} `json:"cells"`
}

// shellCell is a cell as the scenario wrote it.
type shellCell struct {
	row, column, value []byte
	ts                 int64
}

// Shell runs get, scan and count on a table made by plain client calls,
// with no schema document: what --shell prints (text and --json) is
// what was written, keys and values with bytes the shell escapes; key
// arguments take the shell's \xHH escapes; count counts rows with a
// key-only scan; without --shell, get and scan say the table has no
// document and how to read it (over a client that cannot describe
// tables, that they cannot read the document).
func Shell(t *testing.T, h Harness) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c := h.client(ctx, t)
	table := h.name("shell")
	written := writeShellTable(ctx, t, c, table)
	zk := []string{"--table", table, "--zk", h.zk()}
	run := func(args ...string) result {
		t.Helper()
		return h.mustMain(ctx, t, append(args, zk...)...)
	}

	rows := parseShellRows(t, run("scan", "--shell", "--json", "--limit", "0").stdout)
	if got := shellCells(t, rows); !slices.EqualFunc(got, written, shellCellEqual) {
		t.Errorf("scan --shell --json read\n%v\nwant\n%v", got, written)
	}
	text := run("scan", "--shell").stdout
	t.Logf("scan --shell:\n%s", text)
	for _, w := range written {
		line := fmt.Sprintf("column=%s, timestamp=%d, value=%s", sim.Key(w.column), w.ts, sim.Key(w.value))
		if !strings.Contains(text, " "+sim.Key(w.row).String()+" ") || !strings.Contains(text, line) {
			t.Errorf("scan --shell lacks row %s or %q:\n%s", sim.Key(w.row), line, text)
		}
	}
	if !strings.HasPrefix(text, "ROW ") || !strings.HasSuffix(text, "\n4 row(s)\n") {
		t.Errorf("scan --shell: want the shell's header and \"4 row(s)\":\n%s", text)
	}

	// Key arguments in the shell's form pick the rows written.
	for _, tc := range []struct {
		args []string
		want int // rows
	}{
		{[]string{"--prefix", `r\x00`}, 2},
		{[]string{"--start", `r\x00\x02`, "--stop", `s\xFF`}, 2},
		{[]string{"--start", `r\x00\x02`}, 3},
		{[]string{"--limit", "3"}, 3},
	} {
		rows := parseShellRows(t, run(append([]string{"scan", "--shell", "--json"}, tc.args...)...).stdout)
		if len(rows) != tc.want {
			t.Errorf("scan --shell %q: %d rows, want %d", tc.args, len(rows), tc.want)
		}
		if slices.Contains(tc.args, "--limit") {
			continue
		}
		count := run(append([]string{"count", "--json"}, tc.args...)...)
		var n struct{ Rows int }
		if err := json.Unmarshal([]byte(count.stdout), &n); err != nil || n.Rows != tc.want {
			t.Errorf("count %q: %s (%v), want %d rows", tc.args, count.stdout, err, tc.want)
		}
	}
	if out := run("count").stdout; out != "4 rows\n" {
		t.Errorf("count printed %q, want \"4 rows\"", out)
	}

	got := parseShellRows(t, run("get", "--shell", "--json", "--row", `r\x00\x01`).stdout)
	if cells := shellCells(t, got); !slices.EqualFunc(cells, written[:2], shellCellEqual) {
		t.Errorf("get --shell --row: %v, want %v", cells, written[:2])
	}
	out := run("get", "--shell", "--row", `r\x00\x01`).stdout
	if !strings.HasPrefix(out, "COLUMN ") || !strings.Contains(out, ` f:q\x01 `) || !strings.HasSuffix(out, "1 row(s)\n") {
		t.Errorf("get --shell:\n%s", out)
	}
	if r := h.main(ctx, append([]string{"get", "--shell", "--row", `r\x00\x09`}, zk...)...); r.code != 1 {
		t.Errorf("get --shell of an absent row: exit %d, want 1\n%s", r.code, r.stderr)
	}
	for _, cmd := range []string{"scan", "get"} {
		args := []string{cmd}
		if cmd == "get" {
			args = append(args, "--row", "r1")
		}
		if h.Unsupported["DescribeTable"] {
			wantUnsupported(t, cmd+" without --shell", h.run(ctx, append(args, zk...)...), "DescribeTable")
			continue
		}
		if r := h.main(ctx, append(args, zk...)...); r.code != 1 || !strings.Contains(r.stderr, "no schema document") || !strings.Contains(r.stderr, "--shell") {
			t.Errorf("%s without --shell: exit %d, want 1 and a message naming --shell\n%s", cmd, r.code, r.stderr)
		}
	}
}

// writeShellTable creates table with plain client calls (no schema
// document) and writes four rows, with bytes the shell escapes in keys,
// qualifiers and values; it returns the cells in the order a scan reads
// them.
func writeShellTable(ctx context.Context, t *testing.T, c cli.Client, table string) []shellCell {
	t.Helper()
	desc := hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "f"}}}
	if err := c.CreateTable(ctx, desc, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.DisableTable(ctx, table)
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Errorf("drop %s: %v", table, err)
		}
	})
	written := []shellCell{
		{[]byte("r\x00\x01"), []byte("f:a"), []byte("plain"), 1_700_000_000_001},
		{[]byte("r\x00\x01"), []byte("f:q\x01"), []byte("\x00bin\xff\n"), 1_700_000_000_002},
		{[]byte("r\x00\x02"), []byte("f:a"), []byte(`back\slash "q"`), 1_700_000_000_003},
		{[]byte("r1"), []byte("f:a"), []byte("é"), 1_700_000_000_004},
		{[]byte("s\xff"), []byte("f:a"), []byte{}, 1_700_000_000_005},
	}
	for _, w := range written {
		fam, qual, _ := bytes.Cut(w.column, []byte(":"))
		p := &hbase.Put{Table: table, Row: w.row, Timestamp: w.ts,
			Cells: []hbase.PutCell{{Family: string(fam), Qualifier: string(qual), Value: w.value}}}
		if err := c.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	return written
}

func parseShellRows(t *testing.T, out string) []shellRow {
	t.Helper()
	var rows []shellRow
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r shellRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if r.Table != "" {
			rows = append(rows, r)
		}
	}
	return rows
}

// shellCells returns the cells of rows, their bytes parsed back from the
// shell's form.
func shellCells(t *testing.T, rows []shellRow) []shellCell {
	t.Helper()
	var cells []shellCell
	for _, r := range rows {
		row, err := sim.ParseKey(r.Row)
		if err != nil || fmt.Sprintf("%x", []byte(row)) != r.Hex {
			t.Errorf("row %q (hex %s): %v", r.Row, r.Hex, err)
		}
		for _, c := range r.Cells {
			col, err1 := sim.ParseKey(c.Column)
			val, err2 := sim.ParseKey(c.Value)
			if err1 != nil || err2 != nil {
				t.Errorf("cell %+v: %v %v", c, err1, err2)
			}
			cells = append(cells, shellCell{row, col, val, c.Timestamp})
		}
	}
	return cells
}

func shellCellEqual(a, b shellCell) bool {
	return bytes.Equal(a.row, b.row) && bytes.Equal(a.column, b.column) && bytes.Equal(a.value, b.value) && a.ts == b.ts
}
