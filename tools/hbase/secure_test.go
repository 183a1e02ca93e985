package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadKerberos(t *testing.T) {
	dir := t.TempDir()
	kt := filepath.Join(dir, "hbase.keytab")
	conf := filepath.Join(dir, "krb5.conf")
	for _, p := range []string{kt, conf} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		enabled bool
		wantErr string
	}{
		{"plain", nil, false, ""},
		{"kerberos", map[string]string{"HBKIT_HBASE_KEYTAB": kt, "HBKIT_HBASE_PRINCIPAL": "hbase/localhost@R", "HBKIT_KRB5_CONF": conf}, true, ""},
		{"no principal", map[string]string{"HBKIT_HBASE_KEYTAB": kt, "HBKIT_KRB5_CONF": conf}, false, "HBKIT_HBASE_PRINCIPAL"},
		{"bad protection", map[string]string{"HBKIT_HBASE_KEYTAB": kt, "HBKIT_HBASE_PRINCIPAL": "p", "HBKIT_KRB5_CONF": conf, "HBKIT_RPC_PROTECTION": "secret"}, false, "HBKIT_RPC_PROTECTION"},
		{"missing keytab", map[string]string{"HBKIT_HBASE_KEYTAB": filepath.Join(dir, "none"), "HBKIT_HBASE_PRINCIPAL": "p", "HBKIT_KRB5_CONF": conf}, false, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"HBKIT_HBASE_KEYTAB", "HBKIT_HBASE_PRINCIPAL", "HBKIT_KRB5_CONF", "HBKIT_RPC_PROTECTION", "HBKIT_ZK_JAAS"} {
				t.Setenv(k, tc.env[k])
			}
			k, err := loadKerberos()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || k.enabled() != tc.enabled {
				t.Fatalf("got %+v, %v; want enabled %t", k, err, tc.enabled)
			}
			c := &config{state: dir, kerberos: k}
			site := c.siteXML()
			if got := strings.Contains(site, "<name>hbase.security.authentication</name><value>kerberos</value>"); got != tc.enabled {
				t.Fatalf("hbase-site.xml has kerberos: %t, want %t\n%s", got, tc.enabled, site)
			}
			if err := os.MkdirAll(c.confDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.writeCoreSite(); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(filepath.Join(c.confDir(), "core-site.xml"))
			if (err == nil) != tc.enabled {
				t.Fatalf("core-site.xml exists: %t, want %t", err == nil, tc.enabled)
			}
		})
	}
}

// TestOpenSite: HBKIT_SECURE_OPEN=1 makes the secured instance also take
// SIMPLE clients, every quality of protection and plain clients on the
// TLS ports (tools/bench-secure.sh measures them all on one server);
// without it, it refuses them.
func TestOpenSite(t *testing.T) {
	for _, open := range []bool{false, true} {
		k := kerberos{keytab: "/k", principal: "hbase/localhost@R", krb5Conf: "/c", protection: "privacy", open: open}
		c := &config{state: t.TempDir(), kerberos: k, tls: tlsFiles{keystore: "/ks", truststore: "/ts", plaintext: open}}
		site := c.siteXML()
		want := map[string]string{
			"hbase.rpc.protection":                             "privacy",
			"hbase.ipc.server.fallback-to-simple-auth-allowed": "false",
			"hbase.server.netty.tls.supportplaintext":          "false",
		}
		if open {
			want = map[string]string{
				"hbase.rpc.protection":                             "authentication,integrity,privacy",
				"hbase.ipc.server.fallback-to-simple-auth-allowed": "true",
				"hbase.server.netty.tls.supportplaintext":          "true",
			}
		}
		for name, v := range want {
			if p := "<name>" + name + "</name><value>" + v + "</value>"; !strings.Contains(site, p) {
				t.Errorf("open %t: hbase-site.xml lacks %s\n%s", open, p, site)
			}
		}
	}
}
