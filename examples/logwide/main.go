// Command logwide is hbkit's wide-row example, seed 004's "Log Data /
// Timeseries on Steroids" (OpenTSDB's approach): log events stored one
// column per event in one row per [host][event type][five minutes]
// (seeds.LogDataWide), with hosts and event types replaced by the ids of
// the LOG_TYPES table (seeds.LogTypes, dao.UIDs).
//
// Usage:
//
//	go run ./examples/logwide [--events 20000] [--fake] [--keep] [--namespace NS]
//
// It uses the HBase at --zk (default $HBKIT_ZK, else 127.0.0.1:2181), or
// the in-memory fake with --fake. The tables log_types and log_data_wide
// are recreated at the start and dropped at the end unless --keep is
// given; with --namespace they live in namespace NS, created if missing
// and dropped with its tables at the end. Every answer is checked against
// what was written.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hbkit/hbkit/examples/internal/nsclient"
	"github.com/hbkit/hbkit/hbase/fake"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runMain(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "logwide:", err)
		os.Exit(1)
	}
}

func runMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	zk := getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	fs := flag.NewFlagSet("logwide", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := DefaultConfig()
	fs.StringVar(&zk, "zk", zk, "ZooKeeper quorum of the HBase to use (default $HBKIT_ZK)")
	useFake := fs.Bool("fake", false, "run against the in-memory fake instead of HBase")
	fs.IntVar(&cfg.Events, "events", cfg.Events, "log events to generate")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the generator")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the tables at the end")
	ns := fs.String("namespace", "", "run in this namespace (created, then dropped with its tables unless --keep)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var c Client
	if *useFake {
		f, err := fake.New()
		if err != nil {
			return err
		}
		defer f.Close()
		c = f
	} else {
		hc, err := nsclient.Dial(ctx, zk)
		if err != nil {
			return err
		}
		defer hc.Close()
		c = hc
	}
	if *ns != "" {
		nc, cleanup, err := nsclient.Setup(ctx, c, *ns)
		if err != nil {
			return fmt.Errorf("namespace %s: %w", *ns, err)
		}
		if err := Run(ctx, cfg, nc, stdout); err != nil {
			return err
		}
		if cfg.Keep {
			return nil
		}
		return cleanup(ctx)
	}
	return Run(ctx, cfg, c, stdout)
}
