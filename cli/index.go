package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

const indexSynopsis = `usage: hbkit index verify|repair|rebuild|build --table T [flags]
       hbkit index verify|repair|rebuild|build --schema NAME|--schema-file FILE [--table T] [flags]

Checks a data table against its index tables: scans the data table, then
each index table, and counts missing entries (a data row whose entry is
absent, unverified, or written by another client and disagreeing),
orphaned entries (no data row, or a data row that derives another key) and
stale entries (carried cells that disagree). Rows and entries that other
clients write with the same key design count only when they disagree.
`

// indexSubcommands describes each subcommand of index.
var indexSubcommands = []struct{ name, summary string }{
	{"verify", "report only; exit status 1 if anything diverges"},
	{"repair", `report, and fix what diverges (other clients' data rows are
never rewritten: their missing or stale entries are)`},
	{"rebuild", "rewrite every entry, and delete dead orphans"},
	{"build", `build an index that is building (created over a data table that
held rows, which readers refuse until then): rebuild while
writers keep writing, then mark it active (--index NAME: that
index only; every index by default)`},
}

const indexAbout = `The schema is the document stored with the data table --table names
(written by "hbkit table create", admin.EnsureTables or dao.CreateTables):
any table that carries one is checked without --schema. --schema NAME (a
schema the binary registers, see "hbkit table schemas") or --schema-file
FILE (a schema document) take precedence; with --table they are served
under that name. A table that declares UID fields needs --uid-table, the
UID table its ids come from. Wide tables declare no index.

Long runs show progress on stderr when it is a terminal (elsewhere, a
line every few seconds). With --checkpoint FILE the position is saved
after each batch; running the same command again resumes from it.
`

// indexUsage is the usage text of index: every subcommand when sub is
// empty, else sub's own description.
func indexUsage(sub string) string {
	return subcommandUsage(indexSynopsis, "index", sub, indexSubcommands, indexAbout)
}

// indexChecker is what the command needs of a store with indexes
// (*dao.Repo[T] of any T).
type indexChecker interface {
	Check(ctx context.Context, mode dao.Mode, opts ...dao.CheckOption) (dao.Report, error)
	BuildIndex(ctx context.Context, name string, opts ...dao.CheckOption) (dao.Report, error)
	Name() string
	IndexTables() []string
}

// indexCommand is hbkit index: one subcommand per indexSubcommands, all
// with the flags of indexFlagSet.
func indexCommand(e *Env, connect connectFunc[dao.Client]) command {
	c := command{name: "index", summary: "verify, repair or rebuild index tables against their data table",
		usage: text(indexUsage("")),
		bind:  func() (*flag.FlagSet, runFunc) { return indexFlagSet(e, &indexFlags{}), nil }}
	for _, s := range indexSubcommands {
		c.subs = append(c.subs, command{name: s.name, summary: strings.SplitN(s.summary, "\n", 2)[0], usage: text(indexUsage(s.name)),
			bind: func() (*flag.FlagSet, runFunc) {
				var f indexFlags
				return indexFlagSet(e, &f), func(ctx context.Context, args []string) error {
					return e.index(ctx, s.name, f, args, connect)
				}
			}})
	}
	return c
}

// runIndexWith runs hbkit index with args over connect.
func runIndexWith(ctx context.Context, e *Env, args []string, connect connectFunc[dao.Client]) error {
	return runOne(ctx, e, indexCommand(e, connect), args)
}

type indexFlags struct {
	from       schemaFlags
	uidTable   string
	zk         string
	checkpoint string
	json       bool
	rename     string
	grace      time.Duration
	batch      int
	build      bool   // the build subcommand
	index      string // build: the index to build ("": every one)
}

func indexFlagSet(e *Env, f *indexFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.StringVar(&f.from.schema, "schema", "", "schema `NAME` (one the binary registers) or schema FILE")
	f.from.register(fs, "data table `T`: its stored schema document is the schema (default: the schema's own table)")
	fs.StringVar(&f.uidTable, "uid-table", "", "the UID `TABLE` of a schema that declares UID fields")
	e.connectFlags(fs, &f.zk)
	fs.StringVar(&f.checkpoint, "checkpoint", "", "`FILE` to save progress to and resume from")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.StringVar(&f.rename, "rename", "", "serve the schema under other table names: `declared=actual,...`")
	fs.DurationVar(&f.grace, "grace", time.Minute, "age after which an unverified orphan is deleted by repair")
	fs.IntVar(&f.batch, "batch", 500, "rows per batch")
	fs.StringVar(&f.index, "index", "", "build: the index `NAME` to build (default: every index of the schema)")
	return fs
}

// index runs the index subcommand sub with its flags and arguments.
func (e *Env) index(ctx context.Context, sub string, f indexFlags, args []string, connect connectFunc[dao.Client]) error {
	mode, err := dao.ModeRebuild, error(nil) // build runs a rebuild
	if f.build = sub == "build"; !f.build {
		mode, err = dao.ParseMode(sub)
	}
	if err != nil {
		return err
	}
	if f.index != "" && !f.build {
		fmt.Fprintf(e.Stderr, "%s index %s: --index applies to build only\n", e.name(), sub)
		return ErrUsage
	}
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s index: unexpected argument %q (name the table with --table)\n", e.name(), args[0])
		return ErrUsage
	}
	if !f.from.given() && f.from.table == "" {
		fmt.Fprintf(e.Stderr, "%s index: name the data table with --table T (or the schema with --schema NAME or --schema-file FILE)\n", e.name())
		return ErrUsage
	}
	opts, names, err := indexOptions(f)
	if err != nil {
		return err
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	t, err := e.openIndexed(ctx, "index "+sub, c, f, names, opts)
	if err != nil {
		return err
	}
	return checkIndex(ctx, e, t, mode, f)
}

// indexOptions returns the store options of the flags and the table names
// of --rename (declared → actual), which the store gets once its schema
// is known.
func indexOptions(f indexFlags) ([]dao.Option, map[string]string, error) {
	grace := f.grace
	if grace == 0 {
		// --grace 0s: no grace at all. The store takes only a positive
		// period (its zero is the default); versions are milliseconds and
		// an entry counts as dead when older than the period, so one
		// nanosecond deletes exactly what zero did.
		grace = time.Nanosecond
	}
	opts := []dao.Option{dao.WithGracePeriod(grace), dao.WithBatchSize(f.batch)}
	names := map[string]string{}
	if f.rename != "" {
		for _, kv := range strings.Split(f.rename, ",") {
			from, to, ok := strings.Cut(kv, "=")
			if !ok || from == "" || to == "" {
				return nil, nil, fmt.Errorf("--rename: %q is not declared=actual", kv)
			}
			names[from] = to
		}
	}
	return opts, names, nil
}

// openIndexed opens the store whose indexes the command checks, over
// schema.Values records: of the schema document of --schema or
// --schema-file, else of the one stored with --table.
func (e *Env) openIndexed(ctx context.Context, command string, c dao.Client, f indexFlags, names map[string]string, opts []dao.Option) (indexChecker, error) {
	var doc schema.Document
	var err error
	if f.from.given() {
		doc, err = e.schemaDocument(f.from)
	} else {
		doc, err = storedDocument(ctx, command, c, f.from.table)
	}
	if err != nil {
		return nil, err
	}
	return openDocumentStore(c, doc, f, names, opts)
}

// serveAs records in names that the data table declared is served as
// table (the --table of a command given a schema); nothing when table is
// empty or the declared name.
func serveAs(names map[string]string, declared, table string) error {
	if table == "" {
		return nil
	}
	tn, err := schema.ParseTableName(table)
	if err != nil {
		return fmt.Errorf("--table: %w", err)
	}
	if dn, err := schema.ParseTableName(declared); err == nil && dn == tn {
		return nil
	}
	names[declared] = tn.String()
	return nil
}

func withNames(opts []dao.Option, names map[string]string) []dao.Option {
	if len(names) == 0 {
		return opts
	}
	return append(opts, dao.WithTableNames(names))
}

// openDocumentStore opens the store of doc over schema.Values records
// (dao.OpenDocument), on the tables names maps its tables to, with the
// UID table of --uid-table when doc declares UID fields. A document
// without index is an error wrapping dao.ErrNoIndex.
func openDocumentStore(c dao.Client, doc schema.Document, f indexFlags, names map[string]string, opts []dao.Option) (indexChecker, error) {
	switch {
	case doc.Wide != nil:
		return nil, fmt.Errorf("table %s is a wide table, and wide tables declare none: %w", doc.Name, dao.ErrNoIndex)
	case len(doc.Indexes) == 0:
		return nil, fmt.Errorf("table %s: its schema document declares none: %w", doc.Name, dao.ErrNoIndex)
	}
	if err := serveAs(names, doc.Name, f.from.table); err != nil {
		return nil, err
	}
	if len(doc.UIDs) > 0 && f.uidTable != "" {
		if _, ok := c.(dao.UIDClient); !ok {
			return nil, &UnsupportedError{Command: "index", Call: "Increment", Need: "to open the UID table " + f.uidTable, Err: errors.ErrUnsupported}
		}
	}
	r, err := dao.OpenDocument(c, doc, f.uidTable, withNames(opts, names)...)
	if errors.Is(err, dao.ErrNeedUIDTable) {
		return nil, fmt.Errorf("table %s: %w: give it with --uid-table TABLE", doc.Name, err)
	}
	return r, err
}

// ErrNeedUIDTable is the error of an index job on a table that declares
// UID fields, without --uid-table (dao.ErrNeedUIDTable).
var ErrNeedUIDTable = dao.ErrNeedUIDTable

// ErrDiverged makes verify exit 1 when the index diverges.
var ErrDiverged = errors.New("the index diverges from the data table")

func checkIndex(ctx context.Context, e *Env, t indexChecker, mode dao.Mode, f indexFlags) error {
	var opts []dao.CheckOption
	if f.checkpoint != "" {
		cp, ok, err := loadCheckpoint(f.checkpoint)
		if err != nil {
			return err
		}
		if ok && !cp.Done {
			fmt.Fprintf(e.Stderr, "resuming %s of %s at pass %d\n", cp.Mode, cp.Table, cp.Pass)
			opts = append(opts, dao.WithResume(cp))
		}
		opts = append(opts, dao.WithCheckpoint(func(cp dao.Checkpoint) error { return saveCheckpoint(f.checkpoint, cp) }))
	}
	bar := newProgressBar(e.Stderr)
	opts = append(opts, dao.WithProgress(bar.update))
	run, label := t.Check, mode.String()
	if f.build {
		run = func(ctx context.Context, _ dao.Mode, opts ...dao.CheckOption) (dao.Report, error) {
			return t.BuildIndex(ctx, f.index, opts...)
		}
		label = "build"
	}
	rep, err := run(ctx, mode, opts...)
	bar.finish()
	if err != nil {
		return err
	}
	if f.json {
		out := struct {
			Mode    string     `json:"mode"`
			Data    string     `json:"data_table"`
			Indexes []string   `json:"index_tables"`
			Report  dao.Report `json:"report"`
			Clean   bool       `json:"clean"`
		}{label, t.Name(), t.IndexTables(), rep, rep.Clean()}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.Stdout, "%s %s (index %s)\n", label, t.Name(), strings.Join(t.IndexTables(), ", "))
		fmt.Fprintf(e.Stdout, "  data rows    %d\n  entries      %d\n  missing      %d\n  orphaned     %d\n  stale        %d\n  undecodable  %d\n  tombstones   %d\n  duplicates   %d\n",
			rep.DataRows, rep.Entries, rep.Missing, rep.Orphaned, rep.Stale, rep.Undecodable, rep.Tombstones, rep.Duplicates)
		if mode != dao.ModeVerify {
			fmt.Fprintf(e.Stdout, "  repaired     %d\n  skipped      %d\n", rep.Repaired, rep.Skipped)
			if why := rep.SkippedWhy(); why != "" {
				fmt.Fprintf(e.Stdout, "    (%s)\n", why)
			}
		}
	}
	if mode == dao.ModeVerify && !rep.Clean() {
		return ErrDiverged
	}
	return nil
}

func loadCheckpoint(path string) (dao.Checkpoint, bool, error) {
	var cp dao.Checkpoint
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cp, false, nil
	}
	if err != nil {
		return cp, false, err
	}
	if err := json.Unmarshal(b, &cp); err != nil {
		return cp, false, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return cp, true, nil
}

// saveCheckpoint replaces the file atomically, so a kill mid-write leaves
// the previous checkpoint.
func saveCheckpoint(path string, cp dao.Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// progressBar renders Check's progress on stderr: on a terminal, one
// line redrawn (\r) at most five times a second; elsewhere (a log file, a
// pipe) a plain line every logEvery, and the last one.
type progressBar struct {
	w     io.Writer
	tty   bool
	last  time.Time
	drawn bool
}

// logEvery is how often progress prints where stderr is not a terminal.
const logEvery = 10 * time.Second

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, tty: isTerminal(w)}
}

// isTerminal reports whether w is a file open on a terminal (a character
// device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progressBar) update(pr dao.Progress) {
	p.draw(pr.Fraction, fmt.Sprintf("pass %d/%d %s: %d rows, %d entries, missing %d, orphaned %d, stale %d",
		pr.Pass, pr.Passes, pr.Table, pr.Report.DataRows, pr.Report.Entries, pr.Report.Missing, pr.Report.Orphaned, pr.Report.Stale))
}

// draw renders a bar of fraction and text, unless the last line is too
// recent; a fraction of 1 always draws.
func (p *progressBar) draw(fraction float64, text string) {
	every, start, end := logEvery, "", "\n"
	if p.tty {
		every, start, end = 200*time.Millisecond, "\r", " "
	}
	now := time.Now()
	if now.Sub(p.last) < every && fraction < 1 {
		return
	}
	p.last = now
	const width = 30
	n := int(fraction * width)
	fmt.Fprintf(p.w, "%s[%s%s] %3.0f%% %s%s", start,
		strings.Repeat("#", n), strings.Repeat(".", width-n), fraction*100, text, end)
	p.drawn = true
}

func (p *progressBar) finish() {
	if p.drawn && p.tty {
		fmt.Fprintln(p.w)
	}
}
