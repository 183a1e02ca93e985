//go:build integration

package hbase_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/conformance"
)

// The Kerberos tests run against the secured HBase of tools/secure-hbase.sh
// (make hbase-secure-up), with the variables of the secure.env it writes:
// HBKIT_ZK, HBKIT_PRINCIPAL, HBKIT_KEYTAB, HBKIT_KRB5_CONF,
// HBKIT_SERVER_PRINCIPAL, HBKIT_RPC_PROTECTION. Without HBKIT_KEYTAB they
// are skipped, so the plain integration run is unaffected. When that HBase
// speaks TLS (HBKIT_TLS_CA) the clients do too (krbOpts).

func kerberosFromEnv(t testing.TB) hbase.Kerberos {
	t.Helper()
	if os.Getenv("HBKIT_KEYTAB") == "" {
		t.Skip("HBKIT_KEYTAB unset: source the secure.env of tools/secure-hbase.sh up")
	}
	prot, err := hbase.ParseProtection(os.Getenv("HBKIT_RPC_PROTECTION"))
	if err != nil {
		t.Fatal(err)
	}
	return hbase.Kerberos{
		Principal:       os.Getenv("HBKIT_PRINCIPAL"),
		Keytab:          os.Getenv("HBKIT_KEYTAB"),
		Krb5Conf:        os.Getenv("HBKIT_KRB5_CONF"),
		ServerPrincipal: os.Getenv("HBKIT_SERVER_PRINCIPAL"),
		Protection:      prot,
	}
}

func TestIntegrationKerberosConformance(t *testing.T) {
	k := kerberosFromEnv(t)
	c := itClient(t, krbOpts(t, k)...)
	t.Logf("conformance over Kerberos as %s, protection %v, tls %t", k.Principal, k.Protection, os.Getenv("HBKIT_TLS_CA") != "")
	conformance.Run(t, conformance.Harness{
		Data:         c,
		Admin:        c,
		NewTableName: conformance.NameGenerator("krb"),
		Timeout:      3 * time.Minute,
	})
}

// TestIntegrationKerberosRefused: clients without valid Kerberos
// credentials fail with their typed error, at once (not retried), and
// write nothing.
func TestIntegrationKerberosRefused(t *testing.T) {
	k := kerberosFromEnv(t)
	good := itClient(t, krbOpts(t, k)...)
	table := itTable(t, good, "krbrefused", nil)
	row := []byte("refused")

	noKeytabEntry := k
	noKeytabEntry.Principal = "nokeytab@HBKIT.LOCAL" // known to the KDC, not in the keytab
	wrongProt := k
	wrongProt.Protection = hbase.ProtectionPrivacy
	if k.Protection == hbase.ProtectionPrivacy {
		wrongProt.Protection = hbase.ProtectionAuthentication
	}
	wrongServer := k
	wrongServer.ServerPrincipal = "hbase/nosuchhost@HBKIT.LOCAL"
	for _, tc := range []struct {
		name  string
		opts  []hbase.Option
		check func(error) bool
		want  string
	}{
		{"plain SIMPLE client", nil, func(err error) bool { return err != nil && !hbase.IsRetryable(err) }, "a non-retryable error"},
		{"principal without a keytab entry", krbOpts(t, noKeytabEntry),
			func(err error) bool { return errors.Is(err, hbase.ErrKerberosNoCredentials) }, "ErrKerberosNoCredentials"},
		{"protection the server does not offer", krbOpts(t, wrongProt),
			func(err error) bool { return errors.Is(err, hbase.ErrKerberosProtectionMismatch) }, "ErrKerberosProtectionMismatch"},
		{"unknown server principal", krbOpts(t, wrongServer),
			func(err error) bool { return errors.Is(err, hbase.ErrKerberosServiceTicket) }, "ErrKerberosServiceTicket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := itClient(t, tc.opts...)
			ctx := itCtx(t, 30*time.Second)
			start := time.Now()
			err := c.Put(ctx, &hbase.Put{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": {"q": []byte(tc.name)}}})
			if !tc.check(err) {
				t.Fatalf("Put: got %v, want %s", err, tc.want)
			}
			var ae *hbase.AuthError
			t.Logf("refused in %v (AuthError: %t): %v", time.Since(start).Round(time.Millisecond), errors.As(err, &ae), err)
		})
	}
	r, err := good.Get(itCtx(t, 30*time.Second), &hbase.Get{Table: table, Row: row})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !r.Empty() {
		t.Fatalf("a refused client wrote %v", r.Families())
	}
}

// TestIntegrationKerberosAgainstPlain: a Kerberos client against the
// plain HBase at HBKIT_PLAIN_ZK is told the server is not secured. It
// writes nothing: the handshake fails before any request.
func TestIntegrationKerberosAgainstPlain(t *testing.T) {
	k := kerberosFromEnv(t)
	plain := os.Getenv("HBKIT_PLAIN_ZK")
	if plain == "" {
		t.Skip("HBKIT_PLAIN_ZK unset")
	}
	ctx := itCtx(t, 30*time.Second)
	c, err := hbase.New(ctx, plain, hbase.WithKerberos(k))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ListTables(ctx, "")
	if !errors.Is(err, hbase.ErrKerberosServerNotSecured) {
		t.Fatalf("ListTables: got %v, want ErrKerberosServerNotSecured", err)
	}
	t.Logf("plain server: %v", err)
}

// kinit writes a credentials cache for the client principal from its
// keytab with MIT's kinit, the ticket valid for lifetime.
func kinit(t *testing.T, k hbase.Kerberos, lifetime string) string {
	t.Helper()
	bin, err := exec.LookPath("kinit")
	if err != nil {
		t.Skip("no kinit (Debian's krb5-user)")
	}
	cc := filepath.Join(t.TempDir(), "ccache")
	cmd := exec.Command(bin, "-c", "FILE:"+cc, "-l", lifetime, "-k", "-t", k.Keytab, k.Principal)
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, out)
	}
	return cc
}

// TestIntegrationKerberosCCache: a client from a credentials cache
// (what kinit writes) writes and reads; one from a cache whose ticket has
// expired is refused with ErrKerberosNoCredentials and writes nothing.
func TestIntegrationKerberosCCache(t *testing.T) {
	k := kerberosFromEnv(t)
	good := itClient(t, krbOpts(t, k)...)
	table := itTable(t, good, "krbccache", nil)

	fromCache := k
	fromCache.Keytab = ""
	fromCache.CCache = kinit(t, k, "1h")
	c := itClient(t, krbOpts(t, fromCache)...)
	ctx := itCtx(t, 30*time.Second)
	put := &hbase.Put{Table: table, Row: []byte("ccache"), Values: map[string]map[string][]byte{"cf": {"q": []byte("from a credentials cache")}}}
	if err := c.Put(ctx, put); err != nil {
		t.Fatalf("Put from a credentials cache: %v", err)
	}
	r, err := c.Get(ctx, &hbase.Get{Table: table, Row: []byte("ccache")})
	if err != nil || string(r.Value([]byte("cf"), []byte("q"))) != "from a credentials cache" {
		t.Fatalf("Get from a credentials cache: %v, %v", r, err)
	}

	expired := k
	expired.Keytab = ""
	expired.CCache = kinit(t, k, "1s")
	time.Sleep(3 * time.Second)
	c = itClient(t, krbOpts(t, expired)...)
	err = c.Put(ctx, &hbase.Put{Table: table, Row: []byte("expired"), Values: map[string]map[string][]byte{"cf": {"q": []byte("x")}}})
	if !errors.Is(err, hbase.ErrKerberosNoCredentials) || hbase.IsRetryable(err) {
		t.Fatalf("Put with an expired ticket: got %v, want ErrKerberosNoCredentials, not retryable", err)
	}
	t.Logf("expired ticket: %v", err)
	if r, err := good.Get(ctx, &hbase.Get{Table: table, Row: []byte("expired")}); err != nil || !r.Empty() {
		t.Fatalf("after the refused Put: %v, %v", r, err)
	}
}
