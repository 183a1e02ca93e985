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
	v := newVerifier(func(ctx context.Context, acts []hbase.Action) ([]hbase.Action, error) {
		<-release
		sent <- len(acts)
		return nil, nil
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

// TestVerifierTakeAndDerived: a writer may take the queue while the sender
// lingers and report it with settle; the actions answers call for
// (derived, from settle or from a send) are part of the same work, so a
// flush returns only once they are sent too, and a flush does not wait
// out the linger.
func TestVerifierTakeAndDerived(t *testing.T) {
	ctx := context.Background()
	var sends [][]hbase.Action
	cleanup := &hbase.Delete{Table: "t", Row: []byte("derived-by-send")}
	v := newVerifier(func(ctx context.Context, acts []hbase.Action) ([]hbase.Action, error) {
		sends = append(sends, acts) // one sender at a time
		if len(sends) == 1 {
			return []hbase.Action{cleanup}, nil
		}
		return nil, nil
	})
	v.linger = time.Hour
	three := []hbase.Action{&hbase.Get{Row: []byte("a")}, &hbase.Get{Row: []byte("b")}, &hbase.Get{Row: []byte("c")}}
	if err := v.enqueue(ctx, three); err != nil {
		t.Fatal(err)
	}
	taken := v.take(2)
	if len(taken.acts) != 2 {
		t.Fatalf("take(2) = %d actions, want 2", len(taken.acts))
	}
	derived := &hbase.Delete{Table: "t", Row: []byte("derived-by-writer")}
	v.settle(taken, []hbase.Action{derived}, nil)
	start := time.Now()
	done, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := v.flush(done); err != nil {
		t.Fatalf("flush: %v (after %v)", err, time.Since(start))
	}
	var rows []string
	for _, s := range sends {
		for _, a := range s {
			switch a := a.(type) {
			case *hbase.Get:
				rows = append(rows, string(a.Row))
			case *hbase.Delete:
				rows = append(rows, string(a.Row))
			}
		}
	}
	want := []string{"c", "derived-by-writer", "derived-by-send"}
	if len(rows) != len(want) || rows[0] != want[0] || rows[1] != want[1] || rows[2] != want[2] {
		t.Fatalf("sent %q in %d sends, want %q (the untaken Get and the writer's derived delete, then the send's)", rows, len(sends), want)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.jobs) != 0 || len(v.queue) != 0 {
		t.Errorf("%d jobs open, %d actions left on the queue; want all sent", len(v.jobs), len(v.queue))
	}
}

// TestVerifierFlushWaitsForTakenWork: a flush waits for the actions a
// writer took before it, even when later work is sent first (sends
// complete in any order), and for what their answers call for; work a
// writer gives back is sent by the sender.
func TestVerifierFlushWaitsForTakenWork(t *testing.T) {
	ctx := context.Background()
	sent := make(chan []hbase.Action, 10)
	v := newVerifier(func(ctx context.Context, acts []hbase.Action) ([]hbase.Action, error) {
		sent <- acts
		return nil, nil
	})
	v.linger = time.Hour
	get := func(row string) hbase.Action { return &hbase.Get{Row: []byte(row)} }
	if err := v.enqueue(ctx, []hbase.Action{get("a"), get("b"), get("c")}); err != nil {
		t.Fatal(err)
	}
	taken := v.take(10)
	flushed := make(chan error, 1)
	go func() { flushed <- v.flush(ctx) }()
	if err := v.enqueue(ctx, []hbase.Action{get("d"), get("e"), get("f")}); err != nil {
		t.Fatal(err)
	}
	if got := <-sent; len(got) != 3 { // the later job, sent by the hurried sender
		t.Fatalf("the sender sent %d actions, want 3", len(got))
	}
	select {
	case err := <-flushed:
		t.Fatalf("flush returned (%v) while a job enqueued before it was taken and not settled", err)
	case <-time.After(50 * time.Millisecond):
	}
	cleanup := &hbase.Delete{Row: []byte("cleanup")}
	v.settle(taken, []hbase.Action{cleanup}, nil)
	select {
	case err := <-flushed:
		t.Fatalf("flush returned (%v) before the taken work's cleanup was sent", err)
	case got := <-sent:
		if len(got) != 1 || got[0] != cleanup {
			t.Fatalf("sent %v, want the cleanup", got)
		}
	}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}

	// Work given back goes out through the sender, and a flush waits for it.
	if err := v.enqueue(ctx, []hbase.Action{get("g")}); err != nil {
		t.Fatal(err)
	}
	v.putBack(v.take(10))
	if err := v.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-sent; len(got) != 1 || string(got[0].(*hbase.Get).Row) != "g" {
		t.Fatalf("sent %v, want the Get given back", got)
	}
}
