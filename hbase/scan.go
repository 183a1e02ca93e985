package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

const (
	// scanCloseTimeout bounds a best-effort close of a server-side
	// scanner.
	scanCloseTimeout = 5 * time.Second
	// abandonedScanWait bounds how long a scan RPC whose caller gave up
	// is still awaited, to close the scanner its answer leaves open.
	abandonedScanWait = time.Minute
	// deadlineSlack is how much later than its caller's a detached scan
	// call's context ends (see scanner.call).
	deadlineSlack = 20 * time.Millisecond
	// maxScanResultSize caps MaxResultSize well below the RPC frame
	// limit: the server overshoots the size by up to one cell.
	maxScanResultSize = rpc.DefaultMaxFrameSize / 2
	// minScanResultSize is the floor of a scanner's MaxResultSize after
	// answers cut off by the RPC timeout (see scanner.shrink).
	minScanResultSize = 16 << 10
)

// Scan opens a scanner. The first batch of rows is fetched before Scan
// returns, so errors such as a missing table or family are reported here.
// The scanner uses ctx for the whole scan.
func (c *Client) Scan(ctx context.Context, s *Scan) (_ Scanner, err error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "scan", s.Table)
	sc, err := c.newScanner(ctx, s, sp)
	if err != nil {
		sp.end(ctx, err)
		return nil, err
	}
	if !sc.fill() && sc.err != nil {
		err := sc.err
		sc.Close()
		return nil, err
	}
	return sc, nil
}

// scanMode says how the server's results become Results.
type scanMode uint8

const (
	wholeRows   scanMode = iota // join the parts of a row
	batchRows                   // Scan.Batch cells per Result
	partialRows                 // Scan.AllowPartial: results as they come
)

// scanner implements Scanner over the regions of a table (wire protocol
// reference, section 5.3).
//
// Every request says the client handles partial results and heartbeats:
// the server then bounds each call by time (about half the call's
// timeout or the scanner lease) and by MaxResultSize, splitting wide rows
// into partial results, and answers a call that found nothing in time
// with an empty heartbeat. Parts are joined into rows (or regrouped into
// Batch cells) here.
type scanner struct {
	c     *Client
	ctx   context.Context
	sp    *op
	table string
	limit int // rows; 0: none
	mode  scanMode
	batch int

	reversed bool
	stop     []byte
	tmpl     *pb.Scan // the scan sent on every open, with the bounds patched
	caching  uint32
	// maxSize is the MaxResultSize of the next open: the Scan's (or the
	// client's default), halved after each answer the RPC timeout cut off
	// (shrink).
	maxSize int64

	// Position: where the next server-side scanner opens. A scanner that
	// failed re-opens after the last row completed, or, when parts of a
	// row were already handed out, at that row, skipping the cells handed
	// out.
	nextStart    []byte
	includeStart bool
	// readPoint is the MVCC read point the server chose when the scanner
	// of the current region opened (0: none yet). Re-opening in the same
	// range sends it back, so the scan keeps one snapshot per region; it
	// is reset when the scan moves to the next region, as the Java
	// client does.
	readPoint uint64

	// Row assembly.
	lastRow  []byte // last row completed; nil before any
	rowsDone int    // rows completed (what Limit counts)
	curRow   []byte // row being received; nil between rows
	acc      []Cell // cells of curRow received and not yet handed out
	handed   bool   // parts of curRow were handed out (batchRows, partialRows)
	lastCell Cell   // last cell of curRow handed out, when handed
	slab     []Result

	// mu serializes RPCs on the open scanner: Next and the lease renewal.
	// A call ahead runs without it; busy keeps the renewal off meanwhile.
	mu        sync.Mutex
	reg       *region // region of the open scanner
	scannerID *uint64 // nil: no open server-side scanner
	renew     *time.Timer
	busy      bool // a read-ahead call is in flight (no renewal meanwhile)

	// ahead is the call for the next response, made while the caller
	// reads the rows of the current one (WithScanReadAhead); nil: none.
	ahead *aheadCall

	// buf holds the rows fetched, taken from head on; once all are
	// taken, the next fetch refills it from the start (its array is
	// reused, not grown again for every response).
	buf        []*Result
	head       int
	finished   bool // no more rows to fetch
	result     *Result
	err        error
	closed     bool
	ended      bool // span ended
	heartbeats int  // heartbeat answers received
	partials   int  // partial results received
	chains     int  // calls made by chain
	shrinks    int  // answers cut off by the RPC timeout (shrink)

	// reuse (Scan.ReuseMemory): once the caller has asked for the row
	// after the last one of a response, and no row being assembled points
	// into it, the response's memory goes to the next response: its
	// frame (spares), its cells and parts, and its Results (slab).
	reuse   bool
	frame   []byte     // the last response's frame
	spares  [2][]byte  // memory to read the next responses into
	cellsB  []Cell     // the last response's cells
	partsB  []scanPart // the last response's parts
	ownRow  []byte     // lastRow, copied out of a frame that is reused
	ownCur  []byte     // curRow, likewise
	ownCell []byte     // lastCell's row, family and qualifier, likewise
}

func (c *Client) newScanner(ctx context.Context, s *Scan, sp *op) (*scanner, error) {
	tmpl := &pb.Scan{
		Column:      columnsToPB(s.Families, s.Columns),
		TimeRange:   timeRangeToPB(s.TimeRange),
		MaxVersions: maxVersionsToPB(s.MaxVersions),
		StopRow:     s.StopRow,
	}
	if s.Reversed {
		tmpl.Reversed = &boolTrue
		// Reversed region scanners reject on-demand family loading,
		// which servers enable by default for filters such as
		// SingleColumnValueFilter.
		tmpl.LoadColumnFamiliesOnDemand = &boolFalse
	}
	if s.Filter != nil {
		f, err := filterToPB(s.Filter)
		if err != nil {
			return nil, err
		}
		tmpl.Filter = f
	}
	mode := wholeRows
	switch {
	case s.Batch > 0:
		mode = batchRows
		tmpl.BatchSize = proto.Uint32(uint32(min(s.Batch, 1<<31-1)))
	case s.AllowPartial:
		mode = partialRows
		tmpl.AllowPartialResults = &boolTrue
	}
	caching := s.Caching
	if caching == 0 {
		caching = c.opts.scanCaching
	}
	if s.Limit > 0 && s.Limit < caching {
		caching = s.Limit
	}
	maxSize := s.MaxResultSize
	if maxSize == 0 {
		maxSize = c.opts.scanMaxResultSize
	}
	maxSize = min(maxSize, maxScanResultSize)
	tmpl.Caching = proto.Uint32(uint32(caching))
	return &scanner{
		c:            c,
		ctx:          ctx,
		sp:           sp,
		table:        canonicalTable(s.Table),
		limit:        s.Limit,
		mode:         mode,
		batch:        s.Batch,
		reversed:     s.Reversed,
		stop:         s.StopRow,
		tmpl:         tmpl,
		caching:      uint32(caching),
		maxSize:      maxSize,
		nextStart:    s.StartRow,
		includeStart: true,
		reuse:        s.ReuseMemory,
	}, nil
}

// Next advances to the next row.
func (s *scanner) Next() bool {
	if s.closed || s.err != nil {
		return false
	}
	if err := s.ctx.Err(); err != nil {
		s.finish(opErr("scan", s.table, err))
		return false
	}
	if s.head == len(s.buf) && !s.fill() {
		return false
	}
	s.result = s.buf[s.head]
	s.buf[s.head] = nil
	s.head++
	return true
}

// limitReached reports whether Limit rows were completed.
func (s *scanner) limitReached() bool { return s.limit > 0 && s.rowsDone >= s.limit }

// fill fetches rows until buf holds some, reporting whether it does. At
// the end of the scan or on error it finishes the scanner.
func (s *scanner) fill() bool {
	if s.head == len(s.buf) {
		s.buf, s.head = s.buf[:0], 0
	}
	for len(s.buf) == 0 {
		if s.finished || s.limitReached() {
			s.finish(nil)
			return false
		}
		if err := s.ctx.Err(); err != nil {
			s.finish(err)
			return false
		}
		if err := s.fetch(); err != nil {
			s.finish(err)
			return false
		}
	}
	s.readAhead()
	return true
}

// aheadCall is a scan call made ahead of the caller's need (see
// WithScanReadAhead). Its answer is taken by the next fetchOnce, which
// decodes it as if it had just made the call; an error goes through
// fetch's retries like the error of any call.
type aheadCall struct {
	done   chan struct{}
	cancel context.CancelFunc
	req    *pb.ScanRequest
	into   []byte // the memory offered for the answer (ReuseMemory)

	// headed is closed when the answer's message has arrived, before its
	// cells (rpc.WithHead), headOpen saying whether it leaves the scanner
	// open; nil when the call did not ask (a scan with a Limit).
	headed   chan struct{}
	headOpen bool
	headOnce sync.Once
	// awaited is set when the caller starts waiting for the answer
	// (takeAhead).
	awaited atomic.Bool
	// next is the call made for the response after this one when head
	// arrived (chain); set under s.mu.
	next *aheadCall

	// Set before done is closed.
	resp         *pb.ScanResponse
	block, frame []byte
	err          error
}

// readAhead starts the call for the next response of the open scanner,
// unless read-ahead is off, one is in flight, the scan's region or Limit
// is exhausted, or the scan is ending.
func (s *scanner) readAhead() {
	if s.c.opts.noScanReadAhead || s.ahead != nil || s.finished || s.limitReached() ||
		s.closed || s.ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scannerID == nil {
		return // the next response is on the next region: opened on demand
	}
	s.ahead = s.startAhead()
}

// startAhead starts a call for the next response of the open scanner.
// A scan without a Limit asks for the answer's message ahead of its
// cells, for chain. s.mu is held.
func (s *scanner) startAhead() *aheadCall {
	c := s.c
	a := &aheadCall{done: make(chan struct{}), req: s.nextRequest()}
	a.req.ScannerId = s.scannerID
	var onHead func([]byte)
	if s.limit == 0 {
		// With a Limit the next request's rows depend on this answer's.
		a.headed = make(chan struct{})
		onHead = func(msg []byte) {
			open, ok := headLeavesScannerOpen(msg)
			if !ok {
				return
			}
			a.headOnce.Do(func() {
				a.headOpen = open
				close(a.headed)
			})
			if open && a.awaited.Load() && s.ctx.Err() == nil {
				// The caller waits for this answer and makes the next call
				// on its head (chain). This goroutine, the connection's
				// reader, goes on to read the cells and would keep its
				// processor until the socket runs dry or it is preempted,
				// the caller waiting for one meanwhile. Closing headed made
				// the caller this processor's next goroutine: yield to it
				// (docs/scans.md, "Calling on the answer's head"). The
				// other calls on the connection wait for the reader that
				// much longer, once per answer of a waiting scanner.
				runtime.Gosched()
			}
		}
	}
	if s.reuse {
		// The caller moved past every row of the response before the
		// current one when it was taken (fetchOnce's release): its
		// memory is free for this one.
		a.into = s.takeSpare()
	}
	s.stopRenewal()
	s.busy = true
	pctx, cancel := context.WithCancel(s.ctx)
	a.cancel = cancel
	addr := s.reg.addr
	go func() {
		defer close(a.done)
		// Bounded by the RPC timeout, not by an operation of its own: the
		// operation is the fetch that takes the answer (takeAhead gives
		// the call up when that fetch's time is out), so the caller gets
		// the same errors and retries as from a call made on demand.
		actx, cancelAttempt := c.attemptContext(pctx)
		resp, block, frame, err := s.call(actx, true, addr, a.req, a.into, onHead)
		a.resp, a.block, a.frame, a.err = resp, block, frame, attemptError(pctx, actx, err)
		cancelAttempt()
		s.mu.Lock()
		if a.next == nil { // else the next call is on the server
			s.busy = false
			if s.scannerID != nil && a.err == nil && leavesScannerOpen(resp) {
				// The caller may take long over the current response:
				// keep the scanner's lease while the answer waits.
				s.scheduleRenewal()
			}
		}
		s.mu.Unlock()
	}()
	return a
}

// chain starts the call after a, whose answer's message has arrived
// while the caller waits for that answer, when the message says the
// scanner stays open: the server is done with a, and the next call
// reaches it while a's cells are still on their way (a response of
// 2 MiB takes about 0.6 ms to read on loopback), instead of after the
// caller took them.
func (s *scanner) chain(a *aheadCall) {
	if !a.headOpen || s.closed || s.ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scannerID == nil || s.ahead != nil {
		return
	}
	if s.reuse {
		// The caller asked for the row after the last one of the
		// current response: its memory is the next call's, as in
		// fetchOnce.
		s.release()
	}
	a.next = s.startAhead()
	s.ahead = a.next
	s.chains++
}

// leavesScannerOpen reports whether the server-side scanner is still open
// after resp.
func leavesScannerOpen(resp *pb.ScanResponse) bool {
	return resp.GetMoreResults() && (resp.MoreResultsInRegion == nil || resp.GetMoreResultsInRegion())
}

// headLeavesScannerOpen is leavesScannerOpen of an encoded ScanResponse,
// reading only its two flags: the head function runs on the connection's
// reader, before it reads the cells, where a whole decode of a 2,000-row
// answer's per-result lists costs 26 KB and 40–46 µs against 6–7 µs
// (BenchmarkHeadLeavesScannerOpen). Those lists are one-byte tags with
// one-byte values, skipped without the general decoding.
func headLeavesScannerOpen(msg []byte) (open, ok bool) {
	more, inRegion := false, true // absent more_results_in_region: true
	for len(msg) > 0 {
		var num protowire.Number
		var v uint64
		varint := true
		if len(msg) >= 2 && msg[0] < 0x80 && msg[0]&7 == byte(protowire.VarintType) && msg[1] < 0x80 {
			num, v = protowire.Number(msg[0]>>3), uint64(msg[1])
			msg = msg[2:]
		} else {
			var typ protowire.Type
			var n int
			if num, typ, n = protowire.ConsumeTag(msg); n < 0 {
				return false, false
			}
			msg = msg[n:]
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return false, false
			}
			if varint = typ == protowire.VarintType; varint {
				v, _ = protowire.ConsumeVarint(msg)
			}
			msg = msg[n:]
		}
		switch {
		case !varint:
		case num == 3: // more_results
			more = v != 0
		case num == 8: // more_results_in_region
			inRegion = v != 0
		}
	}
	return more && inRegion, true
}

// takeAhead waits for the read-ahead call, bounded by ctx (the fetch's
// operation), and returns it, or nil when none was made.
func (s *scanner) takeAhead(ctx context.Context) *aheadCall {
	a := s.ahead
	if a == nil {
		return nil
	}
	s.ahead = nil
	a.awaited.Store(true)
	headed := a.headed
	for waiting := true; waiting; {
		select {
		case <-a.done:
			waiting = false
		case <-headed:
			headed = nil
			if ctx.Err() == nil { // else the fetch is over: no call more
				s.chain(a)
			}
		case <-ctx.Done():
			a.cancel()
			<-a.done
			if errors.Is(a.err, errScanAbandoned) {
				// Given up for the fetch's context, not the scan's: say
				// so. (An answer or an error that came first stands.)
				a.err = errors.Join(ctx.Err(), a.err)
			}
			waiting = false
		}
	}
	a.cancel()
	return a
}

// dropAhead gives up the read-ahead call of a scan that ends, or of a
// fetch that failed (a call chained after the failed one): a call still
// in flight is abandoned (call closes the scanner its answer leaves
// open); an answer already there that leaves the scanner open leaves it
// to closeServer or resetPosition, and dropAhead reports it.
func (s *scanner) dropAhead() (leftOpen bool) {
	a := s.ahead
	if a == nil {
		return false
	}
	s.ahead = nil
	a.cancel()
	<-a.done
	s.mu.Lock()
	defer s.mu.Unlock()
	// Nothing is left for closeServer after an answer that closed the
	// scanner, nor after an error closeAfter rejects: the call was given
	// up (call closes what its answer leaves open), or the scanner is gone
	// or on a server that cannot be told, as after the same error on a
	// call made on demand.
	if a.err == nil && !leavesScannerOpen(a.resp) || a.err != nil && !closeAfter(a.err) {
		s.scannerID = nil
	}
	return a.err == nil && s.scannerID != nil
}

// nextRequest is a scan request for the next rows, without its region or
// scanner.
func (s *scanner) nextRequest() *pb.ScanRequest {
	req := &pb.ScanRequest{
		NumberOfRows:            proto.Uint32(s.caching),
		ClientHandlesPartials:   &boolTrue,
		ClientHandlesHeartbeats: &boolTrue,
	}
	if s.limit > 0 {
		req.LimitOfRows = proto.Uint32(uint32(s.limit - s.rowsDone))
	}
	return req
}

// fetch makes one scan RPC, opening a scanner on the next region if none
// is open, with retries: one operation, bounded by the operation timeout.
func (s *scanner) fetch() error {
	c := s.c
	ctx, cancel := c.operationContext(s.ctx)
	defer cancel()
	rt := c.newRetrier(func(reason string) { s.sp.retried(s.ctx, reason) })
	for {
		if err := c.checkOpen(); err != nil {
			return err
		}
		err := s.fetchOnce(ctx)
		if err == nil {
			return nil
		}
		if c.closed.Load() {
			return ErrClosed
		}
		reg := s.reg
		// A call chained after the failed one (chain) reads from the
		// scanner the retry gives up. If it answered and left that
		// scanner open, its server can be told to close it, whatever err
		// says.
		leftOpen := s.dropAhead()
		s.resetPosition(err, leftOpen)
		var kind retryKind
		var ce *rpc.ConnError
		switch {
		case errors.Is(err, rpc.ErrAnswerCutOff) && ctx.Err() == nil:
			// The answer did not arrive within the RPC timeout: the link
			// is slow. Re-open at once asking for less.
			s.shrink()
			kind = retryNow
		case errors.Is(err, errAttemptTimeout) && !errors.As(err, &ce) && ctx.Err() == nil:
			// The server is slow, not gone (its connection still
			// answers, and a scan call that finds nothing answers with a
			// heartbeat before the timeout): re-open without forgetting
			// the server's regions.
			kind = retryBackoff
		default:
			kind = c.handleRegionError(ctx, s.table, reg, err)
		}
		if kind == retryRelocate {
			if terr := c.tableStateError(ctx, s.table, err); terr != nil {
				return opErr("scan", s.table, terr)
			}
		}
		if classify(err) == retryReopenScanner {
			kind = retryNow // the scanner expired: re-open at once
		}
		if werr := rt.wait(ctx, err, kind); werr != nil {
			return opErr("scan", s.table, werr)
		}
	}
}

// resetPosition forgets the server-side scanner after err, closing it in
// the background when closeAfter(err) or when a later call's answer left
// it open (leftOpen), and drops the cells of a row not handed out yet:
// the next open starts after the last row completed, or at the row being
// handed out in parts.
func (s *scanner) resetPosition(err error, leftOpen bool) {
	s.mu.Lock()
	id, reg := s.scannerID, s.reg
	s.scannerID = nil
	s.reg = nil
	s.stopRenewal()
	s.mu.Unlock()
	if id != nil && reg != nil && (leftOpen || closeAfter(err)) {
		go s.c.closeScanner(reg.addr, *id)
	}
	s.acc = nil
	// The position is copied: the frame it came from may be reused
	// (Scan.ReuseMemory).
	switch {
	case s.handed:
		s.nextStart, s.includeStart = bytes.Clone(s.curRow), true
	case s.lastRow != nil:
		s.curRow = nil
		s.nextStart, s.includeStart = bytes.Clone(s.lastRow), false
	default:
		s.curRow = nil
	}
}

// closeAfter reports whether a scanner whose call failed with err may
// still be open on a server that can be told to close it: not when the
// error says the scanner is gone, nor when the server did not answer in
// time or its connection broke (its lease will expire it), nor after
// Close.
func closeAfter(err error) bool {
	var ce *rpc.ConnError
	if errors.Is(err, ErrClosed) || errors.Is(err, rpc.ErrClosed) || errors.As(err, &ce) ||
		errors.Is(err, errAttemptTimeout) || isContextError(err) {
		return false
	}
	var re *rpc.RemoteError
	if errors.As(err, &re) {
		switch re.Class {
		case excUnknownScanner, excNotServingRegion, excRegionMoved, excScannerReset,
			excRSStopped, excRSAborted:
			return false
		}
	}
	return true
}

func (s *scanner) fetchOnce(ctx context.Context) error {
	ahead := s.takeAhead(ctx) // before mu: its goroutine takes mu last
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		resp         *pb.ScanResponse
		block, frame []byte
		into         []byte
		err          error
	)
	opening := false
	if ahead != nil {
		resp, block, frame, err = ahead.resp, ahead.block, ahead.frame, ahead.err
		into = ahead.into
		if s.reuse && s.frame != nil { // else chain released it
			s.release()
		}
	} else {
		opening = s.scannerID == nil
		resp, block, frame, into, err = s.callNext(ctx)
	}
	if errors.Is(err, errScanAbandoned) {
		// The call goes on in the background and closes the scanner.
		s.scannerID = nil
	}
	if err != nil {
		return err
	}
	return s.took(resp, block, frame, into, opening)
}

// callNext makes the scan call for the next response: the open of the
// scanner on the region of the position, or the next call of the open
// one. s.mu is held.
func (s *scanner) callNext(ctx context.Context) (resp *pb.ScanResponse, block, frame, into []byte, err error) {
	c := s.c
	req := s.nextRequest()
	if s.scannerID == nil {
		r, err := c.locate(ctx, s.table, s.nextStart, s.reversed && (!s.includeStart || len(s.nextStart) == 0))
		if err != nil {
			return nil, nil, nil, nil, err
		}
		s.reg = r
		scan := proto.CloneOf(s.tmpl)
		scan.StartRow = s.nextStart
		scan.MaxResultSize = proto.Uint64(uint64(s.maxSize))
		if !s.includeStart {
			scan.IncludeStartRow = &boolFalse
		}
		if s.readPoint > 0 {
			scan.MvccReadPoint = proto.Uint64(s.readPoint)
		}
		req.Region = r.specifier()
		req.Scan = scan
	} else {
		req.ScannerId = s.scannerID
	}
	s.sp.setServer(s.reg.addr)
	if s.reuse {
		s.release()
		into = s.takeSpare() // the call's until it answers
	}
	actx, cancel := c.attemptContext(ctx)
	// The fetch's contexts add only deadlines to the scan's: when that
	// one cannot be cancelled, neither can the call.
	sent := time.Now()
	resp, block, frame, err = s.call(actx, s.ctx.Done() != nil, s.reg.addr, req, into, nil)
	err = attemptError(ctx, actx, err)
	cancel()
	if err == nil {
		c.regions.answered(s.reg, sent) // the server is up: no more pacing
	}
	return resp, block, frame, into, err
}

// took decodes the answer of a scan call into parts and rows, and
// updates the position and the open scanner from it. s.mu is held.
func (s *scanner) took(resp *pb.ScanResponse, block, frame, into []byte, opening bool) error {
	var (
		parts []scanPart
		err   error
	)
	if s.reuse {
		s.frame = frame
		if cap(into) > 0 && (cap(frame) == 0 || &frame[:1][0] != &into[:1][0]) {
			s.keepSpare(into) // the answer went elsewhere: into is free again
		}
		parts, s.cellsB, err = scanPartsInto(s.partsB, s.cellsB, resp, block)
		s.partsB = parts
	} else {
		parts, err = scanParts(resp, block)
	}
	if err == nil {
		// Rows out of range or order: corrupted on the way; re-open.
		err = corruptAnswer(regionAddr(s.reg), "Scan",
			scanBounds{reg: s.reg, stop: s.stop, reversed: s.reversed, after: s.lastRow}.check(parts))
	}
	if err != nil {
		// The answer cannot be read: let the retry re-open.
		if resp.ScannerId != nil && s.scannerID == nil {
			s.scannerID = resp.ScannerId
		}
		return err
	}
	if opening && resp.MvccReadPoint != nil {
		s.readPoint = resp.GetMvccReadPoint()
	}
	if resp.ScannerId != nil {
		s.scannerID = resp.ScannerId
	}
	if resp.GetHeartbeatMessage() {
		s.heartbeats++
	}
	for _, p := range parts {
		if p.partial {
			s.partials++
		}
		s.addPart(p)
	}
	switch {
	case !resp.GetMoreResults():
		s.scannerID = nil
		s.endRow()
		s.finished = true
	case resp.MoreResultsInRegion != nil && !resp.GetMoreResultsInRegion():
		s.scannerID = nil
		s.nextRegion()
	}
	if s.scannerID != nil {
		s.scheduleRenewal()
	} else {
		s.stopRenewal()
	}
	return nil
}

// release makes the last response's memory the next one's (reuse): the
// caller asked for the row after its last row, so no Result of it is
// still valid. The positions kept across responses (the last row
// completed, the row going on in parts, the last cell handed out of it)
// are copied out first. Cells of a row being joined (acc) still point
// into it: then it is left to the garbage collector.
func (s *scanner) release() {
	if s.frame == nil || s.head < len(s.buf) || len(s.acc) > 0 {
		s.frame, s.cellsB, s.partsB = nil, nil, nil
		return
	}
	if s.lastRow != nil {
		s.ownRow = append(s.ownRow[:0], s.lastRow...)
		s.lastRow = s.ownRow
	}
	if s.curRow != nil {
		s.ownCur = append(s.ownCur[:0], s.curRow...)
		s.curRow = s.ownCur
	}
	if s.handed {
		c := &s.lastCell
		s.ownCell = append(append(append(s.ownCell[:0], c.Row...), c.Family...), c.Qualifier...)
		r, f := len(c.Row), len(c.Row)+len(c.Family)
		c.Row, c.Family, c.Qualifier, c.Value = s.ownCell[:r:r], s.ownCell[r:f:f], s.ownCell[f:], nil
	}
	s.keepSpare(s.frame)
	s.frame = nil
	s.slab = s.slab[:0]
	clear(s.partsB)
}

// takeSpare returns memory kept for a response (nil: none).
func (s *scanner) takeSpare() []byte {
	for i, b := range s.spares {
		if b != nil {
			s.spares[i] = nil
			return b
		}
	}
	return nil
}

// keepSpare keeps b for a later response: two buffers with read-ahead
// (the one a call is reading into and the one the caller reads from),
// one without. When the slots are taken the larger are kept: a short
// answer (the end of a region, a server's time limit) must not make the
// next full one allocate.
func (s *scanner) keepSpare(b []byte) {
	slots := s.spares[:]
	if s.c.opts.noScanReadAhead {
		slots = slots[:1]
	}
	i := 0
	for j := range slots {
		if cap(slots[j]) < cap(slots[i]) {
			i = j
		}
	}
	if cap(b) > cap(slots[i]) {
		slots[i] = b
	}
}

// errScanAbandoned marks a scan call whose caller's context ended first.
var errScanAbandoned = errors.New("hbase: scan call abandoned")

// abandonedError is a scan call given up by its caller.
type abandonedError struct{ err error }

func (e *abandonedError) Error() string   { return "hbase: scan: " + e.err.Error() }
func (e *abandonedError) Unwrap() []error { return []error{e.err, errScanAbandoned} }

// call makes one scan RPC bounded by actx. When actx can be cancelled
// by more than its deadlines (cancelable, which the caller knows), the
// RPC runs on its own goroutine, under a context that ends with actx's
// deadline and cause (so internal/rpc sees the per-RPC timeout) but not
// with its cancellation: if the caller cancels, call returns at once and
// the goroutine waits for the answer (at most abandonedScanWait more) to
// close the scanner that answer leaves open, so a cancelled scan leaves
// nothing on the server, even when the cancellation hit an open. A
// context that only its deadlines can end is called on the caller's
// goroutine, as a Get is. A deadline that cuts an RPC off, either way,
// leaves a scanner its answer opened to the server's lease, as before
// this path existed: the server did not answer in time, and a close
// would most likely wait as long.
func (s *scanner) call(actx context.Context, cancelable bool, addr string, req *pb.ScanRequest, into []byte, onHead func([]byte)) (*pb.ScanResponse, []byte, []byte, error) {
	c := s.c
	resp := new(pb.ScanResponse)
	var block, frame []byte
	opts := []rpc.CallOption{rpc.WithCellBlock(&block)}
	if s.reuse {
		opts = append(opts, rpc.WithFrameBuffer(into, &frame))
	}
	if onHead != nil {
		opts = append(opts, rpc.WithHead(onHead))
	}
	if !cancelable {
		err := c.rsCall(actx, addr, "Scan", req, resp, opts...)
		return resp, block, frame, err
	}
	base, cancelBase := context.WithCancelCause(context.WithoutCancel(actx))
	dctx, cancelDeadline := base, context.CancelFunc(func() {})
	if d, ok := actx.Deadline(); ok {
		// The deadline travels to the server as the call's timeout. A
		// little slack makes actx end first and end dctx with its cause
		// (below); dctx's own timer is a backstop.
		dctx, cancelDeadline = context.WithDeadline(base, d.Add(deadlineSlack))
	}
	cancel := func(cause error) { cancelBase(cause); cancelDeadline() }
	stopAfter := context.AfterFunc(actx, func() {
		if errors.Is(actx.Err(), context.DeadlineExceeded) {
			cancel(context.Cause(actx))
		}
	})
	done := make(chan error, 1)
	var decided atomic.Bool
	go func() {
		defer stopAfter()
		defer cancel(nil)
		err := c.rsCall(dctx, addr, "Scan", req, resp, opts...)
		if decided.CompareAndSwap(false, true) {
			done <- err
			return
		}
		// Abandoned: close what the answer leaves open. A failed next
		// may have left its scanner open too.
		var id *uint64
		switch {
		case err != nil:
			if closeAfter(err) {
				id = req.ScannerId
			}
		case leavesScannerOpen(resp):
			id = resp.ScannerId
			if id == nil {
				id = req.ScannerId
			}
		}
		if id != nil {
			c.closeScanner(addr, *id)
		}
	}()
	select {
	case err := <-done:
		return resp, block, frame, err
	case <-actx.Done():
		if !errors.Is(actx.Err(), context.DeadlineExceeded) && decided.CompareAndSwap(false, true) {
			time.AfterFunc(abandonedScanWait, func() { cancel(errScanAbandoned) })
			return nil, nil, nil, &abandonedError{err: fmt.Errorf("rpc: Scan: %w", actx.Err())}
		}
		// A deadline ends the call too (dctx ends with actx's cause),
		// or the answer is already there.
		err := <-done
		return resp, block, frame, err
	}
}

// closeScanner closes a server-side scanner, best effort, bounded by
// scanCloseTimeout. A scanner busy with a call the client gave up on
// answers LeaseException until that call ends: the close is retried.
func (c *Client) closeScanner(addr string, id uint64) {
	if c.scannerClosed != nil {
		defer c.scannerClosed(id)
	}
	if c.closed.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scanCloseTimeout)
	defer cancel()
	req := &pb.ScanRequest{
		ScannerId:               proto.Uint64(id),
		CloseScanner:            &boolTrue,
		NumberOfRows:            proto.Uint32(0),
		ClientHandlesPartials:   &boolTrue,
		ClientHandlesHeartbeats: &boolTrue,
	}
	wait := 20 * time.Millisecond
	for {
		err := c.rsCall(ctx, addr, "Scan", req, nil)
		var re *rpc.RemoteError
		if err == nil || !errors.As(err, &re) || re.Class != excLeaseException {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		case <-c.done:
			t.Stop()
			return
		}
		wait = min(2*wait, time.Second)
	}
}

// addPart takes one result of a scan response: the cells of a row, all
// of them unless partial.
func (s *scanner) addPart(p scanPart) {
	cells := p.cells
	if len(cells) == 0 {
		return
	}
	row := cells[0].Row
	if s.curRow != nil && !bytes.Equal(row, s.curRow) {
		s.endRow()
	}
	if s.curRow == nil {
		// A re-opened scanner must not repeat a row, and rows past the
		// limit are dropped.
		if s.seen(row) || s.limitReached() {
			return
		}
		s.curRow = row
	} else if s.handed {
		// Re-opened in the middle of a row handed out in parts: skip
		// what was handed out (a no-op when the row just goes on).
		i := 0
		for i < len(cells) && CompareCells(cells[i], s.lastCell) <= 0 {
			i++
		}
		cells = cells[i:]
	}
	switch s.mode {
	case wholeRows:
		if len(s.acc) == 0 {
			s.acc = cells
		} else {
			s.acc = append(s.acc, cells...)
		}
	case batchRows:
		if len(s.acc) == 0 {
			s.acc = cells
		} else {
			s.acc = append(s.acc, cells...)
		}
		for len(s.acc) >= s.batch {
			s.hand(s.acc[:s.batch:s.batch])
			s.acc = s.acc[s.batch:]
		}
	case partialRows:
		if len(cells) > 0 {
			s.hand(cells)
		}
	}
	if !p.partial {
		s.endRow()
	}
}

// seen reports whether row is at or before the last row completed, in
// scan order.
func (s *scanner) seen(row []byte) bool {
	if s.lastRow == nil {
		return false
	}
	c := bytes.Compare(row, s.lastRow)
	return (!s.reversed && c <= 0) || (s.reversed && c >= 0)
}

// endRow completes the current row, handing out what is left of it.
func (s *scanner) endRow() {
	if s.curRow == nil {
		return
	}
	if len(s.acc) > 0 {
		s.hand(s.acc)
	}
	s.acc = nil
	s.lastRow = s.curRow
	s.curRow = nil
	s.handed = false
	s.lastCell = Cell{}
	s.rowsDone++
}

// hand puts a Result with cells (of curRow) in buf. Results come from a
// slab, so a response costs a few allocations, not one per row.
func (s *scanner) hand(cells []Cell) {
	if len(s.slab) == cap(s.slab) {
		s.slab = make([]Result, 0, min(max(2*cap(s.slab), 16), 1024))
	}
	s.slab = append(s.slab, Result{Cells: cells})
	s.buf = append(s.buf, &s.slab[len(s.slab)-1])
	s.handed = true
	s.lastCell = cells[len(cells)-1]
}

// nextRegion moves the position past the exhausted region s.reg, or
// finishes the scan when it was the last one in range.
func (s *scanner) nextRegion() {
	s.endRow()
	s.readPoint = 0
	r := s.reg
	if !s.reversed {
		if len(r.end) == 0 || (len(s.stop) > 0 && bytes.Compare(r.end, s.stop) >= 0) {
			s.finished = true
			return
		}
		s.nextStart, s.includeStart = r.end, true
		return
	}
	if len(r.start) == 0 || (len(s.stop) > 0 && bytes.Compare(r.start, s.stop) <= 0) {
		s.finished = true
		return
	}
	s.nextStart, s.includeStart = r.start, false
}

// scheduleRenewal (re)arms the lease renewal of the open scanner; s.mu
// is held.
func (s *scanner) scheduleRenewal() {
	d := s.c.opts.scannerLease
	if s.renew == nil {
		s.renew = time.AfterFunc(d, s.renewLease)
		return
	}
	s.renew.Reset(d)
}

func (s *scanner) stopRenewal() {
	if s.renew != nil {
		s.renew.Stop()
	}
}

// renewLease keeps the server-side scanner alive while the consumer is
// slow. Failures are ignored: the next fetch re-opens the scanner.
func (s *scanner) renewLease() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scannerID == nil || s.busy || s.c.closed.Load() || s.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	req := &pb.ScanRequest{
		ScannerId:               s.scannerID,
		Renew:                   &boolTrue,
		NumberOfRows:            proto.Uint32(0),
		ClientHandlesPartials:   &boolTrue,
		ClientHandlesHeartbeats: &boolTrue,
	}
	if err := s.c.rsCall(ctx, s.reg.addr, "Scan", req, nil); err != nil {
		s.c.opts.log().Warn("hbase: scanner lease renewal failed; the next read reopens the scanner",
			"table", s.reg.table, "region", s.reg.encodedName(), "server", s.reg.addr, "error", err)
		return
	}
	s.scheduleRenewal()
}

// finish ends the scan: records err, closes the server-side scanner and
// ends the span.
func (s *scanner) finish(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
	s.dropAhead()
	s.closeServer()
	if !s.ended {
		s.ended = true
		s.sp.end(s.ctx, s.err)
	}
}

// closeServer closes the open server-side scanner, if any: best effort,
// with a context of its own (the scan's may be cancelled), bounded by
// scanCloseTimeout.
func (s *scanner) closeServer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopRenewal()
	id, reg := s.scannerID, s.reg
	s.scannerID = nil
	if id == nil || reg == nil {
		return
	}
	s.c.closeScanner(reg.addr, *id)
}

func (s *scanner) Result() *Result { return s.result }

func (s *scanner) Err() error { return s.err }

// Close releases the scanner and its server-side state.
func (s *scanner) Close() error {
	if s.closed {
		return nil
	}
	s.finish(nil)
	s.closed = true
	s.buf, s.head = nil, 0
	s.acc = nil
	s.slab = nil
	// What ReuseMemory kept for the next response.
	s.frame, s.spares, s.cellsB, s.partsB = nil, [2][]byte{}, nil, nil
	s.ownRow, s.ownCur, s.ownCell = nil, nil, nil
	return nil
}

// shrink halves the MaxResultSize of the scanner's next opens, down to
// minScanResultSize, after an answer that the RPC timeout cut off.
func (s *scanner) shrink() {
	s.maxSize = max(s.maxSize/2, min(s.maxSize, minScanResultSize))
	s.shrinks++
}
