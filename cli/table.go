package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

const tableSynopsis = `usage: hbkit table <subcommand> --schema NAME|FILE | --schema-file FILE [flags]
       hbkit table describe|ensure|truncate|drop --table T [flags]
       hbkit table ls [--namespace NS] [--json]
       hbkit table schemas
`

// tableSubcommands describes each subcommand of table, in the order of the
// usage text.
var tableSubcommands = []struct{ name, summary string }{
	{"create", `create the tables of the schema, pre-split, or check that they
exist as declared; safe to run again (the admin job: run it once
per environment). Drift is reported, never repaired.`},
	{"ensure", "the same as create"},
	{"describe", `families, options and regions (start and end keys, server,
requests) of the live tables, and their drift from the schema`},
	{"truncate", "remove every row, keeping the region boundaries (needs --yes)"},
	{"drop", "disable and delete the tables (needs --yes)"},
	{"ls", `the live tables of the cluster (of --namespace NS only, if given),
one per line, or a JSON array with --json; "list" is the same`},
	{"schemas", "the names of the built-in schemas (--schema takes them); a JSON array with --json"},
}

const tableAbout = `--schema takes a schema of this binary, a built-in name (see "hbkit table
schemas") or a JSON schema file, as does --schema-file: a schema document
(schema.Document: every field, key segment, column, index, UID field and
wide layout) or a schema file (see the admin package documentation);
repeat it or separate names with commas for several tables. create and
ensure store a table's document with it (attribute hbkit.schema), so that
every hbkit command later reads the table with --table T alone: --table
takes the schema from the document stored with T, its index tables
included (describe, ensure, truncate, drop). A data table that declares indexes comes
with its index tables: --schema NAME creates, describes, truncates and
drops NAME and its index tables. A new index table over a data table that holds
rows is reported "needs building" until "hbkit index build" has run.
`

// tableUsage is the usage text of table: every subcommand when sub is
// empty, else sub's own description.
func tableUsage(sub string) string {
	return subcommandUsage(tableSynopsis, "table", sub, tableSubcommands, tableAbout)
}

// subcommandUsage is the usage text of a command with subcommands (table,
// index): the synopsis, then every subcommand's summary, or the one of
// sub only, then about, then the "Flags:" heading.
func subcommandUsage(synopsis, cmd, sub string, subs []struct{ name, summary string }, about string) string {
	var b strings.Builder
	b.WriteString(synopsis)
	if sub == "" {
		b.WriteString("\nSubcommands:\n")
	}
	for _, s := range subs {
		if sub != "" && s.name != sub {
			continue
		}
		lines := strings.Split(s.summary, "\n")
		if sub != "" {
			fmt.Fprintf(&b, "\nhbkit %s %s: %s\n", cmd, s.name, strings.Join(lines, "\n"))
			continue
		}
		fmt.Fprintf(&b, "  %-9s %s\n", s.name, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "  %-9s %s\n", "", l)
		}
	}
	b.WriteString("\n" + about + "\nFlags:\n")
	return b.String()
}

// tableCommand is hbkit table: one subcommand per tableSubcommands, all
// with the flags of tableFlagSet. The Client is also an
// admin.RowScanner, for describe --rows, and *hbase.Client an
// admin.RegionLoader: describe reports request counts.
func tableCommand(e *Env, connect connectFunc[admin.Client]) command {
	c := command{name: "table", summary: "create, check, describe, truncate and drop tables from schemas",
		usage: text(tableUsage("")),
		bind:  func() (*flag.FlagSet, runFunc) { return tableFlagSet(e, &tableFlags{}), nil }}
	for _, s := range tableSubcommands {
		sub := command{name: s.name, summary: strings.SplitN(s.summary, "\n", 2)[0], usage: text(tableUsage(s.name)),
			bind: func() (*flag.FlagSet, runFunc) {
				var f tableFlags
				return tableFlagSet(e, &f), func(ctx context.Context, args []string) error {
					return e.table(ctx, s.name, f, args, connect)
				}
			}}
		if s.name == "ls" {
			sub.aliases = []string{"list"}
		}
		c.subs = append(c.subs, sub)
	}
	return c
}

// runTableWith runs hbkit table with args over connect.
func runTableWith(ctx context.Context, e *Env, args []string, connect connectFunc[admin.Client]) error {
	return runOne(ctx, e, tableCommand(e, connect), args)
}

type tableFlags struct {
	schemas []string // --schema and --schema-file
	tables  []string // --table: read the schema stored with each
	zk      string
	json    bool
	dryRun  bool
	yes     bool
	rows    bool
	grown   bool
	// namespace serves the schema's tables in another namespace.
	namespace string
}

// table runs the table subcommand sub with its flags and arguments.
func (e *Env) table(ctx context.Context, sub string, f tableFlags, args []string, connect connectFunc[admin.Client]) error {
	if err := e.checkTable(sub, f, args); err != nil || sub == "schemas" {
		return err
	}
	lazy := &lazyClient{connect: connect, zk: e.quorum(f.zk)}
	defer lazy.close()
	if sub == "ls" || sub == "list" {
		return e.listTables(ctx, lazy, f)
	}
	named, err := e.tableSchemas(ctx, "table "+sub, lazy, f)
	if err != nil {
		return err
	}
	defs, err := inNamespace(admin.WithIndexTables(named...), f.namespace)
	if err != nil {
		return err
	}
	if named, err = inNamespace(named, f.namespace); err != nil {
		return err
	}
	plans := make([]*admin.Plan, len(defs))
	for i, d := range defs {
		if plans[i], err = admin.PlanTable(d); err != nil {
			return err
		}
	}
	if f.dryRun {
		if sub == "describe" {
			fmt.Fprintf(e.Stderr, "%s table describe: --dry-run does not apply; describe only reads\n", e.name())
			return ErrUsage
		}
		return printDryRun(e.Stdout, sub, defs, plans, f.json)
	}
	if (sub == "drop" || sub == "truncate") && !f.yes {
		fmt.Fprintf(e.Stderr, "%s table %s: this deletes data; add --yes to %s %s\n", e.name(), sub, sub, tableNames(plans))
		return ErrUsage
	}
	if f.json && sub != "describe" {
		fmt.Fprintf(e.Stderr, "%s table: --json applies to describe and --dry-run\n", e.name())
		return ErrUsage
	}
	c, err := lazy.get(ctx)
	if err != nil {
		return err
	}
	return e.tableJob(ctx, c, sub, f, named, defs, plans)
}

// checkTable checks the flags and arguments of the table subcommand sub,
// and runs schemas.
func (e *Env) checkTable(sub string, f tableFlags, args []string) error {
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s table %s: unexpected argument %q\n", e.name(), sub, args[0])
		return ErrUsage
	}
	switch sub {
	case "schemas":
		return e.printNames(registeredNames(e.Schemas), f.json)
	case "ls", "list":
		if len(f.schemas) > 0 || len(f.tables) > 0 {
			fmt.Fprintf(e.Stderr, "%s table %s: lists the cluster's tables; it takes no --schema or --table\n", e.name(), sub)
			return ErrUsage
		}
		return nil
	}
	switch {
	case len(f.schemas) == 0 && len(f.tables) == 0:
		fmt.Fprintf(e.Stderr, "%s table %s: --schema is required (NAME or FILE; or --schema-file FILE), or --table T to read the schema stored with the table\n", e.name(), sub)
		return ErrUsage
	case len(f.schemas) > 0 && len(f.tables) > 0:
		fmt.Fprintf(e.Stderr, "%s table %s: --table reads the schema stored with the table; --schema and --schema-file name their own tables (move them with --namespace)\n", e.name(), sub)
		return ErrUsage
	}
	return nil
}

// tableLister is the call of table ls.
type tableLister interface {
	ListTables(ctx context.Context, namespace string) ([]string, error)
}

// listTables prints the live tables of the cluster (of f.namespace, if
// given): one per line, or a JSON array.
func (e *Env) listTables(ctx context.Context, lazy *lazyClient, f tableFlags) error {
	c, err := lazy.get(ctx)
	if err != nil {
		return err
	}
	l, ok := c.(tableLister)
	if !ok {
		return &UnsupportedError{Command: "table ls", Call: "ListTables", Err: errors.ErrUnsupported}
	}
	if u := refused(c, "table ls", "ListTables", ""); u != nil {
		return u
	}
	names, err := l.ListTables(ctx, f.namespace)
	if err != nil {
		return err
	}
	if f.json {
		if names == nil {
			names = []string{}
		}
		return json.NewEncoder(e.Stdout).Encode(names)
	}
	for _, n := range names {
		fmt.Fprintln(e.Stdout, n)
	}
	return nil
}

// tableJob runs the subcommand sub on the tables defs (named: those the
// flags name, without the index tables that come with them).
func (e *Env) tableJob(ctx context.Context, c admin.Client, sub string, f tableFlags, named, defs []schema.Definition, plans []*admin.Plan) error {
	// Calls the job cannot do without, before anything is sent: truncate
	// would otherwise disable the table, then fail.
	switch sub {
	case "describe":
		if u := refused(c, "table describe", "DescribeTable", "to read the tables' families and options"); u != nil {
			return u
		}
		if _, ok := c.(admin.RegionLoader); !ok {
			fmt.Fprintf(e.Stderr, "%s table describe: no request counts: this client does not report region loads (RegionLoads)\n", e.name())
		}
	case "truncate":
		if u := refused(c, "table truncate", "TruncateTable", ""); u != nil {
			return u
		}
	}
	var opts []admin.Option
	if f.grown {
		opts = append(opts, admin.WithGrownRegions())
	}
	a, err := admin.New(c, opts...)
	if err != nil {
		return err
	}
	switch sub {
	case "create", "ensure":
		if u := refused(c, "table "+sub, "DescribeTable", "to compare tables with the schema"); u != nil {
			return createOnly(ctx, e, a, sub, defs, u)
		}
		return runEnsure(ctx, e, a, defs)
	case "describe":
		return runDescribe(ctx, e, a, defs, f)
	case "drop":
		return runDrop(ctx, e, a, named, plans)
	}
	for _, p := range plans { // truncate
		if err := a.Truncate(ctx, p.Table); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s: truncated, splits kept\n", p.Table)
	}
	return nil
}

// runDrop drops the tables of plans; an index table that came with its
// data table (not in named) and is absent is reported so.
func runDrop(ctx context.Context, e *Env, a *admin.Admin, named []schema.Definition, plans []*admin.Plan) error {
	explicit := make(map[string]bool, len(named))
	for _, d := range named {
		explicit[d.Name().String()] = true
	}
	for _, p := range plans {
		err := a.Drop(ctx, p.Table)
		if errors.Is(err, hbase.ErrTableNotFound) && !explicit[p.Table] {
			fmt.Fprintf(e.Stdout, "%s: absent\n", p.Table)
			continue
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s: dropped\n", p.Table)
	}
	return nil
}

func tableFlagSet(e *Env, f *tableFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("hbkit table", flag.ContinueOnError)
	list := func(dst *[]string) func(string) error {
		return func(s string) error {
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					*dst = append(*dst, p)
				}
			}
			return nil
		}
	}
	fs.Func("schema", "schema `NAME` (of this binary, or built-in) or JSON schema FILE; repeatable, comma-separated", list(&f.schemas))
	fs.Func("schema-file", "schema `FILE`: a schema document (JSON) or a schema file; repeatable, comma-separated", list(&f.schemas))
	fs.Func("table", "table `T` whose stored schema document is the schema, with its index tables; repeatable, comma-separated", list(&f.tables))
	e.connectFlags(fs, &f.zk)
	fs.BoolVar(&f.json, "json", false, "JSON output (describe, ls, schemas, --dry-run)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the split keys and options without touching HBase")
	fs.BoolVar(&f.yes, "yes", false, "confirm drop or truncate")
	fs.BoolVar(&f.rows, "rows", false, "describe: count rows per region with a key-only scan (reads the whole table)")
	fs.StringVar(&f.namespace, "namespace", "", "serve the schema's tables in namespace `NS` (created if missing)")
	fs.BoolVar(&f.grown, "allow-grown-regions", false, "accept region boundaries beyond the declared split keys (regions HBase split as they grew)")
	return fs
}

// lazyClient connects on first use, so that a command connects only when
// it must: to read a stored schema document, or to act on the tables.
type lazyClient struct {
	connect connectFunc[admin.Client]
	zk      string
	c       admin.Client
	closer  io.Closer
}

func (l *lazyClient) get(ctx context.Context) (admin.Client, error) {
	if l.c != nil {
		return l.c, nil
	}
	c, closer, err := l.connect(ctx, l.zk)
	if err != nil {
		return nil, fmt.Errorf("connect to HBase via ZooKeeper %s: %w", l.zk, err)
	}
	l.c, l.closer = c, closer
	return c, nil
}

func (l *lazyClient) close() {
	if l.closer != nil {
		l.closer.Close()
	}
}

// tableSchemas returns the tables of --schema and --schema-file, or those
// of the documents stored with the --table tables, each served under the
// name --table gives it.
func (e *Env) tableSchemas(ctx context.Context, command string, lazy *lazyClient, f tableFlags) ([]schema.Definition, error) {
	if len(f.tables) == 0 {
		return e.loadSchemas(f.schemas)
	}
	c, err := lazy.get(ctx)
	if err != nil {
		return nil, err
	}
	var out []schema.Definition
	for _, t := range f.tables {
		d, err := openStored(ctx, command, c, t)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// loadSchemas resolves each --schema: one of e.Schemas, else a file.
func (e *Env) loadSchemas(names []string) ([]schema.Definition, error) {
	var out []schema.Definition
	for _, n := range names {
		if d, ok := registered(e.Schemas, n); ok {
			out = append(out, d)
			continue
		}
		if _, err := os.Stat(n); err != nil {
			return nil, fmt.Errorf("--schema %q: neither a built-in schema (%s) nor a readable file: %w",
				n, strings.Join(registeredNames(e.Schemas), ", "), err)
		}
		defs, err := admin.LoadSchemaFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, defs...)
	}
	return out, nil
}

// inNamespace returns defs served in namespace ns ("": as declared); an
// index table keeps the link to its data table, moved with it.
func inNamespace(defs []schema.Definition, ns string) ([]schema.Definition, error) {
	if ns == "" {
		return defs, nil
	}
	out := make([]schema.Definition, len(defs))
	for i, d := range defs {
		n := hbapi.TableName{Namespace: ns, Qualifier: d.Name().Qualifier}
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("--namespace %q: %w", ns, err)
		}
		out[i] = schema.Renamed(d, n)
		if ix, ok := d.(schema.IndexDefinition); ok {
			out[i] = schema.RenamedIndex(ix, n, hbapi.TableName{Namespace: ns, Qualifier: ix.DataTable().Qualifier})
		}
	}
	return out, nil
}

func tableNames(plans []*admin.Plan) string {
	names := make([]string, len(plans))
	for i, p := range plans {
		names[i] = p.Table
	}
	return strings.Join(names, ", ")
}

func runEnsure(ctx context.Context, e *Env, a *admin.Admin, defs []schema.Definition) error {
	res, err := a.EnsureTables(ctx, defs...)
	for _, r := range res {
		if r.Err != nil {
			fmt.Fprintf(e.Stdout, "%s: FAILED\n", r.Table)
			var de *admin.DriftError
			if errors.As(r.Err, &de) {
				for _, d := range de.Diffs {
					fmt.Fprintf(e.Stdout, "  drift: %s\n", d)
				}
				if de.Disabled {
					fmt.Fprintln(e.Stdout, "  the table is also disabled")
				}
			}
			continue
		}
		fmt.Fprintf(e.Stdout, "%s: %s\n", r.Table, r.Outcome)
		if r.Outcome == admin.NeedsBuilding {
			fmt.Fprintf(e.Stdout, "  its data table held rows when it was created: readers refuse it until %s index build has run\n", e.name())
		}
	}
	return err
}

// createOnly is create over a client that cannot describe tables: it
// creates the tables that do not exist, pre-split as declared
// (admin.Create), without reading them back, and fails on those that
// exist, which it cannot compare with the schema, with an
// *UnsupportedError (refusal, naming the table).
func createOnly(ctx context.Context, e *Env, a *admin.Admin, sub string, defs []schema.Definition, refusal *UnsupportedError) error {
	fmt.Fprintf(e.Stderr, "%s table %s: this client cannot describe tables: those created are not read back, "+
		"those that exist are not compared with the schema\n", e.name(), sub)
	var errs []error
	for _, def := range defs {
		name := def.Name().String()
		err := a.Create(ctx, def)
		if err == nil {
			fmt.Fprintf(e.Stdout, "%s: created\n", name)
			continue
		}
		fmt.Fprintf(e.Stdout, "%s: FAILED\n", name)
		if errors.Is(err, hbase.ErrTableExists) {
			fmt.Fprintln(e.Stdout, "  exists, and cannot be compared with the schema over this client")
			u := *refusal
			u.Need = "to compare the existing table " + name + " with the schema"
			err = &u
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// keyJSON shows a key readably and in hex.
type keyJSON struct {
	Key string `json:"key"`
	Hex string `json:"hex"`
}

func keyOf(b []byte) keyJSON { return keyJSON{Key: schema.QuoteKey(b), Hex: hex.EncodeToString(b)} }

type planJSON struct {
	Table     string                       `json:"table"`
	Action    string                       `json:"action"`
	Regions   int                          `json:"regions"`
	Families  map[string]map[string]string `json:"families"`
	SplitKeys []keyJSON                    `json:"split_keys"`
	Shell     string                       `json:"shell"`
}

func printDryRun(w io.Writer, sub string, defs []schema.Definition, plans []*admin.Plan, asJSON bool) error {
	action := map[string]string{"create": "create", "ensure": "create", "drop": "drop", "truncate": "truncate"}[sub]
	if asJSON {
		out := make([]planJSON, len(plans))
		for i, p := range plans {
			out[i] = planJSON{Table: p.Table, Action: action, Regions: p.Regions(), Families: map[string]map[string]string{},
				SplitKeys: []keyJSON{}, Shell: schema.ShellCreate(defs[i])}
			for _, f := range p.Families {
				out[i].Families[f.Name] = f.Attributes()
			}
			for _, k := range p.SplitKeys {
				out[i].SplitKeys = append(out[i].SplitKeys, keyOf(k))
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, p := range plans {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "dry run: would %s table %s (%d regions); HBase not contacted\n", action, p.Table, p.Regions())
		for _, f := range p.Families {
			fmt.Fprintf(w, "family %s:", f.Name)
			for _, a := range f.SortedAttributes() {
				fmt.Fprintf(w, " %s=%s", a.Name, a.Value)
			}
			fmt.Fprintln(w)
		}
		if len(p.SplitKeys) > 0 {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SPLIT\tKEY\tHEX")
			for j, k := range p.SplitKeys {
				fmt.Fprintf(tw, "%d\t%s\t%s\n", j+1, schema.QuoteKey(k), hex.EncodeToString(k))
			}
			tw.Flush()
		} else {
			fmt.Fprintln(w, "no split keys: one region")
		}
		fmt.Fprintf(w, "shell: %s\n", schema.ShellCreate(defs[i]))
	}
	return nil
}

type describeJSON struct {
	Table      string                       `json:"table"`
	Enabled    bool                         `json:"enabled"`
	Attributes map[string]string            `json:"attributes,omitempty"`
	Families   map[string]map[string]string `json:"families"`
	Regions    []regionJSON                 `json:"regions"`
	Drift      []string                     `json:"drift"`
}

type regionJSON struct {
	Start                keyJSON `json:"start"`
	End                  keyJSON `json:"end"`
	Server               string  `json:"server"`
	Name                 string  `json:"name"`
	ID                   int64   `json:"id"`
	Rows                 *int64  `json:"rows,omitempty"`
	ReadRequests         *uint64 `json:"read_requests,omitempty"`
	WriteRequests        *uint64 `json:"write_requests,omitempty"`
	FilteredReadRequests *uint64 `json:"filtered_read_requests,omitempty"`
	StoreFiles           *uint32 `json:"store_files,omitempty"`
	StoreFileSizeMB      *uint32 `json:"store_file_size_mb,omitempty"`
	MemStoreSizeMB       *uint32 `json:"mem_store_size_mb,omitempty"`
}

func runDescribe(ctx context.Context, e *Env, a *admin.Admin, defs []schema.Definition, f tableFlags) error {
	var opts []admin.DescribeOption
	if f.rows {
		opts = append(opts, admin.CountRows())
	}
	var out []describeJSON
	for i, def := range defs {
		name := def.Name().String()
		d, err := a.Describe(ctx, name, opts...)
		if err != nil {
			return err
		}
		diffs, _, err := a.Check(ctx, def)
		if err != nil {
			return err
		}
		drift := []string{}
		for _, df := range diffs {
			drift = append(drift, df.String())
		}
		if f.json {
			out = append(out, describeToJSON(d, drift))
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		printDescription(e.Stdout, d, drift)
	}
	if f.json {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return nil
}

func describeToJSON(d *admin.Description, drift []string) describeJSON {
	j := describeJSON{Table: d.Table, Enabled: d.Enabled, Families: map[string]map[string]string{}, Regions: []regionJSON{}, Drift: drift}
	if len(d.Attributes) > 0 {
		j.Attributes = map[string]string{}
		for _, a := range d.Attributes {
			j.Attributes[a.Name] = a.Value
		}
	}
	for _, f := range d.Families {
		m := map[string]string{}
		for _, a := range f.Attributes {
			m[a.Name] = a.Value
		}
		j.Families[f.Name] = m
	}
	for _, r := range d.Regions {
		rj := regionJSON{Start: keyOf(r.StartKey), End: keyOf(r.EndKey), Server: r.Server, Name: string(r.RegionName), ID: r.ID}
		if r.Rows >= 0 {
			n := r.Rows
			rj.Rows = &n
		}
		if l := r.Load; l != nil {
			rj.ReadRequests, rj.WriteRequests, rj.FilteredReadRequests = &l.ReadRequests, &l.WriteRequests, &l.FilteredReadRequests
			rj.StoreFiles, rj.StoreFileSizeMB, rj.MemStoreSizeMB = &l.StoreFiles, &l.StoreFileSizeMB, &l.MemStoreSizeMB
		}
		j.Regions = append(j.Regions, rj)
	}
	return j
}

func printDescription(w io.Writer, d *admin.Description, drift []string) {
	state := "enabled"
	if !d.Enabled {
		state = "DISABLED"
	}
	fmt.Fprintf(w, "table %s: %s, %d regions\n", d.Table, state, len(d.Regions))
	for _, a := range d.Attributes {
		fmt.Fprintf(w, "attribute %s=%s\n", a.Name, a.Value)
	}
	for _, f := range d.Families {
		fmt.Fprintf(w, "family %s:", f.Name)
		for _, a := range f.Attributes {
			fmt.Fprintf(w, " %s=%s", a.Name, a.Value)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REGION\tSTART\tEND\tSERVER\tREADS\tWRITES\tROWS")
	for i, r := range d.Regions {
		reads, writes, rows := "-", "-", "-"
		if r.Load != nil {
			reads, writes = strconv.FormatUint(r.Load.ReadRequests, 10), strconv.FormatUint(r.Load.WriteRequests, 10)
		}
		if r.Rows >= 0 {
			rows = strconv.FormatInt(r.Rows, 10)
		}
		server := r.Server
		if server == "" {
			server = "(unassigned)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, schema.QuoteKey(r.StartKey), schema.QuoteKey(r.EndKey), server, reads, writes, rows)
	}
	tw.Flush()
	if len(drift) == 0 {
		fmt.Fprintln(w, "drift: none")
		return
	}
	for _, s := range drift {
		fmt.Fprintf(w, "drift: %s\n", s)
	}
}
