package index_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// Fault tests of the write modes (see Modes in the package
// documentation): a writer dying inside a Batch, concurrent writers of one
// record, concurrent inserts of one key. They run on the fake here and on
// HBase in modes_integration_test.go.

// dyingClient is the client of a writer that dies inside a Batch: the
// n-th Batch in which pick selects an action is sent without the selected
// actions, which fail (as if the writer died after some of the Batch's
// Multis had left and before the others did), and every call after it
// fails too, since a dead writer sends nothing more.
type dyingClient struct {
	dao.Client
	pick func(acts []hbase.Action) []bool // nil, or no action selected: the Batch goes whole
	n    int                              // which of the Batches with a selected action to die in, from 1

	mu   sync.Mutex
	seen int
	dead bool
	sent int // actions of the Batch it died in that were sent
	lost int // actions of that Batch that were not
}

func (d *dyingClient) died() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dead
}

func (d *dyingClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return failAll(acts, errKilled)
	}
	sel := d.pick(acts)
	if !slices.Contains(sel, true) {
		return d.Client.Batch(ctx, acts)
	}
	if d.seen++; d.seen < d.n {
		return d.Client.Batch(ctx, acts)
	}
	d.dead = true
	var keep []hbase.Action
	var at []int
	for i, a := range acts {
		if !sel[i] {
			keep, at = append(keep, a), append(at, i)
		}
	}
	d.sent, d.lost = len(keep), len(acts)-len(keep)
	res := make([]hbase.BatchResult, len(acts))
	for i := range res {
		res[i].Err = errKilled
	}
	if len(keep) > 0 {
		got, err := d.Client.Batch(ctx, keep)
		for j, i := range at {
			switch {
			case j < len(got):
				res[i] = got[j]
			case err != nil:
				res[i].Err = err
			}
		}
	}
	be := &hbase.BatchError{}
	for i, r := range res {
		if r.Err != nil {
			be.Failed = append(be.Failed, hbase.ActionError{Index: i, Action: acts[i], Err: r.Err})
		}
	}
	return res, be
}

func (d *dyingClient) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	if d.died() {
		return nil, errKilled
	}
	return d.Client.Get(ctx, g)
}

func (d *dyingClient) Put(ctx context.Context, p *hbase.Put) error {
	if d.died() {
		return errKilled
	}
	return d.Client.Put(ctx, p)
}

func (d *dyingClient) Delete(ctx context.Context, del *hbase.Delete) error {
	if d.died() {
		return errKilled
	}
	return d.Client.Delete(ctx, del)
}

func (d *dyingClient) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if d.died() {
		return false, errKilled
	}
	return d.Client.CheckAndMutate(ctx, cam)
}

// writeTable returns the table an action writes, "" for a read.
func writeTable(a hbase.Action) string {
	switch a := a.(type) {
	case *hbase.Put:
		return a.Table
	case *hbase.Delete:
		return a.Table
	case *hbase.CheckAndMutate:
		return a.Table
	case *hbase.Increment:
		return a.Table
	case *hbase.Append:
		return a.Table
	}
	return ""
}

// writesTo selects the writes to table.
func writesTo(table string) func([]hbase.Action) []bool {
	return func(acts []hbase.Action) []bool {
		sel := make([]bool, len(acts))
		for i, a := range acts {
			sel[i] = writeTable(a) == table
		}
		return sel
	}
}

// everyOtherWrite selects the first, third, … write of a Batch, whatever
// its table: some records lose their data row, others their entries, and
// a data row written as several actions (a Put and column Deletes) loses
// some of them. That happens without a test's help: hbase.Client.Batch
// cuts the actions bound for one server into Multis of at most 1,000,
// sent in parallel, wherever the cut falls, and a writer can die (or run
// out of retries) with some of them sent.
func everyOtherWrite(acts []hbase.Action) []bool {
	sel := make([]bool, len(acts))
	n := 0
	for i, a := range acts {
		if writeTable(a) != "" {
			sel[i] = n%2 == 0
			n++
		}
	}
	return sel
}

// TestModesSurvivePartialBatches kills a writer inside one of its Batches
// in every mode: only the data-row writes, only the entry writes, or every
// other write of that Batch are lost. Acknowledged records are in the data
// table as written and the others hold either their old or their new
// value, readers never return a record that disagrees with the data
// table, and Check in ModeRepair brings the index, counts from the index
// alone included, back to exactly the data.
func TestModesSurvivePartialBatches(t *testing.T) {
	testModesSurvivePartialBatches(t, fakeModeBackends)
}

func testModesSurvivePartialBatches(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	n := 0
	for _, mc := range modeCases {
		for _, op := range []string{"put", "insert", "delete"} {
			for _, subset := range []string{"data rows", "entries", "every other write"} {
				for nth := 1; nth <= 3; nth++ {
					n++
					t.Run(fmt.Sprintf("%v/%s/%s/batch %d", mc.mode, op, subset, nth), func(t *testing.T) {
						b := backends(t, mc.mode)
						acme, bank := fmt.Sprintf("pb-acme-%d", n), fmt.Sprintf("pb-bank-%d", n)
						clock := &fakeClock{t: day0.Add(time.Hour)}
						healthy := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithAsyncVerify(false))
						reader := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithReadRepair(false))
						first := 1000 + 10*n
						fresh := []*seeds.SMS{msg(first, acme, time.Minute), msg(first+1, bank, 2*time.Minute)}
						old := []*seeds.SMS{msg(first+2, acme, 3*time.Minute), msg(first+3, acme, 4*time.Minute)}
						if _, err := healthy.PutBatch(ctx, old); err != nil {
							t.Fatal(err)
						}
						clock.advance(time.Second)
						// before[i] is what the data table held for recs[i]
						// before the faulty write (nil: nothing).
						var recs, before []*seeds.SMS
						switch op {
						case "put":
							recs, before = slices.Clone(fresh), []*seeds.SMS{nil, nil}
							if mc.rewrite {
								in, mv := *old[0], *old[1]
								in.Delivered, in.Content = true, "edited" // in place
								mv.Account = bank                         // moves the entry
								recs, before = append(recs, &in, &mv), append(before, old...)
							}
						case "insert":
							recs, before = fresh, []*seeds.SMS{nil, nil}
						case "delete":
							recs, before = old, old
						}
						var pick func([]hbase.Action) []bool
						switch subset {
						case "data rows":
							pick = writesTo(b.data)
						case "entries":
							pick = writesTo(b.index)
						default:
							pick = everyOtherWrite
						}
						dc := &dyingClient{Client: b.c, pick: pick, n: nth}
						faulty := b.smsOver(t, dc, dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithAsyncVerify(false))
						var results []error
						var err error
						switch op {
						case "put":
							results, err = faulty.PutBatch(ctx, recs)
						case "insert":
							results, err = faulty.InsertBatch(ctx, recs)
						case "delete":
							results, err = faulty.DeleteBatch(ctx, recs)
						}
						if !dc.died() {
							if err != nil {
								t.Fatalf("the writer never died, yet the write failed: %v", err)
							}
							t.Skipf("the write sent fewer than %d Batches with %s", nth, subset)
						}
						t.Logf("died in a Batch: %d actions sent, %d lost; write error: %v", dc.sent, dc.lost, err)
						if len(results) != len(recs) {
							t.Fatalf("%d results for %d records (%v)", len(results), len(recs), err)
						}

						// The data table: an acknowledged record as written
						// (or gone), any other one as before or as written,
						// never a mixture.
						for i, r := range recs {
							got, ok, err := healthy.Get(ctx, r)
							if err != nil {
								t.Fatal(err)
							}
							after := r
							if op == "delete" {
								after = nil
							}
							is := func(want *seeds.SMS) bool { return (want == nil) == !ok && (want == nil || *got == *want) }
							switch {
							case results[i] == nil && !is(after):
								t.Errorf("record %d was acknowledged; the data table holds %+v (%v), want %+v", i, got, ok, after)
							case results[i] != nil && !is(after) && !is(before[i]):
								t.Errorf("record %d failed (%v); the data table holds %+v (%v), want %+v or %+v", i, results[i], got, ok, before[i], after)
							}
						}

						accounts := []string{acme, bank}
						keys := append(slices.Clone(fresh), old...)
						// Whatever the readers return must be a record the
						// data table holds, as the data table holds it.
						agree := func(stage string, s *seedstore.SMSRepo) {
							t.Helper()
							for _, a := range accounts {
								msgs, err := s.MessagesOfAccountOnDate(ctx, a, day0)
								if err != nil {
									t.Fatal(err)
								}
								for _, got := range msgs {
									row, ok, err := healthy.Get(ctx, &got)
									if err != nil || !ok || *row != got || got.Account != a {
										t.Errorf("%s: the index of %s returned %+v, the data table holds %+v (%v, %v)", stage, a, got, row, ok, err)
									}
								}
							}
						}
						agree("after the death", reader)
						clock.advance(2 * time.Minute) // past the grace period: the writer is dead
						if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
							t.Fatal(err)
						}
						agree("after repair", healthy)
						rep, err := healthy.Check(ctx, index.ModeVerify)
						if err != nil {
							t.Fatal(err)
						}
						if !rep.Clean() {
							t.Errorf("after repair, Check = %+v, want clean", rep)
						}
						assertIndexIsTheData(t, "after repair", healthy, keys, accounts)
					})
				}
			}
		}
	}
}

// assertIndexIsTheData compares the index, through the data rows
// (MessagesOfAccountOnDate) and alone (CountPerDay), for accounts on day0
// with what the data table holds for the records whose keys are keys.
func assertIndexIsTheData(t testing.TB, stage string, s *seedstore.SMSRepo, keys []*seeds.SMS, accounts []string) {
	t.Helper()
	ctx := context.Background()
	truth := map[string][]seeds.SMS{}
	for _, k := range keys {
		row, ok, err := s.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			truth[row.Account] = append(truth[row.Account], *row)
		}
	}
	for _, a := range accounts {
		want := truth[a]
		got, err := s.MessagesOfAccountOnDate(ctx, a, day0)
		if err != nil {
			t.Fatal(err)
		}
		key := func(m seeds.SMS) string { return fmt.Sprintf("%s/%d/%d", m.Mobile, m.SentAt.UnixMilli(), m.Seq) }
		gotBy, wantBy := map[string]seeds.SMS{}, map[string]seeds.SMS{}
		for _, m := range got {
			gotBy[key(m)] = m
		}
		for _, m := range want {
			wantBy[key(m)] = m
		}
		if len(got) != len(gotBy) || !maps.Equal(gotBy, wantBy) {
			t.Errorf("%s: messages of %s through the index: %+v; the data table holds %+v", stage, a, got, want)
		}
		days, err := s.CountPerDay(ctx, a, day0, day0)
		if err != nil {
			t.Fatal(err)
		}
		if days[0].Count != int64(len(want)) {
			t.Errorf("%s: count of %s from the index alone: %d; the data table holds %d", stage, a, days[0].Count, len(want))
		}
	}
}

// TestModesConcurrentWriters runs, in each mode whose records may be
// rewritten, writers that keep updating and moving one record, one of
// them deleting it now and then, each with a store of its own (as separate
// processes would), next to a reader. The reader must never get a record
// that no writer wrote, or under another account; after the writers
// flushed, nothing may be missing or stale, and once the grace period has
// passed, Check in ModeRepair leaves an index that is exactly the data.
func TestModesConcurrentWriters(t *testing.T) {
	testModesConcurrentWriters(t, fakeModeBackends, 4, 25)
}

func testModesConcurrentWriters(t *testing.T, backends modeBackends, writers, rounds int) {
	ctx := context.Background()
	for _, mc := range modeCases {
		if !mc.rewrite {
			continue
		}
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			accounts := []string{"cw-1", "cw-2", "cw-3"}
			clk := &clock{}
			var written sync.Map // Content -> seeds.SMS, every value a writer sent
			errs := make(chan error, writers)
			for w := range writers {
				s := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clk.now), dao.WithMaxAttempts(1000))
				go func() {
					for r := range rounds {
						m := msg(77, accounts[(w+r/2)%len(accounts)], time.Hour) // moves every other round
						m.Delivered = r%2 == 0                                   // and updates in place
						m.Content = fmt.Sprintf("writer %d round %d", w, r)
						written.Store(m.Content, *m)
						var err error
						if w == 0 && r%3 == 2 {
							err = s.Delete(ctx, m)
						} else {
							err = s.Put(ctx, m)
						}
						if err != nil {
							errs <- fmt.Errorf("writer %d round %d: %w", w, r, err)
							return
						}
					}
					errs <- s.Flush(ctx)
				}()
			}
			var stop atomic.Bool
			type tally struct{ reads, returned, agreed int }
			done := make(chan error, 1)
			var tl tally
			rs := b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(clk.now))
			go func() {
				s := rs
				for !stop.Load() {
					for _, a := range accounts {
						got, err := s.MessagesOfAccountOnDate(ctx, a, day0)
						if err != nil {
							done <- err
							return
						}
						tl.reads++
						for _, m := range got {
							tl.returned++
							w, ok := written.Load(m.Content)
							if m.Account != a || !ok || w.(seeds.SMS) != m {
								done <- fmt.Errorf("the index of %s returned %+v, which no writer wrote", a, m)
								return
							}
							// Best effort: the data table as read right after.
							if row, ok, err := s.Get(ctx, &m); err == nil && ok && *row == m {
								tl.agreed++
							}
						}
					}
				}
				done <- nil
			}()
			for range writers {
				if err := <-errs; err != nil {
					stop.Store(true)
					<-done
					t.Fatal(err)
				}
			}
			stop.Store(true)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			t.Logf("%d writers × %d rounds; the reader read %d times, got %d records, %d of them as the data table held them right after",
				writers, rounds, tl.reads, tl.returned, tl.agreed)

			s := b.sms(t, dao.WithWriteMode(mc.mode))
			// The data table holds one of the writes, whole, or no record.
			if row, ok, err := s.Get(ctx, msg(77, "", time.Hour)); err != nil {
				t.Fatal(err)
			} else if ok {
				if w, sent := written.Load(row.Content); !sent || w.(seeds.SMS) != *row {
					t.Errorf("the data table holds %+v, which no writer wrote", row)
				}
			}
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("verify after the writers: %+v", rep)
			if rep.Missing != 0 || rep.Stale != 0 {
				t.Errorf("after the writers flushed: %+v, want nothing missing or stale", rep)
			}
			later := &clock{}
			later.advance(2 * time.Minute) // past the grace period
			if rep, err = b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(later.now)).Check(ctx, index.ModeRepair); err != nil {
				t.Fatal(err)
			}
			t.Logf("repair: %+v", rep)
			if rep, err = s.Check(ctx, index.ModeVerify); err != nil || !rep.Clean() || rep.DataRows != rep.Entries {
				t.Errorf("after repair: %+v, %v; want clean", rep, err)
			}
			assertIndexIsTheData(t, "after repair", s, []*seeds.SMS{msg(77, "", time.Hour)}, accounts)
		})
	}
}

// TestModesConcurrentInserts races inserters of one key, each with a store
// of its own and a value of its own (some under the same entry key, some
// under another account's): in every mode exactly one insert succeeds and
// the others fail with ErrExists, the winner is what the data table and
// the index hold, and Check finds the index clean; in insert-only mode
// right away, since losers withdraw their entries before they return,
// in the others after Check in ModeRepair once the grace period has
// passed (a loser's entry is left unverified).
func TestModesConcurrentInserts(t *testing.T) {
	testModesConcurrentInserts(t, fakeModeBackends, 8, 4)
}

func testModesConcurrentInserts(t *testing.T, backends modeBackends, inserters, keys int) {
	ctx := context.Background()
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			accounts := []string{"ci-1", "ci-2"}
			var winners []*seeds.SMS
			for k := range keys {
				stores := make([]*seedstore.SMSRepo, inserters)
				for i := range stores {
					stores[i] = b.sms(t, dao.WithWriteMode(mc.mode))
				}
				recs := make([]*seeds.SMS, inserters)
				for i := range recs {
					recs[i] = msg(300+k, accounts[i%2], time.Duration(k)*time.Minute)
					recs[i].Delivered = i%4 < 2
					recs[i].Content = fmt.Sprintf("inserter %d", i)
				}
				errs := make([]error, inserters)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range inserters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = stores[i].Insert(ctx, recs[i])
					}()
				}
				close(start)
				wg.Wait()
				var won []int
				for i, err := range errs {
					switch {
					case err == nil:
						won = append(won, i)
					case !errors.Is(err, dao.ErrExists):
						t.Errorf("key %d, inserter %d: %v, want nil or ErrExists", k, i, err)
					}
				}
				if len(won) != 1 {
					t.Fatalf("key %d: inserters %v succeeded, want exactly one (errors %v)", k, won, errs)
				}
				for _, s := range stores {
					if err := s.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
				w := recs[won[0]]
				if got, ok, err := stores[0].Get(ctx, w); err != nil || !ok || *got != *w {
					t.Fatalf("key %d: the data table holds %+v (%v, %v), want the winner %+v", k, got, ok, err, w)
				}
				winners = append(winners, w)
			}
			s := b.sms(t, dao.WithWriteMode(mc.mode))
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("verify after the inserts: %+v", rep)
			if mc.mode == schema.InsertOnly && (!rep.Clean() || rep.DataRows != int64(keys)) {
				t.Errorf("after the inserts: %+v, want clean with %d data rows", rep, keys)
			}
			later := &clock{}
			later.advance(2 * time.Minute) // past the grace period
			if rep, err = b.sms(t, dao.WithWriteMode(mc.mode), dao.WithClock(later.now)).Check(ctx, index.ModeRepair); err != nil {
				t.Fatal(err)
			}
			t.Logf("repair: %+v", rep)
			if rep, err = s.Check(ctx, index.ModeVerify); err != nil || !rep.Clean() || rep.DataRows != int64(keys) || rep.Entries != int64(keys) {
				t.Errorf("after repair: %+v, %v; want clean with %d data rows and entries", rep, err, keys)
			}
			assertIndexIsTheData(t, "after repair", s, winners, accounts)
		})
	}
}

// TestModesTiedWriters gives two writes of one record, by two writers with
// stores of their own (two processes), the same version: their clocks read
// the same millisecond. In every mode that rewrites, the data table must
// then hold one of the two writes whole (or no record, when the last one
// is a delete), never a mixture; once both writes have returned (nobody
// died, every validation ran), counts from the index alone must not count
// an entry the data row does not derive; and Check in ModeRepair leaves an
// index that is exactly the data.
func TestModesTiedWriters(t *testing.T) {
	testModesTiedWriters(t, fakeModeBackends)
}

func testModesTiedWriters(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	n := 0
	for _, mc := range modeCases {
		if !mc.rewrite {
			continue
		}
		for _, tc := range []string{"delete then put", "put between a delete and its validation", "put then put"} {
			n++
			t.Run(fmt.Sprintf("%v/%s", mc.mode, tc), func(t *testing.T) {
				b := backends(t, mc.mode)
				acme, bank := fmt.Sprintf("tie-acme-%d", n), fmt.Sprintf("tie-bank-%d", n)
				clock := &fakeClock{t: day0.Add(time.Hour)}
				opts := []dao.Option{dao.WithWriteMode(mc.mode), dao.WithClock(clock.now), dao.WithAsyncVerify(false)}
				base := b.sms(t, opts...)
				m := msg(500+n, acme, time.Minute)
				if err := base.Put(ctx, m); err != nil {
					t.Fatal(err)
				}
				clock.advance(time.Second) // both writers below read this millisecond
				moved := *m
				moved.Account, moved.Content = bank, "moved"
				a := b.sms(t, opts...)
				var hook func(index.Step) error
				if tc == "put between a delete and its validation" {
					fired := false
					hook = func(st index.Step) error {
						if st.Phase == index.PhaseVerify && !fired {
							fired = true
							if err := a.Put(ctx, &moved); err != nil {
								t.Errorf("put: %v", err)
							}
						}
						return nil
					}
				}
				other := b.sms(t, append(opts, dao.WithHook(hook))...)
				// noPanic runs a write, reporting a panic as a failure.
				noPanic := func(what string, f func() error) {
					t.Helper()
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s panicked: %v", what, r)
						}
					}()
					if err := f(); err != nil {
						t.Errorf("%s: %v", what, err)
					}
				}
				var want []*seeds.SMS // what the data table may hold (nil: no record)
				switch tc {
				case "delete then put":
					noPanic("delete", func() error { return other.Delete(ctx, m) })
					noPanic("put", func() error { return a.Put(ctx, &moved) })
					want = []*seeds.SMS{&moved, nil}
				case "put between a delete and its validation":
					noPanic("delete", func() error { return other.Delete(ctx, m) })
					want = []*seeds.SMS{&moved, nil}
				case "put then put":
					delivered := *m
					delivered.Delivered, delivered.Content = true, "delivered"
					noPanic("put", func() error { return a.Put(ctx, &moved) })
					noPanic("other put", func() error { return other.Put(ctx, &delivered) })
					want = []*seeds.SMS{&moved, &delivered}
				}
				got, ok, err := base.Get(ctx, m)
				if err != nil {
					t.Errorf("get: %v", err)
				}
				if !slices.ContainsFunc(want, func(w *seeds.SMS) bool { return (w == nil) == !ok && (w == nil || *got == *w) }) {
					var ws []string
					for _, w := range want {
						ws = append(ws, fmt.Sprintf("%+v", w))
					}
					t.Errorf("the data table holds %+v (%v), a mixture: want one of %v", got, ok, ws)
				}
				// Nobody died and every validation ran: no entry may be
				// missing, and the index alone must not count one the data
				// row does not derive.
				assertIndexIsTheData(t, "after both writes returned", base, []*seeds.SMS{m}, []string{acme, bank})
				clock.advance(2 * time.Minute) // past the grace period
				if _, err := base.Check(ctx, index.ModeRepair); err != nil {
					t.Fatal(err)
				}
				rep, err := base.Check(ctx, index.ModeVerify)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Clean() {
					t.Errorf("after repair, Check = %+v, want clean", rep)
				}
				assertIndexIsTheData(t, "after repair", base, []*seeds.SMS{m}, []string{acme, bank})
			})
		}
	}
}

// TestModesRefusedInsertLeavesTheIndex: an insert refused with ErrExists,
// whose record has the live record's entry key but other carried values,
// leaves the index as it was, in every mode: nothing stale, nothing
// counted twice.
func TestModesRefusedInsertLeavesTheIndex(t *testing.T) {
	testModesRefusedInsertLeavesTheIndex(t, fakeModeBackends)
}

func testModesRefusedInsertLeavesTheIndex(t *testing.T, backends modeBackends) {
	ctx := context.Background()
	for i, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			acct := fmt.Sprintf("refused-%d", i)
			m := msg(600+i, acct, time.Minute)
			first := b.sms(t, dao.WithWriteMode(mc.mode))
			if err := first.Insert(ctx, m); err != nil {
				t.Fatal(err)
			}
			if err := first.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			again := *m
			again.Delivered, again.Content = true, "again" // same entry key, another carried value
			s := b.sms(t, dao.WithWriteMode(mc.mode))
			if err := s.Insert(ctx, &again); !errors.Is(err, dao.ErrExists) {
				t.Fatalf("second insert of the key: %v, want ErrExists", err)
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() {
				t.Errorf("after the refused insert, Check = %+v, want clean", rep)
			}
			assertIndexIsTheData(t, "after the refused insert", s, []*seeds.SMS{m}, []string{acct})
		})
	}
}
