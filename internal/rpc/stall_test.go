package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// TestCallTimeoutClosesStalledConn: a server that stops answering (reads
// requests, sends nothing) is detected by the first per-RPC timeout; the
// connection is closed, the other call waiting on it fails at once with
// the same cause, and both errors say the requests may have been executed.
func TestCallTimeoutClosesStalledConn(t *testing.T) {
	got := make(chan string, 2)
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) { got <- req.header.GetMethodName() })
	c := dialTest(t, s)

	// A call with no per-RPC timeout waits on the same connection.
	other := make(chan error, 1)
	go func() { other <- c.Call(testContext(t), "Other", &pb.IsMasterRunningRequest{}, nil) }()
	if m := <-got; m != "Other" {
		t.Fatalf("server got %q first, want Other", m)
	}

	ctx, cancel := CallTimeout(testContext(t), 100*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "Silent", &pb.IsMasterRunningRequest{}, nil)
	var ce *ConnError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConnStalled) || !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("Call = %v (%T), want a *ConnError wrapping ErrConnStalled and ErrCallTimeout", err, err)
	}
	if !ce.Sent || !RequestSent(err) || !IsRetryable(err) {
		t.Errorf("Call = %v: Sent %v, RequestSent %v, IsRetryable %v; want all true", err, ce.Sent, RequestSent(err), IsRetryable(err))
	}
	if !errors.Is(c.Err(), ErrConnStalled) {
		t.Errorf("Conn.Err() = %v, want ErrConnStalled", c.Err())
	}
	select {
	case err := <-other:
		if !errors.As(err, &ce) || !errors.Is(err, ErrConnStalled) || !ce.Sent {
			t.Errorf("other pending call = %v, want a sent *ConnError wrapping ErrConnStalled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other pending call did not fail with the stalled connection")
	}
	// Later calls fail without sending anything.
	err = c.Call(testContext(t), "After", &pb.IsMasterRunningRequest{}, nil)
	if !errors.As(err, &ce) || ce.Sent || RequestSent(err) {
		t.Errorf("call on the stalled connection = %v, want an unsent *ConnError", err)
	}
}

// TestCallTimeoutOnLiveConn: a call that times out while the server keeps
// answering other calls is only a slow call: it fails with ErrCallTimeout
// and the connection stays.
func TestCallTimeoutOnLiveConn(t *testing.T) {
	slow := make(chan struct{})
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() == "Slow" {
			close(slow) // never answered
			return
		}
		echoHandler(sc, req)
	})
	c := dialTest(t, s)
	ctx, cancel := CallTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "Slow", &pb.IsMasterRunningRequest{}, nil) }()
	<-slow
	// An answer to another call arrives while Slow waits.
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); err != nil {
		t.Fatalf("IsMasterRunning: %v", err)
	}
	err := <-errc
	if !errors.Is(err, ErrCallTimeout) || errors.Is(err, ErrConnStalled) || errors.As(err, new(*ConnError)) {
		t.Fatalf("Slow = %v, want ErrCallTimeout without a connection error", err)
	}
	if !RequestSent(err) || IsRetryable(err) {
		t.Errorf("Slow = %v: RequestSent %v, IsRetryable %v; want true, false", err, RequestSent(err), IsRetryable(err))
	}
	if c.Err() != nil {
		t.Errorf("connection closed by a slow call: %v", c.Err())
	}
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); err != nil {
		t.Errorf("Call after a slow call: %v", err)
	}
}

// TestPoolRedialsAfterStall: after a stall the Pool serves the next call
// on a fresh connection.
func TestPoolRedialsAfterStall(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() == "Silent" {
			return // never answered
		}
		echoHandler(sc, req)
	})
	p, err := NewPool()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := CallTimeout(testContext(t), 100*time.Millisecond)
	defer cancel()
	if err := p.Call(ctx, s.addr(), MasterService, "Silent", &pb.IsMasterRunningRequest{}, nil); !errors.Is(err, ErrConnStalled) {
		t.Fatalf("Call = %v, want ErrConnStalled", err)
	}
	var resp pb.IsMasterRunningResponse
	if err := p.Call(testContext(t), s.addr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call after the stall: %v", err)
	}
	if n := len(s.connections()); n != 2 {
		t.Errorf("server saw %d connections, want 2 (a fresh one after the stall)", n)
	}
}

// TestWriteTimeoutStall: a server that stops reading blocks the writer;
// WithWriteTimeout turns that into a stalled connection.
func TestWriteTimeoutStall(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		nc, err := ln.Accept()
		if err == nil {
			accepted <- nc // never read
		}
	}()
	ctx := testContext(t)
	c, err := Dial(ctx, ln.Addr().String(), MasterService, WithWriteTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nc := <-accepted
	defer nc.Close()
	// Far more than the socket buffers of both ends hold.
	big := &pb.GetTableNamesRequest{Regex: proto.String(strings.Repeat("x", 64<<20))}
	err = c.Call(ctx, "GetTableNames", big, nil)
	var ce *ConnError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConnStalled) || !ce.Sent {
		t.Fatalf("Call = %v, want a sent *ConnError wrapping ErrConnStalled", err)
	}
}

func TestRequestSent(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"sent conn error", fmt.Errorf("x: %w", &ConnError{Err: ErrConnStalled, Sent: true}), true},
		{"unsent conn error", &ConnError{Err: errors.New("refused")}, false},
		{"context ended in flight", &sentError{context.DeadlineExceeded}, true},
		{"context ended before sending", context.DeadlineExceeded, false},
		{"remote error", &RemoteError{Class: "x"}, false},
	}
	for _, tt := range tests {
		if got := RequestSent(tt.err); got != tt.want {
			t.Errorf("%s: RequestSent(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
