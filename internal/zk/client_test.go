package zk

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestDialOptions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		opts []Option
	}{
		{"relative parent", []Option{WithParent("hbase")}},
		{"trailing slash", []Option{WithParent("/hbase/")}},
		{"zero timeout", []Option{WithTimeout(0)}},
		{"zero session timeout", []Option{WithSessionTimeout(0)}},
		{"nil logf", []Option{WithLogf(nil)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := Dial(ctx, []string{"127.0.0.1:2181"}, tc.opts...); err == nil {
				c.Close()
				t.Error("Dial succeeded, want an option error")
			}
		})
	}
	if _, err := Dial(ctx, nil); err == nil {
		t.Error("Dial without servers succeeded")
	}
}

// TestDialBounded checks that Dial gives up within its timeout when
// nothing answers (a listener that never speaks ZooKeeper).
func TestDialBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	var logged atomic.Int64
	start := time.Now()
	_, err = Dial(context.Background(), []string{ln.Addr().String()}, WithTimeout(300*time.Millisecond),
		WithLogf(func(string, ...any) { logged.Add(1) }))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Dial took %v with a 300ms timeout", d)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, []string{ln.Addr().String()}); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a canceled context = %v, want Canceled", err)
	}
}

// TestDialRefused: when every server refuses the connection, Dial fails
// at once with the dial error, not after its timeout.
func TestDialRefused(t *testing.T) {
	var addrs []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, ln.Addr().String())
		ln.Close()
	}
	start := time.Now()
	_, err := Dial(context.Background(), addrs)
	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial = %v, want ECONNREFUSED and no deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Dial took %v to report refused connections", d)
	}
}
