package dao_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// newLog returns a repository over LOG_DATA keyed [ts % 10][ts][host]
// [event] (seeds.LogDataBucketed), on a fake wrapped by wrap (if not nil).
func newLog(t testing.TB, wrap func(dao.Client) dao.Client, opts ...dao.Option) (*dao.Repo[seeds.LogEvent], *fake.Client) {
	t.Helper()
	f := newFake(t)
	tbl, err := seeds.LogDataBucketed()
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, tbl)
	var c dao.Client = f
	if wrap != nil {
		c = wrap(f)
	}
	r, err := dao.New(c, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r, f
}

// logData writes n random events over an hour and returns them.
func logData(t testing.TB, r *dao.Repo[seeds.LogEvent], rng *rand.Rand, n int) []*seeds.LogEvent {
	t.Helper()
	evs := make([]*seeds.LogEvent, n)
	for i := range evs {
		evs[i] = &seeds.LogEvent{
			Host:    fmt.Sprintf("web%d", rng.IntN(5)),
			At:      t0.Add(time.Duration(rng.IntN(3_600_000)) * time.Millisecond),
			Event:   []string{"GET", "PUT", "DELETE"}[rng.IntN(3)],
			Message: fmt.Sprintf("m%d", i),
		}
	}
	if _, err := r.PutBatch(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	return evs
}

func logKey(t testing.TB, r *dao.Repo[seeds.LogEvent]) func(*seeds.LogEvent) []byte {
	return func(e *seeds.LogEvent) []byte {
		k, err := r.Table().AppendKey(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
}

func scanLog(t testing.TB, r *dao.Repo[seeds.LogEvent], q dao.Query[seeds.LogEvent]) ([][]byte, []*seeds.LogEvent) {
	t.Helper()
	var ks [][]byte
	var evs []*seeds.LogEvent
	for e, err := range r.Scan(context.Background(), q) {
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		ks = append(ks, logKey(t, r)(e))
		evs = append(evs, e)
	}
	return ks, evs
}

// The check: a bucketed scan over 10 buckets returns exactly the
// rows of a plain full scan, in key order.
func TestBucketedScanEqualsFullScan(t *testing.T) {
	r, f := newLog(t, nil, dao.WithScanConcurrency(3))
	logData(t, r, rand.New(rand.NewPCG(1, 2)), 600)
	buckets, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fullKeys, full := scanLog(t, r, dao.Query[seeds.LogEvent]{})
	gotKeys, got := scanLog(t, r, dao.Query[seeds.LogEvent]{Ranges: buckets})
	raw := rawKeys(t, f, seeds.LogDataBucketedName)
	if len(raw) < 500 || !slices.EqualFunc(fullKeys, raw, bytes.Equal) {
		t.Fatalf("full scan gave %d rows, raw scan %d", len(fullKeys), len(raw))
	}
	if !slices.EqualFunc(gotKeys, fullKeys, bytes.Equal) {
		t.Fatalf("bucketed scan differs from the full scan:\n got %s\nwant %s", joinKeys(gotKeys), joinKeys(fullKeys))
	}
	if !reflect.DeepEqual(got, full) {
		t.Error("bucketed scan decoded other records than the full scan")
	}
}

// A property test: for random data and random queries over the 10
// buckets (time windows, merge order, direction, limit), the merged scan
// and every way of paging it give exactly the brute-force answer.
func TestMergedScanProperty(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		r, f := newLog(t, nil, dao.WithScanConcurrency(1+rng.IntN(4)))
		logData(t, r, rng, rng.IntN(250))
		raw := rawKeys(t, f, seeds.LogDataBucketedName)
		for trial := 0; trial < 8; trial++ {
			var start, stop []byte
			if rng.IntN(3) > 0 {
				a := t0.Add(time.Duration(rng.IntN(3_600_000)) * time.Millisecond).UnixMilli()
				b := a + int64(rng.IntN(2_000_000))
				start, stop = keys.AppendInt64(nil, a), keys.AppendInt64(nil, b)
			}
			ranges, err := dao.BucketRanges(seeds.LogBuckets, 1, start, stop)
			if err != nil {
				t.Fatal(err)
			}
			q := dao.Query[seeds.LogEvent]{Ranges: ranges, MergeSkip: rng.IntN(2), Reversed: rng.IntN(2) == 1}
			if rng.IntN(2) == 0 {
				q.Limit = 1 + rng.IntN(40)
			}
			want := mergedAnswer(raw, ranges, q.MergeSkip, q.Reversed, q.Limit)
			desc := fmt.Sprintf("seed %d trial %d skip %d reversed %v limit %d", seed, trial, q.MergeSkip, q.Reversed, q.Limit)
			got, _ := scanLog(t, r, q)
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("%s:\n got %s\nwant %s", desc, joinKeys(got), joinKeys(want))
			}
			q.Limit = 0
			size := 1 + rng.IntN(30)
			paged := pageAll(t, r, q, size, logKey(t, r))
			if want := mergedAnswer(raw, ranges, q.MergeSkip, q.Reversed, 0); !slices.EqualFunc(paged, want, bytes.Equal) {
				t.Fatalf("%s, pages of %d:\n got %s\nwant %s", desc, size, joinKeys(paged), joinKeys(want))
			}
		}
	}
}

// mergedAnswer is the brute-force merged scan: the keys inside the ranges,
// ordered by (key[skip:], key), reversed if asked, cut at limit.
func mergedAnswer(all [][]byte, ranges []keys.KeyRange, skip int, reversed bool, limit int) [][]byte {
	var out [][]byte
	for _, k := range all {
		if slices.ContainsFunc(ranges, func(r keys.KeyRange) bool { return r.Contains(k) }) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b []byte) int {
		if c := bytes.Compare(a[skip:], b[skip:]); c != 0 {
			return c
		}
		return bytes.Compare(a, b)
	})
	if reversed {
		slices.Reverse(out)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// With MergeSkip 1 a bucketed table reads in time order: the newest
// events across all buckets are the first rows of a reversed scan.
func TestMergedScanTimeOrder(t *testing.T) {
	r, _ := newLog(t, nil)
	evs := logData(t, r, rand.New(rand.NewPCG(3, 4)), 300)
	ranges, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, got := scanLog(t, r, dao.Query[seeds.LogEvent]{Ranges: ranges, MergeSkip: 1, Reversed: true, Limit: 10})
	slices.SortFunc(evs, func(a, b *seeds.LogEvent) int { return b.At.Compare(a.At) })
	if len(got) != 10 {
		t.Fatalf("got %d events, want 10", len(got))
	}
	for i, e := range got {
		if !e.At.Equal(evs[i].At) {
			t.Errorf("event %d at %v, want the %d-th newest at %v", i, e.At, i, evs[i].At)
		}
	}
}

// slowScans wraps a client and counts the scanners fetching at the same
// time, sleeping a little in every Next so that they overlap.
type slowScans struct {
	dao.Client
	active, peak atomic.Int32
}

func (s *slowScans) Scan(ctx context.Context, sc *hbase.Scan) (hbase.Scanner, error) {
	inner, err := s.Client.Scan(ctx, sc)
	if err != nil {
		return nil, err
	}
	return &slowScanner{Scanner: inner, s: s}, nil
}

type slowScanner struct {
	hbase.Scanner
	s *slowScans
}

func (s *slowScanner) Next() bool {
	n := s.s.active.Add(1)
	for {
		p := s.s.peak.Load()
		if n <= p || s.s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(200 * time.Microsecond)
	defer s.s.active.Add(-1)
	return s.Scanner.Next()
}

func TestMergedScanBoundedConcurrency(t *testing.T) {
	slow := &slowScans{}
	r, _ := newLog(t, func(c dao.Client) dao.Client { slow.Client = c; return slow }, dao.WithScanConcurrency(3))
	logData(t, r, rand.New(rand.NewPCG(5, 6)), 200)
	ranges, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := scanLog(t, r, dao.Query[seeds.LogEvent]{Ranges: ranges})
	if len(got) == 0 {
		t.Fatal("no rows")
	}
	if p := slow.peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak of %d scanners fetching at once, want 2..3 (bound 3)", p)
	}
}

func TestMergedScanStopsEverything(t *testing.T) {
	ranges, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Query[seeds.LogEvent]{Ranges: ranges, MergeSkip: 1}
	t.Run("break", func(t *testing.T) {
		r, _ := newLog(t, nil, dao.WithScanConcurrency(2))
		logData(t, r, rand.New(rand.NewPCG(7, 8)), 2000)
		before := runtime.NumGoroutine()
		n := 0
		for _, err := range r.Scan(context.Background(), q) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 5 {
				break
			}
		}
		noLeak(t, before)
	})
	t.Run("limit", func(t *testing.T) {
		r, _ := newLog(t, nil)
		logData(t, r, rand.New(rand.NewPCG(7, 8)), 2000)
		before := runtime.NumGoroutine()
		lq := q
		lq.Limit = 7
		if got, _ := scanLog(t, r, lq); len(got) != 7 {
			t.Errorf("%d rows, want 7", len(got))
		}
		noLeak(t, before)
	})
	t.Run("cancel", func(t *testing.T) {
		r, _ := newLog(t, nil)
		logData(t, r, rand.New(rand.NewPCG(7, 8)), 2000)
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		var last error
		for _, err := range r.Scan(ctx, q) {
			if n++; n == 5 {
				cancel()
			}
			last = err
			if n > 2000 {
				t.Fatal("scan went on after cancel")
			}
		}
		if !errors.Is(last, context.Canceled) {
			t.Errorf("last error %v, want context.Canceled", last)
		}
		noLeak(t, before)
	})
	t.Run("one bucket fails", func(t *testing.T) {
		var fl *flaky
		r, _ := newLog(t, func(c dao.Client) dao.Client { fl = &flaky{Client: c}; return fl })
		logData(t, r, rand.New(rand.NewPCG(7, 8)), 500)
		var mu sync.Mutex
		fl.failScan = func(s *hbase.Scan) error {
			mu.Lock()
			defer mu.Unlock()
			if bytes.HasPrefix(s.StartRow, []byte("7")) {
				return errInjected
			}
			return nil
		}
		before := runtime.NumGoroutine()
		var last error
		for _, err := range r.Scan(context.Background(), q) {
			last = err
		}
		if !errors.Is(last, errInjected) {
			t.Errorf("last error %v, want the injected scan failure", last)
		}
		noLeak(t, before)
	})
}

// Salted is a record of a table whose key starts with a random salt: the
// keys.Salt layout, where every read is one scan per salt value.
type Salted struct {
	Salt int
	TS   int64
	ID   string
	Body string
}

func saltedTable(t testing.TB) *schema.Table[Salted] {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	var mu sync.Mutex
	key, err := keys.NewLayout(
		keys.Salt("salt", 8, lockedRand{rng, &mu}, func(s *Salted, v int) { s.Salt = v }),
		keys.Int64("ts", func(s *Salted) int64 { return s.TS }, func(s *Salted, v int64) { s.TS = v }),
		keys.String("id", func(s *Salted) string { return s.ID }, func(s *Salted, v string) { s.ID = v }),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[Salted]{
		Name:     "salted",
		Families: []schema.Family{{Name: "f"}},
		Key:      key,
		Columns: []schema.Column[Salted]{schema.StringColumn("body", "f", "b",
			func(s *Salted) string { return s.Body }, func(s *Salted, v string) { s.Body = v })},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

type lockedRand struct {
	r  *rand.Rand
	mu *sync.Mutex
}

func (l lockedRand) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Uint64()
}

func TestSaltedLayout(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl := saltedTable(t)
	createTable(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Salted
	for i := 0; i < 100; i++ {
		recs = append(recs, &Salted{TS: int64(1000 + i), ID: fmt.Sprint("id", i%7), Body: fmt.Sprint("body", i)})
	}
	if _, err := r.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	// Get and Delete do not know the salt: they try every salt value.
	got, ok, err := r.Get(ctx, &Salted{TS: 1042, ID: "id0"})
	if err != nil || !ok || got.Body != "body42" {
		t.Fatalf("Get = %+v, %v, %v; want body42", got, ok, err)
	}
	if err := r.Delete(ctx, &Salted{TS: 1042, ID: "id0"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, &Salted{TS: 1042, ID: "id0"}); err != nil || ok {
		t.Fatalf("Get after Delete = %v, %v", ok, err)
	}
	// A time range is one range per salt; merged past the salt byte, the
	// records come in time order.
	q := dao.Between(&Salted{TS: 1010}, &Salted{TS: 1060}, 2)
	q.MergeSkip = 1
	var ts []int64
	for s, err := range r.Scan(ctx, q) {
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, s.TS)
	}
	var want []int64
	for i := int64(1010); i <= 1060; i++ {
		if i != 1042 {
			want = append(want, i)
		}
	}
	if !slices.Equal(ts, want) {
		t.Errorf("timestamps %v, want %v", ts, want)
	}
	if _, err := r.DeleteBatch(ctx, recs); !errors.Is(err, dao.ErrInvalidQuery) {
		t.Errorf("DeleteBatch on a salted layout = %v, want ErrInvalidQuery", err)
	}
}

// KV is a record keyed [bucket digit][short string], with few distinct
// strings, so the same suffix sits in many buckets: the merge order's
// ties, broken by the whole key, and resuming across them.
type KV struct {
	B uint64
	K string
	V string
}

func kvRepo(t testing.TB, opts ...dao.Option) (*dao.Repo[KV], *fake.Client) {
	t.Helper()
	key, err := keys.NewLayout(
		keys.Decimal("b", 1, func(v *KV) uint64 { return v.B }, func(v *KV, b uint64) { v.B = b }),
		keys.Fixed("k", 2, ' ', func(v *KV) string { return v.K }, func(v *KV, k string) { v.K = k }),
	)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[KV]{
		Name: "kv", Families: []schema.Family{{Name: "f"}}, Key: key,
		Columns: []schema.Column[KV]{schema.StringColumn("v", "f", "v",
			func(v *KV) string { return v.V }, func(v *KV, s string) { v.V = s })},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	createTable(t, f, tbl)
	r, err := dao.New(f, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r, f
}

func TestMergedScanPropertyTies(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		r, f := kvRepo(t, dao.WithScanConcurrency(1+rng.IntN(3)))
		var recs []*KV
		for i := rng.IntN(80); i > 0; i-- {
			recs = append(recs, &KV{B: uint64(rng.IntN(10)), K: string(rune('a'+rng.IntN(4))) + string(rune('a'+rng.IntN(3))), V: "v"})
		}
		if _, err := r.PutBatch(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		raw := rawKeys(t, f, "kv")
		key := func(v *KV) []byte {
			k, err := r.Table().AppendKey(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		for trial := 0; trial < 6; trial++ {
			var start, stop []byte
			if rng.IntN(2) == 0 {
				start = []byte{byte('a' + rng.IntN(2))}
				stop = []byte{byte('c' + rng.IntN(2))}
			}
			n := 2 + rng.IntN(9)
			ranges, err := dao.BucketRanges(n, 1, start, stop)
			if err != nil {
				t.Fatal(err)
			}
			q := dao.Query[KV]{Ranges: ranges, MergeSkip: rng.IntN(2), Reversed: rng.IntN(2) == 1}
			want := mergedAnswer(raw, ranges, q.MergeSkip, q.Reversed, 0)
			for _, size := range []int{1, 2 + rng.IntN(10)} {
				got := pageAll(t, r, q, size, key)
				if !slices.EqualFunc(got, want, bytes.Equal) {
					t.Fatalf("seed %d trial %d skip %d reversed %v pages of %d:\n got %s\nwant %s",
						seed, trial, q.MergeSkip, q.Reversed, size, joinKeys(got), joinKeys(want))
				}
			}
		}
	}
}
