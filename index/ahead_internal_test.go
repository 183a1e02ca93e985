package index

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadAhead: batches are handled up to depth at once, in any order,
// and handed to done in the order scanned; an error from work, done or
// the scan stops the rest (done sees no batch after it) and every
// goroutine has returned when readAhead does.
func TestReadAhead(t *testing.T) {
	ctx := context.Background()
	scan := func(n int) func(context.Context, func(int) error) error {
		return func(ctx context.Context, emit func(int) error) error {
			for i := range n {
				if err := emit(i); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var inFlight, most atomic.Int32
	work := func(_ context.Context, b int) (int, error) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Duration(7-b%7) * time.Millisecond) // later batches finish first
		inFlight.Add(-1)
		return b * b, nil
	}
	var got []int
	if err := readAhead(ctx, 4, scan(40), work, func(b, r int) error {
		if r != b*b {
			t.Errorf("batch %d: result %d", b, r)
		}
		got = append(got, b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := 40; len(got) != want || !slices.IsSorted(got) {
		t.Errorf("done saw %v, want 0..39 in order", got)
	}
	if m := most.Load(); m < 2 || m > 4 {
		t.Errorf("at most %d batches in flight, want 2 to 4", m)
	}

	base := runtime.NumGoroutine()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		work func(context.Context, int) (int, error)
		done func(int, int) error
		scan func(context.Context, func(int) error) error
		last int // the last batch done may see
	}{
		{"work fails", func(_ context.Context, b int) (int, error) {
			if b == 5 {
				return 0, boom
			}
			return b, nil
		}, nil, scan(100), 4},
		{"done fails", func(_ context.Context, b int) (int, error) { return b, nil }, func(b, _ int) error {
			if b == 7 {
				return boom
			}
			return nil
		}, scan(100), 7},
		{"scan fails", func(_ context.Context, b int) (int, error) { return b, nil }, nil, func(ctx context.Context, emit func(int) error) error {
			for i := range 3 {
				if err := emit(i); err != nil {
					return err
				}
			}
			return boom
		}, 2},
	} {
		last := -1
		done := func(b, r int) error {
			last = b
			if tc.done != nil {
				return tc.done(b, r)
			}
			return nil
		}
		if err := readAhead(ctx, 4, tc.scan, tc.work, done); !errors.Is(err, boom) {
			t.Errorf("%s: %v, want boom", tc.name, err)
		}
		if last != tc.last {
			t.Errorf("%s: done saw batch %d last, want %d", tc.name, last, tc.last)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left running, %d before", n, base)
	}
}
