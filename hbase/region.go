package hbase

import (
	"bytes"
	"slices"
	"sync"

	"github.com/hbkit/hbkit/internal/pb"
)

// region is one region of a user table as read from hbase:meta, with the
// server hosting it. It is immutable once cached: a move replaces it.
type region struct {
	info  *pb.RegionInfo // as read from meta (SplitRegion sends it back)
	table string         // canonical table name (TableName.String)
	name  []byte         // region name = meta row key, used verbatim
	start []byte         // inclusive; empty for the first region
	end   []byte         // exclusive; empty for the last region
	addr  string         // "host:port" of the region server
}

// contains reports whether row lies in [start, end).
func (r *region) contains(row []byte) bool {
	return bytes.Compare(row, r.start) >= 0 && (len(r.end) == 0 || bytes.Compare(row, r.end) < 0)
}

// containsBefore reports whether the region holds the keys just before
// row: start < row <= end (an empty end is +inf; an empty row means the
// end of the table, held by the last region).
func (r *region) containsBefore(row []byte) bool {
	if len(row) == 0 {
		return len(r.end) == 0
	}
	return bytes.Compare(r.start, row) < 0 && (len(r.end) == 0 || bytes.Compare(row, r.end) <= 0)
}

func (r *region) specifier() *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: r.name}
}

func (r *region) regionInfo() RegionInfo {
	return RegionInfo{
		Table:      r.table,
		StartKey:   r.start,
		EndKey:     r.end,
		Server:     r.addr,
		RegionName: r.name,
		ID:         int64(r.info.GetRegionId()),
	}
}

// regionCache maps (table, start key) to the cached region. Each table's
// regions are kept sorted by start key and never overlap: adding a region
// evicts the cached ones it overlaps (a split or merge happened).
type regionCache struct {
	mu     sync.RWMutex
	tables map[string][]*region // guarded by mu
}

func newRegionCache() *regionCache { return &regionCache{tables: make(map[string][]*region)} }

// get returns the cached region holding row, or nil.
func (rc *regionCache) get(table string, row []byte) *region {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	rs := rc.tables[table]
	// The last region whose start <= row.
	i, found := slices.BinarySearchFunc(rs, row, func(r *region, k []byte) int { return bytes.Compare(r.start, k) })
	if !found {
		i--
	}
	if i < 0 || i >= len(rs) || !rs[i].contains(row) {
		return nil
	}
	return rs[i]
}

// getBefore returns the cached region holding the keys just before row
// (see region.containsBefore), or nil.
func (rc *regionCache) getBefore(table string, row []byte) *region {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	rs := rc.tables[table]
	if len(rs) == 0 {
		return nil
	}
	if len(row) == 0 {
		if r := rs[len(rs)-1]; len(r.end) == 0 {
			return r
		}
		return nil
	}
	// The last region whose start < row.
	i, _ := slices.BinarySearchFunc(rs, row, func(r *region, k []byte) int { return bytes.Compare(r.start, k) })
	i--
	if i < 0 || !rs[i].containsBefore(row) {
		return nil
	}
	return rs[i]
}

// add caches r, evicting the regions it overlaps.
func (rc *regionCache) add(r *region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[r.table]
	out := rs[:0:0]
	out = slices.Grow(out, len(rs)+1)
	inserted := false
	for _, o := range rs {
		if overlaps(o, r) {
			continue
		}
		if !inserted && bytes.Compare(r.start, o.start) < 0 {
			out = append(out, r)
			inserted = true
		}
		out = append(out, o)
	}
	if !inserted {
		out = append(out, r)
	}
	rc.tables[r.table] = out
}

// overlaps reports whether [a.start, a.end) and [b.start, b.end) intersect.
func overlaps(a, b *region) bool {
	aBeforeB := len(a.end) != 0 && bytes.Compare(a.end, b.start) <= 0
	bBeforeA := len(b.end) != 0 && bytes.Compare(b.end, a.start) <= 0
	return !aBeforeB && !bBeforeA
}

// remove evicts r if it is still cached (a concurrent refresh may have
// replaced it already).
func (rc *regionCache) remove(r *region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[r.table]
	if i := slices.Index(rs, r); i >= 0 {
		rc.tables[r.table] = slices.Delete(slices.Clone(rs), i, i+1)
	}
}

// moved replaces r by a copy hosted at addr (RegionMovedException).
func (rc *regionCache) moved(r *region, addr string) *region {
	n := *r
	n.addr = addr
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[r.table]
	if i := slices.Index(rs, r); i >= 0 {
		rs = slices.Clone(rs)
		rs[i] = &n
		rc.tables[r.table] = rs
	}
	return &n
}

// removeServer evicts every region hosted at addr (the server's
// connection broke: its regions may be moving).
func (rc *regionCache) removeServer(addr string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for t, rs := range rc.tables {
		if slices.ContainsFunc(rs, func(r *region) bool { return r.addr == addr }) {
			rc.tables[t] = slices.DeleteFunc(slices.Clone(rs), func(r *region) bool { return r.addr == addr })
		}
	}
}

// dropTable forgets every region of table (after it was deleted,
// truncated, or not found).
func (rc *regionCache) dropTable(table string) {
	rc.mu.Lock()
	delete(rc.tables, table)
	rc.mu.Unlock()
}
