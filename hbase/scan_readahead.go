package hbase

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

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
