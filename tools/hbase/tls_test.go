package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadTLS(t *testing.T) {
	dir := t.TempDir()
	ks, ts := filepath.Join(dir, "server.pem"), filepath.Join(dir, "ca.pem")
	for _, p := range []string{ks, ts} {
		if err := os.WriteFile(p, []byte("pem"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		enabled bool
		errHas  string
	}{
		{"plain", nil, false, ""},
		{"tls", map[string]string{"HBKIT_TLS_KEYSTORE": ks, "HBKIT_TLS_TRUSTSTORE": ts}, true, ""},
		{"keystore only", map[string]string{"HBKIT_TLS_KEYSTORE": ks}, false, "both or neither"},
		{"missing truststore", map[string]string{"HBKIT_TLS_KEYSTORE": ks, "HBKIT_TLS_TRUSTSTORE": filepath.Join(dir, "none")}, false, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HBKIT_TLS_KEYSTORE", tc.env["HBKIT_TLS_KEYSTORE"])
			t.Setenv("HBKIT_TLS_TRUSTSTORE", tc.env["HBKIT_TLS_TRUSTSTORE"])
			got, err := loadTLS()
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("loadTLS: got %v, want an error with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.enabled() != tc.enabled {
				t.Fatalf("enabled %t, want %t", got.enabled(), tc.enabled)
			}
			cfg := &config{tls: got}
			site := cfg.siteXML()
			for _, want := range []string{
				"<name>hbase.server.netty.tls.enabled</name><value>true</value>",
				"<name>hbase.server.netty.tls.supportplaintext</name><value>false</value>",
				"<name>hbase.rpc.tls.keystore.location</name><value>" + ks + "</value>",
				"<name>hbase.rpc.tls.truststore.type</name><value>PEM</value>",
			} {
				if strings.Contains(site, want) != tc.enabled {
					t.Errorf("hbase-site.xml has %s: %t, want %t", want, !tc.enabled, tc.enabled)
				}
			}
			opts, err := got.tlsOption()
			if tc.enabled {
				// "pem" is no certificate: the launcher's own TLS refuses it.
				if err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
					t.Fatalf("tlsOption: got %v", err)
				}
			} else if err != nil || opts != nil {
				t.Fatalf("tlsOption of a plain instance: %v, %v", opts, err)
			}
		})
	}
}
