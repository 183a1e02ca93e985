//go:build integration

package index_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// The fault tests of the write modes (modes_test.go, modes_fault_test.go)
// on a real HBase:
//
//	HBKIT_ZK=127.0.0.1:2181 go test -race -tags integration -run 'Modes|Concurrent' -v ./index/
//
// Each test creates one run-unique pair of SMS tables per mode, all at
// once, and drops them at the end.

// itModeBackends creates a pair of tables per write mode and hands out
// the mode's pair to every case of the test (see modeBackends).
func itModeBackends(t *testing.T) modeBackends {
	t.Helper()
	return itModeBackendsOn(t, itConnect(t))
}

// itModeBackendsOn is itModeBackends through the client c.
func itModeBackendsOn(t testing.TB, c *hbase.Client) modeBackends {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bs := make(map[schema.WriteMode]backend, len(modeCases))
	errs := make([]error, len(modeCases))
	var wg sync.WaitGroup
	for i, mc := range modeCases {
		run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(itSeq.Add(1), 10)
		b := backend{c: c, data: "hbkit_it_sms_" + run, index: "hbkit_it_sms_index_" + run}
		itDropLater(t, b.data, b.index)
		bs[mc.mode] = b
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = createSMSTables(ctx, c, b.data, b.index)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create the tables of %v: %v", modeCases[i].mode, err)
		}
	}
	return func(_ testing.TB, mode schema.WriteMode) backend { return bs[mode] }
}

func TestIntegrationModesAgreeWithTheData(t *testing.T) {
	testModesAgreeWithTheData(t, itModeBackends(t))
}

func TestIntegrationModesSurviveAKillBetweenWrites(t *testing.T) {
	testModesSurviveAKillBetweenWrites(t, itModeBackends(t))
}

func TestIntegrationModesSurvivePartialBatches(t *testing.T) {
	testModesSurvivePartialBatches(t, itModeBackends(t))
}

func TestIntegrationModesInsertRefusesAForeignRow(t *testing.T) {
	testInsertRefusesAForeignRow(t, itModeBackends(t))
}

func TestIntegrationModesConcurrentWriters(t *testing.T) {
	testModesConcurrentWriters(t, itModeBackends(t), 4, 50)
}

func TestIntegrationModesConcurrentInserts(t *testing.T) {
	testModesConcurrentInserts(t, itModeBackends(t), 8, 4)
}

func TestIntegrationModesTiedWriters(t *testing.T) {
	testModesTiedWriters(t, itModeBackends(t))
}

func TestIntegrationModesRefusedInsertLeavesTheIndex(t *testing.T) {
	testModesRefusedInsertLeavesTheIndex(t, itModeBackends(t))
}

func TestIntegrationMutableOvertakenWriteWithdrawsItsEntry(t *testing.T) {
	testMutableOvertakenWriteWithdrawsItsEntry(t, itModeBackends(t))
}

// BenchmarkIntegrationCountModes times an index-only count of one
// account's messages on a day (CountPerDay) in each mode, over 2,000
// messages of which, in the modes whose records may be rewritten, every
// fourth then moved to another account. The strict and mutable modes
// count verified entries as they are; insert-only likewise; verify-on-read
// Gets every entry's data row, the 500 its moves left behind too (Count
// does not repair). ns/entry is the time per message counted:
//
//	HBKIT_ZK=127.0.0.1:2181 go test -tags integration -run XXX -bench IntegrationCountModes ./index/
func BenchmarkIntegrationCountModes(b *testing.B) {
	ctx := context.Background()
	backends := itModeBackendsOn(b, itConnect(b))
	for _, mc := range modeCases {
		b.Run(mc.mode.String(), func(b *testing.B) {
			s := backends(b, mc.mode).sms(b, dao.WithWriteMode(mc.mode))
			var recs, moved []*seeds.SMS
			for n := range 2000 {
				m := msg(n, "acme", time.Duration(n)*time.Second)
				recs = append(recs, m)
				if mc.rewrite && n%4 == 0 {
					mv := *m
					mv.Account = "bank"
					moved = append(moved, &mv)
				}
			}
			for _, part := range [][]*seeds.SMS{recs, moved} {
				if _, err := s.PutBatch(ctx, part); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			want := int64(len(recs) - len(moved))
			for b.Loop() {
				days, err := s.CountPerDay(ctx, "acme", day0, day0)
				if err != nil {
					b.Fatal(err)
				}
				if days[0].Count != want {
					b.Fatalf("CountPerDay = %d, want %d", days[0].Count, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(want), "ns/entry")
		})
	}
}
