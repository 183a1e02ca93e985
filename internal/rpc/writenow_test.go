package rpc

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// unreadConn dials a server that accepts the connection and never reads
// from it, with small socket buffers on both ends so that a few requests
// fill them.
func unreadConn(t *testing.T, opts ...Option) *Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		nc, err := ln.Accept()
		if err == nil {
			nc.(*net.TCPConn).SetReadBuffer(16 << 10)
			accepted <- nc // never read
		}
	}()
	c, err := Dial(testContext(t), ln.Addr().String(), MasterService, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	nc := <-accepted
	t.Cleanup(func() { nc.Close() })
	c.nc.(*net.TCPConn).SetWriteBuffer(16 << 10)
	return c
}

// smallRequest is below writeNowMax: its caller writes it itself.
func smallRequest() *pb.GetTableNamesRequest {
	return &pb.GetTableNamesRequest{Regex: proto.String(strings.Repeat("x", 8<<10))}
}

// TestWriteNowSlowReader: callers writing their own requests to a server
// that does not read return at their deadlines, and without a write
// timeout the connection stays up however many writes their deadlines
// cut (the rest of a cut frame waits for the socket in the background).
func TestWriteNowSlowReader(t *testing.T) {
	c := unreadConn(t)
	const wait = 5 * time.Millisecond
	req := smallRequest()
	for i := range 300 { // 2.4 MB: far more than the socket buffers hold
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		start := time.Now()
		err := c.Call(ctx, "GetTableNames", req, nil)
		took := time.Since(start)
		cancel()
		if took > wait+500*time.Millisecond {
			t.Fatalf("call %d took %v with a deadline of %v", i, took, wait)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v, want its deadline", i, err)
		}
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection failed: %v", err)
	}
}

// TestWriteNowStallsOnWriteTimeout: with a write timeout, a server that
// does not read fails the connection as stalled, whoever was writing.
func TestWriteNowStallsOnWriteTimeout(t *testing.T) {
	c := unreadConn(t, WithWriteTimeout(50*time.Millisecond))
	req := smallRequest()
	for i := range 300 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		err := c.Call(ctx, "GetTableNames", req, nil)
		cancel()
		if errors.Is(err, ErrConnStalled) {
			var ce *ConnError
			if !errors.As(err, &ce) {
				t.Fatalf("call %d: %v, want a *ConnError", i, err)
			}
			return
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v, want its deadline or a stalled connection", i, err)
		}
		if c.Err() != nil {
			// Failed by the writer or a background write meanwhile.
			if !errors.Is(c.Err(), ErrConnStalled) {
				t.Fatalf("connection failed with %v, want ErrConnStalled", c.Err())
			}
			return
		}
	}
	t.Fatal("300 unread requests of 8 KiB never stalled the connection")
}

// cutConn reports a write deadline after the first cuts[0] bytes of the
// next write (then cuts[1] of the one after, ...), as a socket whose
// deadline passed while the server was slow to read.
type cutConn struct {
	net.Conn
	mu   sync.Mutex
	cuts []int
}

func (c *cutConn) cut(k ...int) {
	c.mu.Lock()
	c.cuts = append(c.cuts, k...)
	c.mu.Unlock()
}

func (c *cutConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	k := -1
	if len(c.cuts) > 0 {
		k, c.cuts = c.cuts[0], c.cuts[1:]
	}
	c.mu.Unlock()
	if k < 0 {
		return c.Conn.Write(b)
	}
	n, err := c.Conn.Write(b[:k])
	if err != nil {
		return n, err
	}
	return n, &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}
}

// TestWriteNowCutByDeadline: a caller's write cut by its deadline before
// its first byte was not sent and leaves the connection whole; one cut
// after some bytes has the rest of its frame written, and is answered.
func TestWriteNowCutByDeadline(t *testing.T) {
	s := newFakeServer(t, echoHandler)
	var cc *cutConn
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cc = &cutConn{Conn: nc}
		return cc, nil
	}
	c, err := Dial(testContext(t), s.addr(), MasterService, WithDialFunc(dial))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.bareTCP {
		t.Fatal("a WithDialFunc wrapper taken for a bare TCP socket")
	}
	c.bareTCP = true // what the wrapper stands for
	echo := func(ctx context.Context, name string) error {
		var resp pb.GetTableNamesResponse
		err := c.Call(ctx, "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(name)}, &resp)
		if err == nil && string(resp.GetTableNames()[0].GetQualifier()) != name {
			t.Errorf("answer to %q: %v", name, resp.GetTableNames())
		}
		return err
	}

	cc.cut(0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	err = echo(ctx, "cut-before")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || RequestSent(err) {
		t.Fatalf("write cut before its first byte: %v (sent %v), want its deadline, not sent", err, RequestSent(err))
	}
	if err := echo(testContext(t), "after-0"); err != nil {
		t.Fatalf("call after a write cut before its first byte: %v", err)
	}

	cc.cut(5)
	if err := echo(testContext(t), "cut-after-5"); err != nil {
		t.Fatalf("write cut after 5 bytes: %v, want its answer", err)
	}
	if err := echo(testContext(t), "after-5"); err != nil {
		t.Fatalf("call after a write cut after 5 bytes: %v", err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("connection failed: %v", err)
	}
}

// TestWriteNowNotForCancelOnly: a context that can be cancelled but has
// no deadline goes through the writer goroutine, so a cancel returns the
// caller at once even when the socket does not take the request.
func TestWriteNowNotForCancelOnly(t *testing.T) {
	c := unreadConn(t)
	req := smallRequest()
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Millisecond, cancel)
		start := time.Now()
		err := c.Call(ctx, "GetTableNames", req, nil)
		if took := time.Since(start); took > 500*time.Millisecond {
			t.Fatalf("call %d returned %v after its cancel", i, took)
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: %v, want canceled", i, err)
		}
	}
}
