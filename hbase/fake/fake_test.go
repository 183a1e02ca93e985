package fake_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/hbase/fake"
)

func TestConformance(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("hbkit_conf"),
	})
}

// TestConformanceFixedClock runs the suite with a clock that never moves:
// server-assigned timestamps must still order writes.
func TestConformanceFixedClock(t *testing.T) {
	c, err := fake.New(fake.WithClock(func() time.Time { return time.UnixMilli(1_600_000_000_000) }))
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	conformance.Run(t, conformance.Harness{
		Data:  c,
		Admin: c,
		NewTableName: func(base string) string {
			return fmt.Sprintf("%s_%d", base, n.Add(1))
		},
	})
}

// TestScanBoundsRandom compares random scans of a pre-split table with a
// naive model: sort the keys, keep those within the bounds, trim to the
// limit.
func TestScanBoundsRandom(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	randKey := func() []byte {
		k := make([]byte, 1+rng.IntN(3))
		for i := range k {
			k[i] = "\x00ab\xff"[rng.IntN(4)]
		}
		return k
	}
	var splits [][]byte
	for range 4 {
		k := randKey()
		if !slices.ContainsFunc(splits, func(s []byte) bool { return bytes.Equal(s, k) }) {
			splits = append(splits, k)
		}
	}
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "f"}}}, splits); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for range 40 {
		k := randKey()
		if err := c.Put(ctx, &hbase.Put{Table: "t", Row: k, Values: map[string]map[string][]byte{"f": {"q": k}}}); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(keys, string(k)) {
			keys = append(keys, string(k))
		}
	}
	slices.Sort(keys)
	for i := range 300 {
		s := &hbase.Scan{Table: "t", Reversed: rng.IntN(2) == 0, Limit: rng.IntN(6)}
		if rng.IntN(3) > 0 {
			s.StartRow = randKey()
		}
		if rng.IntN(3) > 0 {
			s.StopRow = randKey()
		}
		var want []string
		for _, k := range keys {
			lo, hi := s.StartRow, s.StopRow
			if s.Reversed {
				if (len(lo) == 0 || k <= string(lo)) && (len(hi) == 0 || k > string(hi)) {
					want = append(want, k)
				}
			} else if (len(lo) == 0 || k >= string(lo)) && (len(hi) == 0 || k < string(hi)) {
				want = append(want, k)
			}
		}
		if s.Reversed {
			slices.Reverse(want)
		}
		if s.Limit > 0 && len(want) > s.Limit {
			want = want[:s.Limit]
		}
		var got []string
		for r, err := range hbase.ScanAll(ctx, c, s) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(r.Row()))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("scan %d %+v:\n\tgot  %q\n\twant %q", i, s, got, want)
		}
	}
}
