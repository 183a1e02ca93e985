package rpc

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
)

// testPKI is a CA and a server certificate for 127.0.0.1 and localhost.
type testPKI struct {
	pool   *x509.CertPool // holds the CA
	server tls.Certificate
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return testPKI{pool: pool, server: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
}

// tlsOnlyListener accepts TLS connections and, as HBase with
// hbase.server.netty.tls.supportplaintext=false does, closes any other at
// once without writing a byte.
type tlsOnlyListener struct {
	net.Listener
	cfg *tls.Config
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (l tlsOnlyListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		r := bufio.NewReader(nc)
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		first, err := r.Peek(1)
		nc.SetReadDeadline(time.Time{})
		if err != nil || first[0] != 0x16 { // not a TLS handshake record
			nc.Close()
			continue
		}
		return tls.Server(peekedConn{nc, r}, l.cfg), nil
	}
}

// newTLSServer is a fake HBase answering IsMasterRunning over TLS only.
func newTLSServer(t *testing.T, pki testPKI) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{t: t, ln: tlsOnlyListener{ln, &tls.Config{Certificates: []tls.Certificate{pki.server}}}, handle: echoHandler}
	s.wg.Add(1)
	go s.acceptLoop()
	t.Cleanup(s.close)
	return s
}

// rawServer accepts connections and hands each to serve.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer nc.Close(); serve(nc) }()
		}
	}()
	return ln.Addr().String()
}

func callMaster(ctx context.Context, addr string, opts ...Option) error {
	c, err := Dial(ctx, addr, MasterService, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{})
}

// errGoingAway stands for the errors of a server closing connections.
var errGoingAway = errors.New("a connection error")

func TestTLS(t *testing.T) {
	pki := newTestPKI(t)
	other := newTestPKI(t)
	tlsAddr := newTLSServer(t, pki).addr()
	// A plain HBase answers a ClientHello (a bad preamble) with a
	// non-TLS frame, then closes.
	plainAddr := rawServer(t, func(nc net.Conn) {
		io.ReadFull(nc, make([]byte, 6))
		nc.Write([]byte{0, 0, 0, 12, 'n', 'o', 't', ' ', 'a', ' ', 't', 'l', 's', ' ', 'o', 'k'})
	})
	// A server going away: it closes every connection at once and
	// speaks no TLS either.
	closingAddr := rawServer(t, func(net.Conn) {})

	trusting := &tls.Config{RootCAs: pki.pool}
	for _, tc := range []struct {
		name      string
		addr      string
		opts      []Option
		want      error // nil: the call succeeds
		retryable bool
	}{
		{"tls", tlsAddr, []Option{WithTLS(trusting)}, nil, false},
		{"tls with a server name", tlsAddr, []Option{WithTLS(&tls.Config{RootCAs: pki.pool, ServerName: "localhost"})}, nil, false},
		{"wrong CA", tlsAddr, []Option{WithTLS(&tls.Config{RootCAs: other.pool})}, ErrTLSUntrusted, false},
		{"wrong server name", tlsAddr, []Option{WithTLS(&tls.Config{RootCAs: pki.pool, ServerName: "hbase.example.com"})}, ErrTLSHostname, false},
		// One connection cannot tell a TLS-only server from one going
		// away: a Pool can (TestPoolTLSRequired).
		{"plain client against tls only", tlsAddr, nil, errGoingAway, true},
		{"tls client against plain", plainAddr, []Option{WithTLS(trusting)}, ErrTLSServerNotTLS, false},
		{"tls client against a closing server", closingAddr, []Option{WithTLS(trusting)}, ErrTLSServerNotTLS, false},
		{"plain client against a closing server", closingAddr, nil, errGoingAway, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := callMaster(ctx, tc.addr, tc.opts...)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("IsMasterRunning: %v", err)
				}
				return
			}
			if tc.want == errGoingAway {
				// An EOF or a reset, retryable, and not ErrTLSRequired.
				if err == nil || errors.Is(err, ErrTLSRequired) || !IsRetryable(err) {
					t.Fatalf("a server going away: got %v (retryable %t), want a retryable connection error", err, IsRetryable(err))
				}
				return
			}
			if !errors.Is(err, tc.want) || IsRetryable(err) != tc.retryable {
				t.Fatalf("got %v (retryable %t), want %v (retryable %t)", err, IsRetryable(err), tc.want, tc.retryable)
			}
		})
	}
}

func TestWithTLSNil(t *testing.T) {
	o, err := buildOptions([]Option{WithTLS(&tls.Config{}), WithTLS(nil)})
	if err != nil || o.tls != nil {
		t.Fatalf("WithTLS(nil) after WithTLS: %v, %v", o.tls, err)
	}
}
