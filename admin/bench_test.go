package admin_test

import (
	"context"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase/fake"
)

func BenchmarkPlanTable(b *testing.B) {
	def := builtin(b, "sms")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := admin.PlanTable(def); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnsureTableUnchanged measures the check of an existing table
// (describe, regions, state and the comparison) against the fake, i.e.
// admin's own cost without the network.
func BenchmarkEnsureTableUnchanged(b *testing.B) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		b.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		b.Fatal(err)
	}
	def := builtin(b, "sms")
	if _, err := a.EnsureTable(ctx, def); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out, err := a.EnsureTable(ctx, def); err != nil || out != admin.Unchanged {
			b.Fatal(out, err)
		}
	}
}
