package rpc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// Errors of the TLS handshake (HBase 2.6's native RPC TLS). Each is
// wrapped in a *TLSError, and that in the *ConnError of the failed dial;
// none is retryable.
var (
	// ErrTLSUntrusted: the server's certificate does not chain to a CA
	// the client trusts, or is expired or not yet valid.
	ErrTLSUntrusted = errors.New("rpc: tls: server certificate not trusted")
	// ErrTLSHostname: the server's certificate is trusted but does not
	// name the host dialled (or tls.Config.ServerName).
	ErrTLSHostname = errors.New("rpc: tls: server certificate does not match the server name")
	// ErrTLSServerNotTLS: the server does not speak TLS (a plain HBase:
	// it answered the ClientHello with something else, or closed the
	// connection without a handshake).
	ErrTLSServerNotTLS = errors.New("rpc: tls: server does not speak tls")
	// ErrTLSRefused: the server aborted the handshake with an alert, e.g.
	// because it requires a client certificate and got none or an
	// untrusted one.
	ErrTLSRefused = errors.New("rpc: tls: server refused the handshake")
	// ErrTLSRequired: the server accepts only TLS
	// (hbase.server.netty.tls.supportplaintext=false) and the client
	// has none. Such a server closes a plain connection as soon as it
	// reads the preamble, without a byte of answer, as a server going
	// away may too. A Pool reports ErrTLSRequired, instead of dialling
	// again, only when two connections in a row without TLS (nor, for
	// SIMPLE, Kerberos) ended so and a TLS handshake with the server
	// then completes (no certificate checked, nothing sent after it):
	// for SIMPLE on the third attempt, for Kerberos on the second. A
	// single Conn reports only the retryable close.
	ErrTLSRequired = errors.New("rpc: server requires tls")
)

// TLSError is a failed TLS handshake. Err wraps one of the ErrTLS*
// sentinels and the underlying crypto/tls or crypto/x509 error.
type TLSError struct {
	Addr       string
	ServerName string
	Err        error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("tls handshake with %s (server name %q): %v", e.Addr, e.ServerName, e.Err)
}

func (e *TLSError) Unwrap() error { return e.Err }

// WithTLS wraps every connection in TLS (HBase's hbase.client.netty.tls.enabled)
// configured by cfg, before the preamble; SASL (WithKerberos) then runs
// over TLS. When cfg.ServerName is empty the host of the dialled address
// is checked against the certificate. cfg is cloned; nil disables TLS.
func WithTLS(cfg *tls.Config) Option {
	return func(o *options) {
		if cfg == nil {
			o.tls = nil
			return
		}
		o.tls = cfg.Clone()
	}
}

// tlsHandshake runs the client side of the TLS handshake on nc, bounded by ctx.
func tlsHandshake(ctx context.Context, nc net.Conn, addr string, cfg *tls.Config) (net.Conn, error) {
	c := cfg.Clone()
	if c.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		c.ServerName = host
	}
	tc := tls.Client(nc, c)
	if err := tc.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tls handshake: %w", context.Cause(ctx))
		}
		return nil, &TLSError{Addr: addr, ServerName: c.ServerName, Err: classifyTLS(err)}
	}
	return tc, nil
}

// classifyTLS wraps err with the ErrTLS* sentinel that says what failed.
func classifyTLS(err error) error {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		alert    tls.AlertError
	)
	switch {
	case errors.As(err, &hostname):
		return fmt.Errorf("%w: %w", ErrTLSHostname, err)
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &verify):
		return fmt.Errorf("%w: %w", ErrTLSUntrusted, err)
	case errors.As(err, &record):
		return fmt.Errorf("%w: %w", ErrTLSServerNotTLS, err)
	case errors.As(err, &alert):
		return fmt.Errorf("%w: %w", ErrTLSRefused, err)
	case isEOF(err):
		return fmt.Errorf("%w: %w", ErrTLSServerNotTLS, err)
	}
	return err
}

// probeTimeout bounds the TLS probe of a server that closed connections
// without an answer.
const probeTimeout = 3 * time.Second

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// closedByPeer reports whether err says the server closed or reset the
// connection (read or write side).
func closedByPeer(err error) bool {
	return isEOF(err) || errors.Is(err, syscall.EPIPE)
}

// errClosedUnanswered is wrapped by the error of a connection without TLS
// that the server closed before sending a byte (see ErrTLSRequired).
var errClosedUnanswered = errors.New("closed by the server before any answer")

// probeTLS reports whether the server at addr completes a TLS handshake
// within probeTimeout (and ctx). It checks no certificate (it only asks
// whether the server speaks TLS) and sends nothing after the handshake.
func probeTLS(ctx context.Context, dial DialFunc, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a probe: no data is exchanged
	return tc.HandshakeContext(ctx) == nil
}
