package hbase

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func procState(s pb.GetProcedureResultResponse_State) *pb.GetProcedureResultResponse {
	return &pb.GetProcedureResultResponse{State: s.Enum()}
}

func procFailed(class, msg string) *pb.GetProcedureResultResponse {
	r := procState(pb.GetProcedureResultResponse_FINISHED)
	r.Exception = &pb.ForeignExceptionMessage{
		Source:           proto.String("master"),
		GenericException: &pb.GenericExceptionMessage{ClassName: proto.String(class), Message: proto.String(msg)},
	}
	return r
}

// scriptedPoller answers polls from a script; the last answer repeats.
type scriptedPoller struct {
	answers []*pb.GetProcedureResultResponse
	errs    []error
	calls   int
	ids     []uint64
}

func (p *scriptedPoller) poll(_ context.Context, id uint64) (*pb.GetProcedureResultResponse, error) {
	i := min(p.calls, len(p.answers)-1)
	p.calls++
	p.ids = append(p.ids, id)
	var err error
	if i < len(p.errs) {
		err = p.errs[i]
	}
	if err != nil {
		return nil, err
	}
	return p.answers[i], nil
}

func noDelay(int) time.Duration { return 0 }

func TestWaitProcedure(t *testing.T) {
	running := procState(pb.GetProcedureResultResponse_RUNNING)
	finished := procState(pb.GetProcedureResultResponse_FINISHED)
	notFound := procState(pb.GetProcedureResultResponse_NOT_FOUND)
	pollErr := &RemoteError{Class: excTableNotFound, sentinel: ErrTableNotFound}
	tests := []struct {
		name      string
		answers   []*pb.GetProcedureResultResponse
		errs      []error
		wantCalls int
		wantIs    error // nil: success
		wantProc  bool  // a *ProcedureError
	}{
		{name: "finished at once", answers: []*pb.GetProcedureResultResponse{finished}, wantCalls: 1},
		{name: "running then finished", answers: []*pb.GetProcedureResultResponse{running, running, finished}, wantCalls: 3},
		{name: "not found counts as done", answers: []*pb.GetProcedureResultResponse{running, notFound}, wantCalls: 2},
		{
			name:      "table not disabled",
			answers:   []*pb.GetProcedureResultResponse{running, procFailed(excTableNotDisabled, "tableName=t, state=ENABLED")},
			wantCalls: 2, wantIs: ErrTableNotDisabled, wantProc: true,
		},
		{
			name:      "table exists",
			answers:   []*pb.GetProcedureResultResponse{procFailed(excTableExists, "t")},
			wantCalls: 1, wantIs: ErrTableExists, wantProc: true,
		},
		{
			name:      "table not enabled",
			answers:   []*pb.GetProcedureResultResponse{procFailed(excTableNotEnabled, "t")},
			wantCalls: 1, wantIs: ErrTableDisabled, wantProc: true,
		},
		{
			name:      "namespace not found",
			answers:   []*pb.GetProcedureResultResponse{procFailed(excNamespaceNotFound, "ns")},
			wantCalls: 1, wantIs: ErrNamespaceNotFound, wantProc: true,
		},
		{
			name:      "poll fails",
			answers:   []*pb.GetProcedureResultResponse{running, nil},
			errs:      []error{nil, pollErr},
			wantCalls: 2, wantIs: ErrTableNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &scriptedPoller{answers: tt.answers, errs: tt.errs}
			err := waitProcedure(t.Context(), 42, p.poll, noDelay)
			if p.calls != tt.wantCalls {
				t.Errorf("polls = %d, want %d", p.calls, tt.wantCalls)
			}
			for _, id := range p.ids {
				if id != 42 {
					t.Errorf("polled procedure %d, want 42", id)
				}
			}
			if tt.wantIs == nil {
				if err != nil {
					t.Fatalf("waitProcedure = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.wantIs) {
				t.Errorf("waitProcedure = %v, want errors.Is %v", err, tt.wantIs)
			}
			var pe *ProcedureError
			if got := errors.As(err, &pe); got != tt.wantProc {
				t.Errorf("errors.As(*ProcedureError) = %v, want %v (err %v)", got, tt.wantProc, err)
			} else if got && pe.ProcID != 42 {
				t.Errorf("ProcID = %d, want 42", pe.ProcID)
			}
			if IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true, want false", err)
			}
		})
	}
}

func TestWaitProcedureContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := &scriptedPoller{answers: []*pb.GetProcedureResultResponse{procState(pb.GetProcedureResultResponse_RUNNING)}}
	// Two short waits, then the caller gives up during a long one.
	delay := func(n int) time.Duration {
		if n < 2 {
			return time.Millisecond
		}
		cancel()
		return time.Hour
	}
	done := make(chan error, 1)
	go func() { done <- waitProcedure(ctx, 7, p.poll, delay) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("waitProcedure = %v, want context.Canceled", err)
		}
		if p.calls != 3 {
			t.Errorf("polls = %d, want 3", p.calls)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waitProcedure ignored the cancelled context")
	}
}

func TestProcedureFailureWithoutClass(t *testing.T) {
	r := procState(pb.GetProcedureResultResponse_FINISHED)
	r.Exception = &pb.ForeignExceptionMessage{Source: proto.String("procedure aborted")}
	err := procedureFailure(9, r)
	var pe *ProcedureError
	if !errors.As(err, &pe) || pe.ProcID != 9 {
		t.Fatalf("procedureFailure = %v, want a *ProcedureError for 9", err)
	}
	var re *RemoteError
	if !errors.As(err, &re) || re.Message != "procedure aborted" {
		t.Errorf("remote error = %+v, want the source as message", re)
	}
	if procedureFailure(9, procState(pb.GetProcedureResultResponse_FINISHED)) != nil {
		t.Errorf("procedureFailure without exception != nil")
	}
}

func TestProcPollDelay(t *testing.T) {
	for n := range 12 {
		d := procPollDelay(n)
		nominal := min(procPollFirst<<n, procPollMax)
		if d < nominal*3/4 || d > nominal*5/4 {
			t.Errorf("procPollDelay(%d) = %v, want within 25%% of %v", n, d, nominal)
		}
	}
}

func TestProcWaitContext(t *testing.T) {
	ctx, cancel := procWaitContext(context.Background())
	defer cancel()
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > procWaitDefault || time.Until(dl) < procWaitDefault-time.Minute {
		t.Errorf("no caller deadline: deadline %v, %v; want about %v from now", dl, ok, procWaitDefault)
	}
	want := time.Now().Add(time.Hour)
	parent, pcancel := context.WithDeadline(context.Background(), want)
	defer pcancel()
	ctx, cancel = procWaitContext(parent)
	defer cancel()
	if dl, ok := ctx.Deadline(); !ok || !dl.Equal(want) {
		t.Errorf("caller deadline %v replaced by %v", want, dl)
	}
}

// FuzzProcedureResult feeds arbitrary getProcedureResult answers to the
// procedure waiter: it must end without panicking, with an error exactly
// when the answer carries an exception.
func FuzzProcedureResult(f *testing.F) {
	for _, r := range []*pb.GetProcedureResultResponse{
		procState(pb.GetProcedureResultResponse_FINISHED),
		procState(pb.GetProcedureResultResponse_NOT_FOUND),
		procFailed(excTableNotDisabled, "tableName=t, state=ENABLED"),
	} {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var res pb.GetProcedureResultResponse
		if err := proto.Unmarshal(b, &res); err != nil {
			return
		}
		if res.GetState() == pb.GetProcedureResultResponse_RUNNING {
			// Would poll again; make the state final.
			res.State = pb.GetProcedureResultResponse_FINISHED.Enum()
		}
		poll := func(context.Context, uint64) (*pb.GetProcedureResultResponse, error) { return &res, nil }
		err := waitProcedure(t.Context(), 3, poll, noDelay)
		if (err != nil) != (res.GetException() != nil) {
			t.Fatalf("waitProcedure(%v) = %v", &res, err)
		}
		if err != nil && IsRetryable(err) {
			t.Fatalf("failed procedure %v is retryable", err)
		}
	})
}
