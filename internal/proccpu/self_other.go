//go:build !unix

package proccpu

import (
	"errors"
	"fmt"
	"time"
)

// Self returns the CPU time this process has spent so far; on this system
// it cannot tell, and says so with an error wrapping errors.ErrUnsupported.
func Self() (time.Duration, error) {
	return 0, fmt.Errorf("proccpu: %w", errors.ErrUnsupported)
}
