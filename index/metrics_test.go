package index_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// counterSum is the value of the counter name under table and mode in
// what reader collected, and whether the series exists.
func counterSum(t *testing.T, reader *sdkmetric.ManualReader, name, table string, mode index.Mode) (int64, bool) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	want := attribute.NewSet(index.AttrTable.String(table), index.AttrMode.String(mode.String()))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if sm.Scope.Name != "github.com/hbkit/hbkit/index" {
				t.Errorf("%s comes from scope %q", name, sm.Scope.Name)
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || !sum.IsMonotonic {
				t.Fatalf("%s is %T, want a monotonic int64 sum", name, m.Data)
			}
			for _, dp := range sum.DataPoints {
				if dp.Attributes.Equals(&want) {
					return dp.Value, true
				}
			}
		}
	}
	return 0, false
}

// TestCheckMetrics: each counter of Check, read through a ManualReader of
// the provider given to the store, adds what the run's Report counted,
// under the data table and the mode; a second run adds its own counts.
func TestCheckMetrics(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	msgs := foreignMessages(13)
	good, stale, orphan, missing := msgs[:10], msgs[10], msgs[11], msgs[12]
	var acts []hbase.Action
	for _, m := range good {
		acts = append(acts, foreignData(b, m), foreignEntry(b, m, m.Delivered))
	}
	acts = append(acts, foreignData(b, stale), foreignEntry(b, stale, !stale.Delivered),
		foreignEntry(b, orphan, orphan.Delivered), foreignData(b, missing))
	writeRaw(t, b.c, acts)

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s := b.sms(t, dao.WithMeterProvider(mp), dao.WithReadRepair(false))
	verify, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if verify.Missing == 0 || verify.Stale == 0 || verify.Orphaned == 0 {
		t.Fatalf("verify found %+v: the test needs every kind of divergence", verify)
	}
	repair, err := s.Check(ctx, index.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	if repair.Repaired == 0 {
		t.Fatalf("repair: %+v, want fixes written", repair)
	}
	again, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		field func(index.Report) int64
	}{
		{"hbkit.index.check.rows", func(r index.Report) int64 { return r.DataRows }},
		{"hbkit.index.check.entries", func(r index.Report) int64 { return r.Entries }},
		{"hbkit.index.check.missing", func(r index.Report) int64 { return r.Missing }},
		{"hbkit.index.check.orphaned", func(r index.Report) int64 { return r.Orphaned }},
		{"hbkit.index.check.stale", func(r index.Report) int64 { return r.Stale }},
		{"hbkit.index.check.repaired", func(r index.Report) int64 { return r.Repaired }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, run := range []struct {
				mode index.Mode
				want int64
			}{
				{index.ModeVerify, tc.field(verify) + tc.field(again)},
				{index.ModeRepair, tc.field(repair)},
			} {
				got, ok := counterSum(t, reader, tc.name, b.data, run.mode)
				if !ok || got != run.want {
					t.Errorf("%v: got %d (series %v), want %d", run.mode, got, ok, run.want)
				}
			}
		})
	}
}

// TestCheckMetricsGlobalProvider: without WithMeterProvider the counters
// come from the global provider; with it, never from the global one.
func TestCheckMetricsGlobalProvider(t *testing.T) {
	prev := otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	global := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(global)))
	b, _ := newFakeBackend(t)
	if err := b.sms(t).Put(context.Background(), msg(1, "acme", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.sms(t).Check(context.Background(), index.ModeVerify); err != nil {
		t.Fatal(err)
	}
	if got, ok := counterSum(t, global, "hbkit.index.check.rows", b.data, index.ModeVerify); !ok || got != 1 {
		t.Errorf("global provider: rows %d (series %v), want 1", got, ok)
	}
	own := sdkmetric.NewManualReader()
	s := b.sms(t, dao.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(own))))
	if _, err := s.Check(context.Background(), index.ModeRepair); err != nil {
		t.Fatal(err)
	}
	if _, ok := counterSum(t, global, "hbkit.index.check.rows", b.data, index.ModeRepair); ok {
		t.Error("a store with its own provider counted on the global one")
	}
	if got, ok := counterSum(t, own, "hbkit.index.check.rows", b.data, index.ModeRepair); !ok || got != 1 {
		t.Errorf("own provider: rows %d (series %v), want 1", got, ok)
	}
}

// TestWithMeterProviderNil: a nil provider is an invalid option.
func TestWithMeterProviderNil(t *testing.T) {
	b, _ := newFakeBackend(t)
	if _, err := seedstore.NewSMS(b.c, dao.WithTableNames(b.names()), dao.WithMeterProvider(nil)); err == nil {
		t.Fatal("WithMeterProvider(nil) accepted")
	}
}
