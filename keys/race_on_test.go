//go:build race

package keys

// raceEnabled reports a -race build, whose instrumentation makes crypto/rand's buffer
// escape to the heap.
const raceEnabled = true
