package jobs

import (
	"bytes"
	"context"
	"fmt"
	"math/big"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase/hbapi"
)

// DefaultUnitMB is the size of store files a unit covers at most, when
// the client reports region sizes: bigger regions are cut into several
// units.
const DefaultUnitMB = 1024

// PlanOption configures Plan.
type PlanOption func(*planOptions)

type planOptions struct {
	unitMB    int
	perRegion int
	loader    admin.RegionLoader
}

// WithUnitMB sets the store-file size a unit covers at most (default
// DefaultUnitMB). It applies when the region sizes are known: the
// client, or the loader of WithRegionLoader, is an admin.RegionLoader.
func WithUnitMB(mb int) PlanOption {
	return func(o *planOptions) { o.unitMB = mb }
}

// WithUnitsPerRegion cuts every region into at least n units (default 1):
// more units than regions, for a table of few regions and many workers.
func WithUnitsPerRegion(n int) PlanOption {
	return func(o *planOptions) { o.perRegion = n }
}

// WithRegionLoader sets where Plan reads region sizes (default: the
// client, when it is an admin.RegionLoader, as *hbase.Client is).
func WithRegionLoader(l admin.RegionLoader) PlanOption {
	return func(o *planOptions) { o.loader = l }
}

func (o *planOptions) validate() error {
	if o.unitMB <= 0 || o.perRegion <= 0 {
		return fmt.Errorf("%w: unit size %d MB, %d units per region", ErrSpec, o.unitMB, o.perRegion)
	}
	return nil
}

// Plan cuts the job into units: the regions of task's sources, in source
// order, a region cut further when it is bigger than the unit size (or
// WithUnitsPerRegion asks for more). Unit IDs are "u" and the unit's index
// in the plan, zero-padded, so that they sort in plan order.
func Plan(ctx context.Context, c Client, spec Spec, task Task, opts ...PlanOption) ([]Unit, error) {
	o := planOptions{unitMB: DefaultUnitMB, perRegion: 1}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.loader == nil {
		o.loader, _ = c.(admin.RegionLoader)
	}
	var units []Unit
	for _, table := range task.Sources() {
		ranges, err := tableRanges(ctx, c, table, o)
		if err != nil {
			return nil, fmt.Errorf("jobs: plan %s: %w", spec.ID(), err)
		}
		for _, r := range ranges {
			units = append(units, Unit{ID: planUnitID(len(units)), Table: table, Start: r[0], Stop: r[1]})
		}
	}
	return units, nil
}

func planUnitID(i int) string { return fmt.Sprintf("u%06d", i) }

// tableRanges returns the key ranges of table's units.
func tableRanges(ctx context.Context, c Client, table string, o planOptions) ([][2][]byte, error) {
	regions, err := c.TableRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int{}
	if o.loader != nil {
		loads, err := o.loader.RegionLoads(ctx, table)
		if err != nil {
			return nil, err
		}
		for _, l := range loads {
			sizes[string(l.RegionName)] = int(l.StoreFileSizeMB) + int(l.MemStoreSizeMB)
		}
	}
	var out [][2][]byte
	for _, r := range regions {
		parts := max(o.perRegion, (sizes[string(r.RegionName)]+o.unitMB-1)/o.unitMB)
		splits, err := sampleSplits(ctx, c, table, r.StartKey, r.EndKey, parts)
		if err != nil {
			return nil, err
		}
		start := r.StartKey
		for _, k := range splits {
			out = append(out, [2][]byte{start, k})
			start = k
		}
		out = append(out, [2][]byte{start, r.EndKey})
	}
	return out, nil
}

// sampleSplits returns up to parts-1 keys that cut [start, stop) into
// parts of about equal key space between its first and last rows (two
// one-row scans): cheap, and even for the hashed or salted keys hbkit's
// designs produce; a skewed key space gets uneven units.
func sampleSplits(ctx context.Context, c Client, table string, start, stop []byte, parts int) ([][]byte, error) {
	if parts < 2 {
		return nil, nil
	}
	first, err := edgeRow(ctx, c, &hbapi.Scan{Table: table, StartRow: start, StopRow: stop}, nil)
	if err != nil || first == nil {
		return nil, err
	}
	last, err := edgeRow(ctx, c, &hbapi.Scan{Table: table, StartRow: stop, StopRow: start, Reversed: true}, stop)
	if err != nil || last == nil {
		return nil, err
	}
	return interpolate(first, last, parts), nil
}

// edgeRow returns the first row key of scan other than skip, or nil.
func edgeRow(ctx context.Context, c Client, s *hbapi.Scan, skip []byte) ([]byte, error) {
	s.Limit, s.Caching = 2, 2
	s.Filter = &hbapi.FilterList{Op: hbapi.MustPassAll, Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}}
	for r, err := range hbapi.ScanAll(ctx, c, s) {
		if err != nil {
			return nil, err
		}
		if row := r.Row(); len(skip) == 0 || !bytes.Equal(row, skip) {
			return bytes.Clone(row), nil
		}
	}
	return nil, nil
}

// interpolate returns up to parts-1 increasing keys in (first, last],
// evenly spaced when keys are read as big-endian numbers of one length
// (one byte longer than the longer key, so that close keys still leave
// room between them), trailing zero bytes cut where the key stays past
// the one before it.
func interpolate(first, last []byte, parts int) [][]byte {
	n := max(len(first), len(last)) + 1
	pad := func(b []byte) *big.Int {
		return new(big.Int).SetBytes(append(bytes.Clone(b), make([]byte, n-len(b))...))
	}
	a, b := pad(first), pad(last)
	span := new(big.Int).Sub(b, a)
	var out [][]byte
	prev := first
	for i := 1; i < parts; i++ {
		v := new(big.Int).Mul(span, big.NewInt(int64(i)))
		v.Div(v, big.NewInt(int64(parts)))
		v.Add(v, a)
		k := trimZeros(v.FillBytes(make([]byte, n)), prev)
		if bytes.Compare(k, prev) > 0 && bytes.Compare(k, last) <= 0 {
			out = append(out, k)
			prev = k
		}
	}
	return out
}

// trimZeros returns k without its trailing zero bytes, or k itself when
// the trimmed key is not greater than prev.
func trimZeros(k, prev []byte) []byte {
	t := bytes.TrimRight(k, "\x00")
	if bytes.Compare(t, prev) > 0 {
		return t
	}
	return k
}
