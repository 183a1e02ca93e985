// Command orders is hbkit's customer/order example, seed 004's design: one
// table holding customers, their orders and the orders' lines as record
// types under the row key [customer hash][customer id][type][order id]
// [line], so that a customer's whole history is one scan; an order with
// its shipping locations and line items is a Get and one short scan; and
// a secondary index (package index) finds the orders of a day.
//
// Usage:
//
//	go run ./examples/orders [--rows 20000] [--fake] [--keep]
//
// It uses the HBase at --zk (default $HBKIT_ZK, else 127.0.0.1:2181), or
// the in-memory fake with --fake. The tables customer_order and
// customer_order_by_date are recreated at the start and dropped at the end
// unless --keep is given. Every query's answer is checked against what
// was written.
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
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

// runMain parses args, connects and runs the example.
func runMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	def := DefaultConfig()
	zk := getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	fs := flag.NewFlagSet("orders", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := def
	fs.StringVar(&zk, "zk", zk, "ZooKeeper quorum of the HBase to use (default $HBKIT_ZK)")
	useFake := fs.Bool("fake", false, "run against the in-memory fake instead of HBase")
	fs.Int64Var(&cfg.Rows, "rows", def.Rows, "customer, order and line rows to generate")
	fs.IntVar(&cfg.Days, "days", def.Days, "days the sales are spread over, from 2025-01-01 UTC")
	fs.Uint64Var(&cfg.Seed, "seed", def.Seed, "seed of the generator")
	fs.IntVar(&cfg.Batch, "batch", def.Batch, "rows per batch write")
	fs.IntVar(&cfg.Concurrency, "concurrency", def.Concurrency, "batch writes in flight")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the tables at the end")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := cfg.validate(); err != nil {
		return err
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
	return Run(ctx, cfg, c, stdout)
}
