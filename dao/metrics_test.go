package dao_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

// TestCheckMetricsOwnSchema: the check counters of a store given
// WithMeterProvider, on a schema of the test's own (parcels keyed by an
// md5 of their id, indexed by a color that moves), add what the run's
// Report counted: rows, entries and one orphan left by a data row
// deleted behind the store's back.
func TestCheckMetricsOwnSchema(t *testing.T) {
	ctx := context.Background()
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	reader := sdkmetric.NewManualReader()
	r, err := dao.New(f, tbl, dao.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
		dao.WithGracePeriod(time.Nanosecond), dao.WithAsyncVerify(false))
	if err != nil {
		t.Fatal(err)
	}
	parcels := make([]*Parcel, 6)
	for i := range parcels {
		parcels[i] = &Parcel{ID: fmt.Sprintf("p%d", i), Color: "red", Qty: int64(i)}
		if err := r.Put(ctx, parcels[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range parcels[:2] { // the indexed color moves
		p.Color = "blue"
		if err := r.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := tbl.Key().Append(nil, parcels[5])
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, &hbase.Delete{Table: "parcels", Row: gone}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // the orphan is older than the grace period
	rep, err := r.Check(ctx, dao.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.DataRows != 5 || rep.Entries != 6 || rep.Orphaned != 1 || rep.Missing != 0 || rep.Stale != 0 {
		t.Fatalf("verify: %+v, want 5 rows, 6 entries, 1 orphan", rep)
	}
	for name, want := range map[string]int64{
		"hbkit.index.check.rows": rep.DataRows, "hbkit.index.check.entries": rep.Entries,
		"hbkit.index.check.orphaned": rep.Orphaned, "hbkit.index.check.missing": 0,
	} {
		if got := checkCounter(t, reader, name); got != want {
			t.Errorf("%s = %d, want %d (the report's)", name, got, want)
		}
	}
}

// checkCounter is the value of the verify counter name of the parcels
// table (0 when it has no point).
func checkCounter(t *testing.T, reader *sdkmetric.ManualReader, name string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	want := attribute.NewSet(attribute.String("hbkit.table", "parcels"), attribute.String("hbkit.index.mode", dao.ModeVerify.String()))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != name || !ok {
				continue
			}
			for _, dp := range sum.DataPoints {
				if dp.Attributes.Equals(&want) {
					return dp.Value
				}
			}
		}
	}
	return 0
}
