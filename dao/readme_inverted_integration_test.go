//go:build integration

package dao_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
)

// TestIntegrationREADMEInverted runs the README's seed 001 section
// (seed001Demo, Example_invertedIndex on the fake) against HBase, in a
// namespace of its own, and expects the example's output.
func TestIntegrationREADMEInverted(t *testing.T) {
	c := itClient(t)
	ns := strings.ReplaceAll(itNames("readme_inv"), "-", "_")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, name := range []string{ns + ":" + seeds.TestTableName, ns + ":" + seeds.TestTableIndexName} {
			_ = c.DisableTable(ctx, name)
			if err := c.DeleteTable(ctx, name); err != nil {
				t.Logf("DeleteTable(%s): %v", name, err)
			}
		}
		if err := c.DeleteNamespace(ctx, ns); err != nil {
			t.Logf("DeleteNamespace(%s): %v", ns, err)
		}
	})
	var out strings.Builder
	if err := seed001Demo(ctx, c, &out, dao.WithNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	want := `written: 辽宁省_20 counts 3: 10001 10002 10003
moved and deleted: 辽宁省_20 counts 1: 10001
辽宁省_21: 10002 辽宁省 21 m
辽宁省_21: 10004 辽宁省 21 m
verify: 4 rows, 4 entries, 0 missing, 0 orphaned, 0 stale
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
