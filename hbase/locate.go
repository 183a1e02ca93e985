package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// Region location: a row's region comes from the cache or from one
// reversed scan of hbase:meta (a lookup). Lookups are shared and paced;
// docs/region-location.md describes the rules and their measured effect:
//
//   - one lookup in flight per stretch of key space the cache does not
//     cover; callers in that stretch wait for it;
//   - one meta RPC per lookup, never retried inside (the caller's retry
//     loop retries); it caches up to lookupPrefetch regions;
//   - while meta cannot be read, no lookup starts before the backoff of
//     the meta failures, and ZooKeeper is read again once for all;
//   - a failed location that meta still gives is looked up again only
//     after a hold (relocateHoldFactor × the backoff base, doubling), or,
//     if its server is down, once the server has left ZooKeeper; once the
//     location answers again the failure is forgotten (answered), and an
//     answer merely lost on the way fails no location (regionFailed);
//   - an answer never replaces a newer cache entry (regionCache.admit).

const (
	// lookupPrefetch is the number of meta rows a lookup asks for: the
	// region holding the row and the ones before it (the Java client's
	// hbase.client.locate.prefetch.limit).
	lookupPrefetch = 10
	// relocateHoldFactor × the backoff base is the first hold of a range
	// whose failed location meta still gives.
	relocateHoldFactor = 10
	// maxLookAgain bounds how often one locate call looks again after
	// answers the cache already knew better than.
	maxLookAgain = 4
)

// Meta search-key suffixes (wire protocol reference, section 4.3).
const (
	metaNines  = "99999999999999"
	metaZeroes = "00000000000000"
)

// errLookAgain: the lookup's answer was not used (the cache knew better);
// look in the cache again.
var errLookAgain = errors.New("hbase: look again")

// metaLocateKey returns the start row of the reversed meta scan that finds
// the region holding row (before=false) or the region just before row
// (before=true; an empty row then means the table's last region).
func metaLocateKey(fq string, row []byte, before bool) []byte {
	if before && len(row) == 0 {
		return append([]byte(fq), 0)
	}
	// Keep the key within meta's row length limit.
	if max := MaxRowLength - len(fq) - 2 - len(metaNines); len(row) > max {
		row = row[:max]
	}
	k := make([]byte, 0, len(fq)+len(row)+2+len(metaNines))
	k = append(k, fq...)
	k = append(k, ',')
	k = append(k, row...)
	k = append(k, ',')
	if before {
		return append(k, metaZeroes...)
	}
	return append(k, metaNines...)
}

// locate returns the region of table (canonical name) holding row, from
// the cache or hbase:meta. With before, it returns the region holding the
// keys just before row instead (reversed scans), the last region when row
// is empty. It may wait, within ctx, for a lookup of another caller or
// for the pacing of lookups described above. Errors: ErrTableNotFound
// (wrapped) when meta has no region of the table; retryable errors while
// meta cannot be read or the region is unassigned or in transition; the
// context's error.
func (c *Client) locate(ctx context.Context, table string, row []byte, before bool) (*region, error) {
	rc := c.regions
	if r := rc.cached(table, row, before); r != nil {
		return r, nil
	}
	for again := 0; ; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := rc.plan(ctx, c, table, row, before, time.Now())
		switch {
		case p.r != nil:
			return p.r, nil
		case p.gone != nil:
			if err := waitFor(ctx, p.gone, p.err); err != nil {
				return nil, err
			}
			continue
		case !p.wait.IsZero():
			if err := sleepUntil(ctx, p.wait, p.err); err != nil {
				return nil, err
			}
			continue
		}
		r, err := rc.await(ctx, p.fl, row, before)
		if errors.Is(err, errLookAgain) {
			if again++; again > maxLookAgain {
				return nil, errRegionNotReady
			}
			continue
		}
		return r, err
	}
}

// cached returns the cached region for a lookup target, or nil.
func (rc *regionCache) cached(table string, row []byte, before bool) *region {
	if before {
		return rc.getBefore(table, row)
	}
	return rc.get(table, row)
}

// sleepUntil waits until t or the end of ctx. When ctx ends first it
// returns the context's error, with last (why the caller had to wait)
// for diagnosis.
func sleepUntil(ctx context.Context, t time.Time, last error) error {
	defer notePaced(ctx, time.Now())
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		if last == nil {
			return ctx.Err()
		}
		return &ctxError{ctx: ctx.Err(), last: convertError(last)}
	}
}

// waitFor waits until ch is closed or ctx ends, like sleepUntil.
func waitFor(ctx context.Context, ch <-chan struct{}, last error) error {
	defer notePaced(ctx, time.Now())
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		if last == nil {
			return ctx.Err()
		}
		return &ctxError{ctx: ctx.Err(), last: convertError(last)}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// flight is one lookup in flight, shared by the callers waiting for it.
type flight struct {
	tc       *tableCache
	row      []byte
	before   bool
	gap      keyGap // the uncached stretch the row was in
	startGen uint64 // cache generation when it started
	done     chan struct{}
	cancel   context.CancelFunc
	waiters  int     // guarded by regionCache.mu
	res      *region // set before done is closed
	err      error
}

// lookupPlan is what a caller of locate does next: use r, wait until
// wait, wait until gone is closed, or wait for the flight fl.
type lookupPlan struct {
	r    *region
	wait time.Time
	gone <-chan struct{}
	err  error // why it waits
	fl   *flight
}

// plan decides, under the cache's lock, what a caller looking for
// (table, row, before) does: the cache may hold it by now; a hold or the
// pacing of meta reads may make it wait; or it joins the lookup in flight
// in its gap, or starts one.
func (rc *regionCache) plan(ctx context.Context, c *Client, table string, row []byte, before bool, now time.Time) lookupPlan {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	tc := rc.table(table)
	if r := tc.lookup(row, before); r != nil {
		return lookupPlan{r: r}
	}
	var p lookupPlan
	pc := c.pacing()
	ttl := 2 * c.opts.backoffMax
	kept := tc.failed[:0:0]
	for _, f := range tc.failed {
		watching := f.watch != nil && !f.watch.finished()
		if now.Sub(f.last) > ttl && !f.until.After(now) && !watching {
			continue // forgotten
		}
		kept = append(kept, f)
		if !f.holds(row, before) {
			continue
		}
		if watching {
			// The server is still registered: the master has not
			// started to reassign its regions, meta will not change.
			p.gone, p.err = f.watch.done, f.err
			continue
		}
		until := f.until
		if w := f.watch; w != nil && w.gone {
			// Give the master time to reassign after the server left.
			until = later(until, w.goneAt.Add(pc.holdBase))
		}
		if until.After(now) && until.After(p.wait) {
			p.wait, p.err = until, f.err
		}
	}
	tc.failed = kept
	if p.gone != nil {
		return lookupPlan{gone: p.gone, err: p.err}
	}
	if rc.meta.until.After(now) && rc.meta.until.After(p.wait) {
		p.wait, p.err = rc.meta.until, rc.meta.err
	}
	if !p.wait.IsZero() {
		return p
	}
	gap := tc.gap(row, before)
	for _, fl := range tc.flights {
		if (fl.before == before && bytes.Equal(fl.row, row)) || fl.gap.overlaps(gap) {
			fl.waiters++
			return lookupPlan{fl: fl}
		}
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.retryBudget)
	fl := &flight{
		tc:       tc,
		row:      bytes.Clone(row),
		before:   before,
		gap:      gap,
		startGen: rc.gen,
		done:     make(chan struct{}),
		cancel:   cancel,
		waiters:  1,
	}
	tc.flights = append(tc.flights, fl)
	go c.fly(fctx, table, fl)
	return lookupPlan{fl: fl}
}

// fly runs the lookup of fl and hands its outcome to the waiters.
func (c *Client) fly(ctx context.Context, table string, fl *flight) {
	r, err := c.lookupOnce(ctx, table, fl.row, fl.before, fl.startGen)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		// The lookup's own bound, not a caller's context: retryable.
		err = &attemptTimeoutError{err: err}
	}
	rc := c.regions
	rc.mu.Lock()
	fl.tc.flights = slices.DeleteFunc(fl.tc.flights, func(o *flight) bool { return o == fl })
	fl.res, fl.err = r, err
	rc.mu.Unlock()
	close(fl.done)
	fl.cancel()
}

// await waits for fl. Its region is returned if it holds the caller's
// row; otherwise errLookAgain sends the caller back to the cache. A
// caller whose ctx ends leaves; the last one to leave cancels the lookup.
func (rc *regionCache) await(ctx context.Context, fl *flight, row []byte, before bool) (*region, error) {
	select {
	case <-fl.done:
	case <-ctx.Done():
		rc.mu.Lock()
		fl.waiters--
		if fl.waiters == 0 {
			// Nobody waits: stop it, and let the next caller start anew.
			fl.tc.flights = slices.DeleteFunc(fl.tc.flights, func(o *flight) bool { return o == fl })
			fl.cancel()
		}
		rc.mu.Unlock()
		return nil, ctx.Err()
	}
	if fl.err != nil {
		return nil, fl.err
	}
	if fl.res != nil && fl.res.holds(row, before) {
		return fl.res, nil
	}
	return nil, errLookAgain
}

// lookupOnce reads the region holding the target from hbase:meta, in one
// RPC, and caches it with the regions before it that the scan returned.
func (c *Client) lookupOnce(ctx context.Context, table string, row []byte, before bool, startGen uint64) (r *region, err error) {
	rc := c.regions
	rc.lookups.Add(1)
	if rc.onLookup != nil {
		defer func() { rc.onLookup(table, row, before, r, err) }()
	}
	key := metaLocateKey(table, row, before)
	req := &pb.ScanRequest{
		Region: metaSpecifier(),
		Scan: &pb.Scan{
			Column:         []*pb.Column{{Family: metaInfoFamily}},
			StartRow:       key,
			StopRow:        append([]byte(table), ",,"...),
			IncludeStopRow: proto.Bool(true),
			Reversed:       proto.Bool(true),
		},
		NumberOfRows:            proto.Uint32(lookupPrefetch),
		CloseScanner:            proto.Bool(true),
		ClientHandlesPartials:   proto.Bool(false),
		ClientHandlesHeartbeats: proto.Bool(true),
	}
	resp := new(pb.ScanResponse)
	err = c.metaOnce(ctx, func(ctx context.Context, addr string) error {
		return c.pool.Call(ctx, addr, rpc.ClientService, "Scan", req, resp, rpc.WithPriority(highQoS))
	})
	if err != nil {
		return nil, err
	}
	target, rest, err := pickRegions(resp.GetResults(), table, row, before)
	switch {
	case errors.Is(err, ErrTableNotFound):
		rc.dropTable(table)
		return nil, fmt.Errorf("hbase: %s: %w", table, ErrTableNotFound)
	case err != nil:
		return nil, err
	}
	r, ws, err := rc.learn(target, rest, startGen, time.Now(), c.pacing())
	for _, w := range ws {
		c.startWatch(w)
	}
	return r, err
}

// pacing is how lookups of failed locations are paced.
type pacing struct {
	holdBase time.Duration // the first hold
	holdMax  time.Duration // the longest
	canWatch bool          // the coordinator can watch region servers
}

// The longest hold is the backoff's maximum, but at most a quarter of the
// operation timeout: a hold longer than an operation leaves a call that
// meets it no attempt at all, and a location that failed by a stalled
// connection is most often right (make test-faults' latency scenario saw
// calls made seconds after the faults ended spend their whole 5 s waiting).
func (c *Client) pacing() pacing {
	_, ok := c.zk.(serverRegistry)
	holdBase := relocateHoldFactor * c.opts.backoffBase
	holdMax := max(holdBase, min(c.opts.backoffMax, c.opts.retryBudget/4))
	return pacing{holdBase: holdBase, holdMax: holdMax, canWatch: ok}
}

// hold is the hold after the n-th (1-based) answer that repeated a failed
// location: holdBase doubling, at most holdMax.
func (p pacing) hold(n int) time.Duration {
	d := p.holdBase
	for i := 1; i < n && d < p.holdMax; i++ {
		d *= 2
	}
	return min(d, p.holdMax)
}

// serverRegistry tells whether a region server is registered in
// ZooKeeper (*zk.Client does).
type serverRegistry interface {
	RegionServer(ctx context.Context, s zk.ServerName) (registered bool, changed <-chan struct{}, err error)
}

// maxGoneWait bounds how long a watch waits for a server to leave
// ZooKeeper; past it, lookups are paced by their holds alone.
const maxGoneWait = 3 * time.Minute

// serverWatch waits for a region server that refused connections (or said
// it is stopping) to leave ZooKeeper. done is closed when it has (gone is
// then set) or when the watch gave up.
type serverWatch struct {
	key       string // "host:port,startcode"
	addr      string
	startCode uint64
	done      chan struct{}
	gone      bool      // set before done is closed
	goneAt    time.Time // likewise
}

func (w *serverWatch) finished() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// startWatch runs w in a goroutine of its own: one ZooKeeper read of the
// registered servers, then one more each time they change, until the
// server is gone, maxGoneWait passes or the client is closed.
func (c *Client) startWatch(w *serverWatch) {
	reg, ok := c.zk.(serverRegistry)
	if !ok {
		close(w.done)
		return
	}
	host, port := splitHostPort(w.addr)
	sn := zk.ServerName{Host: host, Port: port, StartCode: w.startCode}
	go func() {
		defer func() {
			c.regions.mu.Lock()
			if c.regions.watches[w.key] == w {
				delete(c.regions.watches, w.key)
			}
			c.regions.mu.Unlock()
			close(w.done)
		}()
		deadline := time.NewTimer(maxGoneWait)
		defer deadline.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), c.opts.zkTimeout)
			registered, changed, err := reg.RegionServer(ctx, sn)
			cancel()
			if err == nil && !registered {
				w.gone, w.goneAt = true, time.Now()
				return
			}
			var retry <-chan time.Time
			if err != nil {
				t := time.NewTimer(relocateHoldFactor * c.opts.backoffBase)
				retry = t.C
				defer t.Stop()
			}
			select {
			case <-changed: // nil after an error
			case <-retry:
			case <-deadline.C:
				return
			case <-c.done:
				return
			}
		}
	}()
}

// serverDown reports whether err says the region server is gone: it
// refused the connection, or said it is stopping or aborting. A server
// that only stopped answering (a timeout) may come back and is not down.
func serverDown(err error) bool {
	var ce *rpc.ConnError
	if errors.As(err, &ce) {
		return errors.Is(ce.Err, syscall.ECONNREFUSED)
	}
	var re *rpc.RemoteError
	if errors.As(err, &re) {
		return re.Class == excRSStopped || re.Class == excRSAborted
	}
	return false
}

// learn caches what a lookup that started at generation startGen found:
// target, the region asked for, and rest, the regions before it (those
// still opening are not cached). If target is a location that failed
// since the lookup started, or the cache already knows better, it returns
// errLookAgain.
//
// The answer also tells about the recent failures in its range. Where
// meta still gives a location that failed (before the lookup started),
// the range is held: its next lookup waits for hold(n) after the n-th
// such answer. Target is still used (the failure may have been passing);
// the other regions of the answer are not cached then, their callers wait
// for the hold. Where meta gives another location, the failure is
// forgotten: meta moved on.
func (rc *regionCache) learn(target *region, rest []*region, startGen uint64, now time.Time, p pacing) (*region, []*serverWatch, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	got, res := rc.admit(target, startGen)
	if res != admitted {
		return nil, nil, errLookAgain
	}
	var watches []*serverWatch
	tc := rc.tables[target.table]
	seen := append([]*region{target}, rest...)
	tc.failed = slices.DeleteFunc(slices.Clone(tc.failed), func(f *failure) bool {
		if f.gen > startGen {
			return false // the answer may predate the failure
		}
		fr := &region{start: f.start, end: f.end}
		for _, x := range seen {
			if !overlaps(fr, x) {
				continue
			}
			if f.is(x) {
				f.stale++
				f.last = now
				f.until = now.Add(p.hold(f.stale))
				if w := rc.watchFor(f, p); w != nil {
					watches = append(watches, w)
				}
				return false
			}
			return true
		}
		return false
	})
	for _, r := range rest {
		if !r.opening && tc.failure(r) == nil {
			rc.admit(r, startGen)
		}
	}
	return got, watches, nil
}

// pickRegion chooses the answer among the rows of a reversed meta scan:
// the first one that is not a split parent or a replica. It returns
// errRegionNotReady (retryable) for holes, offline or unassigned regions,
// and ErrTableNotFound when no row belongs to the table.
func pickRegion(results []*pb.Result, table string, row []byte, before bool) (*region, error) {
	target, _, err := pickRegions(results, table, row, before)
	return target, err
}

// pickRegions is pickRegion that also returns rest: the usable regions
// among the rows after the answer (the regions before it), opening ones
// included.
func pickRegions(results []*pb.Result, table string, row []byte, before bool) (target *region, rest []*region, err error) {
	for _, res := range results {
		if len(res.GetCell()) == 0 {
			continue
		}
		m, err := decodeMetaRow(res.GetCell())
		if err != nil {
			return nil, nil, err
		}
		r := m.region
		if r.table != table {
			break
		}
		if r.info.GetSplit() || r.info.GetReplicaId() != 0 {
			continue
		}
		usable := !r.info.GetOffline()
		switch {
		case m.state == "OPENING" && m.target != "":
			// Being opened on info:sn; info:server still names the
			// server it was on. The new one answers RegionOpening until
			// the region is open: wait there, not on meta.
			r.addr, r.opening = m.target, true
		case !servedAt(m.state) || r.addr == "":
			usable = false
		}
		if target != nil {
			if usable {
				rest = append(rest, r)
			}
			continue
		}
		if !usable || !r.holds(row, before) {
			return nil, nil, errRegionNotReady
		}
		target = r
	}
	if target == nil {
		return nil, nil, ErrTableNotFound
	}
	return target, rest, nil
}

// servedAt reports whether a region in meta state state (info:state; empty
// in rows written before HBase 2) is served by the server in
// info:server. Regions being closed, split or merged still are, until
// the server says otherwise.
func servedAt(state string) bool {
	switch state {
	case "OPENING", "CLOSED", "OFFLINE", "FAILED_OPEN", "FAILED_CLOSE", "ABNORMALLY_CLOSED",
		"SPLIT", "MERGED", "SPLITTING_NEW", "MERGING_NEW", "PENDING_OPEN":
		return false
	}
	return true
}

// keyGap is a stretch of a table's key space that the cache does not
// cover, between two cached regions (or the ends of the table). Bounds
// are inclusive, to compare gaps conservatively.
type keyGap struct {
	lo, hi       []byte
	loInf, hiInf bool // -inf, +inf
}

// gap returns the uncached stretch holding the target of (row, before);
// the cache does not hold the target.
func (tc *tableCache) gap(row []byte, before bool) keyGap {
	rs := tc.regions
	g := keyGap{loInf: true, hiInf: true}
	if len(rs) == 0 {
		return g
	}
	var i int // index of the last region below the target, or -1
	if before && len(row) == 0 {
		i = len(rs) - 1
	} else {
		// The last region whose start <= row (< row when before).
		j, found := slices.BinarySearchFunc(rs, row, func(r *region, k []byte) int { return bytes.Compare(r.start, k) })
		i = j - 1
		if found && !before {
			i = j
		}
	}
	if i >= 0 && len(rs[i].end) > 0 {
		g.lo, g.loInf = rs[i].end, false
	}
	if i+1 < len(rs) {
		g.hi, g.hiInf = rs[i+1].start, false
	}
	return g
}

// overlaps reports whether two gaps share a key.
func (g keyGap) overlaps(o keyGap) bool {
	below := !g.hiInf && !o.loInf && bytes.Compare(g.hi, o.lo) < 0
	above := !g.loInf && !o.hiInf && bytes.Compare(o.hi, g.lo) < 0
	return !below && !above
}

// generation returns the cache's current generation, for a listing of
// meta about to start.
func (rc *regionCache) generation() uint64 {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	return rc.gen
}

// learnListing caches the regions of a listing of meta that started at
// generation startGen (see admit), leaving out the locations that failed
// recently.
func (rc *regionCache) learnListing(rs []*region, startGen uint64) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, r := range rs {
		if tc := rc.tables[r.table]; tc == nil || tc.failure(r) == nil {
			rc.admit(r, startGen)
		}
	}
}

// metaPaced reports whether reads of meta are being paced after failures.
func (rc *regionCache) metaPaced(now time.Time) bool {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	return rc.meta.until.After(now)
}

// regionFailed updates the cache after err from region r (nil if locating
// it failed), classified as kind, and returns how to retry: a region that
// may have moved is invalidated (that entry only), a RegionMovedException
// points the entry at the new server.
//
// An answer lost on the way (lostAnswer) says the server was up and took
// the request: the location stays, and the retry goes to it on a new
// connection. Should the server have gone, the redial fails and that
// failure relocates.
func (c *Client) regionFailed(r *region, err error, kind retryKind) retryKind {
	if r == nil {
		return kind
	}
	if kind == retryConn && lostAnswer(err) {
		return retryBackoff
	}
	invalidate := func() {
		c.opts.log().Debug("hbase: region location dropped", "table", r.table, "region", r.encodedName(), "server", r.addr, "error", err)
		if f := c.regions.onFailure; f != nil {
			f(r, err)
		}
		if w := c.regions.invalidate(r, err, time.Now(), c.pacing()); w != nil {
			c.startWatch(w)
		}
	}
	switch kind {
	case retryRelocate, retryConn:
		invalidate()
	case retryMoved:
		if addr, ok := movedTo(err); ok {
			c.opts.log().Info("hbase: region moved", "table", r.table, "region", r.encodedName(), "from", r.addr, "to", addr)
			c.regions.moved(r, addr)
		} else {
			invalidate()
			kind = retryRelocate
		}
	}
	return kind
}
