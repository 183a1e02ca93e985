package kmerge_test

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hbkit/hbkit/index/kmerge"
)

// counted is a source of the numbers from, from+step, ... below stop
// that counts how many it produced.
func counted(from, step, stop int, n *atomic.Int64) kmerge.Source[int] {
	return func(ctx context.Context, emit func(int) bool) error {
		for v := from; v < stop; v += step {
			n.Add(1)
			if !emit(v) {
				return nil
			}
		}
		return nil
	}
}

func TestMergeOrdersAndStopsEarly(t *testing.T) {
	for _, tc := range []struct {
		name         string
		limit, chunk int
		take         int // elements the loop takes before it breaks (0: all)
		want         int // elements merged
	}{
		{name: "all", chunk: 7, want: 3000},
		{name: "limit", limit: 5, chunk: 5, want: 5},
		{name: "break", chunk: 4, take: 10, want: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srcs := []kmerge.Source[int]{counted(0, 3, 3000, &n), counted(1, 3, 3000, &n), counted(2, 3, 3000, &n)}
			var got []int
			for v, err := range kmerge.Merge(context.Background(), srcs, kmerge.Config[int]{Cmp: cmp.Compare[int], Conc: 2, Chunk: tc.chunk, Limit: tc.limit}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
				if len(got) == tc.take {
					break
				}
			}
			if len(got) != tc.want || !slices.IsSorted(got) || got[0] != 0 || got[len(got)-1] != tc.want-1 {
				t.Fatalf("merged %d elements %v..., want 0..%d in order", len(got), got[:min(len(got), 10)], tc.want-1)
			}
			// Each source reads at most three chunks ahead of the merger.
			if most := int64(tc.want + 3*3*tc.chunk); n.Load() > most {
				t.Errorf("sources produced %d elements for %d merged, want at most %d", n.Load(), tc.want, most)
			}
		})
	}
}

func TestMergeYieldsASourceError(t *testing.T) {
	boom := errors.New("boom")
	var n atomic.Int64
	failing := func(ctx context.Context, emit func(int) bool) error {
		emit(4)
		return boom
	}
	var got []int
	var last error
	for v, err := range kmerge.Merge(context.Background(), []kmerge.Source[int]{counted(0, 1, 10, &n), failing}, kmerge.Config[int]{Cmp: cmp.Compare[int], Conc: 2, Chunk: 3}) {
		if err != nil {
			last = err
			continue
		}
		got = append(got, v)
	}
	if !errors.Is(last, boom) {
		t.Fatalf("last error %v, want boom", last)
	}
	if !slices.IsSorted(got) || len(got) > 10 {
		t.Errorf("merged %v before the error", got)
	}
}
