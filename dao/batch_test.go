package dao_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

func batchOf(n int) []*schema.SMS {
	recs := make([]*schema.SMS, n)
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
			r := newSMS(t, fl, f, dao.WithBatchSize(tc.size))
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
	r := newSMS(t, fl, f, dao.WithBatchSize(3))
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
	bad := &schema.SMS{Mobile: "x"}
	if _, err := r.DeleteBatch(ctx, []*schema.SMS{recs[0], bad}); !errors.Is(err, dao.ErrInvalidRecord) {
		t.Errorf("DeleteBatch with a bad key = %v, want ErrInvalidRecord", err)
	}
	if _, ok, _ := r.Get(ctx, recs[0]); !ok {
		t.Error("a rejected DeleteBatch deleted a record")
	}
}

// logWriter is a Writer that logs its calls and writes through a plain
// Repo on the same client, failing the records fail picks.
type logWriter struct {
	inner *dao.Repo[schema.SMS]
	mu    sync.Mutex
	log   []string
	fail  func(*schema.SMS) error
	short bool // return a result slice of the wrong length
}

func (w *logWriter) call(ctx context.Context, op string, recs []*schema.SMS,
	do func(context.Context, []*schema.SMS) ([]error, error)) []error {
	w.mu.Lock()
	w.log = append(w.log, fmt.Sprintf("%s %d", op, len(recs)))
	w.mu.Unlock()
	if w.short {
		return []error{}
	}
	out := make([]error, len(recs))
	var pass []*schema.SMS
	var at []int
	for i, m := range recs {
		if w.fail != nil {
			if out[i] = w.fail(m); out[i] != nil {
				continue
			}
		}
		pass = append(pass, m)
		at = append(at, i)
	}
	res, _ := do(ctx, pass)
	for j, err := range res {
		out[at[j]] = err
	}
	return out
}

func (w *logWriter) PutRecords(ctx context.Context, recs []*schema.SMS) []error {
	return w.call(ctx, "put", recs, w.inner.PutBatch)
}

func (w *logWriter) DeleteRecords(ctx context.Context, recs []*schema.SMS) []error {
	return w.call(ctx, "delete", recs, w.inner.DeleteBatch)
}

func TestWriter(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl, err := schema.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, tbl)
	inner, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	w := &logWriter{inner: inner}
	r, err := dao.NewSMS(f, dao.WithWriter[schema.SMS](w), dao.WithBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	reset := func() { w.log, w.fail, w.short = nil, nil, false }

	t.Run("put", func(t *testing.T) {
		reset()
		m := msg("13800000001", t0, 0)
		if err := r.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := r.Get(ctx, m); err != nil || !ok || !reflect.DeepEqual(got, m) {
			t.Errorf("Get = %+v, %v, %v", got, ok, err)
		}
		if want := []string{"put 1"}; !reflect.DeepEqual(w.log, want) {
			t.Errorf("writer calls %q, want %q", w.log, want)
		}
	})
	t.Run("batch in chunks with a failure", func(t *testing.T) {
		reset()
		recs := batchOf(7)
		w.fail = func(m *schema.SMS) error {
			if m == recs[4] {
				return errInjected
			}
			return nil
		}
		results, err := r.PutBatch(ctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) || !reflect.DeepEqual(be.Indexes(), []int{4}) || !errors.Is(results[4], errInjected) {
			t.Fatalf("PutBatch = %v, %v; want record 4 failed", results, err)
		}
		if want := []string{"put 3", "put 3", "put 1"}; !reflect.DeepEqual(w.log, want) {
			t.Errorf("writer calls %q, want %q", w.log, want)
		}
		for i, m := range recs {
			if _, ok, err := r.Get(ctx, m); err != nil || ok != (i != 4) {
				t.Errorf("record %d stored = %v, %v", i, ok, err)
			}
		}
	})
	t.Run("invalid records never reach the writer", func(t *testing.T) {
		reset()
		recs := batchOf(2)
		recs[1].Account = ""
		if _, err := r.PutBatch(ctx, recs); !errors.Is(err, dao.ErrInvalidRecord) {
			t.Fatalf("PutBatch = %v, want ErrInvalidRecord", err)
		}
		if err := r.Put(ctx, recs[1]); !errors.Is(err, dao.ErrInvalidRecord) {
			t.Fatalf("Put = %v, want ErrInvalidRecord", err)
		}
		if len(w.log) != 0 {
			t.Errorf("writer calls %q, want none", w.log)
		}
	})
	t.Run("delete", func(t *testing.T) {
		reset()
		recs := batchOf(4)
		if err := r.Delete(ctx, recs[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := r.DeleteBatch(ctx, recs[1:]); err != nil {
			t.Fatal(err)
		}
		if want := []string{"delete 1", "delete 3"}; !reflect.DeepEqual(w.log, want) {
			t.Errorf("writer calls %q, want %q", w.log, want)
		}
		for i, m := range recs {
			if _, ok, _ := r.Get(ctx, m); ok {
				t.Errorf("record %d still stored", i)
			}
		}
	})
	t.Run("a writer answering for the wrong number of records", func(t *testing.T) {
		reset()
		w.short = true
		results, err := r.PutBatch(ctx, batchOf(2))
		var be *dao.BatchError
		if !errors.As(err, &be) || len(be.Failed) != 2 || results[0] == nil || results[1] == nil {
			t.Errorf("PutBatch = %v, %v; want both records failed", results, err)
		}
	})
}
