package index_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// modeCase is one write mode, and whether its records may be rewritten.
type modeCase struct {
	mode    schema.WriteMode
	rewrite bool
}

var modeCases = []modeCase{{schema.Strict, true}, {schema.Mutable, true}, {schema.InsertOnly, false}, {schema.VerifyOnRead, true}}

// modeBackends hands a test of the write modes the backend to use for a
// mode. On the fake every call gets a fresh one (fakeModeBackends); on
// HBase every call for a mode gets the same pair of tables, created once
// per test (itModeBackends), because creating tables costs seconds. So the
// tests keep the records (and accounts) of their cases apart, and a Check
// there also sees the cases that ran before, which left the index clean.
type modeBackends func(t testing.TB, mode schema.WriteMode) backend

func fakeModeBackends(t testing.TB, _ schema.WriteMode) backend {
	b, _ := newFakeBackend(t)
	return b
}

// truthCounts is what the index must say for a set of live messages:
// messages per account and day.
func truthCounts(live map[string]*seeds.SMS) map[string]int64 {
	out := map[string]int64{}
	for _, m := range live {
		out[m.Account+"/"+m.SentAt.UTC().Format("20060102")]++
	}
	return out
}

// indexCounts asks the store for the same counts, from the index alone
// (CountPerDay) and through the data rows (MessagesOfAccountOnDate).
func indexCounts(t *testing.T, ctx context.Context, s *seedstore.SMSRepo, accounts []string) (fromIndex, fromRows map[string]int64) {
	t.Helper()
	fromIndex, fromRows = map[string]int64{}, map[string]int64{}
	for _, a := range accounts {
		days, err := s.CountPerDay(ctx, a, day0, day0.AddDate(0, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range days {
			if d.Count > 0 {
				fromIndex[a+"/"+d.Date.Format("20060102")] = d.Count
			}
			msgs, err := s.MessagesOfAccountOnDate(ctx, a, d.Date)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				if m.Account != a {
					t.Errorf("account %s's query returned a message of %s", a, m.Account)
				}
				fromRows[a+"/"+d.Date.Format("20060102")]++
			}
		}
	}
	return fromIndex, fromRows
}

// TestModesAgreeWithTheData runs each write mode through inserts and, for
// the modes whose records may be rewritten, updates in place, moves to
// another account and day, and deletes: afterwards the index answers
// exactly what the data says, from the index alone and through the data
// rows, and Check finds nothing to repair.
func TestModesAgreeWithTheData(t *testing.T) {
	testModesAgreeWithTheData(t, fakeModeBackends)
}

func testModesAgreeWithTheData(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	accounts := []string{"acme", "bank", "shop"}
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			s := b.sms(t, dao.WithWriteMode(mc.mode))
			live := map[string]*seeds.SMS{}
			var recs []*seeds.SMS
			for n := range 60 {
				m := msg(n, accounts[n%3], time.Duration(n)*time.Minute)
				recs = append(recs, m)
				live[m.Mobile] = m
			}
			if _, err := s.PutBatch(ctx, recs); err != nil {
				t.Fatal(err)
			}
			if mc.rewrite {
				for n := 0; n < 60; n += 4 {
					in := *recs[n]
					in.Delivered = true // update in place
					live[in.Mobile] = &in
					mv := *recs[n+1]
					mv.Account = accounts[(n+2)%3] // moves the entry
					live[mv.Mobile] = &mv
					if _, err := s.PutBatch(ctx, []*seeds.SMS{&in, &mv}); err != nil {
						t.Fatal(err)
					}
				}
			}
			var gone []*seeds.SMS
			for n := 2; n < 60; n += 4 {
				gone = append(gone, recs[n])
				delete(live, recs[n].Mobile)
			}
			if _, err := s.DeleteBatch(ctx, gone); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			want := truthCounts(live)
			fromIndex, fromRows := indexCounts(t, ctx, s, accounts)
			if !maps.Equal(fromIndex, want) {
				t.Errorf("counts from the index %v, want %v", fromIndex, want)
			}
			if !maps.Equal(fromRows, want) {
				t.Errorf("counts through the data rows %v, want %v", fromRows, want)
			}
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() || rep.DataRows != int64(len(live)) {
				t.Errorf("Check = %+v, want clean with %d data rows", rep, len(live))
			}
		})
	}
}

// TestModesSurviveAKillBetweenWrites stops a write before each of its
// writes (the hook, as if the client died there) in every mode: no reader
// returns a record that disagrees with the data table, and Check in
// ModeRepair brings the index back to exactly the data.
func TestModesSurviveAKillBetweenWrites(t *testing.T) {
	testModesSurviveAKillBetweenWrites(t, fakeModeBackends)
}

func testModesSurviveAKillBetweenWrites(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	n := 0
	for _, mc := range modeCases {
		for _, phase := range []index.Phase{index.PhaseUnverified, index.PhaseData, index.PhaseVerify} {
			for _, op := range []string{"insert", "move", "delete"} {
				if op == "move" && !mc.rewrite {
					continue
				}
				n++
				t.Run(fmt.Sprintf("%v/%v/%s", mc.mode, phase, op), func(t *testing.T) {
					b := backends(t, mc.mode)
					// The case's own record and accounts (see modeBackends).
					acme, bank := fmt.Sprintf("acme-%d", n), fmt.Sprintf("bank-%d", n)
					clock := &fakeClock{t: day0.Add(time.Hour)}
					base := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithAsyncVerify(false))
					m := msg(n, acme, time.Minute)
					if op != "insert" {
						if err := base.Put(ctx, m); err != nil {
							t.Fatal(err)
						}
					}
					clock.advance(time.Second)
					killed := false
					s := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithAsyncVerify(false),
						dao.WithHook(func(st index.Step) error {
							if st.Phase == phase {
								killed = true
								return errors.New("killed")
							}
							return nil
						}))
					var err error
					want := map[string]*seeds.SMS{}
					switch op {
					case "insert":
						err = s.Put(ctx, m)
						want[m.Mobile] = m
					case "move":
						mv := *m
						mv.Account = bank
						err = s.Put(ctx, &mv)
						want[m.Mobile] = m
					case "delete":
						err = s.Delete(ctx, m)
						want[m.Mobile] = m
					}
					if killed != (err != nil) {
						t.Fatalf("killed %v, write error %v", killed, err)
					}
					// Whatever the readers return must be a record the data
					// table holds, as the data table holds it.
					check := func(stage string) {
						for _, a := range []string{acme, bank} {
							msgs, err := s.MessagesOfAccountOnDate(ctx, a, day0)
							if err != nil {
								t.Fatal(err)
							}
							for _, got := range msgs {
								row, ok, err := s.Get(ctx, &got)
								if err != nil || !ok || *row != got {
									t.Errorf("%s: the index returned %+v, the data table holds %+v (%v, %v)", stage, got, row, ok, err)
								}
							}
						}
					}
					check("after the kill")
					clock.advance(2 * time.Minute) // past the grace period
					if _, err := base.Check(ctx, index.ModeRepair); err != nil {
						t.Fatal(err)
					}
					check("after repair")
					rep, err := base.Check(ctx, index.ModeVerify)
					if err != nil {
						t.Fatal(err)
					}
					if !rep.Clean() {
						t.Errorf("after repair, Check = %+v, want clean", rep)
					}
					var got []string
					for _, a := range []string{acme, bank} {
						days, err := base.CountPerDay(ctx, a, day0, day0)
						if err != nil {
							t.Fatal(err)
						}
						for range days[0].Count {
							got = append(got, a)
						}
					}
					var data []string
					if row, ok, err := base.Get(ctx, m); err != nil {
						t.Fatal(err)
					} else if ok {
						data = append(data, row.Account)
					}
					slices.Sort(got)
					if !slices.Equal(got, data) {
						t.Errorf("after repair the index counts %v, the data table holds %v", got, data)
					}
				})
			}
		}
	}
}

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestInsertRefusesAForeignRow: a row another client wrote (no version
// cell) makes an insert fail with ErrExists in every mode, and is left as
// it was.
func TestInsertRefusesAForeignRow(t *testing.T) {
	testInsertRefusesAForeignRow(t, fakeModeBackends)
}

func testInsertRefusesAForeignRow(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			s := b.sms(t, dao.WithWriteMode(mc.mode))
			m := msg(7, "acme", time.Minute)
			var row schema.Row
			if err := s.Table().EncodeRow(&row, m); err != nil {
				t.Fatal(err)
			}
			if err := b.c.Put(ctx, asPut(b.data, &row)); err != nil {
				t.Fatal(err)
			}
			other := *m
			other.Account, other.Content = "bank", "not this"
			if err := s.Insert(ctx, &other); !errors.Is(err, dao.ErrExists) {
				t.Fatalf("Insert over a foreign row = %v, want ErrExists", err)
			}
			got, ok, err := s.Get(ctx, m)
			if err != nil || !ok || *got != *m {
				t.Errorf("Get = %+v, %v, %v; want the foreign row unchanged (%+v)", got, ok, err, m)
			}
		})
	}
}

// TestRewriteDropsAbsentColumns: a record written again without a column
// it had reads back without it in every mode that rewrites, though a
// mutable write leaves the old cell in place (readers take only the
// version's own cells).
func TestRewriteDropsAbsentColumns(t *testing.T) {
	ctx := context.Background()
	for _, mc := range modeCases {
		if !mc.rewrite {
			continue
		}
		t.Run(mc.mode.String(), func(t *testing.T) {
			b, _ := newFakeBackend(t)
			s := b.sms(t, dao.WithWriteMode(mc.mode))
			m := msg(9, "acme", time.Minute)
			if err := s.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
			again := *m
			again.Content = "" // no cell
			if err := s.Put(ctx, &again); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.Get(ctx, m)
			if err != nil || !ok || *got != again {
				t.Errorf("Get = %+v, %v, %v; want %+v", got, ok, err, again)
			}
			msgs, err := s.MessagesOfAccountOnDate(ctx, "acme", day0)
			if err != nil || len(msgs) != 1 || msgs[0] != again {
				t.Errorf("through the index: %+v, %v; want [%+v]", msgs, err, again)
			}
		})
	}
}

// TestMutableOvertakenWriteWithdrawsItsEntry: a mutable write that lands
// after a newer write of the same record has validated (its own version
// older, so its cells lose the data row) finds itself overtaken and takes
// its own entry back, so that the index alone counts the record once,
// under the newer write's key, with no Check.
func TestMutableOvertakenWriteWithdrawsItsEntry(t *testing.T) {
	testMutableOvertakenWriteWithdrawsItsEntry(t, fakeModeBackends)
}

func testMutableOvertakenWriteWithdrawsItsEntry(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	b := backends(t, schema.Mutable)
	early := &fakeClock{t: day0.Add(time.Hour)}
	late := &fakeClock{t: day0.Add(time.Hour + time.Second)}
	older := b.sms(t, dao.WithWriteMode(schema.Mutable), dao.WithClock(early.now), dao.WithAsyncVerify(false))
	newer := b.sms(t, dao.WithWriteMode(schema.Mutable), dao.WithClock(late.now), dao.WithAsyncVerify(false))
	m := msg(3, "acme", time.Minute)
	moved := *m
	moved.Account = "bank"
	// A second record whose newer write keeps its entry key: the late
	// write's entry must stay (the newer write's cells sit above it).
	k := msg(4, "acme", 2*time.Minute)
	kept := *k
	kept.Delivered = !k.Delivered
	if _, err := newer.PutBatch(ctx, []*seeds.SMS{&moved, &kept}); err != nil { // validated: nothing older to clean yet
		t.Fatal(err)
	}
	if _, err := older.PutBatch(ctx, []*seeds.SMS{m, k}); err != nil { // arrives late, at an older version
		t.Fatal(err)
	}
	for _, w := range []*seeds.SMS{&moved, &kept} {
		got, ok, err := newer.Get(ctx, w)
		if err != nil || !ok || *got != *w {
			t.Fatalf("Get = %+v, %v, %v; want the newer write %+v", got, ok, err, w)
		}
	}
	want := map[string]int64{"bank/" + day0.Format("20060102"): 1, "acme/" + day0.Format("20060102"): 1}
	fromIndex, fromRows := indexCounts(t, ctx, newer, []string{"acme", "bank"})
	if !maps.Equal(fromIndex, want) || !maps.Equal(fromRows, want) {
		t.Errorf("counts from the index %v, through the rows %v; want %v", fromIndex, fromRows, want)
	}
	rep, err := newer.Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() {
		t.Errorf("Check = %+v, %v; want clean", rep, err)
	}
}

// TestMutableAdoptsRowsAfterRebuild: rows that another mode wrote carry no
// history cells, so a mutable write's validation cannot find their
// entries; Check in ModeRebuild through a mutable store writes the
// history, after which a move through the mutable store withdraws the
// old entry and index-only counts are right.
func TestMutableAdoptsRowsAfterRebuild(t *testing.T) {
	ctx := context.Background()
	for _, from := range []schema.WriteMode{schema.Strict, schema.InsertOnly, schema.VerifyOnRead} {
		t.Run(from.String(), func(t *testing.T) {
			b, _ := newFakeBackend(t)
			clk := &fakeClock{t: day0.Add(time.Hour)}
			old := b.sms(t, dao.WithWriteMode(from), dao.WithAsyncVerify(false), dao.WithClock(clk.now))
			var recs []*seeds.SMS
			for n := range 3 {
				recs = append(recs, msg(n, "acme", time.Duration(n)*time.Minute))
			}
			if _, err := old.PutBatch(ctx, recs); err != nil {
				t.Fatal(err)
			}
			clk.advance(time.Second)
			mut := b.sms(t, dao.WithWriteMode(schema.Mutable), dao.WithReadRepair(false), dao.WithClock(clk.now), dao.WithAsyncVerify(false))
			if _, err := mut.Check(ctx, index.ModeRebuild); err != nil {
				t.Fatal(err)
			}
			clk.advance(time.Second)
			mv := *recs[0]
			mv.Account = "bank"
			if err := mut.Put(ctx, &mv); err != nil {
				t.Fatal(err)
			}
			assertDayCounts(t, mut, map[string]int64{"acme": 2, "bank": 1})
		})
	}
}
