package hbase

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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
	// startCode is meta's info:serverstartcode: with addr, it names the
	// server process (as in ZooKeeper's <parent>/rs). 0 if unknown.
	startCode uint64
	// seqNum is meta's info:seqnumDuringOpen: it grows with every
	// (re)open of the region, so of two locations of one region the
	// larger is the newer. 0 when meta does not say.
	seqNum uint64
	// opening: meta says the region is being opened on addr (info:sn of
	// a row in state OPENING); the server answers RegionOpeningException
	// until it is open.
	opening bool

	// gen is the cache generation at which the region was cached; set
	// under regionCache.mu before it is published.
	gen uint64
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

// holds reports whether r holds the target of a lookup (see locate).
func (r *region) holds(row []byte, before bool) bool {
	if before {
		return r.containsBefore(row)
	}
	return r.contains(row)
}

func (r *region) specifier() *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: r.name}
}

func (r *region) id() uint64 { return r.info.GetRegionId() }

// sameLocation reports whether a and b are the same region at the same
// server, as meta described it at the same open.
func sameLocation(a, b *region) bool {
	return a.addr == b.addr && a.seqNum == b.seqNum && a.opening == b.opening && bytes.Equal(a.name, b.name)
}

// newer compares two views of overlapping key ranges: +1 if a is newer
// than b, -1 if older, 0 if neither is (the same region at the same
// open). A region created later (a split daughter, a merged region) has a
// larger region id; a region opened again has a larger open sequence
// number; an open region is newer than the same region still opening.
func newer(a, b *region) int {
	switch ia, ib := a.id(), b.id(); {
	case ia > ib:
		return 1
	case ia < ib:
		return -1
	}
	switch {
	case a.seqNum > b.seqNum:
		return 1
	case a.seqNum < b.seqNum:
		return -1
	case a.opening != b.opening:
		if b.opening {
			return 1
		}
		return -1
	}
	return 0
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

// regionCache maps (table, start key) to the cached region, and keeps
// what locate needs to share lookups and to pace them (locate.go): the
// lookups in flight, the locations that failed recently, and the state of
// hbase:meta itself. Each table's regions are kept sorted by start key and
// never overlap.
//
// Every change to the cache draws a new generation number. A lookup
// remembers the generation at which it started, so that its answer, read
// from meta at some unknown moment after that, never replaces an entry
// cached later from fresher information (see admit).
type regionCache struct {
	mu     sync.RWMutex
	tables map[string]*tableCache // guarded by mu
	gen    uint64                 // guarded by mu; last generation drawn

	meta    metaState               // guarded by mu
	watches map[string]*serverWatch // guarded by mu; by server name

	// someFailed is set while some table's failed list may be non-empty,
	// so that answered costs nothing otherwise.
	someFailed atomic.Bool

	metaZK  addrFlight // coalesces ZooKeeper reads of meta's location
	loads   loadStats  // the servers' load statistics (loadstats.go)
	lookups atomic.Int64
	// onLookup, if set (by tests, before use), sees the outcome of every
	// meta lookup: the region found, or the error.
	onLookup func(table string, row []byte, before bool, r *region, err error)
	// onFailure, if set (by tests, before use), sees every failure of a
	// cached region that invalidates it.
	onFailure func(r *region, err error)
}

// tableCache is the cache of one table.
type tableCache struct {
	regions []*region  // sorted by start, non-overlapping
	failed  []*failure // locations that failed recently
	flights []*flight  // lookups in flight
	// resetGen is the generation of the last dropTable: answers of
	// lookups started before it are not cached.
	resetGen uint64
}

// failure remembers a cached location that failed (a connection error,
// NotServingRegion, ...): lookups that keep returning it (meta has not
// caught up yet) are paced, see locate.
type failure struct {
	name  []byte // the region
	addr  string // where it failed
	seq   uint64 // the region's open sequence number there
	start []byte // the region's key range
	end   []byte
	gen   uint64    // generation of the last failure
	last  time.Time // time of the last failure or stale answer
	stale int       // lookups that answered this same location since it failed
	until time.Time // no lookup of the range before then
	err   error     // the last error, for callers that cannot wait
	// down: the server refused the connection or said it is stopping;
	// startCode names that process. Once meta has answered the same
	// location again, watch (if set) holds the next lookup until the
	// server has left ZooKeeper, when the master starts to reassign.
	down      bool
	startCode uint64
	watch     *serverWatch
}

func (f *failure) holds(row []byte, before bool) bool {
	r := region{start: f.start, end: f.end}
	return r.holds(row, before)
}

// metaState paces lookups while hbase:meta cannot be read.
type metaState struct {
	fails int       // consecutive failed meta reads
	until time.Time // no meta read before then
	err   error     // the last failure
}

func newRegionCache() *regionCache { return &regionCache{tables: make(map[string]*tableCache)} }

// table returns the cache of table, creating it; mu is held for writing.
func (rc *regionCache) table(name string) *tableCache {
	tc := rc.tables[name]
	if tc == nil {
		tc = &tableCache{}
		rc.tables[name] = tc
	}
	return tc
}

// nextGen draws a generation number; mu is held for writing.
func (rc *regionCache) nextGen() uint64 {
	rc.gen++
	return rc.gen
}

// get returns the cached region holding row, or nil.
func (rc *regionCache) get(table string, row []byte) *region {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	if tc := rc.tables[table]; tc != nil {
		return tc.get(row)
	}
	return nil
}

func (tc *tableCache) get(row []byte) *region {
	rs := tc.regions
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
	if tc := rc.tables[table]; tc != nil {
		return tc.getBefore(row)
	}
	return nil
}

func (tc *tableCache) getBefore(row []byte) *region {
	rs := tc.regions
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

func (tc *tableCache) lookup(row []byte, before bool) *region {
	if before {
		return tc.getBefore(row)
	}
	return tc.get(row)
}

// add caches r unconditionally, evicting the regions it overlaps.
func (rc *regionCache) add(r *region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.put(rc.table(r.table), r)
}

// put caches r in tc, evicting the regions it overlaps; mu is held for
// writing.
func (rc *regionCache) put(tc *tableCache, r *region) {
	r.gen = rc.nextGen()
	rs := tc.regions
	out := make([]*region, 0, len(rs)+1)
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
	tc.regions = out
}

// admitResult is what admit did with a region read from meta.
type admitResult int

const (
	admitted   admitResult = iota // cached (or an identical entry was)
	superseded                    // the cache holds newer information
	predates                      // the location failed after the lookup started
)

// admit caches r, read from meta by a lookup that started at generation
// startGen, unless the cache knows better: an overlapping entry that is
// newer (newer), or as new but cached after the lookup started (a
// RegionMovedException redirect, a fresher lookup); or a failure of the
// same location recorded after the lookup started. It returns the cached
// entry for r's range (r itself, or an identical entry already cached).
// mu is held for writing.
func (rc *regionCache) admit(r *region, startGen uint64) (*region, admitResult) {
	tc := rc.table(r.table)
	if startGen < tc.resetGen {
		return nil, superseded
	}
	for _, f := range tc.failed {
		if f.gen > startGen && f.is(r) {
			return nil, predates
		}
	}
	for _, o := range tc.regions {
		if !overlaps(o, r) {
			continue
		}
		if sameLocation(o, r) {
			// The same region has the same range: o is the only overlap.
			return o, admitted
		}
		if n := newer(r, o); n < 0 || (n == 0 && o.gen > startGen) {
			return nil, superseded
		}
	}
	rc.put(tc, r)
	return r, admitted
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
	rc.removeLocked(r)
}

func (rc *regionCache) removeLocked(r *region) bool {
	tc := rc.tables[r.table]
	if tc == nil {
		return false
	}
	i := slices.Index(tc.regions, r)
	if i < 0 {
		return false
	}
	tc.regions = slices.Delete(slices.Clone(tc.regions), i, i+1)
	rc.nextGen()
	return true
}

// invalidate evicts r after a call to it failed with err in a way that
// says the region may no longer be there (NotServingRegion, a broken
// connection, ...), and records the failure so that lookups answering
// the same location again are paced (see locate). Only that one entry is
// evicted: other regions of the same server are looked up when they fail
// themselves. If r was no longer cached (another caller's failure evicted
// it, or a fresher entry replaced it), only the failure record learns
// about err. It returns a watch of the server to start, if one is needed
// (see failure.down).
func (rc *regionCache) invalidate(r *region, err error, now time.Time, p pacing) *serverWatch {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	tc := rc.tables[r.table]
	if tc == nil {
		return nil
	}
	f := tc.failure(r)
	removed := rc.removeLocked(r)
	if f == nil {
		if !removed {
			return nil
		}
		f = &failure{name: r.name, addr: r.addr, seq: r.seqNum, start: r.start, end: r.end, startCode: r.startCode}
		tc.failed = append(tc.failed, f)
		rc.someFailed.Store(true)
	}
	f.last = now
	if removed {
		f.gen, f.err = rc.gen, err
	}
	f.down = f.down || serverDown(err)
	if f.stale > 0 {
		return rc.watchFor(f, p)
	}
	return nil
}

// watchFor attaches to f, a failure of a server that is down and that meta
// still gives, the watch of that server's registration, and returns it
// if it is new and must be started. mu is held for writing.
func (rc *regionCache) watchFor(f *failure, p pacing) *serverWatch {
	if !f.down || !p.canWatch {
		return nil
	}
	if w := f.watch; w != nil && (!w.finished() || w.gone) {
		return nil
	}
	key := f.addr + "," + strconv.FormatUint(f.startCode, 10)
	if w := rc.watches[key]; w != nil {
		f.watch = w
		return nil
	}
	if rc.watches == nil {
		rc.watches = make(map[string]*serverWatch)
	}
	w := &serverWatch{key: key, addr: f.addr, startCode: f.startCode, done: make(chan struct{})}
	rc.watches[key] = w
	f.watch = w
	return w
}

// failure returns the failure record of r's location, or nil.
func (tc *tableCache) failure(r *region) *failure {
	for _, f := range tc.failed {
		if f.is(r) {
			return f
		}
	}
	return nil
}

// is reports whether r is the location that failed.
func (f *failure) is(r *region) bool {
	return f.addr == r.addr && f.seq == r.seqNum && bytes.Equal(f.name, r.name)
}

// moved replaces r by a copy hosted at addr (RegionMovedException).
func (rc *regionCache) moved(r *region, addr string) *region {
	n := *r
	n.addr = addr
	n.opening = false
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if tc := rc.tables[r.table]; tc != nil {
		if i := slices.Index(tc.regions, r); i >= 0 {
			n.gen = rc.nextGen()
			rs := slices.Clone(tc.regions)
			rs[i] = &n
			tc.regions = rs
		}
	}
	return &n
}

// removeServer evicts every region hosted at addr.
func (rc *regionCache) removeServer(addr string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, tc := range rc.tables {
		if slices.ContainsFunc(tc.regions, func(r *region) bool { return r.addr == addr }) {
			tc.regions = slices.DeleteFunc(slices.Clone(tc.regions), func(r *region) bool { return r.addr == addr })
			rc.nextGen()
		}
	}
}

// dropTable forgets every region of table (after it was deleted,
// truncated, or not found). Lookups in flight finish, but their answers
// are not cached.
func (rc *regionCache) dropTable(table string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	tc := rc.table(table)
	tc.regions, tc.failed = nil, nil
	tc.resetGen = rc.nextGen()
}

// answered forgets the failure of r's location recorded before since, the
// time a call that r's server has now answered was sent: the server is
// up (it answered after a redial), so lookups of r's range are paced no
// longer, and a later failure starts the pacing afresh instead of
// doubling a hold. Failures whose server is being watched are kept. It
// costs an atomic load while no location has failed.
func (rc *regionCache) answered(r *region, since time.Time) {
	if r == nil || !rc.someFailed.Load() {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if tc := rc.tables[r.table]; tc != nil && tc.failure(r) != nil {
		tc.failed = slices.DeleteFunc(slices.Clone(tc.failed), func(f *failure) bool {
			return f.is(r) && f.last.Before(since) && (f.watch == nil || f.watch.finished())
		})
	}
	for _, tc := range rc.tables {
		if len(tc.failed) > 0 {
			return
		}
	}
	rc.someFailed.Store(false)
}

// encodedName is the last part of the region's name ("table,start,id.
// encoded."), the hash HBase's logs and UI name a region by: unlike the
// whole name, it holds no row key.
func (r *region) encodedName() string {
	n := bytes.TrimSuffix(r.name, []byte("."))
	if i := bytes.LastIndexByte(n, '.'); i >= 0 {
		return string(n[i+1:])
	}
	return strconv.FormatUint(r.info.GetRegionId(), 10)
}
