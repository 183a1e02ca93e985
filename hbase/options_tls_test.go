package hbase_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase"
)

func TestNewTLSConfig(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		files  hbase.TLSFiles
		errHas string // empty: no error
	}{
		{"system roots", hbase.TLSFiles{}, ""},
		{"server name", hbase.TLSFiles{ServerName: "hbase.example.com"}, ""},
		{"missing CA", hbase.TLSFiles{CA: filepath.Join(dir, "none.pem")}, "no such file"},
		{"CA not PEM", hbase.TLSFiles{CA: notPEM}, "no PEM certificate"},
		{"cert without key", hbase.TLSFiles{Cert: notPEM}, "needs its key"},
		{"key without cert", hbase.TLSFiles{Key: notPEM}, "needs its key"},
		{"bad pair", hbase.TLSFiles{Cert: notPEM, Key: notPEM}, "client certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := hbase.NewTLSConfig(tc.files)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("got %v, want an error with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ServerName != tc.files.ServerName || cfg.MinVersion == 0 {
				t.Fatalf("config %+v", cfg)
			}
		})
	}
}

func TestWithTLSNil(t *testing.T) {
	_, err := hbase.New(context.Background(), "127.0.0.1:1", hbase.WithTLS(nil))
	if err == nil || !strings.Contains(err.Error(), "WithTLS(nil)") {
		t.Fatalf("New with WithTLS(nil): %v", err)
	}
}
