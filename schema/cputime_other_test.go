//go:build !linux

package schema

import "testing"

// reportCPU runs loop; only Linux reports the thread's CPU time.
func reportCPU(_ *testing.B, loop func()) { loop() }
