package index_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

func TestPutQueryCount(t *testing.T) {
	b, _ := newFakeBackend(t)
	testPutQueryCount(t, b)
}

func TestUpdateMovesEntryAndDeleteRemovesIt(t *testing.T) {
	b, _ := newFakeBackend(t)
	testUpdateMovesEntryAndDeleteRemovesIt(t, b)
}

// testPutQueryCount writes 30 messages of two accounts over two days and
// runs both seed queries. It wants empty tables.
func testPutQueryCount(t *testing.T, b backend) {
	ctx := context.Background()
	s := b.sms(t)
	var batch []*seeds.SMS
	for n := range 30 {
		acct := "acme"
		if n%3 == 0 {
			acct = "other"
		}
		batch = append(batch, msg(n, acct, time.Duration(n)*time.Hour))
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	got, err := s.MessagesOfAccountOnDate(ctx, "acme", day0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for n := 23; n >= 0; n-- { // day0 holds hours 0..23; newest first
		if n%3 != 0 {
			want = append(want, batch[n].Mobile)
		}
	}
	if !slices.Equal(mobiles(got), want) {
		t.Fatalf("got %v, want %v", mobiles(got), want)
	}
	counts, err := s.CountPerDay(ctx, "acme", day0.AddDate(0, 0, -1), day0.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := []int64{0, 16, 4}
	for i, dc := range counts {
		if dc.Count != wantCounts[i] || !dc.Date.Equal(day0.AddDate(0, 0, i-1)) {
			t.Errorf("day %d: got %v %d, want %v %d", i, dc.Date, dc.Count, day0.AddDate(0, 0, i-1), wantCounts[i])
		}
	}
}

// testUpdateMovesEntryAndDeleteRemovesIt updates one record's account
// then deletes it. It wants the tables as testPutQueryCount leaves them.
func testUpdateMovesEntryAndDeleteRemovesIt(t *testing.T, b backend) {
	ctx := context.Background()
	s := b.sms(t)
	rows, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	m := msg(7000, "initech", time.Hour)
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Account = "globex"
	m.Delivered = true
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	assertMessages(t, s, "initech", nil)
	assertMessages(t, s, "globex", []string{m.Mobile})
	assertClean(t, s, rows.DataRows+1)
	if err := s.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	assertMessages(t, s, "globex", nil)
	assertClean(t, s, rows.DataRows)
	if err := s.Delete(ctx, m); err != nil {
		t.Fatalf("deleting a missing record: %v", err)
	}
}

func TestBadRecordsRejectedBeforeAnyWrite(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		edit  func(*seeds.SMS)
		field string
	}{
		{"invalid mobile", func(m *seeds.SMS) { m.Mobile = "1381234567x" }, "mobile"},
		{"short mobile", func(m *seeds.SMS) { m.Mobile = "138" }, "mobile"},
		{"missing account", func(m *seeds.SMS) { m.Account = "" }, "account"},
		{"timestamp before 1970", func(m *seeds.SMS) { m.SentAt = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }, "sent"},
		// The table's check (seeds.ValidateSMS) names the record field on
		// every path; the index key's "day" segment used to name it on
		// the index writer's path alone (issue 14, failure 7).
		{"timestamp after 9999", func(m *seeds.SMS) { m.SentAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, "sent"},
		{"sequence too wide", func(m *seeds.SMS) { m.Seq = 0x10000 }, "unique"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newFakeBackend(t)
			s := b.sms(t, dao.WithHook(func(st index.Step) error {
				t.Errorf("write attempted: %+v", st)
				return nil
			}))
			m := msg(1, "acme", time.Hour)
			tc.edit(m)
			err := s.Put(ctx, m)
			var re *dao.ValidationError
			if !errors.Is(err, dao.ErrInvalidRecord) || !errors.As(err, &re) {
				t.Fatalf("got %v, want a *dao.ValidationError", err)
			}
			if re.Field != tc.field {
				t.Errorf("field: got %q, want %q", re.Field, tc.field)
			}
			assertEmpty(t, b)
		})
	}
}

// TestWriterBehindTheRow: a writer whose clock is behind the row's
// version redoes its write above that version instead of writing entries
// older than the row's. Reading first, it finds out on its first attempt;
// blind, its first attempt loses the conditional write, the second reads
// the row and finds it ahead.
func TestWriterBehindTheRow(t *testing.T) {
	for _, blind := range []bool{false, true} {
		t.Run(fmt.Sprintf("blind=%v", blind), func(t *testing.T) {
			ctx := context.Background()
			b, _ := newFakeBackend(t)
			ahead, behind := &clock{}, &clock{}
			ahead.advance(time.Hour)
			behind.advance(-time.Hour)
			m := msg(11, "acme", time.Hour)
			if err := b.sms(t, dao.WithClock(ahead.now)).Put(ctx, m); err != nil {
				t.Fatal(err)
			}
			var attempts int
			slow := b.sms(t, dao.WithClock(behind.now), dao.WithBlindPuts(blind), dao.WithHook(func(st index.Step) error {
				if st.Phase == index.PhaseUnverified {
					attempts++
				}
				return nil
			}))
			m.Account = "globex"
			if err := slow.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
			want := 2
			if blind {
				want = 3
			}
			if attempts != want {
				t.Errorf("%d attempts, want %d", attempts, want)
			}
			assertMessages(t, slow, "acme", nil)
			assertMessages(t, slow, "globex", []string{m.Mobile})
			assertClean(t, slow, 1)
		})
	}
}

// TestReadRepair: a reader verifies a valid unverified entry it returns,
// leaves a young orphan alone (its writer may be in flight) and deletes
// it once it is older than the grace period.
func TestReadRepair(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	clk := &clock{}
	kill := func(phase index.Phase) *seedstore.SMSRepo {
		hook, _ := killAt(phase)
		return b.sms(t, dao.WithClock(clk.now), dao.WithHook(hook))
	}
	reader := b.sms(t, dao.WithClock(clk.now))
	valid, orphan := msg(1, "acme", time.Hour), msg(2, "acme", 2*time.Hour)
	if err := kill(index.PhaseVerify).Put(ctx, valid); !errors.Is(err, index.ErrAborted) {
		t.Fatal(err)
	}
	if err := kill(index.PhaseData).Put(ctx, orphan); !errors.Is(err, index.ErrAborted) {
		t.Fatal(err)
	}
	verify := func(want index.Report) {
		t.Helper()
		rep, err := reader.Check(ctx, index.ModeVerify)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Missing != want.Missing || rep.Orphaned != want.Orphaned || rep.Entries != want.Entries {
			t.Fatalf("got %+v, want %+v", rep, want)
		}
	}
	verify(index.Report{Missing: 1, Orphaned: 1, Entries: 2})
	assertMessages(t, reader, "acme", []string{valid.Mobile}) // repairs what it can
	verify(index.Report{Orphaned: 1, Entries: 2})
	clk.advance(2 * time.Minute)
	assertMessages(t, reader, "acme", []string{valid.Mobile})
	verify(index.Report{Entries: 1})
}

// TestRepairNeverUndoesALiveWrite: a record updated between repair's read
// and its rewrite keeps the update; repair skips it.
func TestRepairNeverUndoesALiveWrite(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	m := msg(5, "acme", time.Hour)
	hook, _ := killAt(index.PhaseVerify)
	if err := b.sms(t, dao.WithHook(hook)).Put(ctx, m); !errors.Is(err, index.ErrAborted) {
		t.Fatal(err) // leaves the entry unverified: repair will rewrite it
	}
	live := b.sms(t, dao.WithAsyncVerify(false)) // its put completes inside the repair
	updated := *m
	updated.Account = "globex"
	var once bool
	repairer := b.sms(t, dao.WithHook(func(st index.Step) error {
		if st.Phase == index.PhaseUnverified && !once {
			once = true
			return live.Put(ctx, &updated) // lands after repair read the row
		}
		return nil
	}))
	rep, err := repairer.Check(ctx, index.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 1 || rep.Repaired != 0 {
		t.Errorf("repair: %+v, want the rewrite skipped", rep)
	}
	assertMessages(t, live, "globex", []string{m.Mobile})
	assertMessages(t, live, "acme", nil)
	assertClean(t, live, 1)
}

// TestDeleteThenRewriteAtOnce: a record deleted and written again at
// once (the same millisecond) is visible, with its entry.
func TestDeleteThenRewriteAtOnce(t *testing.T) {
	b, _ := newFakeBackend(t)
	testDeleteThenRewriteAtOnce(t, b)
}

func testDeleteThenRewriteAtOnce(t *testing.T, b backend) {
	ctx := context.Background()
	frozen := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	s := b.sms(t, dao.WithClock(func() time.Time { return frozen }))
	before, err := s.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	m := msg(7003, "rewrite", time.Hour)
	for range 3 {
		if err := s.Put(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	assertMessages(t, s, "rewrite", []string{m.Mobile})
	assertClean(t, s, before.DataRows+1)
}

// TestRewriteAfterDeleteByAnotherWriter: writers with their own version
// counters and the same clock (here frozen) delete and rewrite a record;
// the tombstone the delete leaves makes the rewrite go above the delete's
// version, so neither the data row nor its entry is hidden by the delete's
// markers. Repair removes the tombstones once past the grace period.
func TestRewriteAfterDeleteByAnotherWriter(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	var frozen atomic.Int64 // milliseconds
	frozen.Store(day0.UnixMilli())
	now := func() time.Time { return time.UnixMilli(frozen.Load()) }
	// Each writer sends its last writes before returning (a writer done).
	writer := func() *seedstore.SMSRepo { return b.sms(t, dao.WithClock(now), dao.WithAsyncVerify(false)) }
	m := msg(8, "acme", time.Hour)
	if err := writer().Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := writer().Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Account = "globex"
	s := writer()
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	assertMessages(t, s, "globex", []string{m.Mobile})
	assertMessages(t, s, "acme", nil)
	assertClean(t, s, 1)

	if err := writer().Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Check(ctx, index.ModeVerify)
	if err != nil || rep.Tombstones != 1 || rep.DataRows != 0 || !rep.Clean() {
		t.Fatalf("after delete: %+v, %v; want one tombstone", rep, err)
	}
	if rep, err = s.Check(ctx, index.ModeRepair); err != nil || rep.Repaired != 0 {
		t.Fatalf("repair within the grace period: %+v, %v; want the tombstone kept", rep, err)
	}
	frozen.Add((2 * time.Hour).Milliseconds())
	if rep, err = s.Check(ctx, index.ModeRepair); err != nil || rep.Repaired != 1 {
		t.Fatalf("repair past the grace period: %+v, %v; want the tombstone removed", rep, err)
	}
	assertEmpty(t, b)
}

// firstActions records the type of the first action of every Batch sent
// through it.
type firstActions struct {
	dao.Client
	seen []string
}

func (f *firstActions) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	if len(acts) > 0 {
		f.seen = append(f.seen, fmt.Sprintf("%T", acts[0]))
	}
	return f.Client.Batch(ctx, acts)
}

func (f *firstActions) reads() int {
	n := 0
	for _, s := range f.seen {
		if s == "*hbapi.Get" {
			n++
		}
	}
	return n
}

// TestBlindPuts: new records are written without reading their rows
// (three Batches: entries, data rows, verification); a batch that finds
// its rows present starts over reading first, and so do the next batches
// until the guess is tried again.
func TestBlindPuts(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	rec := &firstActions{Client: b.c}
	s := b.smsOver(t, rec, dao.WithAsyncVerify(false))
	batch := func(account string) []*seeds.SMS {
		var out []*seeds.SMS
		for i := range 10 {
			out = append(out, msg(700+i, account, time.Duration(i)*time.Minute))
		}
		return out
	}
	if _, err := s.PutBatch(ctx, batch("acme")); err != nil {
		t.Fatal(err)
	}
	if want := []string{"*hbapi.Put", "*hbapi.CheckAndMutate", "*hbapi.Put"}; !slices.Equal(rec.seen, want) {
		t.Fatalf("insert: Batches starting with %v, want %v", rec.seen, want)
	}
	// Updates: the blind attempt loses every conditional write, the
	// records start over reading first.
	rec.seen = nil
	if _, err := s.PutBatch(ctx, batch("globex")); err != nil {
		t.Fatal(err)
	}
	if rec.reads() != 1 || rec.seen[0] != "*hbapi.Put" || rec.seen[1] != "*hbapi.CheckAndMutate" {
		t.Fatalf("first update: Batches starting with %v, want a blind attempt then one read", rec.seen)
	}
	// The next 16 batches read first; the 17th is blind again.
	for i := range 17 {
		rec.seen = nil
		if _, err := s.PutBatch(ctx, batch(fmt.Sprintf("acct-%d", i))); err != nil {
			t.Fatal(err)
		}
		if readFirst := rec.seen[0] == "*hbapi.Get"; readFirst != (i < 16) {
			t.Fatalf("update %d after a lost guess: Batches starting with %v", i+1, rec.seen)
		}
	}
	want := mobiles(func() []seeds.SMS {
		var out []seeds.SMS
		for i := 9; i >= 0; i-- {
			out = append(out, *msg(700+i, "", 0))
		}
		return out
	}())
	assertMessages(t, s, "acct-16", want)
	assertMessages(t, s, "acme", nil)
	assertClean(t, s, 10)
}
