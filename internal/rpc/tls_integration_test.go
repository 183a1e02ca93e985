//go:build integration

package rpc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/zk"
)

// The TLS tests run against the secured HBase of tools/secure-hbase.sh
// started with HBKIT_SECURE_TLS=1, with the variables of its secure.env
// (HBKIT_TLS_CA, HBKIT_TLS_CERT, HBKIT_TLS_KEY, HBKIT_TLS_OTHER_CA, and the
// Kerberos ones); without HBKIT_TLS_CA they are skipped.

func tlsFromEnv(t *testing.T, caVar string) *tls.Config {
	t.Helper()
	if os.Getenv("HBKIT_TLS_CA") == "" {
		t.Skip("HBKIT_TLS_CA unset: source the secure.env of HBKIT_SECURE_TLS=1 tools/secure-hbase.sh up")
	}
	pem, err := os.ReadFile(os.Getenv(caVar))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s: no certificate", os.Getenv(caVar))
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// envTLS is the TLS option of a client of the secured HBase when it
// speaks TLS (HBKIT_TLS_CA set), else nothing.
func envTLS(t *testing.T, opts ...Option) []Option {
	if os.Getenv("HBKIT_TLS_CA") != "" {
		opts = append(opts, WithTLS(tlsFromEnv(t, "HBKIT_TLS_CA")))
	}
	return opts
}

func isMasterRunning(ctx context.Context, addr string, opts ...Option) error {
	c, err := Dial(ctx, addr, MasterService, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{})
}

func TestIntegrationTLSMaster(t *testing.T) {
	good := tlsFromEnv(t, "HBKIT_TLS_CA")
	cl, spn, prot := secureEnv(t)
	krb := WithKerberos(Kerberos{Client: cl, ServerPrincipal: spn, Protection: prot})
	addr := masterFromZK()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	withCert := good.Clone()
	pair, err := tls.LoadX509KeyPair(os.Getenv("HBKIT_TLS_CERT"), os.Getenv("HBKIT_TLS_KEY"))
	if err != nil {
		t.Fatal(err)
	}
	withCert.Certificates = []tls.Certificate{pair}
	wrongName := good.Clone()
	wrongName.ServerName = "hbase.example.com"

	for _, tc := range []struct {
		name string
		opts []Option
		want error // nil: the call succeeds
	}{
		{"tls and kerberos", []Option{WithTLS(good), krb}, nil},
		{"tls, kerberos and a client certificate", []Option{WithTLS(withCert), krb}, nil},
		{"wrong CA", []Option{WithTLS(tlsFromEnv(t, "HBKIT_TLS_OTHER_CA")), krb}, ErrTLSUntrusted},
		{"wrong server name", []Option{WithTLS(wrongName), krb}, ErrTLSHostname},
		{"kerberos without tls", []Option{krb}, ErrTLSRequired},
		{"simple without tls", nil, ErrTLSRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := isMasterRunning(ctx, addr, tc.opts...)
			if tc.want == ErrTLSRequired {
				// A single connection sees a retryable close; a
				// Pool, retried, finds out (see ErrTLSRequired).
				errs := poolAttempts(t, newTestPool(t, tc.opts...), addr, 5)
				t.Logf("%d attempts: %v", len(errs), errs)
				err = errs[len(errs)-1]
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("IsMasterRunning: %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) || IsRetryable(err) {
				t.Fatalf("IsMasterRunning: got %v (retryable %t), want %v, not retryable", err, IsRetryable(err), tc.want)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// TestIntegrationTLSAgainstPlain: a TLS client against the plain HBase at
// HBKIT_PLAIN_ZK is told the server does not speak TLS.
func TestIntegrationTLSAgainstPlain(t *testing.T) {
	cfg := tlsFromEnv(t, "HBKIT_TLS_CA")
	plain := os.Getenv("HBKIT_PLAIN_ZK")
	if plain == "" {
		t.Skip("HBKIT_PLAIN_ZK unset")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := zk.Locate(ctx, strings.Split(plain, ","))
	if err != nil {
		t.Fatal(err)
	}
	err = isMasterRunning(ctx, m.Master.Server.Addr(), WithTLS(cfg))
	if !errors.Is(err, ErrTLSServerNotTLS) || IsRetryable(err) {
		t.Fatalf("IsMasterRunning: got %v, want ErrTLSServerNotTLS, not retryable", err)
	}
	t.Logf("plain server: %v", err)
}
