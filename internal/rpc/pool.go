package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
)

// Pool keeps one Conn per (address, service) and replaces a broken one on
// the next use: there is no background reconnect loop, so an idle Pool
// costs nothing.
type Pool struct {
	opts options

	mu     sync.Mutex
	conns  map[poolKey]*poolEntry // guarded by mu
	closed bool                   // guarded by mu
	// unanswered counts, per key, the connections in a row that the
	// server closed before any answer (errClosedUnanswered); guarded by
	// mu. At two the next dial first asks whether the server requires
	// TLS (see ErrTLSRequired).
	unanswered map[poolKey]int
}

type poolKey struct{ addr, service string }

// poolEntry is a connection, or a dial in progress that others wait for.
type poolEntry struct {
	conn    *Conn
	dialing chan struct{} // closed when the dial finished
	err     error         // dial error, valid after dialing closed
}

// NewPool returns a Pool whose connections use opts (see Option).
func NewPool(opts ...Option) (*Pool, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return &Pool{opts: o, conns: make(map[poolKey]*poolEntry), unanswered: make(map[poolKey]int)}, nil
}

// Conn returns the live connection to addr for service, dialling one if
// there is none or the previous one broke. Concurrent callers share one
// dial. The dial is bounded by ctx of the caller that started it.
func (p *Pool) Conn(ctx context.Context, addr, service string) (*Conn, error) {
	k := poolKey{addr, service}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		e := p.conns[k]
		switch {
		case e == nil:
			// Dial below.
		case e.dialing != nil:
			ch := e.dialing
			p.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if e.err != nil {
				if ctx.Err() == nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
					continue // the dialer's context ended, not ours: dial again
				}
				return nil, e.err
			}
			continue
		case e.conn.Err() == nil:
			p.mu.Unlock()
			return e.conn, nil
		}
		if e != nil {
			p.noteEnd(k, e.conn.Err()) // the connection it replaces
		}
		// Dial, with the entry marked so that others wait.
		e = &poolEntry{dialing: make(chan struct{})}
		p.conns[k] = e
		check := p.unanswered[k] >= 2
		p.mu.Unlock()

		var c *Conn
		err := p.checkTLS(ctx, k, check)
		if err == nil {
			c, err = dial(ctx, addr, service, &p.opts)
			if err != nil && errors.Is(err, errClosedUnanswered) {
				p.mu.Lock()
				p.noteEnd(k, err)
				check = p.unanswered[k] >= 2
				p.mu.Unlock()
				if tlsErr := p.checkTLS(ctx, k, check); tlsErr != nil {
					err = tlsErr
				}
			}
		}

		p.mu.Lock()
		if err != nil {
			if !errors.Is(err, errClosedUnanswered) && !errors.Is(err, ErrTLSRequired) {
				delete(p.unanswered, k)
			}
			e.err = err
			delete(p.conns, k) // the next caller dials again
		} else if p.closed {
			c.Close()
			c, err = nil, ErrClosed
			e.err = err
		} else {
			e.conn = c
		}
		ch := e.dialing
		e.dialing = nil
		p.mu.Unlock()
		close(ch)
		return c, err
	}
}

// noteEnd counts the end of a connection to k that failed with err:
// closed before any answer, or not. p.mu must be held.
func (p *Pool) noteEnd(k poolKey, err error) {
	if errors.Is(err, errClosedUnanswered) {
		p.unanswered[k]++
	} else {
		delete(p.unanswered, k)
	}
}

// checkTLS, when check is set (two connections to k in a row were closed
// before any answer), probes the server: it returns a *ConnError wrapping
// ErrTLSRequired when a TLS handshake completes, else nil, and then
// starts the count again (the server was going away).
func (p *Pool) checkTLS(ctx context.Context, k poolKey, check bool) error {
	if !check {
		return nil
	}
	if probeTLS(ctx, p.opts.dial, k.addr) {
		return &ConnError{Addr: k.addr, Service: k.service,
			Err: fmt.Errorf("%w (two connections in a row closed before any answer, and a TLS handshake completes)", ErrTLSRequired)}
	}
	p.mu.Lock()
	delete(p.unanswered, k)
	p.mu.Unlock()
	return nil
}

// Call sends one request on the connection for (addr, service), dialling
// as needed. If the pooled connection turns out to be dead before the
// request left (for instance the server closed it while idle), Call redials
// once; otherwise it returns the error as Conn.Call does.
func (p *Pool) Call(ctx context.Context, addr, service, method string, req, resp proto.Message, opts ...CallOption) error {
	for attempt := 0; ; attempt++ {
		c, err := p.Conn(ctx, addr, service)
		if err != nil {
			return err
		}
		sent, err := c.call(ctx, method, req, resp, opts)
		if err != nil && !sent && attempt == 0 && c.Err() != nil && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// Close closes every connection. Pending calls fail with ErrClosed, and so
// does any later use of the Pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, e := range conns {
		if e.conn != nil {
			e.conn.Close()
		}
	}
	return nil
}
