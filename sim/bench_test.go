package sim_test

import (
	"context"
	"testing"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

// BenchmarkSimulate10M simulates 10 million SMS messages to the 20-region
// data table: generation, key encoding, region assignment, time slices
// and flush counting. Run it once:
//
//	go test -run='^$' -bench=Simulate10M -benchtime=1x ./sim/
func BenchmarkSimulate10M(b *testing.B) {
	b.ReportAllocs()
	src, err := seedsim.Builtin(seeds.SMSTableName, sim.Config{Records: 10_000_000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := sim.Simulate(context.Background(), src, sim.WithServers(3))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.Skew.MaxOverMean, "max/mean")
	}
}

// BenchmarkSimulateSplits1M adds split emulation (a region splits past 4
// MiB, about 17,000 messages) to a million SMS messages.
func BenchmarkSimulateSplits1M(b *testing.B) {
	b.ReportAllocs()
	src, err := seedsim.Builtin(seeds.SMSTableName, sim.Config{Records: 1_000_000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := sim.Simulate(context.Background(), src, sim.WithSplitSize(4<<20))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(r.Splits)), "splits")
	}
}
