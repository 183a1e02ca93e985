package schema

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// reportCPU runs the benchmark's loop on one locked thread and reports
// the thread's CPU time per op (cpu-ns/op) next to the wall time: on a
// shared machine the wall time counts the time other processes held the
// core, the thread's CPU time does not.
func reportCPU(b *testing.B, loop func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	loop()
	if n := b.N; n > 0 {
		b.ReportMetric(float64(threadCPU()-start)/float64(n), "cpu-ns/op")
	}
}

func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
