package hbase

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseQuorum(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}, false},
		{"zk1:2181, zk2:2182,", []string{"zk1:2181", "zk2:2182"}, false},
		{"zk1", []string{"zk1:2181"}, false},
		{"[::1]:2181,[::1]", []string{"[::1]:2181", "[::1]:2181"}, false},
		{"", nil, true},
		{" , ", nil, true},
		{"zk:0", nil, true},
		{"zk:http", nil, true},
		{":2181", nil, true},
	}
	for _, tc := range tests {
		got, err := parseQuorum(tc.in)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("parseQuorum(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	bad := map[string]Option{
		"nil dialer":    WithDialer(nil),
		"nil tracer":    WithTracerProvider(nil),
		"nil meter":     WithMeterProvider(nil),
		"znode parent":  WithZNodeParent("hbase"),
		"rpc timeout":   WithRPCTimeout(-time.Second),
		"retry budget":  WithRetryBudget(0),
		"max retries":   WithMaxRetries(-1),
		"backoff":       WithBackoff(time.Second, time.Millisecond),
		"scan defaults": WithScanDefaults(0, 1),
		"lease renewal": WithScannerLeaseRenewal(0),
		"zk timeout":    WithZKTimeout(0),
		"nil option":    nil,
	}
	for name, opt := range bad {
		_, err := New(context.Background(), "127.0.0.1:1", opt)
		if err == nil || !strings.HasPrefix(err.Error(), "hbase: ") {
			t.Errorf("%s: New = %v, want an option error", name, err)
		}
	}
	if _, err := New(context.Background(), ""); err == nil {
		t.Error("New with an empty quorum succeeded")
	}
}

func TestRegionCache(t *testing.T) {
	rc := newRegionCache()
	mk := func(start, end, addr string) *region {
		return &region{table: "t", start: []byte(start), end: []byte(end), addr: addr, name: []byte("t," + start)}
	}
	a, b, c := mk("", "g", "h1"), mk("g", "p", "h2"), mk("p", "", "h1")
	rc.add(b)
	rc.add(a)
	rc.add(c)
	for row, want := range map[string]*region{"": a, "a": a, "g": b, "o": b, "p": c, "zz": c} {
		if got := rc.get("t", []byte(row)); got != want {
			t.Errorf("get(%q) = %v, want %v", row, got, want)
		}
	}
	for row, want := range map[string]*region{"": c, "g": a, "h": b, "p": b, "q": c} {
		if got := rc.getBefore("t", []byte(row)); got != want {
			t.Errorf("getBefore(%q) = %v, want %v", row, got, want)
		}
	}
	if rc.getBefore("t", []byte("a")) != a || rc.get("other", []byte("a")) != nil {
		t.Error("lookups outside the cache")
	}
	// A split daughter evicts its parent.
	d := mk("g", "k", "h3")
	rc.add(d)
	if rc.get("t", []byte("h")) != d || rc.get("t", []byte("m")) != nil {
		t.Error("split daughter did not replace the parent")
	}
	m := rc.moved(d, "h4")
	if rc.get("t", []byte("h")) != m || m.addr != "h4" {
		t.Error("moved region not updated")
	}
	rc.removeServer("h1")
	if rc.get("t", []byte("a")) != nil || rc.get("t", []byte("h")) != m {
		t.Error("removeServer")
	}
	rc.remove(m)
	if rc.get("t", []byte("h")) != nil {
		t.Error("remove")
	}
}
