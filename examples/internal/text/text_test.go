package text

import "testing"

func TestGrouped(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {200000, "200,000"}, {-1234567, "-1,234,567"}} {
		if got := Grouped(tt.n); got != tt.want {
			t.Errorf("Grouped(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
