// Command hbkit is the command line of hbkit: tables from schemas, index
// verification and repair, region-distribution simulation and benchmarks.
//
// Usage:
//
//	hbkit <command> [flags]
//
// Run "hbkit help" for the list of commands. Commands that talk to HBase
// find it through --zk or the HBKIT_ZK environment variable
// (host:port[,host:port...]).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
)

// command is one hbkit subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// env is what a command may use of the process: its output streams and
// environment, so commands can be tested without a real process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// commands lists every subcommand. Each lives in its own file.
func commands() []command {
	return []command{
		{"version", "print the hbkit version", runVersion},
		{"table", "create, check, describe, truncate and drop tables from schemas", runTable},
		{"simulate", "predict how a key design spreads writes over regions and servers", runSimulate},
		{"regions", "measure rows and requests per region of a live table", runRegions},
		{"index", "verify, repair or rebuild index tables against their data table", runIndex},
		{"bench", "run PE's workloads (and dao/index writes) with the native client: rows/s and latency", runBench},
	}
}

const version = "0.1.0-dev"

// defaultQuorum is the local HBase that make hbase-up starts.
const defaultQuorum = "127.0.0.1:2181"

// zkFlag registers the --zk flag every command that talks to HBase takes.
func zkFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "zk", "", "ZooKeeper quorum `host:port[,...]` (default $HBKIT_ZK, else "+defaultQuorum+")")
}

// quorum resolves a --zk value: the flag, else $HBKIT_ZK, else the local
// HBase.
func (e *env) quorum(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if e.getenv != nil {
		if zk := e.getenv("HBKIT_ZK"); zk != "" {
			return zk
		}
	}
	return defaultQuorum
}

func runVersion(_ context.Context, e *env, _ []string) error {
	fmt.Fprintln(e.stdout, "hbkit", version)
	return nil
}

// errUsage marks a usage error: exit status 2, no extra message.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(run(ctx, e, os.Args[1:]))
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errUsage), errors.Is(err, flag.ErrHelp):
			return 2
		default:
			fmt.Fprintf(e.stderr, "hbkit %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "hbkit: unknown command %q\n", args[0])
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hbkit <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
}

// connectFunc opens a client, as C, through the ZooKeeper quorum zk; the
// Closer closes it. Commands take one so that tests can pass the fake.
type connectFunc[C any] func(ctx context.Context, zk string) (C, io.Closer, error)

// connect opens the native client as C, the interface a command works
// through; the returned Closer closes it. The assertions below keep every
// C a command uses one that *hbase.Client implements.
func connect[C any](ctx context.Context, zk string) (C, io.Closer, error) {
	c, err := hbase.New(ctx, zk)
	if err != nil {
		var none C
		return none, nil, err
	}
	return any(c).(C), c, nil
}

var (
	_ admin.Client = (*hbase.Client)(nil)
	_ dao.Client   = (*hbase.Client)(nil)
	_ benchClient  = (*hbase.Client)(nil)
	_ regionsAdmin = (*hbase.Client)(nil)
	// Used through type assertions (table describe --rows, regions): a
	// client losing them would drop those features silently.
	_ admin.RegionLoader = (*hbase.Client)(nil)
	_ admin.RowScanner   = (*hbase.Client)(nil)
	_ rowScanner         = (*hbase.Client)(nil)
)
