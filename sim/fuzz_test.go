package sim_test

import (
	"bytes"
	"testing"

	"github.com/hbkit/hbkit/sim"
)

// Every key survives String and ParseKey, and ParseKey never panics.
func FuzzKeyRoundTrip(f *testing.F) {
	for _, seed := range []string{"", "05", "\x00\xff", `a\b`, `\x4`, `\xZZ`, "k\\x"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := sim.Key(b).String()
		back, err := sim.ParseKey(s)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("ParseKey(%q) = %x, %v; want %x", s, back, err, b)
		}
		// Any text either parses or is a configuration error.
		if k, err := sim.ParseKey(string(b)); err == nil && len(k) > len(b) {
			t.Fatalf("ParseKey(%q) grew to %d bytes", b, len(k))
		}
	})
}
