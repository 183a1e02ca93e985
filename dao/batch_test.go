package dao_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

func batchOf(n int) []*seeds.SMS {
	recs := make([]*seeds.SMS, n)
	for i := range recs {
		recs[i] = msg("1380000000"+string(rune('0'+i%10)), t0.Add(time.Duration(i)*time.Minute), uint64(i))
	}
	return recs
}

func TestPutBatchChunks(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name        string
		records     int
		size        int
		wantBatches int
	}{
		{"one chunk", 5, 10, 1},
		{"exact chunks", 9, 3, 3},
		{"last chunk short", 10, 3, 4},
		{"empty", 0, 3, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			fl := &flaky{Client: f}
			// One hbase Batch per chunk is the plain table's path; an
			// indexed store's chunks are checked in TestIndexedWrites.
			r := newPlainSMS(t, fl, f, dao.WithBatchSize(tc.size))
			recs := batchOf(tc.records)
			results, err := r.PutBatch(ctx, recs)
			if err != nil {
				t.Fatalf("PutBatch = %v", err)
			}
			if len(results) != tc.records || slices.ContainsFunc(results, func(e error) bool { return e != nil }) {
				t.Fatalf("results %v, want %d nils", results, tc.records)
			}
			if fl.batches != tc.wantBatches {
				t.Errorf("%d Batch calls, want %d", fl.batches, tc.wantBatches)
			}
			for _, m := range recs {
				if got, ok, err := r.Get(ctx, m); err != nil || !ok || !reflect.DeepEqual(got, m) {
					t.Errorf("Get(%s) = %+v, %v, %v; want %+v", m.Content, got, ok, err, m)
				}
			}
		})
	}
}

func TestPutBatchPartialFailure(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	fl := &flaky{Client: f}
	r := newSMS(t, fl, f, dao.WithBatchSize(4))
	recs := batchOf(10)
	failKeys := map[string]bool{}
	for _, i := range []int{2, 7} {
		k, err := r.Table().AppendKey(nil, recs[i])
		if err != nil {
			t.Fatal(err)
		}
		failKeys[string(k)] = true
	}
	fl.failRow = func(row []byte) error {
		if failKeys[string(row)] {
			return errInjected
		}
		return nil
	}
	results, err := r.PutBatch(ctx, recs)
	var be *dao.BatchError
	if !errors.As(err, &be) || be.Rejected {
		t.Fatalf("PutBatch = %v, want a *BatchError that is not a rejection", err)
	}
	if got, want := be.Indexes(), []int{2, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("failed records %v, want %v", got, want)
	}
	if !errors.Is(err, errInjected) {
		t.Errorf("PutBatch = %v, want it to wrap the injected error", err)
	}
	for i, res := range results {
		failed := i == 2 || i == 7
		if failed != (res != nil) || (failed && !errors.Is(res, errInjected)) {
			t.Errorf("result %d = %v, want failure %v", i, res, failed)
		}
		_, ok, err := r.Get(ctx, recs[i])
		if err != nil || ok == failed {
			t.Errorf("record %d stored = %v (%v), want %v", i, ok, err, !failed)
		}
	}
}

func TestPutBatchCancelledBetweenChunks(t *testing.T) {
	f := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	fl := &flaky{Client: f}
	fl.afterBatch = cancel // the first chunk goes through; the context ends after it
	// One hbase Batch per chunk is the plain table's path; an indexed
	// store's is checked in TestIndexedWrites. The chunks go one after
	// another (TestPutBatchChunksInFlight has them in flight together).
	r := newPlainSMS(t, fl, f, dao.WithBatchSize(3), dao.WithWriteConcurrency(1))
	results, err := r.PutBatch(ctx, batchOf(7))
	var be *dao.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("PutBatch = %v, want a *BatchError", err)
	}
	if got, want := be.Indexes(), []int{3, 4, 5, 6}; !reflect.DeepEqual(got, want) {
		t.Errorf("failed records %v, want %v", got, want)
	}
	for _, i := range be.Indexes() {
		if !errors.Is(results[i], dao.ErrNotAttempted) || !errors.Is(results[i], context.Canceled) {
			t.Errorf("result %d = %v, want ErrNotAttempted and context.Canceled", i, results[i])
		}
	}
}

func TestDeleteBatch(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f, dao.WithBatchSize(2))
	recs := batchOf(5)
	if _, err := r.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	results, err := r.DeleteBatch(ctx, recs[1:4])
	if err != nil || len(results) != 3 {
		t.Fatalf("DeleteBatch = %v, %v", results, err)
	}
	for i, m := range recs {
		_, ok, err := r.Get(ctx, m)
		if err != nil || ok != (i == 0 || i == 4) {
			t.Errorf("record %d present = %v (%v)", i, ok, err)
		}
	}
	bad := &seeds.SMS{Mobile: "x"}
	if _, err := r.DeleteBatch(ctx, []*seeds.SMS{recs[0], bad}); !errors.Is(err, dao.ErrInvalidRecord) {
		t.Errorf("DeleteBatch with a bad key = %v, want ErrInvalidRecord", err)
	}
	if _, ok, _ := r.Get(ctx, recs[0]); !ok {
		t.Error("a rejected DeleteBatch deleted a record")
	}
}

// TestIndexedWrites is what TestWriter checked when an index was plugged
// into a store with WithWriter: the writer is gone, a schema that declares
// an index writes its entries through dao.New alone. Where the writer's
// call log showed the chunks, the log of the conditional data-row writes
// (one Batch of them per chunk, see index.Table.Write) shows them now.
func TestIndexedWrites(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl)
	fl := &flaky{Client: f}
	// The strict protocol's conditional data-row writes are what this
	// test counts; the SMS schema itself is insert-only.
	// Chunks one after another, so that the Batches come in order.
	r, err := dao.New(fl, tbl, dao.WithBatchSize(3), dao.WithWriteMode(schema.Strict), dao.WithWriteConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := r.Index(seeds.SMSIndexTableName)
	if err != nil {
		t.Fatal(err)
	}
	entryKey := func(m *seeds.SMS) string {
		k, err := tbl.Indexes()[0].AppendKey(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		return string(k)
	}
	// indexed returns the data keys of the records the index finds.
	indexed := func(t *testing.T) map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for m, err := range ix.Find(ctx, dao.Query[seeds.SMS]{}) {
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			out[string(keyOf(t, r, m))] = true
		}
		return out
	}

	t.Run("put", func(t *testing.T) {
		fl.reset()
		m := msg("13800000001", t0, 0)
		if err := r.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := r.Get(ctx, m); err != nil || !ok || !reflect.DeepEqual(got, m) {
			t.Errorf("Get = %+v, %v, %v", got, ok, err)
		}
		if want := []int{1}; !reflect.DeepEqual(fl.cams, want) {
			t.Errorf("conditional data-row writes per Batch %v, want %v", fl.cams, want)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := joinKeys(rawKeys(t, f, seeds.SMSIndexTableName)), keyString([]byte(entryKey(m))); got != want {
			t.Errorf("index table rows %s, want %s", got, want)
		}
		if got := indexed(t); !got[string(keyOf(t, r, m))] {
			t.Errorf("index Find does not return the record put")
		}
	})
	t.Run("batch in chunks with a failure", func(t *testing.T) {
		fl.reset()
		recs := batchOf(7)
		bad := string(keyOf(t, r, recs[4]))
		fl.mu.Lock()
		fl.failRow = func(row []byte) error {
			if string(row) == bad {
				return errInjected
			}
			return nil
		}
		fl.mu.Unlock()
		results, err := r.PutBatch(ctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) || !reflect.DeepEqual(be.Indexes(), []int{4}) || !errors.Is(results[4], errInjected) {
			t.Fatalf("PutBatch = %v, %v; want record 4 failed", results, err)
		}
		if want := []int{3, 3, 1}; !reflect.DeepEqual(fl.cams, want) {
			t.Errorf("conditional data-row writes per Batch %v, want %v", fl.cams, want)
		}
		found := indexed(t)
		for i, m := range recs {
			if _, ok, err := r.Get(ctx, m); err != nil || ok != (i != 4) {
				t.Errorf("record %d stored = %v, %v", i, ok, err)
			}
			if got := found[string(keyOf(t, r, m))]; got != (i != 4) {
				t.Errorf("record %d found through the index = %v, want %v", i, got, i != 4)
			}
		}
	})
	t.Run("cancelled between chunks", func(t *testing.T) {
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		fl.reset()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		fl.mu.Lock()
		fl.afterBatch = func() {
			// The first chunk's data rows are written; the context ends
			// after them.
			fl.mu.Lock()
			n := len(fl.cams)
			fl.mu.Unlock()
			if n > 0 {
				cancel()
			}
		}
		fl.mu.Unlock()
		recs := batchOf(7)
		for _, m := range recs {
			m.SentAt = m.SentAt.Add(time.Hour) // new records: each chunk's first attempt lands
		}
		results, err := r.PutBatch(cctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) {
			t.Fatalf("PutBatch = %v, want a *BatchError", err)
		}
		if got, want := be.Indexes(), []int{3, 4, 5, 6}; !reflect.DeepEqual(got, want) {
			t.Errorf("failed records %v, want %v", got, want)
		}
		for _, i := range be.Indexes() {
			if !errors.Is(results[i], dao.ErrNotAttempted) || !errors.Is(results[i], context.Canceled) {
				t.Errorf("result %d = %v, want ErrNotAttempted and context.Canceled", i, results[i])
			}
		}
		fl.mu.Lock()
		fl.afterBatch = nil
		fl.mu.Unlock()
	})
	t.Run("invalid records never reach the client", func(t *testing.T) {
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		fl.reset()
		recs := batchOf(2)
		recs[1].Account = ""
		if _, err := r.PutBatch(ctx, recs); !errors.Is(err, dao.ErrInvalidRecord) {
			t.Fatalf("PutBatch = %v, want ErrInvalidRecord", err)
		}
		if err := r.Put(ctx, recs[1]); !errors.Is(err, dao.ErrInvalidRecord) {
			t.Fatalf("Put = %v, want ErrInvalidRecord", err)
		}
		if fl.batches != 0 || fl.puts != 0 {
			t.Errorf("%d batches and %d writes reached the client, want none", fl.batches, fl.puts)
		}
	})
	t.Run("delete", func(t *testing.T) {
		fl.reset()
		recs := batchOf(4)
		if err := r.Delete(ctx, recs[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := r.DeleteBatch(ctx, recs[1:]); err != nil {
			t.Fatal(err)
		}
		if want := []int{1, 3}; !reflect.DeepEqual(fl.cams, want) {
			t.Errorf("conditional data-row writes per Batch %v, want %v", fl.cams, want)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		found := indexed(t)
		entries := map[string]bool{}
		for _, k := range rawKeys(t, f, seeds.SMSIndexTableName) {
			entries[string(k)] = true
		}
		for i, m := range recs {
			if _, ok, _ := r.Get(ctx, m); ok {
				t.Errorf("record %d still stored", i)
			}
			if found[string(keyOf(t, r, m))] {
				t.Errorf("record %d still found through the index", i)
			}
			if entries[entryKey(m)] {
				t.Errorf("record %d still has an index entry", i)
			}
		}
	})
}

// inFlight counts the Batch calls in progress at once, holding each until
// want are in progress (or a moment has passed), so that the most it saw
// is the concurrency the store allows.
type inFlight struct {
	dao.Client
	want     int
	mu       sync.Mutex
	now, max int
	arrived  chan struct{}
}

func (c *inFlight) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	c.mu.Lock()
	c.now++
	c.max = max(c.max, c.now)
	if c.now >= c.want {
		close(c.arrived)
		c.arrived = make(chan struct{})
	}
	arrived := c.arrived
	c.mu.Unlock()
	select {
	case <-arrived:
	case <-time.After(200 * time.Millisecond):
	}
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.Client.Batch(ctx, acts)
}

// TestPutBatchChunksInFlight: the chunks of one call go out up to
// WithWriteConcurrency at a time, and every record lands; a call that
// repeats a row key in two chunks sends them one after another, so that
// the later record wins.
func TestPutBatchChunksInFlight(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c := &inFlight{Client: f, want: 3, arrived: make(chan struct{})}
	r := newPlainSMS(t, c, f, dao.WithBatchSize(2), dao.WithWriteConcurrency(3))
	recs := batchOf(10)
	if _, err := r.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if c.max != 3 {
		t.Errorf("at most %d Batches in flight, want 3", c.max)
	}
	for i, m := range recs {
		if _, ok, err := r.Get(ctx, m); err != nil || !ok {
			t.Errorf("record %d stored = %v, %v", i, ok, err)
		}
	}

	c.max = 0
	first, last := *recs[0], *recs[0]
	first.Content, last.Content = "first", "last"
	again := append([]*seeds.SMS{&first}, recs[1:9]...)
	again = append(again, &last) // the same row as the first, four chunks later
	if _, err := r.PutBatch(ctx, again); err != nil {
		t.Fatal(err)
	}
	if c.max != 1 {
		t.Errorf("%d Batches in flight with a repeated row key, want 1", c.max)
	}
	if got, ok, err := r.Get(ctx, &first); err != nil || !ok || got.Content != "last" {
		t.Errorf("Get = %+v, %v, %v; want the later record", got, ok, err)
	}
}

func TestWithWriteConcurrencyBounds(t *testing.T) {
	f := newFake(t)
	for _, n := range []int{0, -1, dao.MaxWriteConcurrency + 1} {
		if _, err := dao.New(f, plainSMSTable(t), dao.WithWriteConcurrency(n)); !errors.Is(err, dao.ErrInvalidOption) {
			t.Errorf("WithWriteConcurrency(%d): %v, want ErrInvalidOption", n, err)
		}
	}
}
