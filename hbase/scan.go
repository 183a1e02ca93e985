package hbase

import (
	"context"
	"sync"
	"time"

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
