package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/buildinfo"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/sim"
)

// Client is what the commands use of HBase: hbkit's data and admin calls.
// hbkit's native client (*hbase.Client) makes them all. Another client may
// refuse some, as the gohbase adapter refuses DescribeTable and
// TruncateTable; it should then say so up front (see Limited).
type Client interface {
	hbase.DataClient
	hbase.AdminClient
}

// ConnectFunc opens a Client through the ZooKeeper quorum zk
// (host:port[,host:port...]); the Closer closes it.
type ConnectFunc func(ctx context.Context, zk string) (Client, io.Closer, error)

// Env is what the commands may use of the process and of HBase, so that
// they run the same in hbkit, in another binary over another client, and
// in tests.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string // nil: an empty environment
	// Connect opens the client of the commands that talk to HBase; nil
	// makes them fail.
	Connect ConnectFunc
	// ConnectSecure, when set, is used instead of Connect and receives
	// the --principal, --keytab, --tls-ca ... flags (security.go);
	// without it those flags are refused with ErrSecurityUnsupported.
	ConnectSecure SecureConnectFunc
	// Name is the program's name in the usage text and in error
	// messages; empty means "hbkit".
	Name string
	// Over names the HBase client when it is not hbkit's native one (for
	// example "gohbase v0.0.0-..."): "version" prints it and bench's help
	// names it.
	Over string
	// Schemas are a team's own schemas, by the name --schema gives them
	// (table, get, scan; "default:NAME" finds NAME too); they are looked
	// up before files. cmd/hbkit registers the seeds' here
	// (seeds/seedcli), as any team registers its own.
	Schemas map[string]schema.Definition
	// Workloads generate the writes to a table, by the name --schema
	// gives it (simulate; regions --compare-schema).
	Workloads map[string]func(cfg sim.Config) (sim.Source, error)

	security *Security // the flags of connectFlags, once registered
}

func (e *Env) name() string {
	if e.Name == "" {
		return "hbkit"
	}
	return e.Name
}

// clientName names the client in help texts.
func (e *Env) clientName() string {
	if e.Over == "" {
		return "hbkit's native client"
	}
	return e.Over
}

// commands lists every command, each made by a constructor in its own
// file (see command). completion is added last, over all of them.
func commands(e *Env) []command {
	return []command{
		versionCommand(e),
		tableCommand(e, connectAs(e, func(c Client) admin.Client { return c })),
		simulateCommand(e),
		regionsCommand(e, connectAs(e, func(c Client) regionsAdmin { return c })),
		indexCommand(e, connectAs(e, func(c Client) dao.Client { return c })),
		jobCommand(e, connectAs(e, func(c Client) jobClient { return c }), jobs.NewTask),
		viewCommand(e, "get", connectAs(e, func(c Client) viewClient { return c })),
		viewCommand(e, "scan", connectAs(e, func(c Client) viewClient { return c })),
		countCommand(e, connectAs(e, func(c Client) rowScanner { return c })),
		benchCommand(e, connectAs(e, func(c Client) Client { return c })),
	}
}

// version is hbkit's version as the build records it (internal/buildinfo):
// the module version a binary was built from, not a constant to bump.
var version = buildinfo.Version()

// defaultQuorum is the local HBase that make hbase-up starts.
const defaultQuorum = "127.0.0.1:2181"

// zkFlag registers the --zk flag every command that talks to HBase takes.
func zkFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "zk", "", "ZooKeeper quorum `host:port[,...]` (default $HBKIT_ZK, else "+defaultQuorum+")")
}

// quorum resolves a --zk value: the flag, else $HBKIT_ZK, else the local
// HBase.
func (e *Env) quorum(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if e.Getenv != nil {
		if zk := e.Getenv("HBKIT_ZK"); zk != "" {
			return zk
		}
	}
	return defaultQuorum
}

const versionUsage = `usage: hbkit version

Prints hbkit's version, as the build records it (the module version the
binary was built from), and the HBase client it runs over when that is not
hbkit's native one; with --json, the same as a JSON object.

Flags:
`

type versionFlags struct{ json bool }

func versionCommand(e *Env) command {
	return command{name: "version", summary: "print the hbkit version", usage: text(versionUsage),
		bind: func() (*flag.FlagSet, runFunc) {
			var f versionFlags
			fs := flag.NewFlagSet("hbkit version", flag.ContinueOnError)
			fs.BoolVar(&f.json, "json", false, `print {"name", "version", "over"} as JSON`)
			return fs, func(_ context.Context, args []string) error { return e.version(f, args) }
		}}
}

// versionReport is the JSON output of hbkit version.
type versionReport struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Over    string `json:"over,omitempty"` // the HBase client, when not hbkit's native one
}

func (e *Env) version(f versionFlags, args []string) error {
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s version: unexpected argument %q\n", e.name(), args[0])
		return ErrUsage
	}
	if f.json {
		return json.NewEncoder(e.Stdout).Encode(versionReport{Name: e.name(), Version: version, Over: e.Over})
	}
	if e.Over != "" {
		fmt.Fprintln(e.Stdout, e.name(), version, "over", e.Over)
		return nil
	}
	fmt.Fprintln(e.Stdout, e.name(), version)
	return nil
}

// ErrUsage marks a usage error, already explained on Stderr: exit status
// 2, no extra message.
var ErrUsage = errors.New("usage")

// Main runs the command args names (the process's arguments after the
// program name) and returns the exit status: 0, 1 when the command failed
// (the error is printed on Stderr), 2 for a usage error.
//
// Help asked for (hbkit help CMD, hbkit CMD --help, hbkit CMD SUB -h) is
// not an error: the command's help goes to Stdout, and the status is 0.
func Main(ctx context.Context, e Env, args []string) int {
	err := execute(ctx, &e, args, e.Stdout)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	default:
		fmt.Fprintf(e.Stderr, "%s %s: %v\n", e.name(), args[0], err)
		return 1
	}
}

// Run runs the command args names and returns its error, unprinted: nil,
// ErrUsage or flag.ErrHelp for a usage error (explained on Stderr; a
// command's help asked for goes there too), ErrDiverged when index verify
// finds divergences, an *UnsupportedError when the client cannot serve the
// command, or the command's failure.
func Run(ctx context.Context, e Env, args []string) error {
	return execute(ctx, &e, args, e.Stderr)
}

// runOne runs the one command c with args (its flags and arguments): the
// commands' tests run them so, over a client of their own.
func runOne(ctx context.Context, e *Env, c command, args []string) error {
	t := &tree{e: e, help: e.Stderr, names: map[string]bool{}}
	cc := t.build(c, c.name)
	cc.SetArgs(t.longFlags(args))
	cc.SetOut(e.Stdout)
	cc.SetErr(e.Stderr)
	err := cc.ExecuteContext(ctx)
	if err == nil && t.helped {
		return flag.ErrHelp
	}
	return err
}

func usage(w io.Writer, e *Env) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", e.name())
	for _, c := range commands(e) {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "completion", completionSummary)
	fmt.Fprintf(w, "\nRun \"%s <command> --help\" (or \"%s help <command>\") for a command's flags.\n", e.name(), e.name())
}

// connectFunc opens a client, as C, through the ZooKeeper quorum zk; the
// Closer closes it. Commands take one so that tests can pass a fake, or a
// client that lacks a call.
type connectFunc[C any] func(ctx context.Context, zk string) (C, io.Closer, error)

// connectAs returns e.Connect as a connectFunc of C, the interface a
// command works through; as is the conversion, which the compiler checks.
func connectAs[C any](e *Env, as func(Client) C) connectFunc[C] {
	return func(ctx context.Context, zk string) (C, io.Closer, error) {
		var none C
		c, closer, err := e.connect(ctx, zk)
		if err != nil {
			return none, nil, err
		}
		return as(c), closer, nil
	}
}

// dial connects through connect to the quorum of the --zk flag zkFlag (or
// the environment's, Env.quorum), naming the quorum in the error.
func dial[C any](ctx context.Context, e *Env, connect connectFunc[C], zkFlag string) (C, io.Closer, error) {
	zk := e.quorum(zkFlag)
	c, closer, err := connect(ctx, zk)
	if err != nil {
		return c, nil, fmt.Errorf("connect to HBase via ZooKeeper %s: %w", zk, err)
	}
	return c, closer, nil
}

// NativeEnv returns the Env of the hbkit binary: output to stdout and
// stderr, the environment read with getenv (os.Getenv when nil), and
// hbkit's native client, secured by the --principal, --tls-ca ... flags
// (or their HBKIT_* variables). A team's own binary sets more fields
// (Name, Schemas) on it before calling Main.
func NativeEnv(stdout, stderr io.Writer, getenv func(string) string) Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	return Env{Stdout: stdout, Stderr: stderr, Getenv: getenv,
		Connect: ConnectNativeEnv(getenv), ConnectSecure: ConnectNativeSecure(getenv)}
}

// ConnectNative opens hbkit's native client (hbase.New): the ConnectFunc
// of cmd/hbkit.
func ConnectNative(ctx context.Context, zk string) (Client, io.Closer, error) {
	c, err := hbase.New(ctx, zk)
	if err != nil {
		return nil, nil, err
	}
	return c, c, nil
}

var (
	_ Client = (*hbase.Client)(nil)
	// Used through a type assertion (table describe, regions): a native
	// client losing it would drop request counts.
	_ admin.RegionLoader = (*hbase.Client)(nil)
)

// Limited is implemented by a client that knows, before sending anything,
// which calls it refuses whatever their arguments, as the gohbase adapter
// does. Commands ask it first, so that a job the client cannot finish
// fails before it starts: table truncate would otherwise disable the
// table, then fail.
type Limited interface {
	// Unsupported returns the error that the client's method named
	// method (as in hbase.DataClient and hbase.AdminClient:
	// "DescribeTable", "TruncateTable", ...) returns whatever its
	// arguments, wrapping errors.ErrUnsupported; nil when the client makes
	// the call.
	Unsupported(method string) error
}

// UnsupportedError reports a command, or a part of one, that the client
// cannot serve: it lacks a call the command needs, or refuses it whatever
// the arguments (see Limited). It is returned before the command sends
// anything that depends on the call. errors.Is(err,
// errors.ErrUnsupported) holds, and the client's own error (the gohbase
// adapter's *UnsupportedError) is wrapped.
type UnsupportedError struct {
	Command string // "table truncate", "regions", ...
	Call    string // the call the client cannot make: "TruncateTable", "Scan", ...
	Need    string // what the command needs the call for; may be empty
	Err     error  // the client's refusal; errors.ErrUnsupported when it lacks the method
}

func (e *UnsupportedError) Error() string {
	s := e.Command + " needs " + e.Call
	if e.Need != "" {
		s += " " + e.Need
	}
	return s + ", which this client cannot do: " + e.Err.Error()
}

func (e *UnsupportedError) Unwrap() error { return e.Err }

// refused returns an *UnsupportedError when c is Limited and refuses
// method, else nil.
func refused(c any, command, method, need string) *UnsupportedError {
	l, ok := c.(Limited)
	if !ok {
		return nil
	}
	if err := l.Unsupported(method); err != nil {
		return &UnsupportedError{Command: command, Call: method, Need: need, Err: err}
	}
	return nil
}

// registered returns m's entry for name, also when name is the full
// "default:NAME" form of a registered NAME.
func registered[V any](m map[string]V, name string) (V, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	bare, ok := strings.CutPrefix(name, "default:")
	if !ok {
		var none V
		return none, false
	}
	v, ok := m[bare]
	return v, ok
}

// printNames prints names one per line, or as a JSON array.
func (e *Env) printNames(names []string, asJSON bool) error {
	if asJSON {
		if names == nil {
			names = []string{}
		}
		return json.NewEncoder(e.Stdout).Encode(names)
	}
	for _, n := range names {
		if _, err := fmt.Fprintln(e.Stdout, n); err != nil {
			return err
		}
	}
	return nil
}

// registeredNames returns the names m registers, sorted.
func registeredNames[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
