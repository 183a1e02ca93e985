package dao_test

import (
	"bytes"
	"context"
	"errors"
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

// recIndexer is an Indexer that records what it is asked to do, in a log
// shared with the data writes it is interleaved with.
type recIndexer struct {
	mu     sync.Mutex
	log    []string
	reject func(*schema.SMS) error
	fail   func(*schema.SMS) error
}

func (x *recIndexer) add(s string) {
	x.mu.Lock()
	x.log = append(x.log, s)
	x.mu.Unlock()
}

func (x *recIndexer) CheckIndex(v *schema.SMS) error {
	if x.reject != nil {
		return x.reject(v)
	}
	return nil
}

func (x *recIndexer) PutIndex(_ context.Context, recs []*schema.SMS) []error {
	errs := make([]error, len(recs))
	for i, v := range recs {
		if x.fail != nil {
			errs[i] = x.fail(v)
		}
		if errs[i] == nil {
			x.add("index " + v.Mobile)
		}
	}
	return errs
}

func (x *recIndexer) DeleteIndex(_ context.Context, v *schema.SMS) error {
	x.add("unindex " + v.Mobile)
	return nil
}

func TestIndexer(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	x := &recIndexer{}
	fl := &flaky{Client: f}
	fl.failRow = func(row []byte) error {
		// the data row of a mobile ending in 5 fails; log the others
		if bytes.HasPrefix(row, []byte("5")) {
			return errInjected
		}
		x.add("data " + reverse(string(row[:11])))
		return nil
	}
	r := newSMS(t, fl, f, dao.WithIndexer[schema.SMS](x))

	t.Run("put writes the index first", func(t *testing.T) {
		x.log = nil
		if err := r.Put(ctx, msg("13800000001", t0, 0)); err != nil {
			t.Fatal(err)
		}
		want := []string{"index 13800000001", "data 13800000001"}
		if !reflect.DeepEqual(x.log, want) {
			t.Errorf("log %q, want %q", x.log, want)
		}
	})
	t.Run("an index failure keeps the data row out", func(t *testing.T) {
		x.log = nil
		x.fail = func(v *schema.SMS) error {
			if v.Mobile == "13800000002" {
				return errInjected
			}
			return nil
		}
		defer func() { x.fail = nil }()
		recs := []*schema.SMS{msg("13800000002", t0, 0), msg("13800000003", t0, 0), msg("13800000005", t0, 0)}
		results, err := r.PutBatch(ctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) || !reflect.DeepEqual(be.Indexes(), []int{0, 2}) {
			t.Fatalf("PutBatch = %v, want records 0 (index) and 2 (data) failed", err)
		}
		if !errors.Is(results[0], dao.ErrIndex) || errors.Is(results[2], dao.ErrIndex) || !errors.Is(results[2], errInjected) {
			t.Errorf("results %v", results)
		}
		want := []string{"index 13800000003", "index 13800000005", "data 13800000003"}
		if !reflect.DeepEqual(x.log, want) {
			t.Errorf("log %q, want %q", x.log, want)
		}
		if _, ok, _ := r.Get(ctx, recs[0]); ok {
			t.Error("the data row of a record whose index write failed was written")
		}
	})
	t.Run("an index check rejects before any write", func(t *testing.T) {
		x.log = nil
		x.reject = func(v *schema.SMS) error {
			if v.Account == "acct-09" {
				return dao.Invalid("account", "not indexable")
			}
			return nil
		}
		defer func() { x.reject = nil }()
		_, err := r.PutBatch(ctx, []*schema.SMS{msg("13800000008", t0, 0), msg("13800000009", t0, 0)})
		var ve *dao.ValidationError
		if !errors.As(err, &ve) || ve.Field != "account" {
			t.Fatalf("PutBatch = %v, want a *ValidationError on account", err)
		}
		if len(x.log) != 0 {
			t.Errorf("log %q, want nothing written", x.log)
		}
	})
	t.Run("delete removes the data row first", func(t *testing.T) {
		x.log = nil
		m := msg("13800000001", t0, 0)
		if err := r.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
		if want := []string{"unindex 13800000001"}; !reflect.DeepEqual(x.log, want) {
			t.Errorf("log %q, want %q", x.log, want)
		}
		if _, ok, _ := r.Get(ctx, m); ok {
			t.Error("row still there")
		}
	})
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}
