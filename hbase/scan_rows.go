package hbase

import (
	"bytes"
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

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
