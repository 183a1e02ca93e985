package index_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

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

func TestKillBetweenWrites(t *testing.T) {
	b, _ := newFakeBackend(t)
	testKillBetweenWrites(t, b)
}

func TestConcurrentWritersSameRecord(t *testing.T) {
	b, _ := newFakeBackend(t)
	testConcurrentWriters(t, b, 4, 25)
}

// testKillBetweenWrites kills the writer before each of its writes, for
// each kind of write, and checks that readers never return a wrong row,
// that verify sees the divergence, and that repair leaves a clean index.
// Each case uses its own record and accounts in the backend's tables.
func testKillBetweenWrites(t *testing.T, b backend) {
	ctx := context.Background()
	put := func(s *seedstore.SMSRepo, m *seeds.SMS) error { return s.Put(ctx, m) }
	del := func(s *seedstore.SMSRepo, m *seeds.SMS) error { return s.Delete(ctx, m) }
	type scenario struct {
		name  string
		prior bool // the record exists before the faulty write
		op    func(s *seedstore.SMSRepo, m *seeds.SMS) error
		edit  func(m *seeds.SMS)
		gone  bool // the faulty write deletes the record
	}
	scenarios := []scenario{
		{"insert", false, put, func(*seeds.SMS) {}, false},
		{"update in place", true, put, func(m *seeds.SMS) { m.Delivered, m.Content = true, "edited" }, false},
		{"update moving the entry", true, put, func(m *seeds.SMS) { m.Account += "-moved" }, false},
		{"delete", true, del, func(*seeds.SMS) {}, true},
	}
	clk := &clock{}
	healthy := b.sms(t, dao.WithClock(clk.now), dao.WithReadRepair(false))
	rows := int64(0)
	n := 0
	// Puts run blind (their first attempt assumes the row absent) and
	// reading first. A put over an existing row that starts blind loses
	// its first conditional write: a kill before phase 1 or 2 fires on
	// that blind attempt, a kill before phase 3 on the second.
	for _, blind := range []bool{true, false} {
		for _, sc := range scenarios {
			for _, phase := range []index.Phase{index.PhaseUnverified, index.PhaseData, index.PhaseVerify} {
				n++
				t.Run(fmt.Sprintf("blind=%v/%s/before %s", blind, sc.name, phase), func(t *testing.T) {
					acct := fmt.Sprintf("acct-%d", n)
					before := msg(100+n, acct, 3*time.Hour)
					after := *before
					sc.edit(&after)
					hook, fired := killAt(phase)
					faulty := b.sms(t, dao.WithClock(clk.now), dao.WithHook(hook), dao.WithBlindPuts(blind))
					if sc.prior {
						if err := healthy.Put(ctx, before); err != nil {
							t.Fatal(err)
						}
						if err := healthy.Flush(ctx); err != nil { // complete before the faulty write
							t.Fatal(err)
						}
						rows++
					}
					err := sc.op(faulty, &after)
					if !fired.Load() || !errors.Is(err, index.ErrAborted) || !errors.Is(err, errKilled) {
						t.Fatalf("got %v (hook fired: %v), want the kill", err, fired.Load())
					}
					var se *index.StepError
					if !errors.As(err, &se) || se.Step.Phase != phase {
						t.Fatalf("got %v, want a *StepError at %s", err, phase)
					}

					// The data table is the truth: the old state unless the
					// data write happened.
					truth := map[string][]string{acct: nil, acct + "-moved": nil}
					var state *seeds.SMS
					switch {
					case phase == index.PhaseVerify && !sc.gone:
						state = &after
					case phase == index.PhaseVerify:
						rows--
					case sc.prior:
						state = before
					}
					if state != nil {
						truth[state.Account] = []string{state.Mobile}
					}
					if !sc.prior && phase == index.PhaseVerify {
						rows++
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
					if _, err = healthy.Check(ctx, index.ModeRepair); err != nil {
						t.Fatal(err)
					}
					checkReaders(t, healthy, truth)
					assertClean(t, healthy, rows)
				})
			}
		}
	}
}

// checkReaders compares both seed queries with the truth.
func checkReaders(t *testing.T, s *seedstore.SMSRepo, truth map[string][]string) {
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

// testConcurrentWriters runs writers that keep moving one record between
// accounts, one of them deleting it now and then (deletes racing
// updates), next to a reader that must never get a record under an
// account its data row does not hold. At the end verify must be clean and
// the record, if it exists, listed under exactly one account.
func testConcurrentWriters(t *testing.T, b backend, writers, rounds int) {
	ctx := context.Background()
	accounts := []string{"race-1", "race-2", "race-3"}
	errs := make(chan error, writers+1)
	var stop atomic.Bool
	var conflicts atomic.Int64
	for w := range writers {
		go func() {
			s := b.sms(t, dao.WithMaxAttempts(1000), dao.WithHook(func(st index.Step) error {
				if st.Phase == index.PhaseUnverified && st.Attempt > 1 {
					conflicts.Add(1)
				}
				return nil
			}))
			for r := range rounds {
				m := msg(9, accounts[(w+r)%len(accounts)], time.Hour)
				m.Delivered = r%2 == 0
				var err error
				if w == 0 && r%3 == 2 {
					err = s.Delete(ctx, m)
				} else {
					err = s.Put(ctx, m)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- s.Flush(ctx) // the writer is done
		}()
	}
	done := make(chan error, 1)
	reads := 0
	go func() {
		s := b.sms(t)
		for !stop.Load() {
			for _, a := range accounts {
				got, err := s.MessagesOfAccountOnDate(ctx, a, day0)
				if err != nil {
					done <- err
					return
				}
				for _, m := range got {
					if m.Account != a {
						done <- fmt.Errorf("query for %s returned a record of %s", a, m.Account)
						return
					}
				}
				reads++
			}
		}
		done <- nil
	}()
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writers × %d rounds: %d retried attempts, %d reads", writers, rounds, conflicts.Load(), reads)
	// Writers that lost a race may have left unverified orphans (their
	// new entry, or an unverified mark on a key the winner had already
	// removed); nothing may be missing or stale. Repair, once they are
	// past the grace period, leaves a clean index.
	s := b.sms(t)
	rep, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 0 || rep.Stale != 0 {
		t.Fatalf("after concurrent writers: %+v, want nothing missing or stale", rep)
	}
	later := &clock{}
	later.advance(2 * time.Minute)
	if _, err := b.sms(t, dao.WithClock(later.now)).Check(ctx, index.ModeRepair); err != nil {
		t.Fatal(err)
	}
	if rep, err = s.Check(ctx, index.ModeVerify); err != nil || !rep.Clean() || rep.DataRows != rep.Entries {
		t.Fatalf("after repair: %+v, %v; want clean", rep, err)
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
	if len(owners) > 1 {
		t.Fatalf("one record listed under %v", owners)
	}
}
