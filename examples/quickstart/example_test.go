package main

import (
	"context"
	"os"

	"github.com/hbkit/hbkit/hbase/fake"
)

// The quick start on the in-memory fake: unit tests of code written this
// way need no HBase.
func Example() {
	c, err := fake.New()
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := run(context.Background(), c, os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// insert u1 again: true
	// 吉林省: u2 Bo 21
}
