package hbase

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

func TestDefaultTimeouts(t *testing.T) {
	o := defaultOptions()
	if o.rpcTimeout != DefaultRPCTimeout || o.retryBudget != DefaultOperationTimeout {
		t.Errorf("default RPC timeout %v, operation timeout %v; want %v, %v",
			o.rpcTimeout, o.retryBudget, DefaultRPCTimeout, DefaultOperationTimeout)
	}
	// The promise of the defaults: a server that never answers is given
	// up on within a minute, whatever the caller's context.
	if DefaultRPCTimeout <= 0 || DefaultRPCTimeout > DefaultOperationTimeout || DefaultOperationTimeout >= time.Minute {
		t.Errorf("DefaultRPCTimeout %v, DefaultOperationTimeout %v: want 0 < RPC <= operation < 1m",
			DefaultRPCTimeout, DefaultOperationTimeout)
	}
	for name, opt := range map[string]Option{
		"operation timeout": WithOperationTimeout(0),
		"retry budget":      WithRetryBudget(-time.Second),
	} {
		o := defaultOptions()
		opt(&o)
		if err := o.validate(); err == nil {
			t.Errorf("%s: validate accepted a non-positive timeout", name)
		}
	}
}

// waitCall runs call in a goroutine and returns its error; the test fails
// if it never returns (a liveness guard, not a speed target).
func waitCall(t *testing.T, name string, call func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- call() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s under context.Background() on a silent server never returned", name)
		return nil
	}
}

// TestOperationTimeoutEndsSilentCalls: with a context that never ends,
// every kind of call to region servers that never answer returns with a
// timeout. Reads and idempotent writes may be retried; writes that are not
// idempotent report that their outcome is unknown.
func TestOperationTimeoutEndsSilentCalls(t *testing.T) {
	fc := newFakeCluster(t, []string{"m"}, 2)
	c := fc.client(WithOperationTimeout(300*time.Millisecond), WithRPCTimeout(50*time.Millisecond))
	for _, row := range []string{"a", "z"} { // warm the region cache
		if err := c.Put(testCtx(t), tput(row, "v")); err != nil {
			t.Fatal(err)
		}
	}
	fc.set(func() { fc.hang = true })
	ctx := context.Background()
	row := []byte("a")
	cam := &CheckAndMutate{Table: "t", Row: row, Family: []byte("cf"), Qualifier: []byte("q"),
		Value: []byte("v"), Mutations: []Mutation{tput("a", "w")}}
	tests := []struct {
		name    string
		call    func() error
		unknown bool // a write that is not idempotent
	}{
		{"get", func() error { _, err := c.Get(ctx, &Get{Table: "t", Row: row}); return err }, false},
		{"put", func() error { return c.Put(ctx, tput("a", "w")) }, false},
		{"delete all versions", func() error {
			return c.Delete(ctx, &Delete{Table: "t", Row: row, Family: []byte("cf"), Qualifier: []byte("q"), AllVersions: true})
		}, false},
		{"delete newest version", func() error {
			return c.Delete(ctx, &Delete{Table: "t", Row: row, Family: []byte("cf"), Qualifier: []byte("q")})
		}, true},
		{"increment", func() error {
			_, err := c.Increment(ctx, &Increment{Table: "t", Row: row, Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
			return err
		}, true},
		{"append", func() error {
			_, err := c.Append(ctx, &Append{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": {"q": []byte("x")}}})
			return err
		}, true},
		{"check and mutate", func() error { _, err := c.CheckAndMutate(ctx, cam); return err }, true},
		{"mutate row", func() error {
			return c.MutateRow(ctx, &RowMutations{Table: "t", Row: row, Mutations: []Mutation{tput("a", "w")}})
		}, false},
		{"scan", func() error {
			sc, err := c.Scan(ctx, &Scan{Table: "t"})
			if err != nil {
				return err
			}
			defer sc.Close()
			for sc.Next() {
			}
			return sc.Err()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := waitCall(t, tt.name, tt.call)
			if !errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s = %v, want ErrTimeout and no context error", tt.name, err)
			}
			if got := errors.Is(err, ErrOutcomeUnknown); got != tt.unknown {
				t.Errorf("%s = %v: errors.Is(ErrOutcomeUnknown) = %v, want %v", tt.name, err, got, tt.unknown)
			}
			if got := IsRetryable(err); got != !tt.unknown {
				t.Errorf("%s = %v: IsRetryable = %v, want %v", tt.name, err, got, !tt.unknown)
			}
		})
	}

	t.Run("batch", func(t *testing.T) {
		actions := []Action{
			tput("a", "w"),
			&Increment{Table: "t", Row: []byte("z"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}},
			&Get{Table: "t", Row: []byte("z")},
		}
		var res []BatchResult
		err := waitCall(t, "batch", func() error {
			var err error
			res, err = c.Batch(ctx, actions)
			return err
		})
		var be *BatchError
		if !errors.As(err, &be) || len(be.Failed) != 3 {
			t.Fatalf("Batch = %v, want a BatchError with 3 failed actions", err)
		}
		for i, want := range []bool{false, true, false} {
			err := res[i].Err
			if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrOutcomeUnknown) != want || IsRetryable(err) == want {
				t.Errorf("action %d: %v (outcome unknown %v, retryable %v); want ErrTimeout, outcome unknown %v",
					i, err, errors.Is(err, ErrOutcomeUnknown), IsRetryable(err), want)
			}
		}
	})
}

// TestScanSilentAfterOpen: a scanner under context.Background(), whose
// calls run on the caller's goroutine, on a server that answers the open
// and then nothing: Next returns ErrTimeout within the operation timeout
// (plus the scheduling slack waitCall allows), with read-ahead and
// without.
func TestScanSilentAfterOpen(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-ahead=%v", ahead), func(t *testing.T) {
			fc := newFakeCluster(t, nil, 1)
			fc.load(fakeRows(20)...)
			c := fc.client(WithScanReadAhead(ahead), WithOperationTimeout(300*time.Millisecond), WithRPCTimeout(50*time.Millisecond))
			sc, err := c.Scan(context.Background(), &Scan{Table: "t", Caching: 5})
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			fc.set(func() { fc.hang = true })
			start := time.Now()
			n := 0
			err = waitCall(t, "scan", func() error {
				for sc.Next() {
					n++
				}
				return sc.Err()
			})
			took := time.Since(start)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("after %d rows: %v, want ErrTimeout", n, err)
			}
			if n >= 20 {
				t.Fatalf("%d rows from a server that stopped answering after the open", n)
			}
			if took > 2*time.Second {
				t.Errorf("Next returned after %v, operation timeout 300ms", took)
			}
		})
	}
}

// TestCallerContextEndsBeforeOperationTimeout: the caller's own deadline
// is reported as the context's error, not as ErrTimeout.
func TestCallerContextEndsBeforeOperationTimeout(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	c := fc.client(WithOperationTimeout(time.Minute), WithRPCTimeout(20*time.Millisecond))
	if err := c.Put(testCtx(t), tput("a", "v")); err != nil {
		t.Fatal(err)
	}
	fc.set(func() { fc.hang = true })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := waitCall(t, "get", func() error { _, err := c.Get(ctx, &Get{Table: "t", Row: []byte("a")}); return err })
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) && !errors.Is(err, errAttemptTimeout) || IsRetryable(err) {
		t.Errorf("Get = %v, want the caller's context.DeadlineExceeded, not retryable", err)
	}
}

func TestOperationContext(t *testing.T) {
	c := &Client{opts: defaultOptions()}
	c.opts.retryBudget = 20 * time.Millisecond
	ctx, cancel := c.operationContext(context.Background())
	defer cancel()
	inner, cancelInner := c.operationContext(ctx)
	defer cancelInner()
	d1, _ := ctx.Deadline()
	d2, ok := inner.Deadline()
	if !ok || !d1.Equal(d2) {
		t.Errorf("nested operation deadline %v, want the outer one %v", d2, d1)
	}
	<-inner.Done()
	if cause := context.Cause(inner); !errors.Is(cause, ErrTimeout) || !errors.Is(cause, errOperationTimeout) {
		t.Errorf("cause = %v, want the operation timeout", cause)
	}
	// The attempt's cause is the per-RPC timeout internal/rpc acts on.
	c.opts.rpcTimeout = time.Millisecond
	actx, cancel := c.attemptContext(context.Background())
	defer cancel()
	<-actx.Done()
	if cause := context.Cause(actx); !errors.Is(cause, rpc.ErrCallTimeout) || !errors.Is(cause, errAttemptTimeout) {
		t.Errorf("attempt cause = %v, want rpc.ErrCallTimeout and errAttemptTimeout", cause)
	}
}

func TestTimeoutErrors(t *testing.T) {
	stalled := &rpc.ConnError{Addr: "rs1:16020", Err: rpc.ErrConnStalled, Sent: true}
	deadline := fmt.Errorf("rpc: Get: %w", context.DeadlineExceeded)
	tests := []struct {
		name      string
		err       error
		retryable bool
		timeout   bool
		sent      bool
	}{
		{"operation timeout", &timeoutError{after: time.Second, last: stalled}, true, true, true},
		{"operation timeout after a context error", &timeoutError{after: time.Second, last: deadline}, true, true, false},
		{"attempt timeout", &attemptTimeoutError{err: deadline, sent: true}, true, true, true},
		{"attempt timeout, stalled", &attemptTimeoutError{err: stalled, sent: true}, true, true, true},
		{"outcome unknown", &outcomeUnknownError{err: &timeoutError{after: time.Second}}, false, true, false},
		{"retries exhausted", &retriesExhaustedError{retries: 3, err: &attemptTimeoutError{err: deadline}}, true, true, false},
		{"caller's context", &ctxError{ctx: context.DeadlineExceeded, last: stalled}, false, false, true},
	}
	for _, tt := range tests {
		err := fmt.Errorf("hbase: get t: %w", tt.err)
		if got := IsRetryable(err); got != tt.retryable {
			t.Errorf("%s: IsRetryable(%v) = %v, want %v", tt.name, err, got, tt.retryable)
		}
		if got := errors.Is(err, ErrTimeout); got != tt.timeout {
			t.Errorf("%s: errors.Is(%v, ErrTimeout) = %v, want %v", tt.name, err, got, tt.timeout)
		}
		if got := requestSent(err); got != tt.sent {
			t.Errorf("%s: requestSent(%v) = %v, want %v", tt.name, err, got, tt.sent)
		}
	}
}

func TestMutationIdempotent(t *testing.T) {
	del := func(d *Delete) *pb.MutationProto { d.Table, d.Row = "t", []byte("r"); return deleteToPB(d, d.Row) }
	cf, q := []byte("cf"), []byte("q")
	tests := []struct {
		name string
		m    *pb.MutationProto
		want bool
	}{
		{"put", putToPB(tput("r", "v"), []byte("r")), true},
		{"delete row", del(&Delete{}), true},
		{"delete family", del(&Delete{Family: cf}), true},
		{"delete all versions", del(&Delete{Family: cf, Qualifier: q, AllVersions: true}), true},
		{"delete one version at a timestamp", del(&Delete{Family: cf, Qualifier: q, Timestamp: 42}), true},
		{"delete the newest version", del(&Delete{Family: cf, Qualifier: q}), false},
		{"increment", incrementToPB(&Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"cf": {"q": 1}}}, 1), false},
		{"append", &pb.MutationProto{Row: []byte("r"), MutateType: pb.MutationProto_APPEND.Enum()}, false},
		{"delete newest, latest timestamp on the wire", &pb.MutationProto{MutateType: pb.MutationProto_DELETE.Enum(),
			ColumnValue: []*pb.MutationProto_ColumnValue{{Family: cf, QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{
				Qualifier: q, DeleteType: pb.MutationProto_DELETE_ONE_VERSION.Enum(), Timestamp: proto.Uint64(uint64(LatestTimestamp))}}}}}, false},
	}
	for _, tt := range tests {
		if got := mutationIdempotent(tt.m); got != tt.want {
			t.Errorf("%s: mutationIdempotent = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestMasterCallTimesOut: a master that never answers is given up on at
// the operation timeout, with a retryable ErrTimeout.
func TestMasterCallTimesOut(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	m := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		<-release // never answers while the test runs
		return nil, masterException(excDoNotRetry, "released", true)
	})
	c := fakeMasterClient(t, m)
	c.opts.retryBudget, c.opts.rpcTimeout = 300*time.Millisecond, 50*time.Millisecond
	err := waitCall(t, "masterCall", func() error {
		return c.masterCall(context.Background(), "IsMasterRunning", &pb.IsMasterRunningRequest{}, new(pb.IsMasterRunningResponse))
	})
	if !errors.Is(err, ErrTimeout) || !IsRetryable(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("masterCall = %v, want a retryable ErrTimeout", err)
	}
	if !errors.Is(err, rpc.ErrConnStalled) {
		t.Errorf("masterCall = %v, want the stalled connection as the last error", err)
	}
}
