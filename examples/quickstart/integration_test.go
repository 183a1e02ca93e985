//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/internal/ittest"
)

func TestMain(m *testing.M) { os.Exit(ittest.Main(m)) }

// TestIntegrationQuickStart runs the README's quick start (run, Example
// on the fake) against the HBase at HBKIT_ZK, under table names of its
// own, and expects the example's output; it then checks the tables were
// created pre-split.
func TestIntegrationQuickStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := ittest.Connect(t)
	suffix := fmt.Sprintf("_qs%d", time.Now().UnixNano())
	data, index := "users"+suffix, "users_by_region"+suffix
	ittest.DropLater(t, data, index)
	var out strings.Builder
	err := run(ctx, c, &out, dao.WithTableNames(map[string]string{"users": data, "users_by_region": index}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "insert u1 again: true\n吉林省: u2 Bo 21\n"; out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	regions, err := c.TableRegions(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 16 {
		t.Errorf("%s has %d regions, want 16", data, len(regions))
	}
}
