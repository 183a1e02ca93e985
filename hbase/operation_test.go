package hbase

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOperationBoundsSeveralCalls: calls made under one Operation share
// its operation timeout. Three Gets to silent servers, each of which
// alone would run out its own 300ms, end together after 300ms, and end
// names them.
func TestOperationBoundsSeveralCalls(t *testing.T) {
	const opTimeout = 300 * time.Millisecond
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client(WithOperationTimeout(opTimeout), WithRPCTimeout(50*time.Millisecond))
	for _, row := range []string{"a", "z"} { // warm the region cache
		if err := c.Put(testCtx(t), tput(row, "v")); err != nil {
			t.Fatal(err)
		}
	}
	fc.set(func() { fc.hang = true })
	start := time.Now()
	err := waitCall(t, "operation", func() error {
		ctx, end := c.Operation(context.Background())
		var err error
		for _, row := range []string{"a", "z", "a"} {
			if _, err = c.Get(ctx, &Get{Table: "t", Row: []byte(row)}); err == nil {
				break
			}
		}
		return end(err)
	})
	took := time.Since(start)
	// Three calls with their own timeouts would take three times as long;
	// the bound is checked loosely (a shared CI machine), not as a target.
	if took >= 2*opTimeout {
		t.Errorf("operation took %v, want about %v", took, opTimeout)
	}
	var ote *OperationTimeoutError
	if !errors.As(err, &ote) || !errors.Is(err, ErrTimeout) || !IsRetryable(err) {
		t.Fatalf("err = %v, want a retryable *OperationTimeoutError matching ErrTimeout", err)
	}
	if len(ote.Calls) != 3 || ote.After != opTimeout || !strings.Contains(err.Error(), "GET t") {
		t.Errorf("err = %v: want its 3 calls named, after %v", err, opTimeout)
	}

	// Nested: the outer operation's deadline holds; StartOperation on a
	// value that is not a client leaves ctx alone.
	ctx, end := c.Operation(context.Background())
	defer end(nil)
	dl, _ := ctx.Deadline()
	inner, endInner := StartOperation(ctx, c)
	if d, _ := inner.Deadline(); !d.Equal(dl) {
		t.Errorf("nested operation deadline %v, want the outer %v", d, dl)
	}
	if e := errors.New("x"); endInner(e) != e {
		t.Error("nested end changed the error")
	}
	if ctx2, end2 := StartOperation(context.Background(), struct{}{}); ctx2 != context.Background() || end2(nil) != nil {
		t.Error("StartOperation on a non-client changed the context")
	}
}
