package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/internal/rpc"
)

// tlsFiles holds what an instance with HBase 2.6's native RPC TLS needs
// (tools/secure-hbase.sh with HBKIT_SECURE_TLS=1 generates them). The zero
// value is plain TCP.
type tlsFiles struct {
	keystore   string // PEM: the servers' private key (PKCS#8) and certificate chain
	truststore string // PEM: the CA certificates the servers and the launcher trust
	// plaintext (HBKIT_SECURE_OPEN=1) accepts plain clients on the TLS
	// ports too, for measuring what TLS costs on one server.
	plaintext bool
}

func (t tlsFiles) enabled() bool { return t.keystore != "" }

// loadTLS reads HBKIT_TLS_KEYSTORE and HBKIT_TLS_TRUSTSTORE: both or
// neither.
func loadTLS() (tlsFiles, error) {
	t := tlsFiles{
		keystore:   strings.TrimSpace(os.Getenv("HBKIT_TLS_KEYSTORE")),
		truststore: strings.TrimSpace(os.Getenv("HBKIT_TLS_TRUSTSTORE")),
		plaintext:  os.Getenv("HBKIT_SECURE_OPEN") == "1",
	}
	if t.keystore == "" && t.truststore == "" {
		return tlsFiles{}, nil
	}
	if t.keystore == "" || t.truststore == "" {
		return tlsFiles{}, fmt.Errorf("HBKIT_TLS_KEYSTORE and HBKIT_TLS_TRUSTSTORE: set both or neither")
	}
	for _, p := range []*string{&t.keystore, &t.truststore} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return tlsFiles{}, err
		}
		if _, err := os.Stat(abs); err != nil {
			return tlsFiles{}, fmt.Errorf("tls: %w", err)
		}
		*p = abs
	}
	return t, nil
}

// site is what hbase-site.xml needs for TLS on every RPC port: the
// servers accept only TLS (no plaintext on the same port), and their own
// clients (region server to master) speak TLS too. A client certificate
// is asked for but not required: clients authenticate with Kerberos (or
// as SIMPLE users), the certificate being an extra.
func (t tlsFiles) site() [][2]string {
	if !t.enabled() {
		return nil
	}
	return [][2]string{
		{"hbase.server.netty.tls.enabled", "true"},
		{"hbase.server.netty.tls.supportplaintext", strconv.FormatBool(t.plaintext)},
		{"hbase.client.netty.tls.enabled", "true"},
		{"hbase.rpc.tls.keystore.location", t.keystore},
		{"hbase.rpc.tls.keystore.type", "PEM"},
		{"hbase.rpc.tls.truststore.location", t.truststore},
		{"hbase.rpc.tls.truststore.type", "PEM"},
		{"hbase.server.netty.tls.client.auth.mode", "WANT"},
		// Clients dial from 127.0.0.1 without a certificate naming it.
		{"hbase.server.netty.tls.verify.client.hostname", "false"},
	}
}

// tlsOption is the launcher's own TLS: it trusts the truststore and
// checks the servers' certificate against the host it dials (127.0.0.1).
func (t tlsFiles) tlsOption() ([]rpc.Option, error) {
	if !t.enabled() {
		return nil, nil
	}
	pem, err := os.ReadFile(t.truststore)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls: %s holds no PEM certificate", t.truststore)
	}
	return []rpc.Option{rpc.WithTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})}, nil
}
