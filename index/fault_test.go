package index_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// clock is a settable clock for versions and grace periods.
type clock struct{ ms atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ms.Store(day0.AddDate(0, 0, 30).UnixMilli())
	return c
}

func (c *clock) now() time.Time          { return time.UnixMilli(c.ms.Add(1)) }
func (c *clock) advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

var errKilled = errors.New("writer killed")

// killAt returns a hook that kills the writer just before phase, once.
func killAt(phase index.Phase) (func(index.Step) error, *atomic.Bool) {
	var fired atomic.Bool
	return func(s index.Step) error {
		if s.Phase == phase && fired.CompareAndSwap(false, true) {
			return errKilled
		}
		return nil
	}, &fired
}

// TestKillBetweenWrites kills the writer before each of its writes, for
// each kind of write, and checks that readers never return a wrong row,
// that verify sees the divergence, and that repair leaves a clean index.
func TestKillBetweenWrites(t *testing.T) {
	ctx := context.Background()
	type scenario struct {
		name  string
		prior *schema.SMS // written first, without faults
		op    func(s *index.SMS, m *schema.SMS) error
		next  *schema.SMS // the record the faulty write writes (or deletes)
	}
	base := msg(42, "acme", 3*time.Hour)
	moved := *base
	moved.Account = "globex"
	inPlace := *base
	inPlace.Delivered, inPlace.Content = true, "edited"
	put := func(s *index.SMS, m *schema.SMS) error { return s.Put(ctx, m) }
	del := func(s *index.SMS, m *schema.SMS) error { return s.Delete(ctx, m) }
	scenarios := []scenario{
		{"insert", nil, put, base},
		{"update in place", base, put, &inPlace},
		{"update moving the entry", base, put, &moved},
		{"delete", base, del, base},
	}
	for _, sc := range scenarios {
		for _, phase := range []index.Phase{index.PhaseUnverified, index.PhaseData, index.PhaseVerify} {
			t.Run(fmt.Sprintf("%s/before %s", sc.name, phase), func(t *testing.T) {
				c := newFake(t)
				clk := newClock()
				hook, fired := killAt(phase)
				healthy := newSMS(t, c, index.WithClock(clk.now), index.WithReadRepair(false))
				faulty := newSMS(t, c, index.WithClock(clk.now), index.WithHook(hook))
				if sc.prior != nil {
					if err := healthy.Put(ctx, sc.prior); err != nil {
						t.Fatal(err)
					}
				}
				err := sc.op(faulty, sc.next)
				if !fired.Load() || !errors.Is(err, index.ErrAborted) || !errors.Is(err, errKilled) {
					t.Fatalf("got %v (hook fired: %v), want the kill", err, fired.Load())
				}
				var se *index.StepError
				if !errors.As(err, &se) || se.Step.Phase != phase {
					t.Fatalf("got %v, want a *StepError at %s", err, phase)
				}

				// The data table is the truth: old state unless the data
				// write happened.
				truth := map[string][]string{"acme": nil, "globex": nil}
				state := sc.prior
				if phase == index.PhaseVerify {
					state = sc.next
					if sc.name == "delete" {
						state = nil
					}
				}
				if state != nil {
					truth[state.Account] = []string{state.Mobile}
				}
				checkReaders(t, healthy, truth)

				rep, err := healthy.Check(ctx, index.ModeVerify)
				if err != nil {
					t.Fatal(err)
				}
				if wantClean := phase == index.PhaseUnverified; rep.Clean() != wantClean {
					t.Errorf("verify after the kill: %+v, want clean=%v", rep, wantClean)
				}
				clk.advance(2 * time.Minute) // past the grace period: the writer is dead
				if rep, err = healthy.Check(ctx, index.ModeRepair); err != nil {
					t.Fatal(err)
				}
				checkReaders(t, healthy, truth)
				rows := int64(0)
				if state != nil {
					rows = 1
				}
				assertClean(t, healthy, rows)
			})
		}
	}
}

// checkReaders compares both seed queries with the truth.
func checkReaders(t *testing.T, s *index.SMS, truth map[string][]string) {
	t.Helper()
	for acct, want := range truth {
		assertMessages(t, s, acct, want)
		counts, err := s.CountPerDay(context.Background(), acct, day0, day0)
		if err != nil {
			t.Fatal(err)
		}
		if counts[0].Count != int64(len(want)) {
			t.Errorf("count of %s: got %d, want %d", acct, counts[0].Count, len(want))
		}
	}
}

// TestConcurrentWritersSameRecord runs writers that keep moving one record
// between accounts, next to deleters, and readers that must only ever see
// the record under the account its data row holds at some point.
func TestConcurrentWritersSameRecord(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	accounts := []string{"a1", "a2", "a3"}
	const writers, rounds = 4, 25
	errs := make(chan error, writers+2)
	var stop atomic.Bool
	for w := range writers {
		go func() {
			s := newSMS(t, c, index.WithMaxAttempts(100))
			for r := range rounds {
				m := msg(9, accounts[(w+r)%len(accounts)], time.Hour)
				m.Delivered = r%2 == 0
				var err error
				if w == 0 && r%5 == 4 {
					err = s.Delete(ctx, m)
				} else {
					err = s.Put(ctx, m)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	go func() { // reader: at most one account may hold the record at a time
		s := newSMS(t, c)
		for !stop.Load() {
			seen := 0
			for _, a := range accounts {
				got, err := s.MessagesOfAccountOnDate(ctx, a, day0)
				if err != nil {
					errs <- err
					return
				}
				for _, m := range got {
					if m.Account != a {
						errs <- fmt.Errorf("query for %s returned a record of %s", a, m.Account)
						return
					}
				}
				seen += len(got)
			}
			if seen > len(accounts) {
				errs <- fmt.Errorf("record seen %d times", seen)
				return
			}
		}
		errs <- nil
	}()
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	s := newSMS(t, c)
	rep, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.DataRows != rep.Entries {
		t.Fatalf("after concurrent writers: %+v, want clean", rep)
	}
	var owners []string
	for _, a := range accounts {
		got, err := s.MessagesOfAccountOnDate(ctx, a, day0)
		if err != nil {
			t.Fatal(err)
		}
		for range got {
			owners = append(owners, a)
		}
	}
	if len(owners) != int(rep.DataRows) || len(owners) > 1 {
		t.Fatalf("record under %v, data rows %d", owners, rep.DataRows)
	}
}
