package index_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
)

// verification reports whether acts is a Batch of phase 3: entry Puts
// and Deletes in the index table, not waiting for the WAL sync.
func verification(b backend, acts []hbase.Action) bool {
	for _, a := range acts {
		switch a := a.(type) {
		case *hbase.Put:
			if a.Table != b.index || a.Durability != hbase.AsyncWAL || !hasCell(a, "cf", index.StatusQualifier) {
				return false
			}
		case *hbase.Delete:
			if a.Table != b.index || a.Durability != hbase.AsyncWAL {
				return false
			}
		default:
			return false
		}
	}
	return len(acts) > 0
}

// TestAsyncVerify: puts return before their verifications are sent;
// meanwhile every read is right, Flush waits for them, and the entries
// end up verified.
func TestAsyncVerify(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	m := scripted(t, c)
	release := make(chan struct{})
	var mu sync.Mutex
	held := 0
	m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
		func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
			if verification(b, acts) {
				mu.Lock()
				held += len(acts)
				mu.Unlock()
				<-release
			}
			return c.Batch(ctx, acts)
		}).AnyTimes()
	s := b.smsOver(t, m)
	var recs []*seeds.SMS
	for i := range 20 {
		recs = append(recs, msg(900+i, "acme", time.Duration(i)*time.Minute))
	}
	// Two calls: the second's verifications queue behind the first's,
	// which the sender holds.
	if _, err := s.PutBatch(ctx, recs[:10]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutBatch(ctx, recs[10:]); err != nil {
		t.Fatal(err)
	}
	want := mobiles(func() []seeds.SMS {
		var out []seeds.SMS
		for i := len(recs) - 1; i >= 0; i-- {
			out = append(out, *recs[i])
		}
		return out
	}())
	assertMessages(t, b.sms(t, dao.WithReadRepair(false)), "acme", want)
	days, err := b.sms(t, dao.WithReadRepair(false)).CountPerDay(ctx, "acme", day0, day0)
	if err != nil || len(days) != 1 || days[0].Count != 20 {
		t.Fatalf("count while unverified: %v, %v", days, err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.Flush(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush while held: %v, want the deadline", err)
	}
	close(release)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if held != 20 {
		t.Errorf("%d verifications sent, want 20", held)
	}
	mu.Unlock()
	rep, err := b.sms(t).Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.Entries != 20 {
		t.Fatalf("after Flush: %+v, %v", rep, err)
	}
}

// TestAsyncVerifyFails: a background verification that fails loses
// nothing: the put succeeded, Flush reports the failure once, readers are
// right, and repair verifies the entries.
func TestAsyncVerifyFails(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	m := scripted(t, c)
	m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
		func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
			if verification(b, acts) {
				return failAll(acts, errInjected)
			}
			return c.Batch(ctx, acts)
		}).AnyTimes()
	s := b.smsOver(t, m)
	rec := msg(950, "acme", time.Hour)
	if err := s.Put(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); !errors.Is(err, errInjected) {
		t.Fatalf("Flush: %v, want the injected failure", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("second Flush: %v, want nil", err)
	}
	healthy := b.sms(t)
	assertMessages(t, b.sms(t, dao.WithReadRepair(false)), "acme", []string{rec.Mobile})
	rep, err := healthy.Check(ctx, index.ModeVerify)
	if err != nil || rep.Missing != 1 {
		t.Fatalf("verify: %+v, %v; want the unverified entry missing", rep, err)
	}
	if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
		t.Fatal(err)
	}
	assertClean(t, healthy, 1)
}

// TestAsyncVerifyConcurrentCalls: many goroutines writing through one
// store share the background sender; after Flush everything is verified.
func TestAsyncVerifyConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	s := b.sms(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				n := 1000 + g*100 + i*3
				if _, err := s.PutBatch(ctx, []*seeds.SMS{msg(n, "acme", time.Duration(n)*time.Second), msg(n+1, "acme", time.Duration(n+1)*time.Second)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := b.sms(t).Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.Entries != 160 {
		t.Fatalf("after Flush: %+v, %v", rep, err)
	}
}

// TestSameMillisecondWriters: two stores (two processes) write one record
// in the same millisecond, so their phase-1 entries share a timestamp and
// the loser's lands last; the winner's verification rewrites the entry
// whole, so the verified entry carries the winner's values even when the
// loser dies before trying again.
func TestSameMillisecondWriters(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	frozen := func() time.Time { return day0.Add(5 * time.Hour) }
	loserMsg := msg(960, "acme", time.Hour)
	winnerMsg := *loserMsg
	winnerMsg.Delivered = true // a carried column: same entry key, other values
	hook, fired := killAt(index.PhaseData)
	loser := b.sms(t, dao.WithClock(frozen), dao.WithHook(hook))
	var loserErr error
	winner := b.sms(t, dao.WithClock(frozen), dao.WithHook(func(st index.Step) error {
		if st.Phase == index.PhaseData && st.Attempt == 1 && !fired.Load() {
			// After the winner's phase 1: the loser's phase 1 lands at the
			// same timestamp, then the loser dies.
			loserErr = loser.Put(ctx, loserMsg)
		}
		return nil
	}))
	if err := winner.Put(ctx, &winnerMsg); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(loserErr, index.ErrAborted) {
		t.Fatalf("loser: %v, want it killed before its data write", loserErr)
	}
	if err := winner.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	assertClean(t, b.sms(t), 1)
	got, err := b.sms(t, dao.WithReadRepair(false)).MessagesOfAccountOnDate(ctx, "acme", day0)
	if err != nil || len(got) != 1 || !got[0].Delivered {
		t.Fatalf("after the race: %+v, %v; want the winner's record", got, err)
	}
}

// TestBlindAttemptIsNoConflict: a blind first attempt that finds the row
// present does not use up the attempts, so an update succeeds with one.
func TestBlindAttemptIsNoConflict(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	m := msg(970, "acme", time.Hour)
	if err := b.sms(t).Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Account = "globex"
	s := b.sms(t, dao.WithMaxAttempts(1))
	if err := s.Put(ctx, m); err != nil {
		t.Fatalf("update with one attempt after a blind one: %v", err)
	}
	assertMessages(t, s, "globex", []string{m.Mobile})
	assertClean(t, s, 1)
}

// TestAsyncVerifyOwnsItsWrites: the verifications of single-record puts
// sent in the background after the puts returned still name each put's
// own entry, whatever the caller wrote in between: every entry ends up
// verified.
func TestAsyncVerifyOwnsItsWrites(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	m := scripted(t, c)
	release := make(chan struct{})
	m.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
		func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
			if verification(b, acts) {
				<-release
			}
			return c.Batch(ctx, acts)
		}).AnyTimes()
	s := b.smsOver(t, m)
	var want []string
	for i := range 10 {
		rec := msg(980+i, "acme", time.Duration(i)*time.Minute)
		if err := s.Put(ctx, rec); err != nil {
			t.Fatal(err)
		}
		want = append([]string{rec.Mobile}, want...)
	}
	close(release)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := b.sms(t).Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.Entries != 10 {
		t.Fatalf("after Flush: %+v, %v; want 10 verified entries", rep, err)
	}
	assertMessages(t, b.sms(t), "acme", want)
}

// hasCell reports whether p writes the column family:qualifier.
func hasCell(p *hbase.Put, family, qualifier string) bool {
	_, ok := p.Value(family, qualifier)
	return ok
}
