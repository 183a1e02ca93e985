package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/sim"
)

// rawKeyFlags are the row keys get and scan take as bytes, written as the
// HBase shell writes them: --row (get), --start, --stop and --prefix
// (scan, count).
type rawKeyFlags struct {
	row, start, stop, prefix []byte
	given                    []string // the flags given, as --name
}

// register adds the flags of cmd ("get", "scan" or "count") to fs.
func (r *rawKeyFlags) register(fs *flag.FlagSet, cmd string) {
	key := func(name string, dst *[]byte) func(string) error {
		return func(s string) error {
			k, err := parseBinaryKey(s)
			if err == nil {
				*dst = k
				r.given = append(r.given, "--"+name)
			}
			return err
		}
	}
	const form = ` in the HBase shell's form: printable bytes as is, others as \xHH`
	if cmd == "get" {
		fs.Func("row", "the row `KEY`"+form+"; instead of FIELD=VALUE arguments", key("row", &r.row))
		return
	}
	fs.Func("start", "first row `KEY`, included"+form, key("start", &r.start))
	fs.Func("stop", "row `KEY` to stop at, excluded"+form, key("stop", &r.stop))
	fs.Func("prefix", "rows whose key starts with `KEY`"+form, key("prefix", &r.prefix))
}

// keyRange returns the range --start, --stop and --prefix give, and
// whether any was given.
func (r *rawKeyFlags) keyRange() (keys.KeyRange, bool) {
	if r.prefix != nil {
		return keys.KeyRange{Start: r.prefix, Stop: keys.PrefixEnd(r.prefix)}, true
	}
	return keys.KeyRange{Start: r.start, Stop: r.stop}, r.start != nil || r.stop != nil
}

// check returns the usage error of --prefix given with --start or --stop.
func (r *rawKeyFlags) check() error {
	if r.prefix != nil && (r.start != nil || r.stop != nil) {
		return fmt.Errorf("--prefix gives the whole range: it takes no --start or --stop")
	}
	return nil
}

// shellKey writes b as the HBase shell does (Bytes.toStringBinary).
func shellKey(b []byte) string { return sim.Key(b).String() }

// shellPrinter prints rows as the HBase shell does, with no schema: one
// line per cell, "column=FAMILY:QUALIFIER, timestamp=MS, value=VALUE",
// every byte string in Bytes.toStringBinary form; or, with json, one
// object per row.
type shellPrinter struct {
	w     io.Writer
	table string
	json  bool
	get   bool // get's layout: COLUMN CELL, no row column
	rows  int
	tw    *tabwriter.Writer
	buf   bytes.Buffer
}

// shellRowJSON is one row of get or scan --json without a schema.
type shellRowJSON struct {
	Table string          `json:"table"`
	Row   string          `json:"row"` // Bytes.toStringBinary
	Hex   string          `json:"hex"`
	Cells []shellCellJSON `json:"cells"`
}

type shellCellJSON struct {
	Column    string `json:"column"` // family:qualifier, Bytes.toStringBinary
	Timestamp int64  `json:"timestamp"`
	Value     string `json:"value"` // Bytes.toStringBinary
}

func (p *shellPrinter) print(res *hbase.Result) error {
	p.rows++
	if p.json {
		j := shellRowJSON{Table: p.table, Row: shellKey(res.Row()), Hex: hex.EncodeToString(res.Row())}
		for _, c := range res.Cells {
			j.Cells = append(j.Cells, shellCellJSON{Column: shellColumn(c), Timestamp: c.Timestamp, Value: shellKey(c.Value)})
		}
		b, err := json.Marshal(j)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.w, "%s\n", b)
		return err
	}
	if p.tw == nil {
		p.tw = tabwriter.NewWriter(&p.buf, 0, 0, 2, ' ', 0)
		if p.get {
			fmt.Fprintln(p.tw, "COLUMN\tCELL")
		} else {
			fmt.Fprintln(p.tw, "ROW\tCOLUMN+CELL")
		}
	}
	for _, c := range res.Cells {
		cell := "timestamp=" + strconv.FormatInt(c.Timestamp, 10) + ", value=" + shellKey(c.Value)
		if p.get {
			fmt.Fprintf(p.tw, " %s\t%s\n", shellColumn(c), cell)
		} else {
			fmt.Fprintf(p.tw, " %s\tcolumn=%s, %s\n", shellKey(res.Row()), shellColumn(c), cell)
		}
	}
	return nil
}

func shellColumn(c hbase.Cell) string {
	return shellKey(c.Family) + ":" + shellKey(c.Qualifier)
}

// finish writes the table of the text output and its last line: the
// shell's "N row(s)", and whether --limit stopped the scan.
func (p *shellPrinter) finish(limit int, more bool) error {
	if p.json {
		if more {
			b, err := json.Marshal(moreJSON{More: true, Rows: p.rows, Limit: limit})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(p.w, "%s\n", b)
			return err
		}
		return nil
	}
	if p.tw != nil {
		if err := p.tw.Flush(); err != nil {
			return err
		}
		if _, err := p.w.Write(p.buf.Bytes()); err != nil {
			return err
		}
	}
	last := strconv.Itoa(p.rows) + " row(s)"
	if more {
		last += "; --limit " + strconv.Itoa(limit) + " reached, more follow"
	}
	_, err := fmt.Fprintln(p.w, last)
	return err
}

// shellView runs get or scan (cmd) on table without a schema.
func (e *Env) shellView(ctx context.Context, cmd string, c viewClient, table string, f viewFlags) error {
	p := &shellPrinter{w: e.Stdout, table: table, json: f.json, get: cmd == "get"}
	if cmd == "get" {
		if f.keys.row == nil {
			fmt.Fprintf(e.Stderr, "%s get: without a schema, give the row key with --row KEY\n", e.name())
			return ErrUsage
		}
		res, err := c.Get(ctx, &hbase.Get{Table: table, Row: f.keys.row})
		if err != nil {
			return err
		}
		if res.Empty() {
			return &RowNotFoundError{Table: table, Keys: [][]byte{f.keys.row}}
		}
		if err := p.print(res); err != nil {
			return err
		}
		return p.finish(0, false)
	}
	kr, _ := f.keys.keyRange()
	_, more, err := scanRanges(ctx, c, table, []keys.KeyRange{kr}, f.limit, false, func(_ []byte, res *hbase.Result) (bool, error) {
		return true, p.print(res)
	})
	if err != nil {
		return err
	}
	return p.finish(f.limit, more)
}
