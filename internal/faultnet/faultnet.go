// Package faultnet breaks connections on purpose, for tests of how the
// client behaves on a bad network: resets after a request reached the
// server, half-open peers, latency, a slow link, and corrupted, shortened or
// lengthened frames.
//
// A Dialer wraps the client's dial function (hbase.WithDialer(d.Dial)). It
// reads the server's side of every connection one frame at a time — HBase's
// RPC answers are a 4-byte big-endian length and that many bytes — on a
// goroutine of the connection's (ended by Close), so a fault can be aimed at
// an answer: dropped after the server has acted on the request, delayed from
// its arrival, or changed before the client reads it. Faults are set for all
// connections (SetFaults) or armed once (ResetNextAnswer, MangleNextAnswer).
//
// It is test code's: nothing in the library imports it. Connections made
// over TLS or SASL carry other framing; use it on plain connections only.
package faultnet

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// DialFunc is the dial function the client takes (hbase.WithDialer).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Faults are applied to every connection of a Dialer, old and new, while set.
// The zero value injects nothing.
type Faults struct {
	// Latency delays every answer frame by this much.
	Latency time.Duration
	// SpikeAnswer is the probability that an answer frame is delayed by
	// Spike on top of Latency: a latency spike.
	SpikeAnswer float64
	Spike       time.Duration
	// BytesPerSecond limits how fast answers reach the client (0: no limit).
	BytesPerSecond int
	// ResetAnswer is the probability that an answer frame is dropped and
	// the connection reset instead: the server has acted on the request,
	// the client never learns how it ended.
	ResetAnswer float64
	// CorruptAnswer is the probability that one random bit of an answer
	// frame is flipped, its length prefix included.
	CorruptAnswer float64
	// ShortenAnswer and LengthenAnswer are the probabilities that an
	// answer frame's length prefix is made 1 to 8 bytes shorter or longer
	// than the bytes that follow it (AddToLength): where the client thinks
	// the next frame starts slips.
	ShortenAnswer, LengthenAnswer float64
	// HalfOpen makes the peer vanish: writes are taken and dropped, reads
	// wait for the deadline or Close.
	HalfOpen bool
	// RefuseDials fails new dials with ECONNREFUSED.
	RefuseDials bool
}

// Stats counts what a Dialer did.
type Stats struct {
	Dials, Resets, Corrupted, Mangled, Frames int
	Spikes, Shortened, Lengthened             int
}

// ErrReset is what a read or write on a connection reset by the Dialer
// returns, wrapped in a *net.OpError as the kernel's would be.
var ErrReset = syscall.ECONNRESET

// Dialer makes connections that misbehave on request. Its methods are safe
// for concurrent use.
type Dialer struct {
	base  DialFunc
	match func(addr string) bool

	mu     sync.Mutex
	faults Faults
	resets int                         // armed one-shot resets
	mangle []func(frame []byte) []byte // armed one-shot manglers
	stats  Stats
	rng    *rand.Rand
	conns  map[*Conn]struct{}
}

// New returns a Dialer over base (a net.Dialer's DialContext when nil).
// Only connections whose address match accepts are faulted (all when nil).
func New(base DialFunc, match func(addr string) bool) *Dialer {
	if base == nil {
		var nd net.Dialer
		base = nd.DialContext
	}
	return &Dialer{
		base:  base,
		match: match,
		rng:   rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)),
		conns: map[*Conn]struct{}{},
	}
}

// Seed makes the random faults repeatable.
func (d *Dialer) Seed(seed uint64) {
	d.mu.Lock()
	d.rng = rand.New(rand.NewPCG(seed, 1))
	d.mu.Unlock()
}

// SetFaults replaces the faults applied to every connection.
func (d *Dialer) SetFaults(f Faults) {
	d.mu.Lock()
	d.faults = f
	conns := make([]*Conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.wake()
	}
}

// Faults returns the faults in force.
func (d *Dialer) Faults() Faults {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.faults
}

// ResetNextAnswer arms one reset: the next answer frame read on any
// matching connection is dropped and that connection reset. The request it
// answers has reached the server and been acted on.
func (d *Dialer) ResetNextAnswer() {
	d.mu.Lock()
	d.resets++
	d.mu.Unlock()
}

// MangleNextAnswer arms one change: the next answer frame (its 4-byte
// length prefix included) is replaced by fn's result before the client
// reads it.
func (d *Dialer) MangleNextAnswer(fn func(frame []byte) []byte) {
	d.mu.Lock()
	d.mangle = append(d.mangle, fn)
	d.mu.Unlock()
}

// Armed reports how many one-shot faults have not fired yet.
func (d *Dialer) Armed() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resets + len(d.mangle)
}

// Stats returns the counts so far.
func (d *Dialer) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// ResetAll resets every open matching connection now.
func (d *Dialer) ResetAll() {
	d.mu.Lock()
	conns := make([]*Conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.reset()
	}
}

// Dial is the dial function to hand the client.
func (d *Dialer) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.match != nil && !d.match(addr) {
		return d.base(ctx, network, addr)
	}
	if d.Faults().RefuseDials {
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	nc, err := d.base(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c := &Conn{Conn: nc, d: d, frames: make(chan arrival, 64), woken: make(chan struct{}), closed: make(chan struct{})}
	d.mu.Lock()
	d.stats.Dials++
	d.conns[c] = struct{}{}
	d.mu.Unlock()
	go c.pump()
	return c, nil
}

// frameFault is what the Dialer decides for one answer frame.
type frameFault struct {
	reset   bool
	mangle  func([]byte) []byte
	flipBit int // -1: none
	spike   bool
	faults  Faults
}

func (d *Dialer) decide(frameLen int) frameFault {
	d.mu.Lock()
	defer d.mu.Unlock()
	ff := frameFault{flipBit: -1, faults: d.faults}
	d.stats.Frames++
	switch {
	case d.resets > 0:
		d.resets--
		ff.reset = true
	case len(d.mangle) > 0:
		ff.mangle, d.mangle = d.mangle[0], d.mangle[1:]
		d.stats.Mangled++
	case d.faults.ResetAnswer > 0 && d.rng.Float64() < d.faults.ResetAnswer:
		ff.reset = true
	case d.faults.CorruptAnswer > 0 && d.rng.Float64() < d.faults.CorruptAnswer:
		ff.flipBit = d.rng.IntN(frameLen * 8)
		d.stats.Corrupted++
	case d.faults.ShortenAnswer > 0 && d.rng.Float64() < d.faults.ShortenAnswer:
		ff.mangle = AddToLength(-1 - d.rng.IntN(8))
		d.stats.Shortened++
	case d.faults.LengthenAnswer > 0 && d.rng.Float64() < d.faults.LengthenAnswer:
		ff.mangle = AddToLength(1 + d.rng.IntN(8))
		d.stats.Lengthened++
	}
	if d.faults.SpikeAnswer > 0 && d.rng.Float64() < d.faults.SpikeAnswer {
		ff.spike = true
		d.stats.Spikes++
	}
	if ff.reset {
		d.stats.Resets++
	}
	return ff
}

func (d *Dialer) forget(c *Conn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// Conn is a connection of a Dialer.
type Conn struct {
	net.Conn
	d *Dialer

	frames  chan arrival // answer frames as the pump read them
	rmu     sync.Mutex   // one reader at a time
	next    *arrival     // a frame taken from frames, its fate decided, not yet due
	pending []byte       // answer bytes not yet handed to the client
	rerr    error        // sticky read error

	mu        sync.Mutex
	deadline  time.Time
	woken     chan struct{} // closed and replaced when faults or the deadline change
	closed    chan struct{}
	closeOnce sync.Once
	isReset   bool
}

func (c *Conn) wake() {
	c.mu.Lock()
	close(c.woken)
	c.woken = make(chan struct{})
	c.mu.Unlock()
}

// SetDeadline sets both deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetWriteDeadline(t)
}

// SetReadDeadline sets the read deadline, which Read honours (the pump
// reads the socket without one).
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return nil
}

func (c *Conn) setReadDeadline(t time.Time) {
	c.mu.Lock()
	c.deadline = t
	close(c.woken)
	c.woken = make(chan struct{})
	c.mu.Unlock()
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	c.d.forget(c)
	return c.Conn.Close()
}

// reset closes the connection as a peer's RST would end it: reads and
// writes from now on fail with ECONNRESET.
func (c *Conn) reset() {
	c.mu.Lock()
	c.isReset = true
	c.mu.Unlock()
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.closeOnce.Do(func() { close(c.closed) })
	_ = c.Conn.Close()
	c.d.forget(c)
}

func (c *Conn) resetErr(op string) error {
	return &net.OpError{Op: op, Net: "tcp", Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, ErrReset)}
}

func (c *Conn) wasReset() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.isReset
}

// Write sends p, or drops it when the peer is half-open.
func (c *Conn) Write(p []byte) (int, error) {
	if c.wasReset() {
		return 0, c.resetErr("write")
	}
	if c.d.Faults().HalfOpen {
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// wait sleeps for d, or until the read deadline, Close or a change of
// faults (when interruptible). It returns a timeout error at the deadline.
func (c *Conn) wait(d time.Duration, untilChange bool) error {
	for {
		c.mu.Lock()
		deadline, woken := c.deadline, c.woken
		c.mu.Unlock()
		var timer <-chan time.Time
		var dl *time.Timer
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return c.timeoutErr()
			}
			if d < 0 || left < d {
				dl = time.NewTimer(left)
				timer = dl.C
			}
		}
		var done <-chan time.Time
		var dt *time.Timer
		if d >= 0 {
			dt = time.NewTimer(d)
			done = dt.C
		}
		start := time.Now()
		select {
		case <-done:
			stop(dl)
			return nil
		case <-timer:
			stop(dt)
		case <-c.closed:
			stop(dl)
			stop(dt)
			if c.wasReset() {
				return c.resetErr("read")
			}
			return net.ErrClosed
		case <-woken:
			stop(dl)
			stop(dt)
			if untilChange {
				return nil
			}
			if d >= 0 {
				d -= time.Since(start)
				if d <= 0 {
					return nil
				}
			}
		}
	}
}

func stop(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// arrival is an answer frame as the pump read it from the server, and
// when; or the error that ended the pump.
type arrival struct {
	frame []byte
	at    time.Time
	err   error
	ff    frameFault // decided when Read takes it
}

// pump reads answer frames from the server as they come, so that each
// frame's delay counts from its arrival and delays overlap, as on a link
// with latency (a spike holds back the frames behind it, as TCP does).
func (c *Conn) pump() {
	for {
		a := arrival{}
		var head [4]byte
		if _, a.err = io.ReadFull(c.Conn, head[:]); a.err == nil {
			a.frame = make([]byte, 4+int(binary.BigEndian.Uint32(head[:])))
			copy(a.frame, head[:])
			_, a.err = io.ReadFull(c.Conn, a.frame[4:])
			a.at = time.Now()
		}
		select {
		case c.frames <- a:
		case <-c.closed:
			return
		}
		if a.err != nil {
			return
		}
	}
}

// Read hands the client answer bytes, one frame at a time with the faults
// in force applied.
func (c *Conn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for len(c.pending) == 0 {
		if c.rerr != nil {
			return 0, c.rerr
		}
		if c.next == nil && c.d.Faults().HalfOpen {
			if err := c.wait(-1, true); err != nil {
				return 0, err
			}
			continue
		}
		if err := c.nextFrame(); err != nil {
			return 0, err
		}
	}
	n := len(p)
	if bps := c.d.Faults().BytesPerSecond; bps > 0 {
		// Hand out at most a twentieth of a second's worth at a time.
		n = min(n, max(bps/20, 1))
		if err := c.wait(time.Duration(n)*time.Second/time.Duration(bps), false); err != nil {
			return 0, err
		}
	}
	n = copy(p, c.pending[:min(n, len(c.pending))])
	c.pending = c.pending[n:]
	return n, nil
}

// nextFrame takes the next answer frame from the pump, decides its fate,
// waits until it is due (its arrival plus the latency in force) and
// applies it. A frame whose wait the deadline cut short stays next.
func (c *Conn) nextFrame() error {
	if c.next == nil {
		a, err := c.receive()
		if err != nil || a == nil {
			return err
		}
		if a.err != nil {
			c.rerr = c.readErr(a.err)
			return c.rerr
		}
		a.ff = c.d.decide(len(a.frame))
		c.next = a
	}
	a := c.next
	delay := a.ff.faults.Latency
	if a.ff.spike {
		delay += a.ff.faults.Spike
	}
	if due := time.Until(a.at.Add(delay)); due > 0 {
		if err := c.wait(due, false); err != nil {
			return err
		}
	}
	c.next = nil
	frame := a.frame
	switch ff := a.ff; {
	case ff.reset:
		c.reset()
		c.rerr = c.resetErr("read")
		return c.rerr
	case ff.mangle != nil:
		frame = ff.mangle(frame)
	case ff.flipBit >= 0:
		frame[ff.flipBit/8] ^= 1 << (ff.flipBit % 8)
	}
	c.pending = frame
	return nil
}

// receive waits for the pump's next frame, until the read deadline or
// Close. It returns nil, nil when the faults change, for Read to look at
// them again.
func (c *Conn) receive() (*arrival, error) {
	c.mu.Lock()
	deadline, woken := c.deadline, c.woken
	c.mu.Unlock()
	var timer <-chan time.Time
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, c.timeoutErr()
		}
		t := time.NewTimer(left)
		defer t.Stop()
		timer = t.C
	}
	select {
	case a := <-c.frames:
		return &a, nil
	case <-timer:
		return nil, c.timeoutErr()
	case <-c.closed:
		if c.wasReset() {
			return nil, c.resetErr("read")
		}
		return nil, net.ErrClosed
	case <-woken:
		return nil, nil
	}
}

func (c *Conn) timeoutErr() error {
	return &net.OpError{Op: "read", Net: "tcp", Addr: c.RemoteAddr(), Err: os.ErrDeadlineExceeded}
}

func (c *Conn) readErr(err error) error {
	if c.wasReset() {
		return c.resetErr("read")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return err
}

// Frame helpers for MangleNextAnswer.

// AddToLength returns a mangler that changes a frame's length prefix by
// delta and leaves its bytes as they are: the client's view of where the
// next frame starts slips.
func AddToLength(delta int) func([]byte) []byte {
	return func(f []byte) []byte {
		out := append([]byte(nil), f...)
		n := int(binary.BigEndian.Uint32(out)) + delta
		binary.BigEndian.PutUint32(out, uint32(max(n, 0)))
		return out
	}
}

// FlipBit returns a mangler that flips bit i of the frame (counted from the
// first byte of the length prefix, modulo the frame's size).
func FlipBit(i int) func([]byte) []byte {
	return func(f []byte) []byte {
		out := append([]byte(nil), f...)
		i := i % (len(out) * 8)
		out[i/8] ^= 1 << (i % 8)
		return out
	}
}

// FlipBitInTail returns a mangler that flips bit i counted back from the
// frame's last byte: inside the cell block of an answer that carries one.
func FlipBitInTail(i int) func([]byte) []byte {
	return func(f []byte) []byte {
		out := append([]byte(nil), f...)
		i := i % ((len(out) - 4) * 8)
		b := len(out) - 1 - i/8
		out[b] ^= 1 << (i % 8)
		return out
	}
}
