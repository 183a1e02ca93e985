package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/fake"
)

// TestRunAgain: the quick start runs again on the tables it left behind
// (go run twice) and prints the same.
func TestRunAgain(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var first, second strings.Builder
	if err := run(context.Background(), c, &first); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), c, &second); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if first.String() != second.String() {
		t.Errorf("second run printed\n%s\nfirst\n%s", second.String(), first.String())
	}
}
