package fake

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// table is one table: its descriptor, state, region boundaries and rows.
type table struct {
	name     hbapi.TableName
	desc     hbapi.TableDescriptor // as given, families sorted by name
	families map[string]familyConf
	enabled  bool
	splits   [][]byte // sorted region start keys after the first region
	regionID []int64  // len(splits)+1 region ids
	rows     map[string]*row
	keys     []string // sorted keys of rows
}

type familyConf struct {
	versions int
	ttlMs    int64 // 0: forever
}

func familyConfOf(f hbapi.FamilyDescriptor) familyConf {
	c := familyConf{versions: 1}
	if v, err := strconv.Atoi(f.Attributes["VERSIONS"]); err == nil && v > 0 {
		c.versions = v
	}
	if v, err := strconv.ParseInt(f.Attributes["TTL"], 10, 64); err == nil && v > 0 && v < 2147483647 {
		c.ttlMs = v * 1000
	}
	return c
}

// row holds every put and delete marker ever written to a row.
type row struct {
	cells []hbapi.Cell
}

func (t *table) row(key []byte, create bool) *row {
	r := t.rows[string(key)]
	if r == nil && create {
		r = &row{}
		t.rows[string(key)] = r
		i, _ := slices.BinarySearch(t.keys, string(key))
		t.keys = slices.Insert(t.keys, i, string(key))
	}
	return r
}

// add stores a cell (copying its bytes). A put with the same column and
// timestamp as an existing put replaces it, as in HBase.
func (r *row) add(c hbapi.Cell) {
	c = cloneCell(c)
	for i := range r.cells {
		o := &r.cells[i]
		if o.Type == c.Type && o.Timestamp == c.Timestamp &&
			bytes.Equal(o.Family, c.Family) && bytes.Equal(o.Qualifier, c.Qualifier) {
			o.Value = c.Value
			return
		}
	}
	r.cells = append(r.cells, c)
}

func cloneCell(c hbapi.Cell) hbapi.Cell {
	c.Row = bytes.Clone(c.Row)
	c.Family = bytes.Clone(c.Family)
	c.Qualifier = bytes.Clone(c.Qualifier)
	if c.Value != nil {
		c.Value = bytes.Clone(c.Value)
	} else if c.Type == hbapi.CellTypePut {
		c.Value = []byte{}
	}
	return c
}

type colKey struct{ family, qualifier string }

// visible returns the live puts of the row (not hidden by a delete marker,
// not expired, at most VERSIONS per column), sorted the HBase way: family,
// qualifier, timestamp descending. now is used for TTL.
func (t *table) visible(r *row, now int64) []hbapi.Cell {
	if r == nil {
		return nil
	}
	famDel := map[string]int64{}          // newest DeleteFamily marker per family
	famVer := map[string]map[int64]bool{} // DeleteFamilyVersion markers
	colDel := map[colKey]int64{}          // newest DeleteColumn marker per column
	colVer := map[colKey]map[int64]bool{} // Delete (one version) markers
	for _, c := range r.cells {
		f, k := string(c.Family), colKey{string(c.Family), string(c.Qualifier)}
		switch c.Type {
		case hbapi.CellTypeDeleteFamily:
			if v, ok := famDel[f]; !ok || c.Timestamp > v {
				famDel[f] = c.Timestamp
			}
		case hbapi.CellTypeDeleteFamilyVersion:
			if famVer[f] == nil {
				famVer[f] = map[int64]bool{}
			}
			famVer[f][c.Timestamp] = true
		case hbapi.CellTypeDeleteColumn:
			if v, ok := colDel[k]; !ok || c.Timestamp > v {
				colDel[k] = c.Timestamp
			}
		case hbapi.CellTypeDelete:
			if colVer[k] == nil {
				colVer[k] = map[int64]bool{}
			}
			colVer[k][c.Timestamp] = true
		}
	}
	var out []hbapi.Cell
	for _, c := range r.cells {
		if c.Type != hbapi.CellTypePut {
			continue
		}
		conf, ok := t.families[string(c.Family)]
		if !ok {
			continue // family dropped by ModifyTable
		}
		k := colKey{string(c.Family), string(c.Qualifier)}
		if v, ok := famDel[k.family]; ok && c.Timestamp <= v {
			continue
		}
		if famVer[k.family][c.Timestamp] {
			continue
		}
		if v, ok := colDel[k]; ok && c.Timestamp <= v {
			continue
		}
		if colVer[k][c.Timestamp] {
			continue
		}
		if conf.ttlMs > 0 && c.Timestamp < now-conf.ttlMs {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, hbapi.CompareCells)
	// Keep at most VERSIONS versions per column (what a major compaction
	// would leave).
	kept := out[:0]
	newestVersions(out, func(c hbapi.Cell) int { return t.families[string(c.Family)].versions },
		func(c hbapi.Cell) { kept = append(kept, c) })
	return kept
}

// regions returns the table's regions.
func (t *table) regions(server string) []hbapi.RegionInfo {
	out := make([]hbapi.RegionInfo, 0, len(t.splits)+1)
	for i := 0; i <= len(t.splits); i++ {
		var start, end []byte
		if i > 0 {
			start = bytes.Clone(t.splits[i-1])
		}
		if i < len(t.splits) {
			end = bytes.Clone(t.splits[i])
		}
		out = append(out, hbapi.RegionInfo{
			Table:      t.name.String(),
			StartKey:   start,
			EndKey:     end,
			Server:     server,
			RegionName: regionName(t.name, start, t.regionID[i]),
			ID:         t.regionID[i],
		})
	}
	return out
}
