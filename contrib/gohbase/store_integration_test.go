//go:build integration

package gohbase_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The SMS store (seedstore.NewSMS: data table plus index, written through the
// index protocol) over the adapter on HBase: the workflow of the SMS
// example, and the index's kill-between-writes fault scenarios, ported
// from index/fault_test.go and index/modes_test.go (they live in that
// package's test files, which another module cannot import).

var day0 = time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)

var tableSeq atomic.Int64

// smsTables creates the SMS data and index tables under run-unique names
// through a, with the schema's families and split keys, drops them when
// t ends, and returns the option that serves the store from them.
func smsTables(t testing.TB, a hbase.AdminClient) dao.Option {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(tableSeq.Add(1), 10)
	names := map[string]string{}
	for _, def := range []schema.Definition{st, st.Indexes()[0]} {
		name := "itgohbase_" + def.Name().Qualifier + "_" + run
		names[def.Name().String()] = name
		desc := hbase.TableDescriptor{Name: name}
		for _, f := range def.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		dropLater(t, a, name)
		if err := a.CreateTable(ctx, desc, def.SplitKeys()); err != nil {
			t.Fatalf("CreateTable(%s): %v", name, err)
		}
	}
	return dao.WithTableNames(names)
}

// msg returns a valid message: mobile from n, sent on day0 + offset.
func msg(n int, account string, offset time.Duration) *seeds.SMS {
	return &seeds.SMS{
		Mobile:  fmt.Sprintf("138%08d", n),
		SentAt:  day0.Add(offset),
		Seq:     uint64(n % 0x10000),
		Account: account,
		Content: fmt.Sprintf("message %d", n),
	}
}

func mobiles(ms []seeds.SMS) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Mobile
	}
	return out
}

// TestIntegrationSMSStore runs the SMS store of the example over the
// adapter, in its own (insert-only) write mode: inserts, the three
// queries, a refused insert, deletes, and Check.
func TestIntegrationSMSStore(t *testing.T) {
	c := adapter(t)
	ctx := itCtx(t, 5*time.Minute)
	run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(tableSeq.Add(1), 10)
	names := map[string]string{seeds.SMSTableName: "itgohbase_sms_" + run, seeds.SMSIndexTableName: "itgohbase_sms_index_" + run}
	s, err := seedstore.NewSMS(c, dao.WithTableNames(names), dao.WithBatchSize(16))
	if err != nil {
		t.Fatal(err)
	}
	// The tables, through package admin over the adapter (Create: gohbase
	// cannot describe a table, which EnsureTables needs).
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, def := range s.Tables() {
		dropLater(t, c, def.Name().String())
		if err := a.Create(ctx, def); err != nil {
			t.Fatalf("admin Create(%s): %v", def.Name(), err)
		}
	}
	accounts := []string{"acme", "bank", "shop"}
	var msgs []*seeds.SMS
	for n := range 60 {
		// Two days, three accounts, ten mobiles.
		m := msg(n%10, accounts[n%3], time.Duration(n)*47*time.Minute)
		m.Seq = uint64(n)
		msgs = append(msgs, m)
	}
	errs, err := s.InsertBatch(ctx, msgs)
	if err != nil {
		t.Fatalf("InsertBatch: %v (%v)", err, errs)
	}

	// Messages: one mobile's window, newest first.
	mobile := msgs[3].Mobile
	var want []string
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Mobile == mobile {
			want = append(want, msgs[i].SentAt.Format(time.RFC3339))
		}
	}
	var got []string
	for m, err := range s.Messages(ctx, mobile, day0, day0.AddDate(0, 0, 3), 0) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.SentAt.Format(time.RFC3339))
	}
	if !slices.Equal(got, want) {
		t.Errorf("Messages(%s) = %v, want %v", mobile, got, want)
	}
	if latest, err := s.Latest(ctx, mobile, 2); err != nil || len(latest) != 2 || latest[0].SentAt.Format(time.RFC3339) != want[0] {
		t.Errorf("Latest(%s, 2) = %v, %v; want the two newest of %v", mobile, latest, err, want)
	}

	// MessagesOfAccountOnDate and CountPerDay through the index.
	check := func(t *testing.T, live []*seeds.SMS) {
		t.Helper()
		for _, a := range accounts {
			for d := range 3 {
				day := day0.AddDate(0, 0, d)
				var want []string
				for i := len(live) - 1; i >= 0; i-- {
					if m := live[i]; m.Account == a && m.SentAt.Truncate(24*time.Hour).Equal(day) {
						want = append(want, m.Mobile)
					}
				}
				got, err := s.MessagesOfAccountOnDate(ctx, a, day)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(mobiles(got), want) {
					t.Errorf("MessagesOfAccountOnDate(%s, %s) = %v, want %v", a, day.Format(time.DateOnly), mobiles(got), want)
				}
			}
			counts, err := s.CountPerDay(ctx, a, day0, day0.AddDate(0, 0, 2))
			if err != nil {
				t.Fatal(err)
			}
			for _, dc := range counts {
				var n int64
				for _, m := range live {
					if m.Account == a && m.SentAt.Truncate(24*time.Hour).Equal(dc.Date) {
						n++
					}
				}
				if dc.Count != n {
					t.Errorf("CountPerDay(%s) on %s = %d, want %d", a, dc.Date.Format(time.DateOnly), dc.Count, n)
				}
			}
		}
		rep, err := s.Check(ctx, index.ModeVerify)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Clean() || rep.DataRows != int64(len(live)) || rep.Entries != int64(len(live)) {
			t.Errorf("Check = %+v, want clean with %d rows and entries", rep, len(live))
		}
	}
	check(t, msgs)

	// An insert over a live record is refused; nothing changes.
	dup := *msgs[7]
	dup.Content = "other"
	if err := s.Insert(ctx, &dup); !errors.Is(err, dao.ErrExists) {
		t.Errorf("Insert of an existing key = %v, want dao.ErrExists", err)
	}
	if got, ok, err := s.Get(ctx, msgs[7]); err != nil || !ok || got.Content != msgs[7].Content {
		t.Errorf("Get after the refused insert = %+v, %v, %v; want the original", got, ok, err)
	}

	// Deletes: one alone, two in a batch.
	if err := s.Delete(ctx, msgs[4]); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if errs, err := s.DeleteBatch(ctx, []*seeds.SMS{msgs[11], msgs[30]}); err != nil {
		t.Fatalf("DeleteBatch: %v (%v)", err, errs)
	}
	if _, ok, err := s.Get(ctx, msgs[4]); err != nil || ok {
		t.Errorf("Get of a deleted message = %v, %v; want absent", ok, err)
	}
	live := slices.DeleteFunc(slices.Clone(msgs), func(m *seeds.SMS) bool { return m == msgs[4] || m == msgs[11] || m == msgs[30] })
	check(t, live)
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

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

// assertMessages checks the messages of account on day0, newest first.
func assertMessages(t testing.TB, s *seedstore.SMSRepo, account string, want []string) {
	t.Helper()
	got, err := s.MessagesOfAccountOnDate(context.Background(), account, day0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got {
		if m.Account != account || !m.SentAt.Truncate(24*time.Hour).Equal(day0) {
			t.Fatalf("messages of %s on %v: returned a message of %s on %v", account, day0, m.Account, m.SentAt)
		}
	}
	if !slices.Equal(mobiles(got), want) {
		t.Fatalf("messages of %s: got %v, want %v", account, mobiles(got), want)
	}
}

// assertClean runs a verify and wants no divergence and rows data rows.
func assertClean(t testing.TB, s *seedstore.SMSRepo, rows int64) {
	t.Helper()
	rep, err := s.Check(context.Background(), index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.DataRows != rows || rep.Entries != rows {
		t.Fatalf("verify: got %+v, want clean with %d rows and entries", rep, rows)
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

// clock is the wall clock plus a settable offset, for versions and grace
// periods.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestIntegrationKillBetweenWrites is index's testKillBetweenWrites over
// the adapter: the strict protocol (the SMS schema is insert-only; these
// cases update and move messages) killed before each of its writes, for
// each kind of write, blind and reading first. Readers never return a
// wrong row, verify sees the divergence, repair leaves a clean index. The
// data writes of updates and deletes are CheckAndMutates of several
// mutations, which the adapter sends as atomic region actions.
func TestIntegrationKillBetweenWrites(t *testing.T) {
	c := adapter(t)
	tables := smsTables(t, c)
	sms := func(t testing.TB, opts ...dao.Option) *seedstore.SMSRepo {
		t.Helper()
		s, err := seedstore.NewSMS(c, append([]dao.Option{tables, dao.WithWriteMode(schema.Strict)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
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
	healthy := sms(t, dao.WithClock(clk.now), dao.WithReadRepair(false))
	rows := int64(0)
	n := 0
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
					faulty := sms(t, dao.WithClock(clk.now), dao.WithHook(hook), dao.WithBlindPuts(blind))
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

// TestIntegrationModesSurviveAKillBetweenWrites is index's
// testModesSurviveAKillBetweenWrites over the adapter: in each write mode
// (insert-only is the SMS schema's own), a writer killed before each
// phase of an insert, a move and a delete; whatever the readers return is
// a record as the data table holds it, and repair leaves the index clean.
func TestIntegrationModesSurviveAKillBetweenWrites(t *testing.T) {
	c := adapter(t)
	ctx := context.Background()
	modes := []struct {
		mode    schema.WriteMode
		rewrite bool // records may be rewritten (moved)
	}{{schema.Strict, true}, {schema.Mutable, true}, {schema.InsertOnly, false}}
	n := 0
	for _, mc := range modes {
		tables := smsTables(t, c)
		sms := func(t testing.TB, opts ...dao.Option) *seedstore.SMSRepo {
			t.Helper()
			s, err := seedstore.NewSMS(c, append([]dao.Option{tables, dao.WithWriteMode(mc.mode), dao.WithAsyncVerify(false)}, opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		for _, phase := range []index.Phase{index.PhaseUnverified, index.PhaseData, index.PhaseVerify} {
			for _, op := range []string{"insert", "move", "delete"} {
				if op == "move" && !mc.rewrite {
					continue
				}
				n++
				t.Run(fmt.Sprintf("%v/%v/%s", mc.mode, phase, op), func(t *testing.T) {
					acme, bank := fmt.Sprintf("acme-%d", n), fmt.Sprintf("bank-%d", n)
					clk := &fakeClock{t: day0.Add(time.Hour)}
					base := sms(t, dao.WithClock(clk.now))
					m := msg(n, acme, time.Minute)
					if op != "insert" {
						if err := base.Put(ctx, m); err != nil {
							t.Fatal(err)
						}
					}
					clk.advance(time.Second)
					killed := false
					s := sms(t, dao.WithClock(clk.now), dao.WithHook(func(st index.Step) error {
						if st.Phase == phase {
							killed = true
							return errKilled
						}
						return nil
					}))
					var err error
					switch op {
					case "insert":
						err = s.Put(ctx, m)
					case "move":
						mv := *m
						mv.Account = bank
						err = s.Put(ctx, &mv)
					case "delete":
						err = s.Delete(ctx, m)
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
					clk.advance(2 * time.Minute) // past the grace period
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
