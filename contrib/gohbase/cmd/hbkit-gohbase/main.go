// Command hbkit-gohbase is hbkit's command line (table, index, simulate,
// regions, bench, version) over a gohbase client, through the adapter of
// package github.com/hbkit/hbkit/contrib/gohbase: the same commands,
// flags and output as cmd/hbkit, for teams that run gohbase.
//
// Usage:
//
//	hbkit-gohbase <command> [flags]
//
// Commands that talk to HBase find it as hbkit's do (--zk, else
// $HBKIT_ZK, else 127.0.0.1:2181) and open gohbase.NewClient and
// gohbase.NewAdminClient on that quorum. gohbase connects lazily and
// retries until a call's context ends, so the command first asks the
// master for hbase:meta, within HBKIT_GOHBASE_CONNECT_TIMEOUT: a wrong
// quorum fails there. The gohbase options a team tunes come from the
// environment:
//
//	HBKIT_GOHBASE_FLUSH_INTERVAL     gohbase.FlushInterval, a Go duration (gohbase's default 20ms)
//	HBKIT_GOHBASE_RPC_QUEUE_SIZE     gohbase.RpcQueueSize (gohbase's default 100)
//	HBKIT_GOHBASE_ZK_ROOT            gohbase.ZookeeperRoot (gohbase's default /hbase)
//	HBKIT_GOHBASE_CONNECT_TIMEOUT    bound of the first call, a Go duration (default 30s)
//
// gohbase's own log goes to stderr from level WARN. What gohbase cannot do
// (describe or truncate a table) fails with a
// *cli.UnsupportedError naming the call, before anything is changed;
// contrib/gohbase/README.md lists which commands and flags work.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/tsuna/gohbase"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/cli"
	hbgohbase "github.com/hbkit/hbkit/contrib/gohbase"
	"github.com/hbkit/hbkit/seeds/seedcli"
)

var (
	_ cli.Client  = (*hbgohbase.Client)(nil)
	_ cli.Limited = (*hbgohbase.Client)(nil)
	// regions and describe find request counts through it: a client
	// losing it would drop them (with a note on stderr).
	_ admin.RegionLoader = (*hbgohbase.Client)(nil)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := cli.Env{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		Connect: connector(os.Getenv, os.Stderr),
		Name:    "hbkit-gohbase", Over: gohbaseVersion(),
	}
	if err := seedcli.Register(&e); err != nil {
		fmt.Fprintln(os.Stderr, "hbkit-gohbase:", err)
		os.Exit(1)
	}
	os.Exit(cli.Main(ctx, e, os.Args[1:]))
}

// settings are the gohbase options read from the environment.
type settings struct {
	opts           []gohbase.Option
	connectTimeout time.Duration
}

// readSettings reads the HBKIT_GOHBASE_* variables.
func readSettings(getenv func(string) string) (settings, error) {
	s := settings{connectTimeout: 30 * time.Second}
	duration := func(name string, set func(time.Duration)) error {
		v := getenv(name)
		if v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q: want a positive Go duration such as 5ms", name, v)
		}
		set(d)
		return nil
	}
	err := errors.Join(
		duration("HBKIT_GOHBASE_FLUSH_INTERVAL", func(d time.Duration) { s.opts = append(s.opts, gohbase.FlushInterval(d)) }),
		duration("HBKIT_GOHBASE_CONNECT_TIMEOUT", func(d time.Duration) { s.connectTimeout = d }),
	)
	if v := getenv("HBKIT_GOHBASE_RPC_QUEUE_SIZE"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n <= 0 {
			err = errors.Join(err, fmt.Errorf("HBKIT_GOHBASE_RPC_QUEUE_SIZE=%q: want a positive integer", v))
		} else {
			s.opts = append(s.opts, gohbase.RpcQueueSize(n))
		}
	}
	if v := getenv("HBKIT_GOHBASE_ZK_ROOT"); v != "" {
		s.opts = append(s.opts, gohbase.ZookeeperRoot(v))
	}
	return s, err
}

// connector opens the adapter over a gohbase client and admin client on
// the quorum, with the options of getenv; gohbase logs to logw.
func connector(getenv func(string) string, logw io.Writer) cli.ConnectFunc {
	return func(ctx context.Context, zk string) (cli.Client, io.Closer, error) {
		s, err := readSettings(getenv)
		if err != nil {
			return nil, nil, err
		}
		opts := append(s.opts, gohbase.Logger(slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn}))))
		gc := gohbase.NewClient(zk, opts...)
		ac := gohbase.NewAdminClient(zk, opts...)
		cl := closer{gc}
		c, err := hbgohbase.New(gc, hbgohbase.WithAdminClient(ac))
		if err != nil {
			cl.Close()
			return nil, nil, err
		}
		pctx, cancel := context.WithTimeout(ctx, s.connectTimeout)
		defer cancel()
		if _, err := c.TableExists(pctx, "hbase:meta"); err != nil {
			cl.Close()
			return nil, nil, fmt.Errorf("gohbase: no answer from the HBase master within %v (HBKIT_GOHBASE_CONNECT_TIMEOUT): %w", s.connectTimeout, err)
		}
		return c, cl, nil
	}
}

// closer closes the gohbase data client, which the adapter does not own.
// gohbase's AdminClient has no Close (its concrete client's Close panics
// on an admin client, which has no done channel at cfe2cb9): its master
// connection ends with the process.
type closer struct{ data gohbase.Client }

func (c closer) Close() error {
	c.data.Close()
	return nil
}

// gohbaseVersion names the gohbase this binary is built with, for
// "hbkit-gohbase version".
func gohbaseVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gohbase"
	}
	for _, m := range bi.Deps {
		if m.Path != "github.com/tsuna/gohbase" {
			continue
		}
		switch r := m.Replace; {
		case r == nil:
			return "gohbase " + m.Version
		case r.Version == "" || r.Version == "(devel)": // a directory
			return "gohbase " + m.Version + " (built from " + r.Path + ")"
		default:
			return "gohbase " + r.Version
		}
	}
	return "gohbase"
}
