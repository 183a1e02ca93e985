// Command quickstart is the README's quick start: a table of one's own,
// declared as a schema document over a Go struct, created pre-split with
// an index, written and queried through the index. It uses the HBase at
// $HBKIT_ZK (default 127.0.0.1:2181):
//
//	go run ./examples/quickstart
//
// The tables users and users_by_region stay behind; it can run again.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/hbkit/hbkit/hbase"
)

func main() {
	ctx := context.Background()
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	c, err := hbase.New(ctx, zk)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
	defer c.Close()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
