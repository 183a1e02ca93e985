package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/user"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func dialTest(t *testing.T, s *fakeServer, opts ...Option) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, s.addr(), MasterService, opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCallAndHandshake(t *testing.T) {
	var (
		mu   sync.Mutex
		hdrs []*pb.RequestHeader
	)
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		mu.Lock()
		hdrs = append(hdrs, req.header)
		mu.Unlock()
		echoHandler(sc, req)
	})
	c := dialTest(t, s)

	var resp pb.IsMasterRunningResponse
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if !resp.GetIsMasterRunning() {
		t.Errorf("is_master_running = false, want true")
	}
	// Without a deadline, no timeout is sent.
	if err := c.Call(context.Background(), "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call without deadline: %v", err)
	}

	conns := s.connections()
	if len(conns) != 1 {
		t.Fatalf("server saw %d connections, want 1", len(conns))
	}
	ch := conns[0].header
	want := currentUser()
	if u, err := user.Current(); err == nil {
		want = u.Username
	}
	if got := ch.GetUserInfo().GetEffectiveUser(); got != want {
		t.Errorf("effective_user = %q, want %q", got, want)
	}
	if got := ch.GetServiceName(); got != MasterService {
		t.Errorf("service_name = %q, want %q", got, MasterService)
	}
	if ch.CellBlockCodecClass != nil {
		t.Errorf("cell_block_codec_class = %q, want unset", ch.GetCellBlockCodecClass())
	}
	vi := ch.GetVersionInfo()
	if vi.GetVersionMajor() != 2 || vi.GetVersionMinor() != 6 {
		t.Errorf("version_info = %v, want version 2.6", vi)
	}
	if err := proto.CheckInitialized(vi); err != nil {
		t.Errorf("version_info incomplete: %v", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(hdrs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(hdrs))
	}
	h := hdrs[0]
	if h.GetMethodName() != "IsMasterRunning" || !h.GetRequestParam() {
		t.Errorf("request header = %v, want method IsMasterRunning with request_param", h)
	}
	if h.GetTimeout() == 0 || h.GetTimeout() > 10000 {
		t.Errorf("timeout = %d ms, want in (0, 10000]", h.GetTimeout())
	}
	if hdrs[1].Timeout != nil {
		t.Errorf("timeout = %d without a deadline, want unset", hdrs[1].GetTimeout())
	}
	if hdrs[0].GetCallId() == hdrs[1].GetCallId() {
		t.Errorf("two calls used call id %d", hdrs[0].GetCallId())
	}
}

func TestConcurrentCallsOutOfOrder(t *testing.T) {
	const n = 16
	var (
		mu   sync.Mutex
		reqs []*serverRequest
	)
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		mu.Lock()
		reqs = append(reqs, req)
		if len(reqs) < n {
			mu.Unlock()
			return
		}
		batch := reqs
		mu.Unlock()
		// Answer in reverse arrival order.
		for i := len(batch) - 1; i >= 0; i-- {
			sc.reply(batch[i].id(), echoResponse(batch[i]))
		}
	})
	c := dialTest(t, s)
	ctx := testContext(t)

	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("t%02d", i)
			var resp pb.GetTableNamesResponse
			if err := c.Call(ctx, "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(name)}, &resp); err != nil {
				errs[i] = err
				return
			}
			if got := string(resp.GetTableNames()[0].GetQualifier()); got != name {
				errs[i] = fmt.Errorf("got table %q, want %q", got, name)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

func TestCancelDiscardsLateResponse(t *testing.T) {
	slow := make(chan *serverRequest, 1)
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		switch req.header.GetMethodName() {
		case "Slow":
			slow <- req // never answered in time
		default:
			// Answer the abandoned call first: the client must drop it.
			select {
			case r := <-slow:
				sc.reply(r.id(), &pb.GetTableNamesResponse{})
			default:
			}
			echoHandler(sc, req)
		}
	})
	c := dialTest(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "Slow", &pb.GetTableNamesRequest{}, &pb.GetTableNamesResponse{}) }()
	// Wait until the server has the request, then cancel.
	var r *serverRequest
	select {
	case r = <-slow:
		slow <- r
	case <-time.After(5 * time.Second):
		t.Fatal("server never received the slow call")
	}
	start := time.Now()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Call error = %v, want context.Canceled", err)
		}
		if IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = true, want false", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Call did not return after cancel")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Call returned %v after cancel", d)
	}

	// The connection survives and ignores the late answer.
	var resp pb.GetTableNamesResponse
	if err := c.Call(testContext(t), "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String("after")}, &resp); err != nil {
		t.Fatalf("Call after cancel: %v", err)
	}
	if got := string(resp.GetTableNames()[0].GetQualifier()); got != "after" {
		t.Errorf("got table %q, want %q", got, "after")
	}
	if c.Err() != nil {
		t.Errorf("connection broken: %v", c.Err())
	}
}

func TestDeadlineExceeded(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {})
	c := dialTest(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call error = %v, want context.DeadlineExceeded", err)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d calls still pending after timeout", n)
	}
}

func TestUnknownCallIDSkipped(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		// A frame for an id nobody waits for, with a body and a cell block.
		sc.writeFrame(&pb.ResponseHeader{
			CallId:        proto.Uint32(req.id() + 1000),
			CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(3)},
		}, []byte{0x08, 0x01}, []byte{1, 2, 3})
		echoHandler(sc, req)
	})
	c := dialTest(t, s)
	var resp pb.IsMasterRunningResponse
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if !resp.GetIsMasterRunning() {
		t.Error("is_master_running = false, want true")
	}
}

func TestRemoteError(t *testing.T) {
	const trace = "org.apache.hadoop.hbase.exceptions.RegionMovedException: Region moved to: hostname=rs2 port=16020\n" +
		"second line\n\tat org.apache.hadoop.hbase.Foo.bar(Foo.java:1)\n"
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() != "Get" {
			echoHandler(sc, req)
			return
		}
		sc.replyException(req.id(), &pb.ExceptionResponse{
			ExceptionClassName: proto.String("org.apache.hadoop.hbase.exceptions.RegionMovedException"),
			StackTrace:         proto.String(trace),
			Hostname:           proto.String("rs2"),
			Port:               proto.Int32(16020),
			ServerOverloaded:   proto.Bool(true),
		})
	})
	c := dialTest(t, s)
	err := c.Call(testContext(t), "Get", &pb.IsMasterRunningRequest{}, &pb.GetResponse{})
	var re *RemoteError
	if !errors.As(err, &re) {
		t.Fatalf("Call error = %v (%T), want *RemoteError", err, err)
	}
	want := &RemoteError{
		Class:            "org.apache.hadoop.hbase.exceptions.RegionMovedException",
		Message:          "Region moved to: hostname=rs2 port=16020\nsecond line",
		StackTrace:       trace,
		Hostname:         "rs2",
		Port:             16020,
		ServerOverloaded: true,
	}
	if *re != *want {
		t.Errorf("RemoteError = %+v, want %+v", re, want)
	}
	if !IsRetryable(err) {
		t.Errorf("IsRetryable(%v) = false, want true", err)
	}
	// A per-call exception leaves the connection usable.
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); err != nil {
		t.Errorf("Call after remote error: %v", err)
	}
}

func TestServerClosesMidCall(t *testing.T) {
	var calls sync.WaitGroup
	calls.Add(3)
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() == "Hang" {
			calls.Done()
			return
		}
		echoHandler(sc, req)
	})
	p, err := NewPool()
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	defer p.Close()
	ctx := testContext(t)

	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- p.Call(ctx, s.addr(), MasterService, "Hang", &pb.IsMasterRunningRequest{}, nil) }()
	}
	calls.Wait()
	// All three are pending; the server drops the connection.
	conns := s.connections()
	if len(conns) != 1 {
		t.Fatalf("server saw %d connections, want 1", len(conns))
	}
	conns[0].nc.Close()
	for range 3 {
		err := <-errs
		var ce *ConnError
		if !errors.As(err, &ce) {
			t.Fatalf("pending call error = %v (%T), want *ConnError", err, err)
		}
		if !IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = false, want true", err)
		}
	}

	// The next call reconnects.
	var resp pb.IsMasterRunningResponse
	if err := p.Call(ctx, s.addr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call after reconnect: %v", err)
	}
	if !resp.GetIsMasterRunning() {
		t.Error("is_master_running = false, want true")
	}
	if n := len(s.connections()); n != 2 {
		t.Errorf("server saw %d connections, want 2", n)
	}
}

func TestFatalCallID(t *testing.T) {
	tests := []struct {
		name          string
		doNotRetry    bool
		wantRetryable bool
	}{
		{"do not retry", true, false},
		{"retryable", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hangs := 0
			s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
				// Both calls pending: answer with a connection-level error.
				if hangs++; hangs < 2 {
					return
				}
				sc.writeFrame(&pb.ResponseHeader{
					CallId: proto.Uint32(0xffffffff), // -1
					Exception: &pb.ExceptionResponse{
						ExceptionClassName: proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException"),
						StackTrace:         proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException: bad header"),
						DoNotRetry:         proto.Bool(tt.doNotRetry),
					},
				}, nil, nil)
			})
			c := dialTest(t, s)
			ctx := testContext(t)
			errs := make(chan error, 3)
			for range 2 {
				go func() { errs <- c.Call(ctx, "Hang", &pb.IsMasterRunningRequest{}, nil) }()
			}
			for range 2 {
				err := <-errs
				var ce *ConnError
				var re *RemoteError
				if !errors.As(err, &ce) || !errors.As(err, &re) {
					t.Fatalf("error = %v (%T), want *ConnError wrapping *RemoteError", err, err)
				}
				if re.Message != "bad header" {
					t.Errorf("Message = %q, want %q", re.Message, "bad header")
				}
				if got := IsRetryable(err); got != tt.wantRetryable {
					t.Errorf("IsRetryable = %v, want %v", got, tt.wantRetryable)
				}
			}
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("connection not closed after fatal call id")
			}
			if err := c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); !errors.As(err, new(*ConnError)) {
				t.Errorf("Call on dead connection = %v, want *ConnError", err)
			}
		})
	}
}

func TestMalformedFrameBreaksConnection(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		// Length 3, then a header length that overruns the frame.
		sc.nc.Write([]byte{0, 0, 0, 3, 0x09, 0x08, 0x01})
	})
	c := dialTest(t, s)
	err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil)
	if !errors.As(err, new(*ConnError)) || !IsRetryable(err) {
		t.Fatalf("Call error = %v, want a retryable *ConnError", err)
	}
}

func TestCloseFailsPending(t *testing.T) {
	got := make(chan struct{})
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) { close(got) })
	c := dialTest(t, s)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(testContext(t), "Hang", &pb.IsMasterRunningRequest{}, nil) }()
	<-got
	c.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) || IsRetryable(err) {
		t.Fatalf("pending call error = %v, want non-retryable ErrClosed", err)
	}
	if err := c.Call(testContext(t), "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after Close = %v, want ErrClosed", err)
	}
}

func TestCallIDAllocation(t *testing.T) {
	c := &Conn{pending: make(map[uint32]*pending)}
	register := func() uint32 {
		t.Helper()
		p, err := c.register(nil, false, nil)
		if err != nil {
			t.Fatalf("register: %v", err)
		}
		return p.id
	}
	c.nextID = fatalCallID - 2
	ids := []uint32{register(), register(), register()}
	if want := []uint32{fatalCallID - 2, fatalCallID - 1, 0}; !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want %v (wrap to 0 below 2^31)", ids, want)
	}
	// 1 and 2 are outstanding: the next free id is 3.
	c.pending[1] = &pending{id: 1}
	c.pending[2] = &pending{id: 2}
	if id := register(); id != 3 {
		t.Errorf("id = %d, want 3 (skipping outstanding 1 and 2)", id)
	}
	// From 2^31-1: it, 0, 1, 2 and 3 are all outstanding, so 4.
	c.nextID = fatalCallID - 1
	if id := register(); id != 4 {
		t.Errorf("id = %d, want 4", id)
	}
	if len(c.pending) != 7 {
		t.Errorf("%d calls registered, want 7", len(c.pending))
	}
}

func TestDialFuncMapsAddresses(t *testing.T) {
	s := newFakeServer(t, echoHandler)
	var dialled []string
	var mu sync.Mutex
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		if addr != "master.internal:16000" {
			return nil, fmt.Errorf("unexpected address %q", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, s.addr())
	}
	p, err := NewPool(WithDialFunc(dial), WithUser("alice"))
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	defer p.Close()
	var resp pb.IsMasterRunningResponse
	if err := p.Call(testContext(t), "master.internal:16000", MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got := s.connections()[0].header.GetUserInfo().GetEffectiveUser(); got != "alice" {
		t.Errorf("effective_user = %q, want alice", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(dialled, []string{"master.internal:16000"}) {
		t.Errorf("dialled %v, want [master.internal:16000]", dialled)
	}
}

func TestDialErrorIsRetryable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = Dial(testContext(t), addr, ClientService)
	if !errors.As(err, new(*ConnError)) || !IsRetryable(err) {
		t.Fatalf("Dial error = %v, want a retryable *ConnError", err)
	}
}

func TestPoolSharesConnections(t *testing.T) {
	s := newFakeServer(t, echoHandler)
	p, err := NewPool()
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	ctx := testContext(t)
	var wg sync.WaitGroup
	conns := make([]*Conn, 8)
	for i := range conns {
		wg.Go(func() {
			c, err := p.Conn(ctx, s.addr(), MasterService)
			if err != nil {
				t.Errorf("Conn: %v", err)
			}
			conns[i] = c
		})
	}
	wg.Wait()
	for _, c := range conns[1:] {
		if c != conns[0] {
			t.Fatal("Pool returned different connections for the same key")
		}
	}
	other, err := p.Conn(ctx, s.addr(), ClientService)
	if err != nil {
		t.Fatalf("Conn: %v", err)
	}
	if other == conns[0] {
		t.Error("Pool shared one connection between two services")
	}
	p.Close()
	if _, err := p.Conn(ctx, s.addr(), MasterService); !errors.Is(err, ErrClosed) {
		t.Errorf("Conn after Close = %v, want ErrClosed", err)
	}
	if conns[0].Err() == nil {
		t.Error("connection still open after Pool.Close")
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
	}{
		{"nil dial", WithDialFunc(nil)},
		{"tiny frame", WithMaxFrameSize(1)},
		{"negative write timeout", WithWriteTimeout(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewPool(tt.opt); err == nil {
				t.Error("NewPool succeeded, want a validation error")
			}
		})
	}
}

func TestMarshalErrorIsNotRetryable(t *testing.T) {
	s := newFakeServer(t, echoHandler)
	c := dialTest(t, s)
	// TableName is required in GetTableStateRequest.
	err := c.Call(testContext(t), "GetTableState", &pb.GetTableStateRequest{}, nil)
	if err == nil || IsRetryable(err) {
		t.Fatalf("Call error = %v, want a non-retryable marshal error", err)
	}
	if c.Err() != nil {
		t.Errorf("connection broken by a marshal error: %v", c.Err())
	}
}

func TestTimeoutMillis(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want uint32
	}{
		{-time.Second, 1},
		{0, 1},
		{500 * time.Microsecond, 1},
		{1500 * time.Millisecond, 1500},
		{1000 * time.Hour, 1<<31 - 1},
	}
	for _, tt := range tests {
		if got := timeoutMillis(tt.d); got != tt.want {
			t.Errorf("timeoutMillis(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// TestStressCancelAndReorder mixes many concurrent calls, random server
// delays (so answers come out of order) and callers giving up early: every
// call that succeeds must get its own answer, and the connection survives.
func TestStressCancelAndReorder(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		resp := echoResponse(req)
		id := req.id()
		delay := time.Duration(id%7) * time.Millisecond
		go func() {
			time.Sleep(delay)
			sc.reply(id, resp)
		}()
	})
	c := dialTest(t, s)
	const workers, perWorker = 8, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, canceled int
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				name := fmt.Sprintf("w%d-%d", w, i)
				// Some callers give up before the slowest answers arrive.
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+(w*perWorker+i)%9)*time.Millisecond)
				var resp pb.GetTableNamesResponse
				err := c.Call(ctx, "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(name)}, &resp)
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					ok++
					if got := string(resp.GetTableNames()[0].GetQualifier()); got != name {
						t.Errorf("call %s got the answer for %s", name, got)
					}
				case errors.Is(err, context.DeadlineExceeded):
					canceled++
				default:
					t.Errorf("call %s: %v", name, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if c.Err() != nil {
		t.Fatalf("connection broken: %v", c.Err())
	}
	if ok == 0 {
		t.Errorf("no call succeeded (%d timed out)", canceled)
	}
	t.Logf("%d answered, %d gave up", ok, canceled)
	// Late answers are dropped without leaking pending entries.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls still pending", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFrameBuffer: a large response goes into the buffer its call offered
// when it fits there, into a new one with room to spare when it does not,
// and small responses into memory of their own unless WithFrameReuseMin
// lowers the bar.
func TestFrameBuffer(t *testing.T) {
	s := newFakeServer(t, echoHandler)
	big := strings.Repeat("t", FrameReuseMin+100) // the echoed table name makes the response large
	tests := []struct {
		name      string
		opts      []Option
		regex     string
		buf       []byte
		wantInBuf bool
		wantSpare bool // when not in buf: a new frame with a quarter more room
	}{
		{"large, fits", nil, big, make([]byte, 10, 2*FrameReuseMin), true, false},
		{"large, too small", nil, big, make([]byte, 0, FrameReuseMin), false, true},
		{"large, none offered", nil, big, nil, false, true},
		{"small", nil, "t1", make([]byte, 0, 1024), false, false},
		{"small, reuse from 64 bytes", []Option{WithFrameReuseMin(64)}, strings.Repeat("s", 100), make([]byte, 0, 1024), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialTest(t, s, tt.opts...)
			var resp pb.GetTableNamesResponse
			var frame []byte
			if err := c.Call(testContext(t), "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(tt.regex)}, &resp,
				WithFrameBuffer(tt.buf, &frame)); err != nil {
				t.Fatalf("Call: %v", err)
			}
			if got := string(resp.GetTableNames()[0].GetQualifier()); got != tt.regex {
				t.Fatalf("got a table name of %d bytes, want %d", len(got), len(tt.regex))
			}
			if len(frame) == 0 {
				t.Fatal("no frame returned")
			}
			if inBuf := cap(tt.buf) > 0 && unsafe.SliceData(frame) == unsafe.SliceData(tt.buf); inBuf != tt.wantInBuf {
				t.Errorf("frame read into the offered buffer: %v, want %v", inBuf, tt.wantInBuf)
			}
			if spare := cap(frame) >= len(frame)+len(frame)/4; !tt.wantInBuf && spare != tt.wantSpare {
				t.Errorf("frame of %d bytes has cap %d: room to spare %v, want %v", len(frame), cap(frame), spare, tt.wantSpare)
			}
		})
	}

	t.Run("validate", func(t *testing.T) {
		if _, err := NewPool(WithFrameReuseMin(63)); err == nil {
			t.Error("WithFrameReuseMin(63) accepted")
		}
	})
}

// TestHead: WithHead hands the call's message over as soon as it has
// arrived, while the rest of the frame is still on its way; not for a
// small frame, nor for an exception.
func TestHead(t *testing.T) {
	gate := make(chan struct{})
	msg := &pb.GetTableNamesResponse{TableNames: []*pb.TableName{{Namespace: []byte("default"), Qualifier: []byte("head")}}}
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		var in pb.GetTableNamesRequest
		proto.Unmarshal(req.param, &in)
		switch in.GetRegex() {
		case "small":
			sc.reply(req.id(), msg)
		case "exception":
			sc.writeFrame(&pb.ResponseHeader{CallId: proto.Uint32(req.id()), Exception: &pb.ExceptionResponse{
				ExceptionClassName: proto.String("java.io.IOException"), StackTrace: proto.String(strings.Repeat("x", 2*FrameReuseMin))}}, nil, nil)
		default:
			// A large frame in two writes: its header and message with a
			// little of the cell block, then (once head was called, or
			// after 5 s) the rest.
			body, _ := proto.Marshal(msg)
			frame := frameOf(responseFrame(t, &pb.ResponseHeader{CallId: proto.Uint32(req.id()),
				CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(4 * FrameReuseMin)}}, body, make([]byte, 4*FrameReuseMin)))
			cut := len(frame) - 4*FrameReuseMin + 100
			sc.wmu.Lock()
			defer sc.wmu.Unlock()
			sc.nc.Write(frame[:cut])
			select {
			case <-gate:
			case <-time.After(5 * time.Second):
			}
			sc.nc.Write(frame[cut:])
		}
	})
	c := dialTest(t, s)
	for _, tt := range []struct {
		regex    string
		wantHead bool
		wantErr  bool
	}{
		{"large", true, false},
		{"small", false, false},
		{"exception", false, true},
	} {
		t.Run(tt.regex, func(t *testing.T) {
			var heads []string
			var resp pb.GetTableNamesResponse
			var block []byte
			start := time.Now()
			err := c.Call(testContext(t), "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(tt.regex)}, &resp, WithCellBlock(&block),
				WithHead(func(m []byte) {
					var r pb.GetTableNamesResponse
					if err := proto.Unmarshal(m, &r); err != nil {
						t.Errorf("head: %v", err)
					}
					heads = append(heads, string(r.GetTableNames()[0].GetQualifier()))
					if tt.regex == "large" {
						close(gate)
					}
				}))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Call: %v, want error %v", err, tt.wantErr)
			}
			if got := len(heads) == 1 && heads[0] == "head"; got != tt.wantHead || len(heads) > 1 {
				t.Errorf("heads %q, want one: %v", heads, tt.wantHead)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("the call took %v: the head came only with the whole frame", d)
			}
			if !tt.wantErr && string(resp.GetTableNames()[0].GetQualifier()) != "head" {
				t.Errorf("response %v", &resp)
			}
		})
	}
}
