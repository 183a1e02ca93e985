package index

import (
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"slices"

	"github.com/hbkit/hbkit/schema"
)

// Digest is what the spans of a verify that reads neither table from the
// other (Span.Digest) add up: per bucket, at 2b the count and at 2b+1 the
// sum of the fingerprints of the entries the data rows derive, less those
// of the entries the index tables hold. Digests add (Add) across spans,
// workers and processes; a bucket that sums to zero over every span of
// both tables holds no missing, orphaned or stale entry, except with
// probability about 2^-64 per damaged bucket (two sets of 64-bit
// fingerprints of equal size and equal sum). An entry is in bucket
// Bucket(index position, entry key, qualifier) mod the bucket count:
// changing that hash or the fingerprint's makes digests of older runs
// incomparable.
type Digest []int64

// Add adds d to x, which it returns, grown to d's length if shorter.
func (x Digest) Add(d Digest) Digest {
	if len(x) < len(d) {
		x = append(x, make(Digest, len(d)-len(x))...)
	}
	for i, v := range d {
		x[i] += v
	}
	return x
}

// Differing returns the buckets of x whose count or sum is not zero.
func (x Digest) Differing() []int {
	var out []int
	for b := 0; 2*b+1 < len(x); b++ {
		if x[2*b] != 0 || x[2*b+1] != 0 {
			out = append(out, b)
		}
	}
	return out
}

// digestBucket is the bucket of entry (key, qual) of index i among p.
func digestBucket(i int, key, qual []byte, p int) int {
	h := fnv.New64a()
	writeField(h, []byte{byte(i)})
	writeField(h, key)
	writeField(h, qual)
	return int(h.Sum64() % uint64(p))
}

type byteWriter interface{ Write([]byte) (int, error) }

// writeField writes b to h, length first, so that fields never run into
// each other.
func writeField(h byteWriter, b []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// fingerprint hashes entry (key, qual) of index i with cells, in any
// order; poison gives another fingerprint, for an entry that cannot
// match (unverified, or of a row that derives no key).
func fingerprint(i int, key, qual []byte, cells []schema.Cell, poison bool) uint64 {
	cs := slices.Clone(cells)
	slices.SortFunc(cs, func(a, b schema.Cell) int {
		return cmp.Or(cmp.Compare(a.Family, b.Family), cmp.Compare(a.Qualifier, b.Qualifier), slices.Compare(a.Value, b.Value))
	})
	h := fnv.New64a()
	writeField(h, []byte{byte(i)})
	writeField(h, key)
	writeField(h, qual)
	for _, c := range cs {
		writeField(h, []byte(c.Family))
		writeField(h, []byte(c.Qualifier))
		writeField(h, c.Value)
	}
	fp := h.Sum64()
	if poison {
		fp = ^fp
	}
	return fp
}

// addEntry adds (sign +1, a derived entry) or takes off (sign -1, a
// stored one) an entry's fingerprint to d's bucket.
func (d Digest) addEntry(sign int64, i int, key, qual []byte, fp uint64) {
	b := digestBucket(i, key, qual, len(d)/2)
	d[2*b] += sign
	d[2*b+1] += sign * int64(fp) // wraps: sums are mod 2^64
}

// digestRows adds to d the entries the live rows derive for the indexes
// at ix, as judge would expect to find them.
func (t *Table[T]) digestRows(d Digest, live []checkedRow[T], ix []int) {
	for _, r := range live {
		for _, i := range ix {
			key, qual := t.digestKey(r, i)
			cells := r.enc.Entries[i].Cells
			if t.ixs[i].inv {
				cells = nil
			}
			poison := r.d.derived[i] == nil // no entry can be valid
			d.addEntry(1, i, key, qual, fingerprint(i, key, qual, cells, poison))
		}
	}
}

// digestEntries takes off d the entries es of index i as stored: the
// cells judge compares, and poisoned when the entry is ours and
// unverified in a mode that verifies (judge counts it missing).
func (t *Table[T]) digestEntries(d Digest, i int, es []*entry) {
	s := t.ixs[i]
	for _, e := range es {
		poison := e.rawState != nil && e.status != statusVerified && t.verifies()
		var cells []schema.Cell
		if !s.inv {
			cells = slices.DeleteFunc(slices.Clone(e.cells), func(c schema.Cell) bool {
				return c.Family != s.fam || c.Qualifier != s.rowQ && !slices.ContainsFunc(s.carried, func(k schema.ColumnInfo) bool { return k.Qualifier == c.Qualifier })
			})
		}
		d.addEntry(-1, i, e.key, e.qual, fingerprint(i, e.key, e.qual, cells, poison))
	}
}

// neededIn counts the entries the live rows need for the indexes at ix
// that fall in the buckets of only.
func (t *Table[T]) neededIn(live []checkedRow[T], ix []int, only []bool) int64 {
	var n int64
	for _, r := range live {
		for _, i := range ix {
			key, qual := t.digestKey(r, i)
			if only[digestBucket(i, key, qual, len(only))] {
				n++
			}
		}
	}
	return n
}

// digestKey is the identity of the entry of index i that live row r
// needs: the key its record derives (else the one it encodes) and, for an
// inverted index, the qualifier.
func (t *Table[T]) digestKey(r checkedRow[T], i int) (key, qual []byte) {
	e := &r.enc.Entries[i]
	if key = r.d.derived[i]; key == nil {
		key = e.Key
	}
	if t.ixs[i].inv {
		qual = []byte(e.Cells[0].Qualifier)
	}
	return key, qual
}
