// Command sms is hbkit's SMS demo, the scenario of seed 000, and what
// `make demo` runs: it creates the pre-split SMS tables (sms, 20 regions;
// sms_index, 10 regions), loads a generated workload of messages with
// their index entries, runs the seed's queries (a mobile's latest
// messages, a mobile's messages in a window, an account's messages on a
// date, messages per day) and checks every answer against what it wrote,
// then prints how the rows spread over the regions next to what a naive
// timestamp-first key would have done, and the loading throughput.
//
// Usage:
//
//	go run ./examples/sms [flags]
//
// It talks to the HBase whose ZooKeeper quorum --zk names (default
// $HBKIT_ZK, else 127.0.0.1:2181); --fake runs it against the in-memory
// fake instead. The tables are dropped and recreated at the start, so
// reruns start clean, and dropped at the end unless --keep is given.
//
// The messages are generated data (package sim): the phone numbers look
// real but belong to no one.
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
	err := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stderr))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sms:", err)
		os.Exit(1)
	}
}

// options are the command line's settings besides the workload.
type options struct {
	zk     string
	fake   bool
	config Config
}

// parseFlags reads the command line. getenv supplies HBKIT_ZK.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	def := DefaultConfig()
	zk := getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	fs := flag.NewFlagSet("sms", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	c := &o.config
	*c = def
	fs.StringVar(&o.zk, "zk", zk, "ZooKeeper quorum of the HBase to use, host:port[,host:port…] (default $HBKIT_ZK)")
	fs.BoolVar(&o.fake, "fake", false, "run against the in-memory fake instead of HBase")
	fs.Int64Var(&c.Messages, "messages", def.Messages, "messages to generate and load")
	fs.IntVar(&c.Mobiles, "mobiles", def.Mobiles, "distinct mobiles the messages go to")
	fs.IntVar(&c.Accounts, "accounts", def.Accounts, "distinct sending accounts")
	fs.IntVar(&c.Days, "days", def.Days, "days the messages are spread over, from 2025-01-01 UTC")
	fs.Uint64Var(&c.Seed, "seed", def.Seed, "seed of the generator (the same seed gives the same messages)")
	fs.IntVar(&c.Batch, "batch", def.Batch, "messages per batch write")
	fs.IntVar(&c.Concurrency, "concurrency", def.Concurrency, "batch writes in flight")
	fs.IntVar(&c.Latest, "latest", def.Latest, "N of the query \"a mobile's latest N messages\"")
	fs.IntVar(&c.Rounds, "rounds", def.Rounds, "turns the loads with and without the index take, each a part of the messages")
	fs.BoolVar(&c.Keep, "keep", false, "keep the tables at the end (they are always recreated at the start)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, c.validate()
}

// runMain parses args, connects and runs the demo.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer, tty bool) error {
	o, err := parseFlags(args, os.Getenv, stderr)
	if err != nil {
		return err
	}
	o.config.Progress, o.config.TTY = stderr, tty
	var c Client
	if o.fake {
		f, err := fake.New()
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintln(stdout, "Using the in-memory fake HBase (--fake).")
		c = f
	} else {
		hc, err := nsclient.Dial(ctx, o.zk)
		if err != nil {
			return err
		}
		defer hc.Close()
		fmt.Fprintf(stdout, "Connected to HBase (ZooKeeper %s).\n", o.zk)
		c = hc
	}
	return Run(ctx, o.config, c, stdout)
}

// isTerminal reports whether f is a character device (a terminal), where
// the progress bar may redraw one line.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
