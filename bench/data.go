package bench

import "math/rand/v2"

// KeyLength is the width of PE's row keys (its ROW_LENGTH).
const KeyLength = 26

// AppendKey appends the row key of row number n as PerformanceEvaluation
// formats it: the absolute value of n in KeyLength decimal digits,
// zero-padded on the left (digits beyond KeyLength are dropped, as PE
// drops them). Keys sort in the order of their numbers.
func AppendKey(dst []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		u = uint64(-n) // math.MinInt64 stays itself, as Math.abs leaves it
	}
	start := len(dst)
	dst = append(dst, make([]byte, KeyLength)...)
	b := dst[start:]
	for i := KeyLength - 1; i >= 0; i-- {
		b[i] = byte('0' + u%10)
		u /= 10
	}
	return dst
}

// Key returns the row key of row number n (see AppendKey).
func Key(n int64) []byte { return AppendKey(make([]byte, 0, KeyLength), n) }

// fillValue fills b the way PE's generateData does: runs of eight equal
// random capital letters, the tail (up to eight bytes) one more letter.
// The values compress like PE's.
func fillValue(r *rand.Rand, b []byte) {
	i := 0
	for ; i < len(b)-8; i += 8 {
		c := byte('A' + r.IntN(26))
		for j := i; j < i+8; j++ {
			b[j] = c
		}
	}
	c := byte('A' + r.IntN(26))
	for ; i < len(b); i++ {
		b[i] = c
	}
}

// randomRow draws a row number in [0, total), as PE's generateRandomRow.
func randomRow(r *rand.Rand, total int64) int64 { return r.Int64N(total) }
