package admin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/schema"
)

// Issue 33 item 9: a table EnsureTables could not ensure (here: it drifted)
// prints as failed, not Outcome(0), and its error says what to do.
func TestDriftOutcomeNamesTheFix(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	a := newAdmin(t, c)
	if err := a.Create(ctx, table(t, "sensors", []schema.Family{{Name: "d"}})); err != nil {
		t.Fatal(err)
	}
	res, err := a.EnsureTables(ctx, table(t, "sensors", []schema.Family{{Name: "d"}, {Name: "e"}}))
	if !errors.Is(err, admin.ErrDrift) || len(res) != 1 || res[0].Err == nil {
		t.Fatalf("EnsureTables = %+v, %v; want a drift", res, err)
	}
	if got := fmt.Sprint(res[0].Outcome); got != "failed" {
		t.Errorf("outcome of a drifted table prints %q, want failed", got)
	}
	for _, want := range []string{`family "e"`, "never alters", "alter the table", "change the schema"} {
		if !strings.Contains(res[0].Err.Error(), want) {
			t.Errorf("drift error %q does not say %q", res[0].Err, want)
		}
	}
}
