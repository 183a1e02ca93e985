package hbase

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTimeoutNamesPacing (issue 34, item 7): an operation whose time went
// to the pacing of region lookups says so in its timeout error, with its
// attempts and the error that made it wait, even when it never sent an
// attempt of its own. Before: "operation timed out after 1s (0 retries)"
// and no cause.
func TestTimeoutNamesPacing(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.move("", "dead:16020") // meta names a server that is gone
	c := fc.client(WithBackoff(100*time.Millisecond, 10*time.Second), WithOperationTimeout(time.Second))
	ctx := testCtx(t)
	// The first Get fails on the dead server, then waits on the hold of
	// its range (10 x 100ms, after meta answered the same location).
	_, first := c.Get(ctx, &Get{Table: "t", Row: []byte("a")})
	// The second starts inside a hold: it waits all its time there.
	_, second := c.Get(ctx, &Get{Table: "t", Row: []byte("a")})
	for _, err := range []error{first, second} {
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("Get = %v, want ErrTimeout", err)
		}
		msg := err.Error()
		for _, want := range []string{"attempts", "last error: ", "dead:16020", "waiting on region lookup pacing"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		}
	}
	t.Logf("first: %v", first)
	t.Logf("second: %v", second)
}

func TestTimeoutErrorText(t *testing.T) {
	last := errors.New("connection reset")
	tests := []struct {
		name string
		err  *timeoutError
		want string
	}{
		{"paced", &timeoutError{after: 5 * time.Second, elapsed: 5 * time.Second, attempts: 3, last: last, paced: 2100 * time.Millisecond},
			"hbase: operation timed out after 5s: 3 attempts, last error: connection reset; 2.1s waiting on region lookup pacing"},
		{"early, backed off", &timeoutError{after: 5 * time.Second, elapsed: 4200 * time.Millisecond, attempts: 4, last: last, backedOff: 3 * time.Second},
			"hbase: operation timed out after 4.2s (timeout 5s): 4 attempts, last error: connection reset; 3s backing off between retries"},
		{"nothing known", &timeoutError{after: time.Second, elapsed: time.Second},
			"hbase: operation timed out after 1s: 0 attempts"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestHoldsFitTheOperation: the hold of a failed location never passes a
// quarter of the operation timeout, so a call that meets one still makes
// attempts. make test-faults' latency scenario (operation timeout 5s)
// saw holds doubling to 8s: calls made seconds after the faults ended
// spent their whole 5s "waiting on region lookup pacing", 0 attempts.
func TestHoldsFitTheOperation(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	for _, tt := range []struct {
		op        time.Duration
		wantFirst time.Duration
		wantMax   time.Duration
	}{
		{5 * time.Second, time.Second, 1250 * time.Millisecond},
		{DefaultOperationTimeout, time.Second, DefaultOperationTimeout / 4},
		{time.Second, time.Second, time.Second}, // never below the first hold
	} {
		p := fc.client(WithBackoff(100*time.Millisecond, 10*time.Second), WithOperationTimeout(tt.op)).pacing()
		if got := p.hold(1); got != tt.wantFirst {
			t.Errorf("operation timeout %v: first hold %v, want %v", tt.op, got, tt.wantFirst)
		}
		if got := p.hold(20); got != tt.wantMax {
			t.Errorf("operation timeout %v: longest hold %v, want %v", tt.op, got, tt.wantMax)
		}
	}
}
