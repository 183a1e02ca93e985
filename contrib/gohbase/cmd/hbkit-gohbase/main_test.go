package main

import (
	"strings"
	"testing"
	"time"
)

func TestReadSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		options int
		timeout time.Duration
		err     string // substring of the error; empty: none
	}{
		{"none", nil, 0, 30 * time.Second, ""},
		{"all", map[string]string{"HBKIT_GOHBASE_FLUSH_INTERVAL": "5ms", "HBKIT_GOHBASE_RPC_QUEUE_SIZE": "500",
			"HBKIT_GOHBASE_ZK_ROOT": "/hbase-unsecure", "HBKIT_GOHBASE_CONNECT_TIMEOUT": "2s"}, 3, 2 * time.Second, ""},
		{"bad duration", map[string]string{"HBKIT_GOHBASE_FLUSH_INTERVAL": "5"}, 0, 0, "HBKIT_GOHBASE_FLUSH_INTERVAL=\"5\""},
		{"negative duration", map[string]string{"HBKIT_GOHBASE_CONNECT_TIMEOUT": "-1s"}, 0, 0, "HBKIT_GOHBASE_CONNECT_TIMEOUT"},
		{"bad size", map[string]string{"HBKIT_GOHBASE_RPC_QUEUE_SIZE": "0"}, 0, 0, "HBKIT_GOHBASE_RPC_QUEUE_SIZE=\"0\""},
		{"both bad", map[string]string{"HBKIT_GOHBASE_RPC_QUEUE_SIZE": "x", "HBKIT_GOHBASE_FLUSH_INTERVAL": "y"}, 0, 0,
			"HBKIT_GOHBASE_FLUSH_INTERVAL=\"y\": want a positive Go duration such as 5ms\nHBKIT_GOHBASE_RPC_QUEUE_SIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := readSettings(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || len(s.opts) != tt.options || s.connectTimeout != tt.timeout {
				t.Fatalf("%d options, timeout %v, err %v; want %d, %v, nil", len(s.opts), s.connectTimeout, err, tt.options, tt.timeout)
			}
		})
	}
}

func TestGohbaseVersion(t *testing.T) {
	if v := gohbaseVersion(); !strings.HasPrefix(v, "gohbase v") {
		t.Errorf("gohbaseVersion() = %q, want gohbase's module version", v)
	}
}
