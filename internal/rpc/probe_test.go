package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
)

// poolAttempts calls IsMasterRunning through p as a retrying client does,
// up to max attempts while the error is retryable, and returns the error
// of each attempt (nil last on success).
func poolAttempts(t *testing.T, p *Pool, addr string, max int) []error {
	t.Helper()
	var errs []error
	for range max {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := p.Call(ctx, addr, MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{})
		cancel()
		errs = append(errs, err)
		if err == nil || !IsRetryable(err) {
			break
		}
	}
	return errs
}

func newTestPool(t *testing.T, opts ...Option) *Pool {
	t.Helper()
	p, err := NewPool(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// dualServer is an HBase with TLS that accepts plaintext too (HBase 2.6's
// default hbase.server.netty.tls.supportplaintext=true). closePlain says,
// for the n-th plain connection (from 0), whether to close it after the
// preamble without a byte, as a server shutting down may; hangTLS makes
// it hold TLS connections without a handshake.
type dualServer struct {
	*fakeServer
	plain, tlsConns atomic.Int32
}

func newDualServer(t *testing.T, pki testPKI, closePlain func(n int) bool, hangTLS bool) *dualServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dualServer{}
	d.fakeServer = &fakeServer{t: t, ln: dualListener{ln, d, &tls.Config{Certificates: []tls.Certificate{pki.server}}, closePlain, hangTLS}, handle: echoHandler}
	d.wg.Add(1)
	go d.acceptLoop()
	t.Cleanup(d.close)
	return d
}

type dualListener struct {
	net.Listener
	d          *dualServer
	cfg        *tls.Config
	closePlain func(n int) bool
	hangTLS    bool
}

func (l dualListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		r := peekedConn{nc, bufioReader(nc)}
		first, err := r.r.Peek(1)
		if err != nil {
			nc.Close()
			continue
		}
		if first[0] == 0x16 {
			l.d.tlsConns.Add(1)
			if l.hangTLS {
				go func() { io.Copy(io.Discard, nc); nc.Close() }()
				continue
			}
			return tls.Server(r, l.cfg), nil
		}
		if l.closePlain(int(l.d.plain.Add(1) - 1)) {
			io.ReadFull(r, make([]byte, 6))
			nc.Close()
			continue
		}
		return r, nil
	}
}

// TestPoolTLSRequired: a Pool reports ErrTLSRequired, not retryable, only
// when two connections in a row were closed before any answer and the
// server then completes a TLS handshake; until then the errors are
// retryable.
func TestPoolTLSRequired(t *testing.T) {
	pki := newTestPKI(t)
	t.Run("tls only", func(t *testing.T) {
		s := newTLSServer(t, pki)
		errs := poolAttempts(t, newTestPool(t), s.addr(), 5)
		// Two connections closed unanswered, then the probe. The second
		// close is seen at the second attempt's dial or by its call,
		// depending on timing: the probe comes at the second attempt
		// or the third.
		if len(errs) != 2 && len(errs) != 3 {
			t.Fatalf("%d attempts (%v), want 2 or 3: two closed connections, then the probe", len(errs), errs)
		}
		last := len(errs) - 1
		for i, err := range errs[:last] {
			if !IsRetryable(err) || errors.Is(err, ErrTLSRequired) {
				t.Fatalf("attempt %d: %v (retryable %t), want a retryable close", i+1, err, IsRetryable(err))
			}
		}
		if err := errs[last]; !errors.Is(err, ErrTLSRequired) || IsRetryable(err) {
			t.Fatalf("attempt %d: %v (retryable %t), want ErrTLSRequired, not retryable", last+1, err, IsRetryable(err))
		}
	})
	t.Run("restarting server with tls and plaintext", func(t *testing.T) {
		// The first plain connection is closed unanswered (the server
		// shuts down), the next ones are served: the client retries
		// and succeeds, whatever the server's TLS says.
		s := newDualServer(t, pki, func(n int) bool { return n == 0 }, false)
		errs := poolAttempts(t, newTestPool(t), s.addr(), 5)
		// The close is seen by the dial (the Pool dials again within
		// the call) or by the call (the caller retries), by timing.
		ok := len(errs) == 1 && errs[0] == nil ||
			len(errs) == 2 && errs[1] == nil && IsRetryable(errs[0]) && !errors.Is(errs[0], ErrTLSRequired)
		if !ok {
			t.Fatalf("attempts %v, want success, after at most a retryable close", errs)
		}
		if n := s.tlsConns.Load(); n != 0 {
			t.Fatalf("%d TLS probes after one unanswered connection, want none", n)
		}
	})
	t.Run("server going away without tls", func(t *testing.T) {
		// Every connection closed unanswered, no TLS: retryable every
		// time, never ErrTLSRequired.
		addr := rawServer(t, func(nc net.Conn) { io.ReadFull(nc, make([]byte, 6)) })
		errs := poolAttempts(t, newTestPool(t), addr, 6)
		if len(errs) != 6 {
			t.Fatalf("attempts %v, want 6 retryable errors", errs)
		}
		for i, err := range errs {
			if errors.Is(err, ErrTLSRequired) {
				t.Fatalf("attempt %d: %v, want no ErrTLSRequired", i, err)
			}
		}
	})
}

// TestUnansweredCloseFailsCallsAtOnce: when the server closes a plain
// connection before any answer, the pending call fails at once with a
// retryable error: no TLS probe runs before (here the server's TLS side
// would hold the probe for its whole timeout).
func TestUnansweredCloseFailsCallsAtOnce(t *testing.T) {
	s := newDualServer(t, newTestPKI(t), func(int) bool { return true }, true)
	err := callMaster(testContext(t), s.addr())
	if !IsRetryable(err) || errors.Is(err, ErrTLSRequired) || !errors.Is(err, errClosedUnanswered) {
		t.Fatalf("IsMasterRunning: %v (retryable %t), want a retryable close before any answer", err, IsRetryable(err))
	}
	if n := s.tlsConns.Load(); n != 0 {
		t.Fatalf("%d TLS probes before the call failed, want none", n)
	}
}

// TestKerberosConnNeverProbes: a Kerberos connection whose handshake
// succeeded in plaintext proves the server takes plaintext: when the
// server then closes it without a byte, no TLS probe runs and the error
// stays retryable, however often it happens.
func TestKerberosConnNeverProbes(t *testing.T) {
	key := randomKey(t)
	s := newKrbServer(t, key, 1, func(nc net.Conn, _ *gssContext) {
		readServerFrame(nc) // the ConnectionHeader; then close, unanswered
	})
	p := newTestPool(t, WithKerberos(Kerberos{Client: fakeKerberosClient(t, key), ServerPrincipal: "hbase/_HOST"}))
	errs := poolAttempts(t, p, s.addr, 4)
	if len(errs) != 4 {
		t.Fatalf("attempts %v, want 4 retryable errors", errs)
	}
	for i, err := range errs {
		if errors.Is(err, ErrTLSRequired) || errors.Is(err, errClosedUnanswered) {
			t.Fatalf("attempt %d: %v, want a plain retryable close", i, err)
		}
	}
	if n := s.probes(); n != 0 {
		t.Fatalf("%d TLS probes of a Kerberos server, want none", n)
	}
}

// TestKerberosTLSRequired: a Kerberos client without TLS against a
// TLS-only server: the handshake is closed unanswered twice, then the
// Pool's probe completes a TLS handshake: ErrTLSRequired on the second
// attempt.
func TestKerberosTLSRequired(t *testing.T) {
	s := newTLSServer(t, newTestPKI(t))
	p := newTestPool(t, WithKerberos(Kerberos{Client: fakeKerberosClient(t, randomKey(t)), ServerPrincipal: "hbase/_HOST"}))
	errs := poolAttempts(t, p, s.addr(), 5)
	if len(errs) != 2 || !IsRetryable(errs[0]) || !errors.Is(errs[1], ErrTLSRequired) || IsRetryable(errs[1]) {
		t.Fatalf("attempts %v, want a retryable close, then ErrTLSRequired", errs)
	}
}
