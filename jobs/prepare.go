package jobs

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// samplesPerRegion is how many sampled keys PrepareTarget aims at per
// target region (at least minSamples in all).
const (
	samplesPerRegion = 200
	minSamples       = 2000
)

// PrepareTarget creates the target table of a copy of source (and its
// index tables), pre-split into regions regions at quantiles of a sample
// of the source's records re-keyed by target, before anything is written
// (seed 003's move "to a new table with more pre-split regions"). The
// target's stored document is target with these split keys (hex_keys), so
// later tools read both the layout and the split from the table.
//
// The sample is every k-th row of one scan of the source, k doubling as
// the sample grows past twice its aim, so it is spread evenly over the
// whole table in one pass: key-only (FirstKeyOnlyFilter, KeyOnlyFilter)
// when the target key is computed from the source key, whole rows
// otherwise. It returns the split keys. An existing target is checked
// like admin.EnsureTables checks any table: other splits are drift.
func PrepareTarget(ctx context.Context, c Client, a admin.Client, source string, target schema.Document, regions int) ([][]byte, error) {
	if regions < 1 {
		return nil, fmt.Errorf("%w: PrepareTarget: %d regions", ErrSpec, regions)
	}
	if splits, ok, err := existingSplits(ctx, c, a, target.Name); err != nil || ok {
		return splits, err
	}
	src, err := tableDocument(ctx, c, source)
	if err != nil {
		return nil, err
	}
	cp, err := dao.NewCopier(c, dao.CopySpec{Source: src, Target: target, SourceTable: source})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	sample, err := sampleKeys(ctx, c, cp, max(minSamples, samplesPerRegion*regions))
	if err != nil {
		return nil, err
	}
	splits := Quantiles(sample, regions)
	doc := target
	doc.Splits = &schema.DocSplits{HexKeys: make([]string, len(splits))}
	for i, k := range splits {
		doc.Splits.HexKeys[i] = hex.EncodeToString(k)
	}
	if len(splits) == 0 {
		doc.Splits = nil
	}
	t, err := schema.Open(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: target document: %w", ErrSpec, err)
	}
	ad, err := admin.New(a)
	if err != nil {
		return nil, err
	}
	if _, err := ad.EnsureTables(ctx, admin.WithIndexes(t)...); err != nil {
		return nil, fmt.Errorf("jobs: create %s: %w", doc.Name, err)
	}
	return splits, nil
}

// existingSplits returns the region boundaries of table when it exists.
func existingSplits(ctx context.Context, c Client, a admin.Client, table string) ([][]byte, bool, error) {
	ok, err := a.TableExists(ctx, table)
	if err != nil || !ok {
		return nil, false, err
	}
	regions, err := c.TableRegions(ctx, table)
	if err != nil {
		return nil, false, fmt.Errorf("jobs: regions of %s: %w", table, err)
	}
	var out [][]byte
	for _, r := range regions {
		if len(r.StartKey) > 0 {
			out = append(out, r.StartKey)
		}
	}
	return out, true, nil
}

// sampleKeys returns target keys of about aim to 2*aim records of the
// source, evenly spaced in its key order.
func sampleKeys(ctx context.Context, c Client, cp *dao.Copier, aim int) ([][]byte, error) {
	scan := &hbapi.Scan{Table: cp.SourceTable(), Caching: 5000}
	if cp.ByKey() {
		scan.Filter = &hbapi.FilterList{Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}}
	}
	var out [][]byte
	k, n := 1, 0
	for res, err := range hbapi.ScanAll(ctx, c, scan) {
		if err != nil {
			return nil, fmt.Errorf("jobs: sample %s: %w", cp.SourceTable(), err)
		}
		n++
		if (n-1)%k != 0 {
			continue
		}
		var key []byte
		live := true
		if cp.ByKey() {
			key, err = cp.TargetKey(nil, res.Row())
		} else {
			key, live, err = cp.TargetRowKey(res)
		}
		if err != nil || !live {
			continue // an undecodable row or a tombstone: the copy skips it too
		}
		if out = append(out, key); len(out) >= 2*aim {
			// Keep the rows at multiples of 2k: every other one.
			for i := range len(out) / 2 {
				out[i] = out[2*i]
			}
			out, k = out[:len(out)/2], 2*k
		}
	}
	return out, nil
}

// Quantiles returns the split keys that cut sample into regions parts of
// (nearly) equal size: at most regions-1 keys, strictly ascending and not
// empty (fewer when the sample has fewer distinct keys).
func Quantiles(sample [][]byte, regions int) [][]byte {
	s := slices.Clone(sample)
	slices.SortFunc(s, bytes.Compare)
	s = slices.CompactFunc(s, bytes.Equal)
	var out [][]byte
	for i := 1; i < regions && len(s) > 0; i++ {
		k := s[i*len(s)/regions]
		if len(k) == 0 || len(out) > 0 && bytes.Compare(k, out[len(out)-1]) <= 0 {
			continue
		}
		out = append(out, k)
	}
	return out
}
