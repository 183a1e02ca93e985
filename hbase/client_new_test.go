package hbase

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentPort returns a loopback address that accepts connections and
// never answers.
func silentPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

func TestNewConnectionRefused(t *testing.T) {
	addr := closedPort(t)
	start := time.Now()
	c, err := New(context.Background(), addr)
	took := time.Since(start)
	if err == nil {
		c.Close()
		t.Fatal("New to a closed port succeeded")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %v: want errors.Is(err, syscall.ECONNREFUSED)", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("error %v: a deadline or timeout the caller never set", err)
	}
	if took > 2*time.Second {
		t.Errorf("New took %v to report a refused connection", took)
	}
}

func TestNewTimeouts(t *testing.T) {
	addr := silentPort(t)
	// The caller's deadline: its error.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := New(ctx, addr); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("New with the caller's deadline: %v, want context.DeadlineExceeded", err)
	}
	// WithZKTimeout, the caller's context without deadline: ErrTimeout.
	_, err := New(context.Background(), addr, WithZKTimeout(200*time.Millisecond))
	if !errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("New past WithZKTimeout: %v, want ErrTimeout and no context.DeadlineExceeded", err)
	}
}
