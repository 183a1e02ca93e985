package sim

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// The sample always holds exactly the keys hashing below its bound, at
// most k of them, and a split hands each side exactly its own keys.
func TestKeySample(t *testing.T) {
	const k = 16
	var s keySample
	var all [][]byte
	check := func(s *keySample, keys [][]byte) {
		t.Helper()
		if len(s.entries) > k {
			t.Fatalf("sample holds %d keys, capacity %d", len(s.entries), k)
		}
		var want [][]byte
		for _, key := range keys {
			if !s.bounded || hashKey(1, key) < s.tau {
				want = append(want, key)
			}
		}
		var got [][]byte
		for i, e := range s.entries {
			got = append(got, e.key)
			if e.hash != hashKey(1, e.key) {
				t.Fatalf("entry %d: stale hash", i)
			}
			if c := 2*i + 1; c < len(s.entries) && s.entries[c].hash > e.hash {
				t.Fatalf("heap order broken at %d", i)
			}
		}
		slices.SortFunc(want, bytes.Compare)
		slices.SortFunc(got, bytes.Compare)
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("sample %q, want the keys below the bound %q", got, want)
		}
	}
	for i := range 1000 {
		key := fmt.Appendf(nil, "key%05d", i)
		all = append(all, key)
		s.add(hashKey(1, key), key, k)
		check(&s, all)
	}
	if len(s.entries) < k/2 {
		t.Errorf("only %d keys sampled of 1000", len(s.entries))
	}
	// Split at key00500 as the simulator does.
	var left, right keySample
	left.tau, right.tau, left.bounded, right.bounded = s.tau, s.tau, s.bounded, s.bounded
	for _, e := range s.entries {
		if bytes.Compare(e.key, []byte("key00500")) < 0 {
			left.entries = append(left.entries, e)
		} else {
			right.entries = append(right.entries, e)
		}
	}
	left.heapify()
	right.heapify()
	check(&left, all[:500])
	check(&right, all[500:])
	for i := 1000; i < 1500; i++ {
		key := fmt.Appendf(nil, "key%05d", i)
		all = append(all, key)
		right.add(hashKey(1, key), key, k)
		check(&right, all[500:])
	}
}

func TestHashKeySpreads(t *testing.T) {
	var buckets [16]int
	for i := range 16000 {
		buckets[hashKey(7, fmt.Appendf(nil, "k%d", i))>>60]++
	}
	for b, n := range buckets {
		if n < 800 || n > 1200 {
			t.Errorf("bucket %d holds %d of 16000 hashes, want about 1000", b, n)
		}
	}
}
