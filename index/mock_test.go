package index_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/hbase/hbasemock"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
)

var errInjected = errors.New("injected region server failure")

// scripted returns a mock that forwards every call to the fake unless a
// test overrides it.
func scripted(t *testing.T, c *fake.Client) *hbasemock.MockDataClient {
	m := hbasemock.NewMockDataClient(gomock.NewController(t))
	m.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(c.Get).AnyTimes()
	m.EXPECT().Scan(gomock.Any(), gomock.Any()).DoAndReturn(c.Scan).AnyTimes()
	return m
}

// dataWrite reports whether acts is the Batch of conditional data-row
// writes (phase 2).
func dataWrite(acts []hbase.Action) bool {
	if len(acts) == 0 {
		return false
	}
	_, ok := acts[0].(*hbase.CheckAndMutate)
	return ok
}

// failAll answers every action of acts with err.
func failAll(acts []hbase.Action, err error) ([]hbase.BatchResult, error) {
	res := make([]hbase.BatchResult, len(acts))
	be := &hbase.BatchError{}
	for i := range acts {
		res[i] = hbase.BatchResult{Err: err}
		be.Failed = append(be.Failed, hbase.ActionError{Index: i, Action: acts[i], Err: err})
	}
	return res, be
}

// TestPartialBatchFailures fails some actions of each Batch in turn: the
// write reports the failure, readers stay right, repair converges.
func TestPartialBatchFailures(t *testing.T) {
	ctx := context.Background()
	// The faulty PutBatch writes a moved record and a new one. Reading
	// first, its Batches are 1: the reads and the new entries; 2: the
	// moved record's old entry marked unverified; 3: the data rows'
	// CheckAndMutates; 4: verification. Blind, they are 1: the new
	// entries; 2: the CheckAndMutates (the moved record's loses: its row
	// exists); 3: the new record's verification; then the moved record's
	// second attempt, reading first.
	cases := []struct {
		name  string
		blind bool
		batch int
		first string // type of the failing Batch's first action
	}{
		{"read first/reads and unverified entries", false, 1, "*hbapi.Get"},
		{"read first/data rows", false, 3, "*hbapi.CheckAndMutate"},
		{"read first/verification", false, 4, "*hbapi.Put"},
		{"blind/unverified entries", true, 1, "*hbapi.Put"},
		{"blind/data rows", true, 2, "*hbapi.CheckAndMutate"},
		{"blind/second attempt reads", true, 4, "*hbapi.Get"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, c := newFakeBackend(t)
			clk := &clock{}
			m := scripted(t, c)
			calls := 0
			m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
				func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
					calls++
					if calls != tc.batch {
						return c.Batch(ctx, acts)
					}
					if fmt.Sprintf("%T", acts[0]) != tc.first || len(acts) < 2 {
						t.Errorf("batch %d: %d actions, first %T; want several, first %s", calls, len(acts), acts[0], tc.first)
					}
					// Apply the first action, fail the rest.
					res, err := c.Batch(ctx, acts[:1])
					if err != nil {
						return nil, err
					}
					rest, be := failAll(acts[1:], errInjected)
					for i := range be.(*hbase.BatchError).Failed {
						be.(*hbase.BatchError).Failed[i].Index++
					}
					return append(res, rest...), be
				}).AnyTimes()
			healthy := b.sms(t, dao.WithClock(clk.now))
			if err := healthy.Put(ctx, msg(1, "acme", time.Hour)); err != nil {
				t.Fatal(err)
			}
			// A later clock: the faulty put goes above the healthy one's
			// version on its first attempt, so its Batches are the ones
			// above.
			clk.advance(time.Millisecond)
			faulty := b.smsOver(t, m, dao.WithClock(clk.now), dao.WithBlindPuts(tc.blind), dao.WithAsyncVerify(false))
			moved := msg(1, "globex", time.Hour)
			_, err := faulty.PutBatch(ctx, []*seeds.SMS{moved, msg(2, "acme", 2*time.Hour)})
			var be *dao.BatchError
			if !errors.As(err, &be) || !errors.Is(err, errInjected) {
				t.Fatalf("got %v, want a *BatchError with the injected failure", err)
			}
			clk.advance(2 * time.Minute)
			if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
				t.Fatal(err)
			}
			rep, err := healthy.Check(ctx, index.ModeVerify)
			if err != nil || !rep.Clean() {
				t.Fatalf("after repair: %+v, %v", rep, err)
			}
		})
	}
}

// TestLostRaceRetries scripts a CheckAndMutate that loses once: the write
// rereads the row and succeeds on its second attempt.
func TestLostRaceRetries(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	m := scripted(t, c)
	cams := 0
	m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
		func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
			if dataWrite(acts) {
				if cams++; cams == 1 {
					// Lost the race: the condition did not hold.
					return make([]hbase.BatchResult, len(acts)), nil
				}
			}
			return c.Batch(ctx, acts)
		}).AnyTimes()
	var attempts []int
	s := b.smsOver(t, m, dao.WithHook(func(st index.Step) error {
		if st.Phase == index.PhaseData {
			attempts = append(attempts, st.Attempt)
		}
		return nil
	}))
	if err := s.Put(ctx, msg(3, "acme", time.Hour)); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 2 || attempts[1] != 2 || cams != 2 {
		t.Fatalf("data-row attempts %v (%d batches), want [1 2]", attempts, cams)
	}
	assertMessages(t, b.sms(t), "acme", []string{msg(3, "acme", 0).Mobile})
}

// TestReaderNeverGuesses: when the data rows cannot be read, the query
// fails instead of trusting the index.
func TestReaderNeverGuesses(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	if err := b.sms(t).Put(ctx, msg(4, "acme", time.Hour)); err != nil {
		t.Fatal(err)
	}
	m := scripted(t, c)
	m.EXPECT().Batch(gomock.Any(), gomock.Any()).Return(nil, errInjected)
	_, err := b.smsOver(t, m).MessagesOfAccountOnDate(ctx, "acme", day0)
	if !errors.Is(err, errInjected) {
		t.Fatalf("got %v, want the injected error", err)
	}
}

// TestDataWriteFails: the conditional data-row write fails (the region
// server answered an error, the write may or may not have landed); the
// put reports it at PhaseData and repair converges either way. The put
// moves an existing record (reading first) or inserts a new one (blind).
func TestDataWriteFails(t *testing.T) {
	ctx := context.Background()
	for _, insert := range []bool{false, true} {
		for _, landed := range []bool{false, true} {
			name := map[bool]string{false: "move", true: "insert"}[insert] + "/" + map[bool]string{false: "not applied", true: "applied, answer lost"}[landed]
			t.Run(name, func(t *testing.T) {
				b, c := newFakeBackend(t)
				clk := &clock{}
				m := scripted(t, c)
				m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
					func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
						if !dataWrite(acts) {
							return c.Batch(ctx, acts)
						}
						if landed {
							if _, err := c.Batch(ctx, acts); err != nil {
								return nil, err
							}
						}
						return failAll(acts, errInjected)
					}).AnyTimes()
				healthy := b.sms(t, dao.WithClock(clk.now), dao.WithReadRepair(false))
				if !insert {
					if err := healthy.Put(ctx, msg(1, "acme", time.Hour)); err != nil {
						t.Fatal(err)
					}
				}
				moved := msg(1, "globex", time.Hour)
				err := b.smsOver(t, m, dao.WithClock(clk.now), dao.WithBlindPuts(insert)).Put(ctx, moved)
				var se *index.StepError
				if !errors.As(err, &se) || se.Step.Phase != index.PhaseData || !errors.Is(err, errInjected) {
					t.Fatalf("got %v, want a *StepError at the data write", err)
				}
				owner, rows := "", int64(0)
				switch {
				case landed:
					owner, rows = "globex", 1
				case !insert:
					owner, rows = "acme", 1
				}
				for _, acct := range []string{"acme", "globex"} {
					var want []string
					if acct == owner {
						want = []string{moved.Mobile}
					}
					assertMessages(t, healthy, acct, want)
				}
				clk.advance(2 * time.Minute)
				if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
					t.Fatal(err)
				}
				assertClean(t, healthy, rows)
			})
		}
	}
}
