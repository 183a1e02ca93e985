package schema

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestUIDCodec: ids round-trip at every width, their encodings sort as the
// ids do, an id or width that does not fit is ErrUIDWidth with dst kept,
// and encoding allocates nothing into a buffer with room.
func TestUIDCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for w := 1; w <= MaxUIDWidth; w++ {
		max := MaxUID(w)
		for range 200 {
			a, b := rng.Uint64N(max)+1, rng.Uint64N(max)+1
			ka, err := AppendUID([]byte("p"), a, w)
			if err != nil || len(ka) != 1+w {
				t.Fatalf("AppendUID(%d, width %d) = %x, %v", a, w, ka, err)
			}
			back, rest, err := DecodeUID(append(ka[1:], 'x'), w)
			if err != nil || back != a || string(rest) != "x" {
				t.Fatalf("DecodeUID(%x, %d) = %d, %q, %v; want %d", ka[1:], w, back, rest, err, a)
			}
			kb, _ := AppendUID(nil, b, w)
			if c := bytes.Compare(ka[1:], kb); (a < b) != (c < 0) || (a == b) != (c == 0) {
				t.Fatalf("width %d: ids %d, %d sort as %x, %x", w, a, b, ka[1:], kb)
			}
		}
		if out, err := AppendUID([]byte("p"), max+1, w); w < 8 && (!errors.Is(err, ErrUIDWidth) || string(out) != "p") {
			t.Errorf("AppendUID(max+1, width %d) = %q, %v; want ErrUIDWidth, dst kept", w, out, err)
		}
		if _, _, err := DecodeUID(make([]byte, w-1), w); !errors.Is(err, ErrUIDWidth) {
			t.Errorf("DecodeUID of %d bytes at width %d: %v, want ErrUIDWidth", w-1, w, err)
		}
	}
	for _, w := range []int{0, MaxUIDWidth + 1} {
		if _, err := AppendUID(nil, 1, w); !errors.Is(err, ErrUIDWidth) {
			t.Errorf("AppendUID at width %d: %v, want ErrUIDWidth", w, err)
		}
	}
	buf := make([]byte, 0, 16)
	if n := testing.AllocsPerRun(100, func() { _, _ = AppendUID(buf[:0], 12345, 3) }); n != 0 {
		t.Errorf("AppendUID allocated %.0f times", n)
	}
}
