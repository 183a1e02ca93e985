package index

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// TestVerifierBackpressure: a full queue makes writers wait (within their
// context) until the sender takes it; flush waits for what was queued.
func TestVerifierBackpressure(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	sent := make(chan int, 10)
	v := newVerifier(func(ctx context.Context, acts []hbase.Action) error {
		<-release
		sent <- len(acts)
		return nil
	})
	v.limit = 2
	two := []hbase.Action{&hbase.Delete{}, &hbase.Delete{}}
	if err := v.enqueue(ctx, two); err != nil { // taken by the sender, which blocks
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		v.mu.Lock()
		taken := len(v.queue) == 0
		v.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sender never took the queue")
		}
		time.Sleep(time.Millisecond)
	}
	if err := v.enqueue(ctx, two); err != nil { // fills the queue
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := v.enqueue(short, two); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("enqueue on a full queue: %v, want the deadline", err)
	}
	close(release)
	if err := v.enqueue(ctx, two); err != nil {
		t.Fatal(err)
	}
	if err := v.flush(ctx); err != nil {
		t.Fatal(err)
	}
	total := 0
	for len(sent) > 0 {
		total += <-sent
	}
	if total != 6 {
		t.Fatalf("%d actions sent, want 6 (the timed-out call's never queued)", total)
	}
}
