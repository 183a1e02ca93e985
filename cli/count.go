package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
)

const countUsage = `usage: hbkit count --table T [--start KEY] [--stop KEY] [--prefix KEY] [--json]

Counts the rows of a table, or of a key range of it, as the HBase shell's
count does but with one key-only scan (FirstKeyOnlyFilter and
KeyOnlyFilter: one key per row crosses the network, no values). It needs
no schema: any table another client made is counted. Keys are written in
the HBase shell's form: printable bytes as is, others as \xHH.

Output: "N rows", or with --json {"table": T, "rows": N}.

Flags:
`

type countFlags struct {
	table string
	zk    string
	json  bool
	keys  rawKeyFlags
}

// countCommand is hbkit count.
func countCommand(e *Env, connect connectFunc[rowScanner]) command {
	return command{name: "count", summary: "count the rows of any table (or key range) with a key-only scan", usage: text(countUsage),
		bind: func() (*flag.FlagSet, runFunc) {
			var f countFlags
			fs := flag.NewFlagSet("hbkit count", flag.ContinueOnError)
			fs.StringVar(&f.table, "table", "", "table `T` to count (\"name\" or \"namespace:name\")")
			f.keys.register(fs, "count")
			fs.BoolVar(&f.json, "json", false, `print {"table", "rows"} as JSON`)
			e.connectFlags(fs, &f.zk)
			return fs, func(ctx context.Context, args []string) error { return e.count(ctx, f, args, connect) }
		}}
}

// countReport is the JSON output of hbkit count.
type countReport struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
}

func (e *Env) count(ctx context.Context, f countFlags, args []string, connect connectFunc[rowScanner]) error {
	usageErr := func(format string, a ...any) error {
		fmt.Fprintf(e.Stderr, "%s count: %s\n", e.name(), fmt.Sprintf(format, a...))
		return ErrUsage
	}
	switch {
	case len(args) > 0:
		return usageErr("unexpected argument %q", args[0])
	case f.table == "":
		return usageErr("name the table with --table T")
	case f.keys.check() != nil:
		return usageErr("%v", f.keys.check())
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	kr, _ := f.keys.keyRange()
	n, err := countRows(ctx, c, f.table, kr.Start, kr.Stop)
	if err != nil {
		return err
	}
	if f.json {
		return json.NewEncoder(e.Stdout).Encode(countReport{Table: f.table, Rows: n})
	}
	_, err = fmt.Fprintln(e.Stdout, rowCount(int(n)))
	return err
}
