package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCA writes a self-signed CA certificate as PEM.
func writeCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSecurityOptions(t *testing.T) {
	ca := writeCA(t)
	for _, tc := range []struct {
		name      string
		flags     Security
		env       map[string]string
		want      int    // options
		wantFlag  string // the *SecurityError's flag
		wantError string // another error, containing this
	}{
		{"none: SIMPLE over TCP", Security{}, nil, 0, "", ""},
		{"kerberos from the environment", Security{}, map[string]string{"HBKIT_KEYTAB": "/k", "HBKIT_PRINCIPAL": "u@R"}, 1, "", ""},
		{"keytab flag, principal from the environment", Security{Keytab: "/k"}, map[string]string{"HBKIT_PRINCIPAL": "u@R"}, 1, "", ""},
		{"principal flag alone: credentials cache", Security{Principal: "u@R"}, nil, 1, "", ""},
		{"protection variable alone is not kerberos", Security{}, map[string]string{"HBKIT_RPC_PROTECTION": "privacy"}, 0, "", ""},
		{"protection flag without kerberos", Security{RPCProtection: "privacy"}, nil, 0, "rpc-protection", ""},
		{"server principal flag without kerberos", Security{ServerPrincipal: "hbase/_HOST"}, nil, 0, "server-principal", ""},
		{"keytab without principal", Security{Keytab: "/k"}, nil, 0, "keytab", ""},
		{"bad protection flag", Security{Keytab: "/k", Principal: "u@R", RPCProtection: "secret"}, nil, 0, "rpc-protection", ""},
		{"flag overrides a bad variable", Security{RPCProtection: "integrity"}, map[string]string{"HBKIT_KEYTAB": "/k", "HBKIT_PRINCIPAL": "u@R", "HBKIT_RPC_PROTECTION": "secret"}, 1, "", ""},
		{"tls CA", Security{TLSCA: ca}, nil, 1, "", ""},
		{"tls CA from the environment", Security{}, map[string]string{"HBKIT_TLS_CA": ca}, 1, "", ""},
		{"tls server name alone: the system's CAs", Security{TLSServerName: "hbase.example.com"}, nil, 1, "", ""},
		{"kerberos and tls", Security{Keytab: "/k", Principal: "u@R", TLSCA: ca}, nil, 2, "", ""},
		{"tls cert without key", Security{TLSCA: ca, TLSCert: ca}, nil, 0, "tls-key", ""},
		{"tls key without cert", Security{TLSKey: ca}, nil, 0, "tls-cert", ""},
		{"tls CA missing", Security{TLSCA: filepath.Join(t.TempDir(), "none.pem")}, nil, 0, "", "no such file"},
		{"tls CA not PEM", Security{TLSCA: "security_test.go"}, nil, 0, "", "no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := SecurityOptions(tc.flags, func(k string) string { return tc.env[k] })
			var se *SecurityError
			switch {
			case tc.wantFlag != "":
				if !errors.As(err, &se) || se.Flag != tc.wantFlag {
					t.Fatalf("got %v, want a *SecurityError for --%s", err, tc.wantFlag)
				}
			case tc.wantError != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantError)
				}
			case err != nil || len(opts) != tc.want:
				t.Fatalf("got %d options, %v; want %d", len(opts), err, tc.want)
			}
		})
	}
}

var errStop = errors.New("stop: connect reached")

// TestSecurityFlags: every command that connects takes the flags and
// hands them, unmerged, to ConnectSecure.
func TestSecurityFlags(t *testing.T) {
	args := []string{
		"--principal", "hbkit@HBKIT.LOCAL", "--keytab", "/k", "--ccache", "/c", "--krb5-conf", "/etc/k.conf",
		"--server-principal", "hbase/_HOST@HBKIT.LOCAL", "--rpc-protection", "privacy",
		"--tls-ca", "/ca.pem", "--tls-cert", "/c.crt", "--tls-key", "/c.key", "--tls-server-name", "hbase.local",
	}
	want := Security{
		Principal: "hbkit@HBKIT.LOCAL", Keytab: "/k", CCache: "/c", Krb5Conf: "/etc/k.conf",
		ServerPrincipal: "hbase/_HOST@HBKIT.LOCAL", RPCProtection: "privacy",
		TLSCA: "/ca.pem", TLSCert: "/c.crt", TLSKey: "/c.key", TLSServerName: "hbase.local",
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"table describe", []string{"table", "describe", "--schema", "sms"}},
		{"regions", []string{"regions", "--table", "t"}},
		{"index verify", []string{"index", "verify", "--schema", "sms"}},
		{"scan", []string{"scan", "--schema", "sms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Security
			var out, errw bytes.Buffer
			e := *withSeeds(&Env{Stdout: &out, Stderr: &errw, ConnectSecure: func(_ context.Context, _ string, s Security) (Client, io.Closer, error) {
				got = s
				return nil, nil, errStop
			}})
			err := Run(context.Background(), e, append(tc.args, args...))
			if !errors.Is(err, errStop) {
				t.Fatalf("Run: %v (stderr %s)", err, errw.String())
			}
			if got != want {
				t.Fatalf("ConnectSecure got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestSecurityFlagsUnsupported: a program without ConnectSecure (as
// hbkit-gohbase) refuses the flags, naming them and its client, and
// connects as before without them.
func TestSecurityFlagsUnsupported(t *testing.T) {
	connected := 0
	e := *withSeeds(&Env{Stdout: io.Discard, Stderr: io.Discard, Name: "hbkit-x", Over: "x 1.0",
		Connect: func(context.Context, string) (Client, io.Closer, error) { connected++; return nil, nil, errStop }})
	err := Run(context.Background(), e, []string{"regions", "--table", "t", "--keytab", "/k", "--tls-ca", "/ca.pem"})
	if !errors.Is(err, ErrSecurityUnsupported) || !strings.Contains(err.Error(), "--keytab, --tls-ca") || !strings.Contains(err.Error(), "x 1.0") {
		t.Fatalf("got %v, want ErrSecurityUnsupported naming --keytab, --tls-ca and x 1.0", err)
	}
	if connected != 0 {
		t.Fatal("connected despite the refused flags")
	}
	if err := Run(context.Background(), e, []string{"regions", "--table", "t"}); !errors.Is(err, errStop) || connected != 1 {
		t.Fatalf("without flags: %v, %d connections", err, connected)
	}
}
