//go:build unix

package proccpu

import (
	"fmt"
	"syscall"
	"time"
)

// Self returns the CPU time this process has spent so far, all its
// threads together, in microseconds' precision.
func Self() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("proccpu: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
