package rpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// Conn is one multiplexed connection to one server for one service. Any
// number of goroutines may call concurrently; requests are matched to
// responses by call id, and responses may arrive in any order.
//
// A Conn never reconnects: once broken (see ConnError) every call fails.
// Use a Pool to reconnect lazily.
type Conn struct {
	addr, service string
	nc            net.Conn
	maxFrame      int
	reuseMin      int // WithFrameReuseMin
	writeTimeout  time.Duration

	// born is the clock of lastRead and pending.queued: monotonic time
	// since dial, in nanoseconds.
	born time.Time
	// lastRead is when bytes last arrived from the server.
	lastRead atomic.Int64
	// lastAnswer is when a whole answer last reached a waiting call, and
	// reading is the call id of the frame being read, or -1: the stall
	// check's measures of progress (see progressSince).
	lastAnswer atomic.Int64
	reading    atomic.Int64
	// bareTCP is set when nc is a *net.TCPConn, whose writes a deadline
	// can cut and a later write resume (writeNow).
	bareTCP bool
	// plain is set on connections with neither TLS nor Kerberos: when
	// the server closes one before sending a byte, its error wraps
	// errClosedUnanswered, which a Pool counts (see ErrTLSRequired).
	plain bool

	// writeq carries encoded requests to the writer goroutine. wmu is
	// held by whoever writes to the socket, the writer goroutine or a
	// caller writing its own request (writeNow), so that each frame is
	// written whole.
	writeq chan *pending
	wmu    sync.Mutex
	done   chan struct{} // closed when the connection is dead

	mu      sync.Mutex
	pending map[uint32]*pending // guarded by mu; nil once dead
	nextID  uint32              // guarded by mu; in [0, 2^31-1]
	err     error               // guarded by mu; set once, before done closes
}

// pending is one outstanding call.
type pending struct {
	id    uint32
	frame *[]byte // encoded request; owned by the caller, then the writer
	// gone is set when the caller gave up before the request was written:
	// the writer then skips it.
	gone atomic.Bool
	// written is set by the writer before it writes the request: from
	// then on the server may receive it.
	written atomic.Bool
	queued  int64       // when the call was registered (Conn.now)
	res     chan result // buffered: the one sender never blocks
	// into is the buffer the caller offered for the response frame, and
	// reuse says it offered one, maybe nil (WithFrameBuffer); both set
	// before the call is registered.
	into  []byte
	reuse bool
	// head is WithHead's function, set before the call is registered.
	head func(msg []byte)
	// answering is set by the reader when it starts reading the call's
	// answer frame (frames of reuseMin bytes or more, whose call id it
	// peeks at): see cutOff.
	answering atomic.Bool
}

type result struct {
	resp Response
	err  error
}

// Dial connects to addr, sends the preamble and the ConnectionHeader for
// service, and starts the connection's reader and writer. ctx bounds the
// dial and the handshake only.
func Dial(ctx context.Context, addr, service string, opts ...Option) (*Conn, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return dial(ctx, addr, service, &o)
}

func dial(ctx context.Context, addr, service string, o *options) (*Conn, error) {
	if service == "" {
		return nil, errors.New("rpc: empty service name")
	}
	var hs []byte
	var err error
	if o.kerberos == nil {
		hs, err = AppendHandshake(nil, o.connectionHeader(service))
	} else {
		hs, err = appendConnectionHeader(nil, o.connectionHeader(service), 0)
	}
	if err != nil {
		return nil, err
	}
	nc, err := o.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConnError{Addr: addr, Service: service, Err: err}
	}
	if o.tls != nil {
		tc, err := tlsHandshake(ctx, nc, addr, o.tls)
		if err != nil {
			nc.Close()
			return nil, &ConnError{Addr: addr, Service: service, Err: err}
		}
		nc = tc
	}
	if o.kerberos != nil {
		// The SASL exchange first; the ConnectionHeader then goes over
		// the connection it returns (wrapped for integrity or privacy).
		sc, err := o.kerberos.saslHandshake(ctx, nc, addr, o.maxFrameSize, o.tls == nil)
		if err != nil {
			nc.Close()
			return nil, &ConnError{Addr: addr, Service: service, Err: err}
		}
		nc = sc
	}
	// The handshake is one small write; bound it by ctx.
	stop := context.AfterFunc(ctx, func() { nc.SetWriteDeadline(time.Unix(1, 0)) })
	if d, ok := ctx.Deadline(); ok {
		nc.SetWriteDeadline(d)
	}
	_, werr := nc.Write(hs)
	if !stop() || werr != nil {
		nc.Close()
		if werr == nil || ctx.Err() != nil {
			werr = ctx.Err()
		}
		return nil, &ConnError{Addr: addr, Service: service, Err: fmt.Errorf("handshake: %w", werr)}
	}
	nc.SetWriteDeadline(time.Time{})
	c := &Conn{
		addr:         addr,
		service:      service,
		nc:           nc,
		maxFrame:     o.maxFrameSize,
		reuseMin:     o.reuseMin,
		writeTimeout: o.writeTimeout,
		born:         time.Now(),
		writeq:       make(chan *pending, 128),
		done:         make(chan struct{}),
		pending:      make(map[uint32]*pending),
	}
	c.plain = o.tls == nil && o.kerberos == nil
	c.reading.Store(-1)
	_, c.bareTCP = nc.(*net.TCPConn)
	go c.readLoop()
	go c.writeLoop()
	return c, nil
}

// Addr returns the address the connection was dialled with.
func (c *Conn) Addr() string { return c.addr }

// Service returns the service the connection serves.
func (c *Conn) Service() string { return c.service }

// Done is closed when the connection is broken or closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection is dead, or nil while it is usable.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection. Pending calls fail with ErrClosed.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

// Call invokes method (the exact, case-sensitive name, e.g. "Get" or
// "truncateTable") with req and decodes the answer into resp (which may be
// nil to discard it).
//
// The context bounds the whole call; its deadline is also sent to the
// server as RequestHeader.timeout. When ctx ends first, Call returns
// ctx.Err() (wrapped, with the context's cause) at once and the late
// response is discarded. A context ending with cause ErrCallTimeout is the
// call's per-RPC timeout: if nothing was read from the connection since
// the call was registered, the connection is closed as stalled (see
// ErrConnStalled) and the call fails with its *ConnError; if the call's
// answer was being read, the connection is closed too (ErrAnswerCutOff).
//
// Errors: *RemoteError for a server exception, *ConnError when the
// connection broke (see IsRetryable and RequestSent), ErrClosed, or a
// context or marshalling error.
func (c *Conn) Call(ctx context.Context, method string, req, resp proto.Message, opts ...CallOption) error {
	_, err := c.call(ctx, method, req, resp, opts)
	return err
}

// call reports whether the request may have reached the server (sent), so
// a Pool can transparently retry calls that never left.
func (c *Conn) call(ctx context.Context, method string, req, resp proto.Message, opts []CallOption) (sent bool, err error) {
	if method == "" {
		return false, errors.New("rpc: empty method name")
	}
	var co callOptions
	for _, opt := range opts {
		opt(&co)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("rpc: %s: %w", method, err)
	}
	hdr := &pb.RequestHeader{
		MethodName:   proto.String(method),
		RequestParam: proto.Bool(true),
	}
	if co.priority != 0 {
		hdr.Priority = proto.Uint32(co.priority)
	}
	if d, ok := ctx.Deadline(); ok {
		hdr.Timeout = proto.Uint32(timeoutMillis(time.Until(d)))
	}

	p, err := c.register(co.into, co.frame != nil, co.head)
	if err != nil {
		return false, err
	}
	hdr.CallId = proto.Uint32(p.id)
	buf := getBuffer()
	*buf, err = AppendRequest((*buf)[:0], hdr, req)
	if err != nil {
		c.unregister(p)
		putBuffer(buf)
		return false, fmt.Errorf("rpc: %s: %w", method, err)
	}
	p.frame = buf

	if sent, err := c.send(ctx, method, p); err != nil {
		return sent, err
	}
	var r result
	select {
	case r = <-p.res:
	case <-ctx.Done():
		return true, c.abandon(ctx, method, p)
	}
	if r.err != nil {
		return true, r.err
	}
	if co.frame != nil {
		*co.frame = r.resp.Frame
	}
	if co.cellBlock != nil {
		*co.cellBlock = r.resp.CellBlock
	}
	if co.message != nil {
		*co.message = r.resp.Body
	}
	if x := r.resp.Header.GetException(); x != nil {
		return true, newRemoteError(x)
	}
	if resp != nil {
		if err := decodeBody(r.resp, resp, co.cellBlock == nil); err != nil {
			return true, c.corruptAnswer(method, err, p)
		}
	}
	if co.check != nil {
		if err := co.check(); err != nil {
			return true, c.corruptAnswer(method, err, p)
		}
	}
	return true, nil
}

// corruptAnswer is the error of a call whose answer did not decode (err).
// The frame's parts filled it exactly (readHead, DecodeResponse), so the
// next frame starts where expected: the connection stays.
func (c *Conn) corruptAnswer(method string, err error, _ *pending) error {
	return &CorruptError{Addr: c.addr, Method: method, Err: err}
}

// ctxError is the error of a call whose context ended: its cause (e.g.
// ErrCallTimeout) and ctx.Err().
func ctxError(ctx context.Context, method string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("rpc: %s: %w (%w)", method, cause, err)
	}
	return fmt.Errorf("rpc: %s: %w", method, err)
}

// abandon ends a queued call whose context ended. If that was its per-RPC
// timeout (cause ErrCallTimeout) and the connection made no progress
// since the call was registered (see progressSince), the connection is
// failed as stalled.
func (c *Conn) abandon(ctx context.Context, method string, p *pending) error {
	p.gone.Store(true)
	c.unregister(p)
	if err := c.cutOff(ctx, method, p); err != nil {
		return err
	}
	if !errors.Is(context.Cause(ctx), ErrCallTimeout) || c.progressSince(p) {
		return &sentError{ctxError(ctx, method)}
	}
	waited := time.Duration(c.now() - p.queued).Round(time.Millisecond)
	c.fail(&ConnError{Addr: c.addr, Service: c.service,
		Err: fmt.Errorf("%w (no answer to %s, nor to any other call, in %v)", ErrConnStalled, method, waited)})
	return fmt.Errorf("rpc: %s: %w: %w", method, context.Cause(ctx), c.callErr(c.deadErr(), p))
}

// progressSince reports whether the connection made progress since p was
// registered: a whole answer reached a waiting call, or bytes arrived of
// an answer being read for p or for a call still waiting. Bytes alone are
// not progress: a frame whose length was corrupted swallows the answers
// that follow it, and none of them reaches its caller.
func (c *Conn) progressSince(p *pending) bool {
	if c.lastAnswer.Load() >= p.queued {
		return true
	}
	id := c.reading.Load()
	if id < 0 || c.lastRead.Load() < p.queued {
		return false
	}
	if uint32(id) == p.id {
		return true
	}
	c.mu.Lock()
	_, waiting := c.pending[uint32(id)]
	c.mu.Unlock()
	return waiting
}

// cutOff fails the connection with ErrAnswerCutOff when p's per-RPC
// timeout passed while its answer was being read, and returns p's error;
// it returns nil otherwise.
func (c *Conn) cutOff(ctx context.Context, method string, p *pending) error {
	if !p.answering.Load() || !errors.Is(context.Cause(ctx), ErrCallTimeout) {
		return nil
	}
	waited := time.Duration(c.now() - p.queued).Round(time.Millisecond)
	c.fail(&ConnError{Addr: c.addr, Service: c.service,
		Err: fmt.Errorf("%w (%s's answer still arriving after %v)", ErrAnswerCutOff, method, waited)})
	return fmt.Errorf("rpc: %s: %w: %w", method, context.Cause(ctx), c.callErr(c.deadErr(), p))
}

// now is the connection's clock: monotonic nanoseconds since dial.
func (c *Conn) now() int64 { return int64(time.Since(c.born)) }

// callErr is the error of pending call p when the connection failed with
// err: a *ConnError saying whether p's request may have left.
func (c *Conn) callErr(err error, p *pending) error {
	ce, ok := err.(*ConnError)
	if !ok || !p.written.Load() {
		return err
	}
	cp := *ce
	cp.Sent = true
	return &cp
}

// timeoutMillis converts a remaining duration into RequestHeader.timeout,
// in [1, 2^31-1]: the server reads the field as a Java int and ignores
// values <= 0.
func timeoutMillis(d time.Duration) uint32 {
	ms := d.Milliseconds()
	switch {
	case ms < 1:
		return 1
	case ms > math.MaxInt32:
		return math.MaxInt32
	}
	return uint32(ms)
}

// register allocates a call id that is not outstanding and records the call.
func (c *Conn) register(into []byte, reuse bool, head func([]byte)) (*pending, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	// At most len(pending)+1 probes; len(pending) is far below 2^31.
	id := c.nextID
	for {
		if _, busy := c.pending[id]; !busy {
			break
		}
		id = (id + 1) & (fatalCallID - 1)
	}
	c.nextID = (id + 1) & (fatalCallID - 1)
	p := &pending{id: id, queued: c.now(), res: make(chan result, 1), into: into, reuse: reuse, head: head}
	c.pending[id] = p
	return p, nil
}

func (c *Conn) unregister(p *pending) {
	c.mu.Lock()
	if c.pending[p.id] == p {
		delete(c.pending, p.id)
	}
	c.mu.Unlock()
}

func (c *Conn) deadErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fail marks the connection dead with err (first error wins), closes the
// socket and fails every pending call.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if err != ErrClosed {
		var ce *ConnError
		if !errors.As(err, &ce) {
			if c.plain && c.lastRead.Load() == 0 && closedByPeer(err) {
				err = fmt.Errorf("%w: %w", errClosedUnanswered, err)
			}
			err = &ConnError{Addr: c.addr, Service: c.service, Err: err}
		}
	}
	c.err = err
	pend := c.pending
	c.pending = nil
	close(c.done)
	c.mu.Unlock()

	c.nc.Close()
	for _, p := range pend {
		p.res <- result{err: c.callErr(err, p)}
	}
}

// readLoop demultiplexes response frames to their callers until the
// connection fails.
func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(readStamper{c}, 64<<10)
	for {
		frame, err := c.readFrame(br)
		c.reading.Store(-1)
		if err != nil {
			c.fail(err)
			return
		}
		resp, err := DecodeResponse(frame)
		if err != nil {
			c.fail(fmt.Errorf("%w: %w", ErrCorruptAnswer, err))
			return
		}
		id := resp.Header.GetCallId()
		if id >= fatalCallID {
			var cause error = fmt.Errorf("server sent call id %d", id)
			if x := resp.Header.GetException(); x != nil {
				cause = newRemoteError(x)
			}
			c.fail(cause)
			return
		}
		c.mu.Lock()
		p := c.pending[id]
		if p != nil {
			delete(c.pending, id)
		}
		c.mu.Unlock()
		if p == nil {
			// The caller gave up (or never existed): drop the frame.
			continue
		}
		c.lastAnswer.Store(c.now())
		p.res <- result{resp: resp}
	}
}

// readFrame reads the next response frame. A frame of reuseMin bytes or
// more for a call that offered a buffer (WithFrameBuffer) goes into
// that buffer when it fits there, and otherwise into a new one with room
// to spare, so that the next, slightly larger, response of the same kind
// fits too: the call id is peeked at in the frame's header before its
// body is read. Such a frame's message goes to the call's WithHead
// function before the rest is read.
func (c *Conn) readFrame(br *bufio.Reader) ([]byte, error) {
	n, err := readFrameLen(br, c.maxFrame)
	if err != nil {
		return nil, err
	}
	fh, checked, err := readHead(br, n)
	if err != nil {
		return nil, err
	}
	if checked && fh.hasID {
		c.reading.Store(int64(fh.id))
	}
	if n < c.reuseMin {
		return readFrameBody(br, n)
	}
	var p *pending
	if checked && fh.hasID {
		c.mu.Lock()
		p = c.pending[fh.id]
		c.mu.Unlock()
	}
	if p != nil {
		p.answering.Store(true)
	}
	if p != nil && p.head != nil {
		if msg, ok := peekMessage(br, n); ok {
			p.head(msg)
		}
	}
	var b []byte
	switch {
	case n > frameUpFront || p == nil || !p.reuse:
		return readFrameBody(br, n)
	case cap(p.into) >= n:
		b = p.into[:n]
	default:
		b = make([]byte, n, min(n+n/4, frameUpFront))
	}
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, noEOF(err)
	}
	return b, nil
}

// peekMessage returns the message of the frame of n bytes that br is at,
// without consuming it: ok is false when the header says the call failed,
// or when the header and message do not fit in br's buffer.
func peekMessage(br *bufio.Reader, n int) (msg []byte, ok bool) {
	// Peek only as far as needed: a longer peek would wait for bytes the
	// caller does not need yet.
	peek := func(k int) []byte {
		if k > n || k > br.Size() {
			return nil
		}
		b, err := br.Peek(k)
		if err != nil {
			return nil // the connection failed: readFrame will say so
		}
		return b
	}
	b := peek(min(n, binary.MaxVarintLen64))
	hl, k := protowire.ConsumeVarint(b)
	if k < 0 || hl > uint64(br.Size()) {
		return nil, false
	}
	hend := k + int(hl)
	if b = peek(min(n, hend+binary.MaxVarintLen64)); len(b) < hend {
		return nil, false
	}
	var h pb.ResponseHeader
	if proto.Unmarshal(b[k:hend], &h) != nil || h.Exception != nil {
		return nil, false
	}
	ml, k2 := protowire.ConsumeVarint(b[hend:])
	if k2 < 0 || ml > uint64(br.Size()) {
		return nil, false
	}
	start := hend + k2
	if b = peek(start + int(ml)); b == nil {
		return nil, false
	}
	return b[start:], true
}

// readStamper reads from the socket and records when bytes arrived, so
// that a call that times out can tell a stalled connection from a slow
// answer (see progressSince).
type readStamper struct{ c *Conn }

func (r readStamper) Read(b []byte) (int, error) {
	n, err := r.c.nc.Read(b)
	if n > 0 {
		r.c.lastRead.Store(r.c.now())
	}
	return n, err
}

// send hands p's request to the socket, itself (writeNow) or through the
// writer goroutine. On error sent says whether the request may have left,
// and p is no longer registered or has its result.
func (c *Conn) send(ctx context.Context, method string, p *pending) (sent bool, err error) {
	if taken, sent, err := c.writeNow(ctx, method, p); taken {
		return sent, err
	}
	select {
	case c.writeq <- p:
		return true, nil
	case <-ctx.Done():
		c.unregister(p)
		putBuffer(p.frame)
		return false, ctxError(ctx, method)
	case <-c.done:
		putBuffer(p.frame)
		return false, c.deadErr()
	}
}

// writeNowMax is the largest request a caller writes itself (writeNow);
// larger ones, Batches mostly, go through the writer goroutine.
const writeNowMax = 16 << 10

// writeNow writes p's request on the caller's goroutine when nobody else is
// writing and nothing waits in the queue, which spares the hand-off to the
// writer goroutine: for a Get, a sixth of the client's CPU on a real
// HBase. It reports whether it took the request, and if so what send
// returns.
//
// Only on a bare TCP socket (no TLS, SASL or WithDialFunc wrapper, none of
// which can resume a write a deadline cut), and only for a ctx that has a
// deadline or cannot be cancelled: a caller must not be stuck in a write
// past the end of its context. A small write blocks only when the socket's
// send buffer is full, when the server is slow to read or has stopped.
// The write then stops at ctx's deadline or the write timeout, whichever
// is first. Cut by the deadline before its first byte, the request was not
// sent and the connection is as it was; cut after it, the rest of the
// frame is written in the background under the write timeout alone (the
// socket stays taken meanwhile) and the caller waits for its answer or
// its context as after any write. Only the write timeout fails the
// connection, as stalled, as the writer goroutine's does.
func (c *Conn) writeNow(ctx context.Context, method string, p *pending) (taken, sent bool, err error) {
	if !c.bareTCP || len(*p.frame) > writeNowMax || len(c.writeq) > 0 {
		return false, false, nil
	}
	d, byCtx := ctx.Deadline()
	if !byCtx && ctx.Done() != nil {
		return false, false, nil
	}
	if !c.wmu.TryLock() {
		return false, false, nil
	}
	dl := c.writeDeadline()
	if byCtx = byCtx && (dl.IsZero() || d.Before(dl)); byCtx {
		dl = d
	}
	c.nc.SetWriteDeadline(dl)
	p.written.Store(true)
	frame := p.frame
	start := time.Now()
	n, err := c.nc.Write(*frame)
	cut := byCtx && errors.Is(err, os.ErrDeadlineExceeded)
	if cut && n > 0 {
		go c.finishWrite(frame, n) // releases the socket and the frame
		return true, true, nil
	}
	c.wmu.Unlock()
	putBuffer(frame)
	switch {
	case err == nil:
		return true, true, nil
	case cut: // before its first byte: not sent
		p.written.Store(false)
		c.unregister(p)
		<-ctx.Done() // its deadline passed: Done is closed or about to be
		return true, false, ctxError(ctx, method)
	}
	if n == 0 {
		p.written.Store(false)
	}
	c.fail(c.writeErr(err, time.Since(start)))
	return true, p.written.Load(), c.callErr(c.deadErr(), p)
}

// finishWrite writes the rest of a frame whose write a caller's deadline
// cut after its first n bytes, under the write timeout alone, and then
// releases the socket (wmu, held by the caller's writeNow).
func (c *Conn) finishWrite(frame *[]byte, n int) {
	defer putBuffer(frame)
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(c.writeDeadline())
	if _, err := c.nc.Write((*frame)[n:]); err != nil {
		c.fail(c.writeErr(err, c.writeTimeout))
	}
}

// writeDeadline is the deadline of a write starting now: the write
// timeout from now, or none.
func (c *Conn) writeDeadline() time.Time {
	if c.writeTimeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.writeTimeout)
}

// writeLoop writes queued requests, flushing whenever the queue is empty,
// until the connection fails.
func (c *Conn) writeLoop() {
	bw := bufio.NewWriterSize(c.nc, 64<<10)
	for {
		var p *pending
		select {
		case p = <-c.writeq:
		case <-c.done:
			c.drainQueue()
			return
		}
		c.wmu.Lock()
		// Always set: a caller's own write (writeNow) may have left its
		// context's deadline on the socket.
		c.nc.SetWriteDeadline(c.writeDeadline())
		for p != nil {
			if !p.gone.Load() {
				p.written.Store(true)
				if _, err := bw.Write(*p.frame); err != nil {
					c.wmu.Unlock()
					putBuffer(p.frame)
					c.fail(c.writeErr(err, c.writeTimeout))
					c.drainQueue()
					return
				}
			}
			putBuffer(p.frame)
			select {
			case p = <-c.writeq:
			default:
				p = nil
			}
		}
		err := bw.Flush()
		c.wmu.Unlock()
		if err != nil {
			c.fail(c.writeErr(err, c.writeTimeout))
			c.drainQueue()
			return
		}
	}
}

// writeErr marks a write that hit its deadline, after blocking for
// blocked, as a stall: the server stopped reading.
func (c *Conn) writeErr(err error, blocked time.Duration) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w (a write blocked for %v: %w)", ErrConnStalled, blocked.Round(time.Millisecond), err)
	}
	return err
}

// drainQueue returns the buffers of requests that will never be written.
// Their callers are failed by fail.
func (c *Conn) drainQueue() {
	for {
		select {
		case p := <-c.writeq:
			putBuffer(p.frame)
		default:
			return
		}
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuffer() *[]byte { return bufPool.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) > 1<<20 {
		return // let large buffers go
	}
	bufPool.Put(b)
}
