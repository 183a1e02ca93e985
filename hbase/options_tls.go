package hbase

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/hbkit/hbkit/internal/rpc"
)

// Errors of a failed TLS handshake; the error of the call wraps one of
// them (and a *TLSError), and is not retryable.
var (
	// ErrTLSUntrusted: the server's certificate does not chain to the
	// CAs of the client's tls.Config (wrong CA bundle), or has expired.
	ErrTLSUntrusted = rpc.ErrTLSUntrusted
	// ErrTLSHostname: the certificate is trusted but does not name the
	// server (TLS.ServerName, or the host HBase advertises).
	ErrTLSHostname = rpc.ErrTLSHostname
	// ErrTLSServerNotTLS: a TLS client against a server without TLS.
	ErrTLSServerNotTLS = rpc.ErrTLSServerNotTLS
	// ErrTLSRefused: the server aborted the handshake (a TLS alert), e.g.
	// it requires a client certificate.
	ErrTLSRefused = rpc.ErrTLSRefused
	// ErrTLSRequired: a client without TLS against a server that accepts
	// only TLS (hbase.server.netty.tls.supportplaintext=false): two
	// connections in a row were closed before any answer (retried as a
	// server going away), and the server then completed a TLS handshake.
	ErrTLSRequired = rpc.ErrTLSRequired
)

// TLSError is a failed TLS handshake with a server.
type TLSError = rpc.TLSError

// WithTLS encrypts every RPC connection with TLS, HBase 2.6's native RPC
// TLS (the Java client's hbase.client.netty.tls.enabled), configured by
// cfg; NewTLSConfig builds one from PEM files. With WithKerberos, SASL
// runs inside the TLS connection. When cfg.ServerName is empty each
// server's certificate is checked against the host name it advertises.
// ZooKeeper is still read over plain TCP. A nil cfg is an error.
func WithTLS(cfg *tls.Config) Option {
	return func(o *options) {
		o.tls = cfg
		o.nilTLS = cfg == nil
	}
}

// TLSFiles names the PEM files of a TLS configuration for NewTLSConfig.
// The names in brackets are the Java client's configuration keys.
type TLSFiles struct {
	// CA is a PEM bundle of the CA certificates to trust
	// [hbase.rpc.tls.truststore.location, type PEM]. Empty: the
	// system's roots.
	CA string
	// Cert and Key are a PEM client certificate (its chain may follow)
	// and its private key, presented when the server asks for one
	// [hbase.rpc.tls.keystore.location]; both or neither.
	Cert, Key string
	// ServerName, when set, is the name every server's certificate
	// must carry, whatever host it advertises (a cluster sharing one
	// certificate). Empty: each server's advertised host.
	ServerName string
}

// NewTLSConfig builds the tls.Config of f (TLS 1.2 at least, as HBase's
// default hbase.rpc.tls.protocol).
func NewTLSConfig(f TLSFiles) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("hbase: tls CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("hbase: tls CA %s: no PEM certificate in it", f.CA)
		}
		cfg.RootCAs = pool
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("hbase: tls: a client certificate needs its key, and a key its certificate")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("hbase: tls client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
