package index_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// BenchmarkPut measures indexed puts against plain puts of the same
// records into a table without index, in one run, and reports the ratio
// of their throughputs (goal: indexed/plain >= 0.7 for batches). It also
// reports the floor: the ratio for writing each record's data row and
// index entry with no protocol at all (one Batch of unconditional Puts,
// into a second pair of tables), the bound any protocol stays under.
func BenchmarkPut(b *testing.B) {
	be, c := newFakeBackend(b)
	if err := createSMSTables(context.Background(), c, "sms_plain", "sms_plain_index"); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) { benchPut(b, be, "sms_plain", "sms_plain_index", n) })
	}
}

// BenchmarkQuery measures the seed queries over an account with 200
// messages a day.
func BenchmarkQuery(b *testing.B) {
	be, _ := newFakeBackend(b)
	benchQuery(b, be)
}

var benchSeq int

func benchRecords(n int) []*seeds.SMS {
	out := make([]*seeds.SMS, n)
	for i := range out {
		benchSeq++
		out[i] = msg(benchSeq, fmt.Sprintf("bench-%d", benchSeq%50), time.Duration(benchSeq%86400)*time.Second)
	}
	return out
}

// asPut is the unconditional Put of a schema row.
func asPut(table string, row *schema.Row) *hbase.Put {
	return &hbase.Put{Table: table, Row: row.Key, Values: row.Values()}
}

// benchRound is the number of calls each variant makes in a row: the
// indexed calls' background verifications overlap their next call, as in
// a steady stream of writes, and the round ends with a Flush, so that none
// of that work spills into the other variants' time.
const benchRound = 10

func benchPut(b *testing.B, be backend, plainTable, plainIndex string, batch int) {
	ctx := context.Background()
	s := be.sms(b)
	st := s.Table()
	ix := st.Indexes()[0]
	var plain, indexed, floor time.Duration
	var recs int
	encode := func(rs []*seeds.SMS, withEntries bool) []hbase.Action {
		var acts []hbase.Action
		for _, r := range rs {
			var row, entry schema.Row
			if err := st.EncodeRow(&row, r); err != nil {
				b.Fatal(err)
			}
			if withEntries {
				if err := ix.EncodeEntry(&entry, r); err != nil {
					b.Fatal(err)
				}
				acts = append(acts, asPut(plainIndex, &entry))
			}
			acts = append(acts, asPut(plainTable, &row))
		}
		return acts
	}
	timed := func(sum *time.Duration, f func()) {
		start := time.Now()
		f()
		*sum += time.Since(start)
	}
	b.ReportAllocs()
	for b.Loop() {
		timed(&plain, func() {
			for range benchRound {
				if _, err := be.c.Batch(ctx, encode(benchRecords(batch), false)); err != nil {
					b.Fatal(err)
				}
			}
		})
		timed(&indexed, func() {
			for range benchRound {
				if _, err := s.PutBatch(ctx, benchRecords(batch)); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		})
		timed(&floor, func() {
			for range benchRound {
				if _, err := be.c.Batch(ctx, encode(benchRecords(batch), true)); err != nil {
					b.Fatal(err)
				}
			}
		})
		recs += batch * benchRound
	}
	if recs > 0 && plain > 0 && indexed > 0 && floor > 0 {
		b.ReportMetric(float64(recs)/plain.Seconds(), "plain-rec/s")
		b.ReportMetric(float64(recs)/indexed.Seconds(), "indexed-rec/s")
		b.ReportMetric(plain.Seconds()/indexed.Seconds(), "indexed/plain")
		b.ReportMetric(plain.Seconds()/floor.Seconds(), "floor/plain")
	}
}

func benchQuery(b *testing.B, be backend) {
	ctx := context.Background()
	s := be.sms(b)
	var rs []*seeds.SMS
	for i := range 200 {
		rs = append(rs, msg(500000+i, "query-bench", time.Duration(i)*time.Minute))
	}
	if _, err := s.PutBatch(ctx, rs); err != nil {
		b.Fatal(err)
	}
	b.Run("MessagesOfAccountOnDate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := s.MessagesOfAccountOnDate(ctx, "query-bench", day0)
			if err != nil || len(got) != 200 {
				b.Fatalf("%d messages, %v", len(got), err)
			}
		}
	})
	b.Run("CountPerDay/7days", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := s.CountPerDay(ctx, "query-bench", day0.AddDate(0, 0, -6), day0)
			if err != nil || got[6].Count != 200 {
				b.Fatalf("%v, %v", got, err)
			}
		}
	})
}
