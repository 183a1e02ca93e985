package dao_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The overhead benchmarks run the same work twice per iteration, once by
// hand with raw client calls (keys built with package keys, cells mapped
// by hand, exactly what code without dao would write) and once through a
// Repo, time each half, and report dao/raw: the repository's overhead as a
// ratio, measured in one run against one client. Against the fake the
// client is nearly free, so the ratio shows dao's CPU cost at its most
// visible; the integration benchmarks run the same functions against a
// real HBase.

func BenchmarkOverheadFake(b *testing.B) {
	f := newFake(b)
	r := newPlainSMS(b, f, f)
	runOverhead(b, f, r)
}

// runOverhead runs the Put, Get and Scan overhead benchmarks on c, whose
// SMS table r writes to: the SMS data table declared without its index,
// so that both sides write the same single row per record (the indexed
// store's cost is measured by bench's indexedWrite against plainWrite).
func runOverhead(b *testing.B, c hbase.DataClient, r *dao.Repo[seeds.SMS]) {
	ctx := context.Background()
	table := r.Name()
	rawRec := msg("13800000001", t0.Add(-time.Hour), 1)
	daoRec := msg("13800000002", t0.Add(-time.Hour), 1)
	b.Run("Put", func(b *testing.B) {
		// Rotate over 1024 rows each: the fake keeps every version it is
		// given, and a growing table would favour whichever side's rows
		// sort last.
		var buf []byte
		rawM, daoM := *rawRec, *daoRec
		i, j := 0, 0
		overhead(b,
			func() error {
				i++
				rawM.SentAt = rawRec.SentAt.Add(time.Duration(i%1024) * time.Millisecond)
				return rawPut(ctx, c, table, &rawM, &buf)
			},
			func() error {
				j++
				daoM.SentAt = daoRec.SentAt.Add(time.Duration(j%1024) * time.Millisecond)
				return r.Put(ctx, &daoM)
			})
	})
	b.Run("Get", func(b *testing.B) {
		var buf []byte
		if err := rawPut(ctx, c, table, rawRec, &buf); err != nil {
			b.Fatal(err)
		}
		if err := r.Put(ctx, daoRec); err != nil {
			b.Fatal(err)
		}
		key := &seeds.SMS{Mobile: daoRec.Mobile, SentAt: daoRec.SentAt, Seq: daoRec.Seq}
		overhead(b,
			func() error {
				m, err := rawGet(ctx, c, table, rawRec, &buf)
				if err == nil && m.Content != rawRec.Content {
					b.Fatalf("raw get %q", m.Content)
				}
				return err
			},
			func() error {
				m, ok, err := r.Get(ctx, key)
				if err == nil && (!ok || m.Content != daoRec.Content) {
					b.Fatalf("dao get %v %v", m, ok)
				}
				return err
			})
	})
	b.Run("Scan100", func(b *testing.B) {
		const n = 100
		var recs []*seeds.SMS
		for i := 0; i < n; i++ {
			recs = append(recs, msg("13900000001", t0.Add(time.Duration(i)*time.Second), 0))
			recs = append(recs, msg("13900000002", t0.Add(time.Duration(i)*time.Second), 0))
		}
		if _, err := r.PutBatch(ctx, recs); err != nil {
			b.Fatal(err)
		}
		q := dao.Prefix(&seeds.SMS{Mobile: "13900000002"}, 1)
		overhead(b,
			func() error {
				got, err := rawScan(ctx, c, table, "13900000001")
				if err == nil && got != n {
					b.Fatalf("raw scan: %d rows", got)
				}
				return err
			},
			func() error {
				got := 0
				for _, err := range r.Scan(ctx, q) {
					if err != nil {
						return err
					}
					got++
				}
				if got != n {
					b.Fatalf("dao scan: %d rows", got)
				}
				return nil
			})
	})
}

// overhead interleaves raw and dao, timing each, and reports both and
// their ratio dao/raw.
func overhead(b *testing.B, raw, viaDAO func() error) { compare(b, "raw", raw, "dao", viaDAO) }

// compare interleaves two ways of doing the same work, times each call,
// and reports the median time of each ("<a>-ns/op", "<b>-ns/op") and the
// ratio of the medians ("<b>/<a>"). Medians, so that an iteration that
// happened to be preempted on a loaded machine does not decide the ratio.
func compare(b *testing.B, aName string, fa func() error, bName string, fb func() error) {
	b.ReportAllocs()
	ta := make([]time.Duration, 0, b.N)
	tb := make([]time.Duration, 0, b.N)
	run := func(f func() error, into *[]time.Duration) {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(start))
	}
	for i := 0; i < b.N; i++ {
		if i%2 == 0 { // alternate who goes first, so neither always finds warm caches
			run(fa, &ta)
			run(fb, &tb)
		} else {
			run(fb, &tb)
			run(fa, &ta)
		}
	}
	ma, mb := median(ta), median(tb)
	if ma > 0 {
		b.ReportMetric(float64(ma.Nanoseconds()), aName+"-ns/op")
		b.ReportMetric(float64(mb.Nanoseconds()), bName+"-ns/op")
		b.ReportMetric(float64(mb)/float64(ma), bName+"/"+aName)
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// rawKey builds the SMS row key by hand.
func rawKey(dst []byte, m *seeds.SMS) ([]byte, error) {
	k, err := keys.AppendReversedDigits(dst[:0], m.Mobile, seeds.SMSMobileWidth)
	if err != nil {
		return dst, err
	}
	if k, err = keys.AppendReversedTimestamp(k, m.SentAt.UnixMilli()); err != nil {
		return dst, err
	}
	return keys.AppendUnique(k, m.Seq, seeds.SMSSeqWidth)
}

func rawPut(ctx context.Context, c hbase.DataClient, table string, m *seeds.SMS, buf *[]byte) error {
	k, err := rawKey(*buf, m)
	if err != nil {
		return err
	}
	*buf = k
	d := []byte{0}
	if m.Delivered {
		d[0] = 0xff
	}
	return c.Put(ctx, &hbase.Put{Table: table, Row: k, Values: map[string]map[string][]byte{
		"cf": {"a": []byte(m.Account), "c": []byte(m.Content), "d": d},
	}})
}

var (
	cf   = []byte("cf")
	qa   = []byte("a")
	qc   = []byte("c")
	qd   = []byte("d")
	none = &seeds.SMS{}
)

func rawDecode(res *hbase.Result) (*seeds.SMS, error) {
	m := new(seeds.SMS)
	key := res.Row()
	mobile, rest, err := keys.DecodeReversedDigits(key, seeds.SMSMobileWidth)
	if err != nil {
		return nil, err
	}
	ms, rest, err := keys.DecodeReversedTimestamp(rest)
	if err != nil {
		return nil, err
	}
	seq, _, err := keys.DecodeUnique(rest, seeds.SMSSeqWidth)
	if err != nil {
		return nil, err
	}
	m.Mobile, m.SentAt, m.Seq = mobile, time.UnixMilli(ms).UTC(), seq
	m.Account = string(res.Value(cf, qa))
	m.Content = string(res.Value(cf, qc))
	if d := res.Value(cf, qd); len(d) == 1 {
		m.Delivered = d[0] != 0
	}
	return m, nil
}

func rawGet(ctx context.Context, c hbase.DataClient, table string, m *seeds.SMS, buf *[]byte) (*seeds.SMS, error) {
	k, err := rawKey(*buf, m)
	if err != nil {
		return nil, err
	}
	*buf = k
	res, err := c.Get(ctx, &hbase.Get{Table: table, Row: k})
	if err != nil || res.Empty() {
		return none, err
	}
	return rawDecode(res)
}

func rawScan(ctx context.Context, c hbase.DataClient, table, mobile string) (int, error) {
	start, err := keys.AppendReversedDigits(nil, mobile, seeds.SMSMobileWidth)
	if err != nil {
		return 0, err
	}
	n := 0
	for res, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: table, StartRow: start, StopRow: keys.PrefixEnd(start)}) {
		if err != nil {
			return n, err
		}
		m, err := rawDecode(res)
		if err != nil {
			return n, err
		}
		if !bytes.Equal(res.Row()[:len(start)], start) || m.Mobile != mobile {
			return n, err
		}
		n++
	}
	return n, nil
}

// BenchmarkBucketedScanFake compares a 10-bucket merged scan with a plain
// full scan of the same 2000 rows (seeds.LogDataBucketed on the fake):
// the cost of the goroutines, channels and heap of a merge.
func BenchmarkBucketedScanFake(b *testing.B) {
	r, _ := newLog(b, nil)
	logData(b, r, rand.New(rand.NewPCG(1, 1)), 2000)
	buckets, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	count := func(q dao.Query[seeds.LogEvent]) func() error {
		return func() error {
			for _, err := range r.Scan(ctx, q) {
				if err != nil {
					return err
				}
			}
			return nil
		}
	}
	compare(b, "full", count(dao.Query[seeds.LogEvent]{}), "merged", count(dao.Query[seeds.LogEvent]{Ranges: buckets, MergeSkip: 1}))
}

// nopClient answers every call at once, successfully and empty, so that a
// benchmark counts the store's own work and not a server's.
type nopClient struct{}

func (nopClient) Get(context.Context, *hbase.Get) (*hbase.Result, error) { return &hbase.Result{}, nil }
func (nopClient) Put(context.Context, *hbase.Put) error                  { return nil }
func (nopClient) Delete(context.Context, *hbase.Delete) error            { return nil }
func (nopClient) CheckAndMutate(context.Context, *hbase.CheckAndMutate) (bool, error) {
	return true, nil
}
func (nopClient) Scan(context.Context, *hbase.Scan) (hbase.Scanner, error) {
	return nil, errors.New("nopClient: no scans")
}
func (nopClient) Batch(_ context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	out := make([]hbase.BatchResult, len(acts))
	for i := range out {
		out[i] = hbase.BatchResult{Result: &hbase.Result{}, Processed: true}
	}
	return out, nil
}

// BenchmarkIndexedPutAllocs counts what one PutBatch of 100 SMS costs the
// store through the index protocol (verification sent synchronously), on
// a client that does nothing, per write mode: allocs/record is the
// allocations per indexed put. The strict protocol on abc5539, where dao
// validated and encoded each record and then index encoded it again,
// measured 57.49 allocs and 4,709 B per record with the same benchmark.
// On 8377fac: strict 48.48, mutable 49.74, insert-only 35.22 allocs per
// record; with the cuts that followed (fresh Rows sized at once, the data
// key copied into the entry, no per-record items on insert-only puts,
// whose batches also reuse their encoding buffers), 33.36, 34.62 and
// 12.04. Measured again on f3fe174 (main before branch e3-alloc): 35.56,
// 34.64 and 17.07 allocs, 385, 332 and 206 KB per PutBatch; with records
// encoded straight into the cells a Put carries (hbapi.Put.Cells, no map)
// and a record's writes allocated together (e3-alloc, a64f803): 13.55,
// 15.63 and 4.07 allocs, 310, 316 and 166 KB (-count 5, same window).
// BenchmarkIndexedPutWire (package hbase) counts the same PutBatch down
// to the bytes on the wire.
func BenchmarkIndexedPutAllocs(b *testing.B) {
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]*seeds.SMS, 100)
	for i := range recs {
		recs[i] = &seeds.SMS{Mobile: "138" + strconv.Itoa(10_000_000+i), SentAt: day.Add(time.Duration(i) * time.Second),
			Account: "acct" + strconv.Itoa(i%50), Content: "您的验证码是123456,5分钟内有效。", Delivered: i%2 == 0}
	}
	for _, mode := range []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly} {
		b.Run(mode.String(), func(b *testing.B) {
			repo, err := seedstore.NewSMS(nopClient{}, dao.WithAsyncVerify(false), dao.WithWriteMode(mode))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := repo.PutBatch(ctx, recs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testing.AllocsPerRun(10, func() { _, _ = repo.PutBatch(ctx, recs) }))/float64(len(recs)), "allocs/record")
		})
	}
}
