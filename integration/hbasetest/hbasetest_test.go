package hbasetest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestChoose(t *testing.T) {
	up := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("no engine") }
	localOK := func(*options) error { return nil }
	localNo := func(*options) error { return errors.New("no java") }
	for _, tc := range []struct {
		name    string
		env     map[string]string
		engine  func(context.Context) error
		local   func(*options) error
		want    Mode
		wantErr error
	}{
		{"engine answers", nil, up, localOK, ModeContainer, nil},
		{"engine answers, HBKIT_ZK set", map[string]string{EnvZK: "h:1"}, up, localOK, ModeContainer, nil},
		{"no engine, HBKIT_ZK set", map[string]string{EnvZK: "h:1"}, down, localOK, ModeZK, nil},
		{"no engine, no HBKIT_ZK", nil, down, localOK, ModeLocal, nil},
		{"nothing", nil, down, localNo, "", ErrNoHBase},
		{"forced zk", map[string]string{EnvMode: "zk"}, up, localOK, ModeZK, nil},
		{"forced local", map[string]string{EnvMode: "local", EnvZK: "h:1"}, up, localOK, ModeLocal, nil},
		{"forced container", map[string]string{EnvMode: "container"}, down, localNo, ModeContainer, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := newOptions(env(tc.env), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, why, err := choose(context.Background(), o, probes{engine: tc.engine, local: tc.local})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("mode = %q (%s), want %q", got, why, tc.want)
			}
			if err == nil && why == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestNewOptions(t *testing.T) {
	o, err := newOptions(env(map[string]string{
		"HBKIT_ZK_PORT": "2281", "HBKIT_MASTER_PORT": "16100", "HBKIT_RS_PORT": "16120",
		EnvTimeout: "90", EnvImage: "localhost/x:1", "HBKIT_HBASE_HEAP": "512m",
	}), []Option{WithHeap("2g")})
	if err != nil {
		t.Fatal(err)
	}
	if o.zkPort != 2281 || o.masterPort != 16100 || o.rsPort != 16120 {
		t.Errorf("ports = %d/%d/%d, want 2281/16100/16120", o.zkPort, o.masterPort, o.rsPort)
	}
	if o.timeout != 90*time.Second {
		t.Errorf("timeout = %v, want 90s", o.timeout)
	}
	if o.image != "localhost/x:1" {
		t.Errorf("image = %q", o.image)
	}
	if o.heap != "2g" {
		t.Errorf("heap = %q, want the option's 2g over the environment's 512m", o.heap)
	}
}

func TestNewOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		opts []Option
		want string
	}{
		{"bad mode", map[string]string{EnvMode: "docker"}, nil, "unknown mode"},
		{"bad port", map[string]string{"HBKIT_ZK_PORT": "x"}, nil, "HBKIT_ZK_PORT"},
		{"port range", nil, []Option{WithPorts(70000, 0, 0)}, "out of range"},
		{"bad timeout", map[string]string{EnvTimeout: "-1"}, nil, EnvTimeout},
		{"zero timeout", nil, []Option{WithTimeout(0)}, "timeout"},
		{"empty heap", nil, []Option{WithHeap("")}, "heap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newOptions(env(tc.env), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestFillPorts(t *testing.T) {
	o := &options{masterPort: 16100}
	if err := o.fillPorts(); err != nil {
		t.Fatal(err)
	}
	if o.masterPort != 16100 {
		t.Errorf("master port = %d, want the given 16100", o.masterPort)
	}
	if o.zkPort == 0 || o.rsPort == 0 || o.zkPort == o.rsPort {
		t.Errorf("ports = %d/%d, want two distinct free ports", o.zkPort, o.rsPort)
	}
}

func TestPortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := portFree(port); err == nil {
		t.Errorf("portFree(%d) = nil for a port in use", port)
	}
	l.Close()
	if err := portFree(port); err != nil {
		t.Errorf("portFree(%d) after close: %v", port, err)
	}
}

func TestIsHbkitModule(t *testing.T) {
	for _, tc := range []struct {
		gomod string
		want  bool
	}{
		{"module github.com/hbkit/hbkit\n\ngo 1.26\n", true},
		{"// c\nmodule github.com/hbkit/hbkit/v2\n", false},
		{"module example.com/app\nrequire github.com/hbkit/hbkit v1.0.0\n", false},
		{"", false},
	} {
		if got := isHbkitModule([]byte(tc.gomod)); got != tc.want {
			t.Errorf("isHbkitModule(%q) = %v, want %v", tc.gomod, got, tc.want)
		}
	}
}

func TestUseZKUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	o, err := newOptions(env(map[string]string{EnvZK: addr}), []Option{WithTimeout(2 * time.Second), WithLog(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := useZK(context.Background(), o); err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("useZK(%s) = %v, want an error naming the address", addr, err)
	}
}

func TestStopIdempotent(t *testing.T) {
	calls := 0
	h := &HBase{stop: func(context.Context) error { calls++; return nil }}
	for range 2 {
		if err := h.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("stop ran %d times, want 1", calls)
	}
	var nilH *HBase
	if err := nilH.Stop(context.Background()); err != nil {
		t.Errorf("nil Stop: %v", err)
	}
}

func TestEngineReachable(t *testing.T) {
	dir := t.TempDir()
	sock := dir + "/engine.sock"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_ping" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("OK"))
	})}
	go srv.Serve(l)
	defer srv.Close()
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"unix://" + sock, true},
		{"tcp://" + l.Addr().String(), false}, // not a TCP address: nothing answers
		{"unix://" + dir + "/none.sock", false},
		{"ssh://host", false},
	} {
		t.Setenv("DOCKER_HOST", tc.host)
		err := engineReachable(context.Background())
		if (err == nil) != tc.ok {
			t.Errorf("DOCKER_HOST=%s: engineReachable = %v, want ok=%v", tc.host, err, tc.ok)
		}
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tsrv := &http.Server{Handler: srv.Handler}
	go tsrv.Serve(tl)
	defer tsrv.Close()
	t.Setenv("DOCKER_HOST", "tcp://"+tl.Addr().String())
	if err := engineReachable(context.Background()); err != nil {
		t.Errorf("DOCKER_HOST=tcp://%s: %v", tl.Addr(), err)
	}
}
