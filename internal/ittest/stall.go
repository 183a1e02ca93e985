package ittest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The stall tests stop the HBase JVM with SIGSTOP: a server that stops
// answering without closing its sockets, as a long GC pause, a frozen VM
// or a network partition look to a client. They run only against an
// HBase of their own (make test-stall, tools/test-stall.sh), which
// exports HBKIT_STALL_STATE (its state directory, whose hbase.pid names
// the JVM), HBKIT_STALL_ZK_SESSION (its ZooKeeper session timeout in
// seconds) and HBKIT_STALL_RESTART_CMD.

// StallJVM returns the pid of the HBase of HBKIT_STALL_STATE, which a
// stall test may stop, and that state directory; it skips tb when
// HBKIT_STALL_STATE is not set. It fails tb when HBKIT_ZK names the
// shared HBase (port 2181) or when the pid's command line does not carry
// the state directory's marker (as the launcher checks): a stall test
// never signals another process.
func StallJVM(tb testing.TB) (pid int, state string) {
	tb.Helper()
	state = os.Getenv("HBKIT_STALL_STATE")
	if state == "" {
		tb.Skip("HBKIT_STALL_STATE not set: make test-stall runs this test against an HBase of its own")
	}
	if zk := os.Getenv("HBKIT_ZK"); zk == "" || strings.HasSuffix(zk, ":2181") {
		tb.Fatalf("HBKIT_ZK=%q: the stall tests never run against the shared HBase", zk)
	}
	b, err := os.ReadFile(filepath.Join(state, "hbase.pid"))
	if err != nil {
		tb.Fatal(err)
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		tb.Fatal(err)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("\x00-Dhbkit.state="+state+"\x00")) {
		tb.Fatalf("pid %d is not the HBase of %s (%v); not signalling it", pid, state, err)
	}
	return pid, state
}

// StopJVM SIGSTOPs pid and returns a function that SIGCONTs it once; it
// also runs at cleanup, so that a failing test never leaves HBase stopped.
func StopJVM(tb testing.TB, pid int) (resume func()) {
	tb.Helper()
	var once sync.Once
	resume = func() {
		once.Do(func() {
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				tb.Errorf("SIGCONT %d: %v", pid, err)
			}
		})
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		tb.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	tb.Cleanup(resume)
	return resume
}

// StopWithinSession fails tb when HBKIT_STALL_ZK_SESSION says that a stop
// of d would outlast (or come within 10s of) the HBase's ZooKeeper session,
// which it would then abort on.
func StopWithinSession(tb testing.TB, d time.Duration) {
	tb.Helper()
	if s, _ := strconv.Atoi(os.Getenv("HBKIT_STALL_ZK_SESSION")); s > 0 && time.Duration(s)*time.Second < d+10*time.Second {
		tb.Fatalf("ZooKeeper session timeout %ds is too short for a %v stop", s, d)
	}
}

// SettledGoroutines returns the number of goroutines once it stayed the
// same for 200ms (at most 5s), after a garbage collection: the baseline a
// test compares with once its calls are over.
func SettledGoroutines() int {
	runtime.GC()
	n := runtime.NumGoroutine()
	for start := time.Now(); time.Since(start) < 5*time.Second; {
		time.Sleep(200 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}

// SettleGoroutines waits until the goroutine count is back to at most
// base and returns it, and fails tb (with every goroutine's stack) if it
// is not within limit.
func SettleGoroutines(tb testing.TB, base int, limit time.Duration) int {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return n
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			tb.Errorf("%d goroutines %v after the calls returned, %d before: goroutines left behind:\n%s", n, limit, base, buf)
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}
