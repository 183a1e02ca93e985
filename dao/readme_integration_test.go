//go:build integration

package dao_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
)

// TestIntegrationREADME runs the README's code (usersDemo, ExampleNew on
// the fake) against HBase, in a namespace of its own, and expects the
// example's output.
func TestIntegrationREADME(t *testing.T) {
	c := itClient(t)
	ns := strings.ReplaceAll(itNames("readme"), "-", "_")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, name := range []string{ns + ":users", ns + ":users_by_region"} {
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
	if err := usersDemo(ctx, c, &out, dao.WithNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	want := `insert u1 again: exists = true
辽宁省, 20: u1 Ann
吉林省 by age: map[20:1 21:1]
dao: table "` + ns + `:users": invalid record: age: want 0 to 150
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
