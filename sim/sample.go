package sim

import (
	"encoding/binary"
	"math/bits"
)

// keySample is a uniform sample of the keys written to a region, kept to
// find the region's midpoint when it splits. It is a threshold sample over
// a hash of the key: it holds exactly the region's keys whose hash is
// below tau, at most k of them, lowering tau when it would hold more.
// Because membership depends only on the key, a split hands each daughter
// exactly the sample it would have had on its own, and a region keeps a
// uniform sample of all its rows, old and new, whatever the order of the
// writes (reservoir sampling would favour the keys written after a split).
type keySample struct {
	entries []sampledKey // a max-heap on hash
	tau     uint64       // when bounded, the keys hashing below tau are in the sample
	bounded bool         // false until the sample first overflows
}

type sampledKey struct {
	hash uint64
	key  []byte
}

// add offers a key with its hash; k is the sample's capacity. Keys are
// copied; once the sample is full, the evicted entry's buffer is reused.
func (s *keySample) add(h uint64, key []byte, k int) {
	if s.bounded && h >= s.tau {
		return
	}
	if len(s.entries) < k {
		s.entries = append(s.entries, sampledKey{hash: h, key: append([]byte(nil), key...)})
		s.up(len(s.entries) - 1)
		return
	}
	top := &s.entries[0]
	if h >= top.hash {
		// Not among the k smallest: keys hashing at or above h are out.
		s.tau, s.bounded = h, true
		return
	}
	// Evict the largest hash; the sample is now the keys below it.
	s.tau, s.bounded = top.hash, true
	top.hash = h
	top.key = append(top.key[:0], key...)
	s.down(0)
}

func (s *keySample) heapify() {
	for i := len(s.entries)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
}

func (s *keySample) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if s.entries[p].hash >= s.entries[i].hash {
			return
		}
		s.entries[p], s.entries[i] = s.entries[i], s.entries[p]
		i = p
	}
}

func (s *keySample) down(i int) {
	n := len(s.entries)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && s.entries[r].hash > s.entries[l].hash {
			c = r
		}
		if s.entries[i].hash >= s.entries[c].hash {
			return
		}
		s.entries[i], s.entries[c] = s.entries[c], s.entries[i]
		i = c
	}
}

// hashKey is a seeded 64-bit hash of a key (8 bytes at a time, then the
// splitmix64 finaliser): deterministic across runs and machines.
func hashKey(seed uint64, key []byte) uint64 {
	h := seed ^ 0x9e3779b97f4a7c15 ^ uint64(len(key))*0xff51afd7ed558ccd
	for len(key) >= 8 {
		h = bits.RotateLeft64((h^binary.LittleEndian.Uint64(key))*0x87c37b91114253d5, 31) * 0x4cf5ad432745937f
		key = key[8:]
	}
	var tail uint64
	for i, c := range key {
		tail |= uint64(c) << (8 * i)
	}
	h ^= tail * 0x9e3779b97f4a7c15
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
