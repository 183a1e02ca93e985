package proccpu

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command with spaces and a parenthesis, utime 1234 and stime 56.
	stat := "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 0 0 20 0 50 0 100 0 0\n"
	got, err := parseStat("stat", []byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if want := (1234 + 56) * clockTick; got != want {
		t.Fatalf("parseStat = %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 java S 1", "4242 (java) S 1 2 3", "4242 (java) S 1 4242 4242 0 -1 4194560 100 0 0 0 x 56 0"} {
		if _, err := parseStat("stat", []byte(bad)); err == nil {
			t.Errorf("parseStat(%q): no error", bad)
		}
	}
}

func TestOfAndSelf(t *testing.T) {
	if _, err := Of(0); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Of(0) = %v, want ErrNoProcess", err)
	}
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	self0, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	// Spend CPU time, enough for /proc's 10 ms steps.
	ofSpun := spin(t, Of, 60*time.Millisecond)
	self1, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if d := self1 - self0; d < ofSpun-2*clockTick {
		t.Errorf("Self grew by %v while /proc counted %v", d, ofSpun)
	}
	of, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if of <= 0 || of > self1+clockTick {
		t.Errorf("Of(self) = %v, Self = %v", of, self1)
	}
	if _, err := Of(1 << 30); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Of(a pid that does not exist) = %v, want fs.ErrNotExist", err)
	}
}

// TestWindow: a window over this process and the same process named as
// the other sees both spend the time it spins; a pid that cannot be read
// fails Start and leaves a window over this process alone.
func TestWindow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	w, err := Start(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	spun := spin(t, func(int) (time.Duration, error) { return Self() }, 60*time.Millisecond)
	self, other, err := w.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if self < spun || other < spun-2*clockTick || other > self+2*clockTick {
		t.Errorf("spinning for %v of CPU time: self %v, other (the same process) %v", spun, self, other)
	}
	w, err = Start(1 << 30)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Start(a pid that does not exist) = %v, want fs.ErrNotExist", err)
	}
	if _, other, err := w.Stop(); err != nil || other != 0 {
		t.Errorf("the window of a failed Start: other %v, %v; want 0, nil", other, err)
	}
	if _, other, err := mustStart(t, 0).Stop(); err != nil || other != 0 {
		t.Errorf("a window without another process: other %v, %v", other, err)
	}
}

func mustStart(t *testing.T, pid int) Window {
	t.Helper()
	w, err := Start(pid)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// spin keeps this process busy until clock, read for this process, has
// grown by at least d, and returns how much it grew. It counts CPU time,
// not wall time: on a loaded machine (CI runs test packages side by
// side) 60 ms of wall time may hold a few ms of CPU time. It gives up
// after a minute of wall time.
func spin(t *testing.T, clock func(pid int) (time.Duration, error), d time.Duration) time.Duration {
	t.Helper()
	pid := os.Getpid()
	start, err := clock(pid)
	if err != nil {
		t.Fatal(err)
	}
	for giveUp := time.Now().Add(time.Minute); ; {
		for until := time.Now().Add(5 * time.Millisecond); time.Now().Before(until); {
		}
		now, err := clock(pid)
		if err != nil {
			t.Fatal(err)
		}
		if now-start >= d {
			return now - start
		}
		if time.Now().After(giveUp) {
			t.Fatalf("a minute of spinning counted %v of CPU time", now-start)
		}
	}
}
