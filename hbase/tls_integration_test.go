//go:build integration

package hbase_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// The TLS tests run against the secured HBase of tools/secure-hbase.sh
// started with HBKIT_SECURE_TLS=1 (make test-secure does), with the
// variables of the secure.env it writes: HBKIT_TLS_CA, HBKIT_TLS_CERT,
// HBKIT_TLS_KEY, HBKIT_TLS_SERVER_NAME, HBKIT_TLS_OTHER_CA and the
// Kerberos ones. Without HBKIT_TLS_CA they are skipped.

// tlsFiles are the secure.env's PEM files; a client certificate only
// with cert.
func tlsFiles(t testing.TB, cert bool) hbase.TLSFiles {
	t.Helper()
	if os.Getenv("HBKIT_TLS_CA") == "" {
		t.Skip("HBKIT_TLS_CA unset: source the secure.env of HBKIT_SECURE_TLS=1 tools/secure-hbase.sh up")
	}
	f := hbase.TLSFiles{CA: os.Getenv("HBKIT_TLS_CA"), ServerName: os.Getenv("HBKIT_TLS_SERVER_NAME")}
	if cert {
		f.Cert, f.Key = os.Getenv("HBKIT_TLS_CERT"), os.Getenv("HBKIT_TLS_KEY")
	}
	return f
}

func withTLS(t testing.TB, f hbase.TLSFiles) hbase.Option {
	t.Helper()
	cfg, err := hbase.NewTLSConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return hbase.WithTLS(cfg)
}

// krbOpts are the options of a Kerberos client of the secured HBase:
// over TLS when it speaks TLS.
func krbOpts(t testing.TB, k hbase.Kerberos) []hbase.Option {
	opts := []hbase.Option{hbase.WithKerberos(k)}
	if os.Getenv("HBKIT_TLS_CA") != "" {
		opts = append(opts, withTLS(t, tlsFiles(t, false)))
	}
	return opts
}

// TestIntegrationTLSRefused: a client with a client certificate writes
// and reads over TLS + Kerberos; clients trusting the wrong CA, expecting
// another server name, or without TLS are refused with their typed
// error, not retryable, and write nothing (without TLS after two
// connections closed unanswered: see ErrTLSRequired).
func TestIntegrationTLSRefused(t *testing.T) {
	files := tlsFiles(t, true)
	k := kerberosFromEnv(t)
	good := itClient(t, hbase.WithKerberos(k), withTLS(t, files))
	table := itTable(t, good, "tlsrefused", nil)
	ctx := itCtx(t, 60*time.Second)
	put := &hbase.Put{Table: table, Row: []byte("cert"), Values: map[string]map[string][]byte{"cf": {"q": []byte("over tls with a client certificate")}}}
	if err := good.Put(ctx, put); err != nil {
		t.Fatalf("Put over TLS with a client certificate: %v", err)
	}

	wrongCA := tlsFiles(t, false)
	wrongCA.CA = os.Getenv("HBKIT_TLS_OTHER_CA")
	wrongName := tlsFiles(t, false)
	wrongName.ServerName = "hbase.example.com"
	row := []byte("refused")
	for _, tc := range []struct {
		name string
		opts []hbase.Option
		want error
	}{
		{"client trusting the wrong CA", []hbase.Option{hbase.WithKerberos(k), withTLS(t, wrongCA)}, hbase.ErrTLSUntrusted},
		{"wrong server name", []hbase.Option{hbase.WithKerberos(k), withTLS(t, wrongName)}, hbase.ErrTLSHostname},
		{"kerberos client without tls", []hbase.Option{hbase.WithKerberos(k)}, hbase.ErrTLSRequired},
		{"plain client", nil, hbase.ErrTLSRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := itClient(t, tc.opts...)
			start := time.Now()
			err := c.Put(ctx, &hbase.Put{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": {"q": []byte(tc.name)}}})
			if !errors.Is(err, tc.want) || hbase.IsRetryable(err) {
				t.Fatalf("Put: got %v, want %v, not retryable", err, tc.want)
			}
			var te *hbase.TLSError
			t.Logf("refused in %v (TLSError: %t): %v", time.Since(start).Round(time.Millisecond), errors.As(err, &te), err)
		})
	}
	r, err := good.Get(ctx, &hbase.Get{Table: table, Row: row})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !r.Empty() {
		t.Fatalf("a refused client wrote %v", r.Families())
	}
	r, err = good.Get(ctx, &hbase.Get{Table: table, Row: []byte("cert")})
	if err != nil || string(r.Value([]byte("cf"), []byte("q"))) != "over tls with a client certificate" {
		t.Fatalf("Get: %v, %v", r, err)
	}
}

// TestIntegrationTLSAgainstPlain: a TLS client against the plain HBase at
// HBKIT_PLAIN_ZK is told the server does not speak TLS.
func TestIntegrationTLSAgainstPlain(t *testing.T) {
	files := tlsFiles(t, false)
	plain := os.Getenv("HBKIT_PLAIN_ZK")
	if plain == "" {
		t.Skip("HBKIT_PLAIN_ZK unset")
	}
	ctx := itCtx(t, 30*time.Second)
	c, err := hbase.New(ctx, plain, withTLS(t, files))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ListTables(ctx, "")
	if !errors.Is(err, hbase.ErrTLSServerNotTLS) || hbase.IsRetryable(err) {
		t.Fatalf("ListTables: got %v, want ErrTLSServerNotTLS, not retryable", err)
	}
	t.Logf("plain server: %v", err)
}
