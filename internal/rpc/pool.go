package rpc

import (
	"context"
	"errors"
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
	return &Pool{opts: o, conns: make(map[poolKey]*poolEntry)}, nil
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
		// Dial, with the entry marked so that others wait.
		e = &poolEntry{dialing: make(chan struct{})}
		p.conns[k] = e
		p.mu.Unlock()

		c, err := dial(ctx, addr, service, &p.opts)

		p.mu.Lock()
		if err != nil {
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
