package bench

import (
	"context"
	"errors"
	mrand "math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

// BenchmarkIndexedWriteCPU measures the client's side of indexedWrite
// (the SMS store in the schema's insert-only mode, PutBatch) against
// dualWrite (dualBatch: the same data rows and entries as plain puts in
// one Batch), on a data client that answers at once: the CPU and
// allocations each path costs per record before HBase sees it. Both write
// the same records, through the stores and functions the layer workloads
// use (newLayers), at 1 and 100 records per call. Calls of the two take
// turns, each sample being 100 records' worth; reported are the medians
// (ins-ns/record, dual-ns/record), their ratio dual/ins (indexedWrite's
// rate as a fraction of dualWrite's when the client's CPU is all that
// counts) and the allocations and heap bytes per record of each.
func BenchmarkIndexedWriteCPU(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			l, recs := cpuLayers(b, n)
			ctx := context.Background()
			ins := func() error {
				for lo := 0; lo < len(recs); lo += n {
					if _, err := l.ix.PutBatch(ctx, recs[lo:lo+n]); err != nil {
						return err
					}
				}
				return nil
			}
			dual := func() error {
				for lo := 0; lo < len(recs); lo += n {
					if err := l.dualBatch(ctx, recs[lo:lo+n]); err != nil {
						return err
					}
				}
				return nil
			}
			b.ReportAllocs()
			ti, td := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			timed := func(f func() error, into *[]time.Duration) {
				start := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				*into = append(*into, time.Since(start))
			}
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // take turns at going first
					timed(ins, &ti)
					timed(dual, &td)
				} else {
					timed(dual, &td)
					timed(ins, &ti)
				}
			}
			mi, md := medianDuration(ti), medianDuration(td)
			per := float64(len(recs))
			b.ReportMetric(float64(mi.Nanoseconds())/per, "ins-ns/record")
			b.ReportMetric(float64(md.Nanoseconds())/per, "dual-ns/record")
			if mi > 0 {
				b.ReportMetric(float64(md)/float64(mi), "dual/ins")
			}
			b.ReportMetric(testing.AllocsPerRun(20, func() { _ = ins() })/per, "ins-allocs/record")
			b.ReportMetric(testing.AllocsPerRun(20, func() { _ = dual() })/per, "dual-allocs/record")
			b.ReportMetric(bytesPerRun(20, ins)/per, "ins-B/record")
			b.ReportMetric(bytesPerRun(20, dual)/per, "dual-B/record")
		})
	}
}

// cpuLayers opens the layer workloads' stores over nopData (tables created
// in a fake, which only the admin side sees) for calls of n records, and
// returns them with 100 records of the workload (layers.record).
func cpuLayers(b *testing.B, n int) (*layers, []*seeds.SMS) {
	b.Helper()
	admin, err := fake.New()
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(nopData{}, admin, WithBatchSize(n), WithSeed(1), WithStart(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	if err != nil {
		b.Fatal(err)
	}
	l, err := r.newLayers(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	recs := make([]*seeds.SMS, 100)
	for i := range recs {
		recs[i] = l.record(rng, int64(i))
	}
	return l, recs
}

// bytesPerRun is testing.AllocsPerRun for bytes: the heap bytes one call
// of f allocates, averaged over runs calls.
func bytesPerRun(runs int, f func() error) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_ = f() // warm up, as AllocsPerRun does
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		_ = f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// nopData is a data client that answers every call at once, successfully
// and empty, as a server that costs nothing would: one result per action
// of a Batch, as the real client allocates them.
type nopData struct{}

var errNopScan = errors.New("nopData: no scans")

func (nopData) Get(context.Context, *hbase.Get) (*hbase.Result, error) { return &hbase.Result{}, nil }
func (nopData) Put(context.Context, *hbase.Put) error                  { return nil }
func (nopData) Delete(context.Context, *hbase.Delete) error            { return nil }
func (nopData) Increment(context.Context, *hbase.Increment) (*hbase.Result, error) {
	return &hbase.Result{}, nil
}
func (nopData) Append(context.Context, *hbase.Append) (*hbase.Result, error) {
	return &hbase.Result{}, nil
}
func (nopData) CheckAndMutate(context.Context, *hbase.CheckAndMutate) (bool, error) {
	return true, nil
}
func (nopData) MutateRow(context.Context, *hbase.RowMutations) error { return nil }
func (nopData) Scan(context.Context, *hbase.Scan) (hbase.Scanner, error) {
	return nil, errNopScan
}
func (nopData) Batch(_ context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	out := make([]hbase.BatchResult, len(acts))
	for i := range out {
		out[i] = hbase.BatchResult{Result: &hbase.Result{}, Processed: true}
	}
	return out, nil
}
