package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

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
