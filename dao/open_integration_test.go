//go:build integration

package dao_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/internal/ittest"
)

// TestIntegrationOpenOwnSchemas runs the chat inbox and the orders with a
// moving status index (TestOpenOwnSchemas on the fake) against HBase:
// Open creates the tables pre-split under names of the test's own, and
// the output is the fake's.
func TestIntegrationOpenOwnSchemas(t *testing.T) {
	c := itClient(t)
	for _, tc := range []struct {
		name    string
		demo    func(context.Context, dao.Conn, io.Writer, ...dao.Option) error
		tables  []string
		regions int
		want    string
	}{
		{"inbox", inboxDemo, []string{"inbox", "inbox_by_sender_day"}, 8, inboxWant},
		{"orders", ordersDemo, []string{"orders", "orders_by_status"}, 4, ordersWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			names := map[string]string{}
			for _, tb := range tc.tables {
				names[tb] = itNames(tb)
				ittest.DropLater(t, names[tb])
			}
			var out strings.Builder
			if err := tc.demo(ctx, c, &out, dao.WithTableNames(names)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
			regions, err := c.TableRegions(ctx, names[tc.tables[0]])
			if err != nil {
				t.Fatal(err)
			}
			if len(regions) != tc.regions {
				t.Errorf("%s has %d regions, want %d", names[tc.tables[0]], len(regions), tc.regions)
			}
		})
	}
}
