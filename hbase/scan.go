package hbase

import (
	"bytes"
	"context"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
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

// scanner implements Scanner over the regions of a table (wire protocol
// reference, section 5.3).
type scanner struct {
	c     *Client
	ctx   context.Context
	sp    *op
	table string
	limit int // 0: none

	reversed bool
	stop     []byte
	tmpl     *pb.Scan // the scan sent on every open, with the bounds patched
	caching  uint32

	// Position: where the next server-side scanner opens. A scanner that
	// failed re-opens after the last row handed out.
	nextStart    []byte
	includeStart bool
	lastRow      []byte // last complete row put in buf; nil before any

	// mu serializes RPCs on the open scanner: Next and the lease renewal.
	mu        sync.Mutex
	reg       *region // region of the open scanner
	scannerID *uint64 // nil: no open server-side scanner
	renew     *time.Timer

	buf      []*Result
	pending  *Result // cells of a row delivered in parts
	fetched  int     // complete rows put in buf
	finished bool    // no more rows to fetch
	result   *Result
	err      error
	closed   bool
	ended    bool // span ended
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
	tmpl.MaxResultSize = proto.Uint64(uint64(maxSize))
	tmpl.Caching = proto.Uint32(uint32(caching))
	return &scanner{
		c:            c,
		ctx:          ctx,
		sp:           sp,
		table:        canonicalTable(s.Table),
		limit:        s.Limit,
		reversed:     s.Reversed,
		stop:         s.StopRow,
		tmpl:         tmpl,
		caching:      uint32(caching),
		nextStart:    s.StartRow,
		includeStart: true,
	}, nil
}

// Next advances to the next row.
func (s *scanner) Next() bool {
	if s.closed || s.err != nil {
		return false
	}
	if s.limit > 0 && s.fetched-len(s.buf) >= s.limit {
		s.finish(nil)
		return false
	}
	if err := s.ctx.Err(); err != nil {
		s.finish(opErr("scan", s.table, err))
		return false
	}
	if len(s.buf) == 0 && !s.fill() {
		return false
	}
	s.result = s.buf[0]
	s.buf[0] = nil
	s.buf = s.buf[1:]
	return true
}

// fill fetches rows until buf holds some, reporting whether it does. At
// the end of the scan or on error it finishes the scanner.
func (s *scanner) fill() bool {
	for len(s.buf) == 0 {
		if s.finished || (s.limit > 0 && s.fetched >= s.limit) {
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
	return true
}

// fetch makes one scan RPC, opening a scanner on the next region if none
// is open, with retries.
func (s *scanner) fetch() error {
	c := s.c
	rt := c.newRetrier(func(reason string) { s.sp.retried(s.ctx, reason) })
	for {
		if err := c.checkOpen(); err != nil {
			return err
		}
		err := s.fetchOnce()
		if err == nil {
			return nil
		}
		if c.closed.Load() {
			return ErrClosed
		}
		reg := s.reg
		s.resetPosition()
		kind := c.handleRegionError(s.ctx, s.table, reg, err)
		if kind == retryRelocate {
			if terr := c.tableStateError(s.ctx, s.table, err); terr != nil {
				return opErr("scan", s.table, terr)
			}
		}
		if classify(err) == retryReopenScanner {
			kind = retryNow // the scanner expired: re-open at once
		}
		if werr := rt.wait(s.ctx, err, kind); werr != nil {
			return opErr("scan", s.table, werr)
		}
	}
}

// resetPosition forgets the server-side scanner after an error: the next
// open starts right after the last complete row fetched.
func (s *scanner) resetPosition() {
	s.mu.Lock()
	s.scannerID = nil
	s.reg = nil
	s.stopRenewal()
	s.mu.Unlock()
	s.pending = nil
	if s.lastRow != nil {
		s.nextStart = s.lastRow
		s.includeStart = false
	}
}

func (s *scanner) fetchOnce() error {
	c := s.c
	s.mu.Lock()
	defer s.mu.Unlock()
	var req *pb.ScanRequest
	if s.scannerID == nil {
		r, err := c.locate(s.ctx, s.table, s.nextStart, s.reversed && (!s.includeStart || len(s.nextStart) == 0))
		if err != nil {
			return err
		}
		s.reg = r
		scan := proto.CloneOf(s.tmpl)
		scan.StartRow = s.nextStart
		if !s.includeStart {
			scan.IncludeStartRow = &boolFalse
		}
		req = &pb.ScanRequest{
			Region:                  r.specifier(),
			Scan:                    scan,
			NumberOfRows:            proto.Uint32(s.caching),
			ClientHandlesPartials:   &boolTrue,
			ClientHandlesHeartbeats: &boolTrue,
		}
		if s.limit > 0 {
			req.LimitOfRows = proto.Uint32(uint32(s.limit - s.fetched))
		}
	} else {
		req = &pb.ScanRequest{ScannerId: s.scannerID, NumberOfRows: proto.Uint32(s.caching)}
	}
	s.sp.setServer(s.reg.addr)
	actx, cancel := c.attemptContext(s.ctx)
	resp := new(pb.ScanResponse)
	err := attemptError(s.ctx, actx, c.rsCall(actx, s.reg.addr, "Scan", req, resp))
	cancel()
	if err != nil {
		return err
	}
	if resp.ScannerId != nil {
		s.scannerID = resp.ScannerId
	}
	for _, r := range resp.GetResults() {
		s.add(r)
	}
	switch {
	case !resp.GetMoreResults():
		s.scannerID = nil
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

// add appends one wire Result to buf, joining the parts of a row split
// by size.
func (s *scanner) add(r *pb.Result) {
	if len(r.GetCell()) == 0 {
		return
	}
	res := resultFromPB(r)
	if s.pending != nil {
		if bytes.Equal(s.pending.Row(), res.Row()) {
			s.pending.Cells = append(s.pending.Cells, res.Cells...)
			res = s.pending
		} else {
			s.emit(s.pending)
		}
		s.pending = nil
	}
	if r.GetPartial() {
		s.pending = res
		return
	}
	s.emit(res)
}

func (s *scanner) emit(res *Result) {
	if s.limit > 0 && s.fetched >= s.limit {
		return
	}
	// A re-opened scanner must not repeat a row.
	if s.lastRow != nil {
		c := bytes.Compare(res.Row(), s.lastRow)
		if (!s.reversed && c <= 0) || (s.reversed && c >= 0) {
			return
		}
	}
	s.buf = append(s.buf, res)
	s.lastRow = res.Row()
	s.fetched++
}

// nextRegion moves the position past the exhausted region s.reg, or
// finishes the scan when it was the last one in range.
func (s *scanner) nextRegion() {
	if s.pending != nil {
		s.emit(s.pending)
		s.pending = nil
	}
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
	if s.scannerID == nil || s.c.closed.Load() || s.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	req := &pb.ScanRequest{ScannerId: s.scannerID, Renew: &boolTrue, NumberOfRows: proto.Uint32(0)}
	if err := s.c.rsCall(ctx, s.reg.addr, "Scan", req, nil); err == nil {
		s.scheduleRenewal()
	}
}

// finish ends the scan: records err, closes the server-side scanner and
// ends the span.
func (s *scanner) finish(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
	s.closeServer()
	if !s.ended {
		s.ended = true
		s.sp.end(s.ctx, s.err)
	}
}

// closeServer closes the open server-side scanner, if any (best effort).
func (s *scanner) closeServer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopRenewal()
	if s.scannerID == nil || s.c.closed.Load() {
		s.scannerID = nil
		return
	}
	id, reg := s.scannerID, s.reg
	s.scannerID = nil
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	req := &pb.ScanRequest{ScannerId: id, CloseScanner: &boolTrue, NumberOfRows: proto.Uint32(0)}
	_ = s.c.rsCall(ctx, reg.addr, "Scan", req, nil)
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
	s.buf = nil
	return nil
}
