package hbase

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// Master DDL is asynchronous: CreateTable, DeleteTable, ... answer with a
// procedure id, and the client polls getProcedureResult until the
// procedure is no longer RUNNING (wire protocol reference, section 7).

// Procedure polling waits: procPollFirst before the second poll, doubling
// up to procPollMax, each jittered by ±25%. Most DDL on a small cluster
// finishes within a second, so the first polls come quickly.
const (
	procPollFirst = 25 * time.Millisecond
	procPollMax   = time.Second
)

// procWaitDefault bounds the wait for a procedure when the caller's
// context has no deadline, like the Java client's
// hbase.client.sync.wait.timeout.msec (10 minutes). A caller who needs
// longer (truncating a huge table) gives a context with a later deadline.
const procWaitDefault = 10 * time.Minute

// procWaitContext applies procWaitDefault to a context without deadline.
func procWaitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, procWaitDefault)
}

// procPollDelay returns the wait after poll number n (0-based).
func procPollDelay(n int) time.Duration {
	d := procPollFirst
	for i := 0; i < n && d < procPollMax; i++ {
		d *= 2
	}
	d = min(d, procPollMax)
	return d*3/4 + rand.N(d/2+1)
}

// procPoller asks the master for the state of a procedure.
type procPoller func(ctx context.Context, procID uint64) (*pb.GetProcedureResultResponse, error)

// ProcedureError reports a master procedure that finished with an
// exception. errors.Is matches the sentinel of the exception's class
// (TableNotDisabledException → ErrTableNotDisabled, ...), through Err.
type ProcedureError struct {
	ProcID uint64
	// Err is the procedure's exception as a *RemoteError.
	Err error
}

func (e *ProcedureError) Error() string {
	return fmt.Sprintf("procedure %d failed: %v", e.ProcID, e.Err)
}

func (e *ProcedureError) Unwrap() error { return e.Err }

// procedureFailure converts a finished procedure's exception, or returns
// nil when there is none.
func procedureFailure(procID uint64, res *pb.GetProcedureResultResponse) error {
	if res.GetException() == nil {
		return nil
	}
	ge := res.GetException().GetGenericException()
	class, msg := ge.GetClassName(), ge.GetMessage()
	if class == "" {
		// A ForeignException without a wrapped exception: only the source
		// is known.
		class = "org.apache.hadoop.hbase.errorhandling.ForeignException"
		if msg == "" {
			msg = res.GetException().GetSource()
		}
	}
	// The master gave up and rolled the procedure back; sending the same
	// request again would meet the same condition (the exceptions that end
	// procedures are DoNotRetryIOExceptions: TableExists, TableNotFound,
	// TableNotDisabled, Constraint, ...). The wire form does not say, so
	// treat every failure as final.
	return &ProcedureError{ProcID: procID, Err: remoteErrorFromClass(class, msg, true, false)}
}

// waitProcedure polls until the procedure is done and returns its failure,
// if any. As in the Java client, any state other than RUNNING ends the
// wait: FINISHED, or NOT_FOUND (the master forgets a result some time
// after reporting it), which counts as success unless an exception came
// with it. ctx bounds the wait; its error is returned (wrapped) when it
// ends first. delay gives the wait after each RUNNING answer.
func waitProcedure(ctx context.Context, procID uint64, poll procPoller, delay func(n int) time.Duration) error {
	for n := 0; ; n++ {
		res, err := poll(ctx, procID)
		if err != nil {
			return fmt.Errorf("procedure %d: %w", procID, err)
		}
		if res.GetState() != pb.GetProcedureResultResponse_RUNNING {
			return procedureFailure(procID, res)
		}
		t := time.NewTimer(delay(n))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("procedure %d still running: %w", procID, ctx.Err())
		}
	}
}

// pollProcedure is the procPoller of a live client.
func (c *Client) pollProcedure(ctx context.Context, procID uint64) (*pb.GetProcedureResultResponse, error) {
	res := &pb.GetProcedureResultResponse{}
	if err := c.masterCall(ctx, "getProcedureResult", &pb.GetProcedureResultRequest{ProcId: proto.Uint64(procID)}, res); err != nil {
		return nil, err
	}
	return res, nil
}

// procResponse is a DDL response carrying a procedure id.
type procResponse interface {
	proto.Message
	GetProcId() uint64
}

// runProcedure sends a DDL request to the master and waits for the
// procedure it starts, until ctx ends (or procWaitDefault if ctx has no
// deadline). A response without a procedure id means the master did the
// work synchronously.
func (c *Client) runProcedure(ctx context.Context, method string, req proto.Message, resp procResponse) error {
	if err := c.masterCall(ctx, method, req, resp); err != nil {
		return err
	}
	id := resp.GetProcId()
	if id == 0 {
		return nil
	}
	ctx, cancel := procWaitContext(ctx)
	defer cancel()
	return waitProcedure(ctx, id, c.pollProcedure, procPollDelay)
}
