//go:build integration

package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// TestIntegrationIndexRestart needs an HBase of its own, which it kills:
// make test-restart (tools/test-restart.sh) runs it, with HBKIT_RESTART_CMD
// set to the command that kills and restarts that HBase.

// outageKey identifies a record by its row key fields.
func outageKey(m *seeds.SMS) string {
	return fmt.Sprintf("%s/%d/%d", m.Mobile, m.SentAt.UnixMilli(), m.Seq)
}

// outageTrack is what a writer knows of one record: the states the data
// table may hold for it (nil: no record), and whether the last write of
// it was acknowledged, which makes its state certain.
type outageTrack struct {
	states []*seeds.SMS // the last acknowledged state first (nil if none), then a failed write's, if any
	acked  bool         // the last write was acknowledged: states[0] is what the data table must hold
	err    error        // the last write's error, when it failed
}

// outageLoad is one writer of the restart and stall tests and what it saw.
type outageLoad struct {
	mode     schema.WriteMode
	s        *seedstore.SMSRepo
	tracks   map[string]*outageTrack
	sent     map[string]seeds.SMS // every value sent, by Content
	acked    int
	failed   int
	firstErr error
	ackTimes []time.Time
	calls    []outageCall
}

// outageCall is one PutBatch, Send or DeleteBatch call of a writer.
type outageCall struct {
	op    string // "PutBatch", "Send" or "DeleteBatch"
	start time.Time
	took  time.Duration
	acked int     // records acknowledged
	errs  []error // the errors of the records that failed
}

// outageAccounts are the accounts of a mode's messages.
func outageAccounts(mode schema.WriteMode) []string {
	return []string{"rs-" + mode.String() + "-a", "rs-" + mode.String() + "-b", "rs-" + mode.String() + "-c"}
}

// run writes until stop is closed: each round a batch of new messages
// (PutBatch, or Send for odd insert-only writers), and in the modes that
// rewrite, updates in place and moves of records acknowledged before, and
// a delete. Only records whose last write was acknowledged are written
// again, so that what each record may hold stays known.
func (l *outageLoad) run(ctx context.Context, w, batch int, stop <-chan struct{}, mu *sync.Mutex) {
	accounts := outageAccounts(l.mode)
	mi := slices.IndexFunc(modeCases, func(mc modeCase) bool { return mc.mode == l.mode })
	rewrite := modeCases[mi].rewrite
	var certain []string // keys whose last write was acknowledged and left a record
	for round := 0; ; round++ {
		select {
		case <-stop:
			return
		default:
		}
		var puts []*seeds.SMS
		for i := range batch {
			n := round*batch + i
			m := &seeds.SMS{
				Mobile:  fmt.Sprintf("13%d%d%07d", mi, w, n),
				SentAt:  day0.Add(time.Duration(n%2880) * time.Minute), // day0 and the day after
				Seq:     uint64(n % 0x10000),
				Account: accounts[n%len(accounts)],
				Content: fmt.Sprintf("%v writer %d message %d", l.mode, w, n),
			}
			puts = append(puts, m)
		}
		var del []*seeds.SMS
		if rewrite && len(certain) >= 3 {
			for j := range 3 {
				k := certain[(round*7+j*13)%len(certain)]
				cur := *l.tracks[k].states[0]
				if j == 2 {
					del = append(del, &cur)
					continue
				}
				cur.Content = fmt.Sprintf("%s, rewritten in round %d", cur.Content[:min(len(cur.Content), 40)], round)
				if j == 0 {
					cur.Delivered = !cur.Delivered // in place
				} else {
					cur.Account = accounts[(slices.Index(accounts, cur.Account)+1)%len(accounts)] // moves the entry
				}
				if slices.ContainsFunc(puts, func(p *seeds.SMS) bool { return outageKey(p) == k }) {
					continue
				}
				puts = append(puts, &cur)
			}
		}
		failedBefore := l.failed
		send := func(recs []*seeds.SMS, deleting bool) {
			if len(recs) == 0 {
				return
			}
			for _, r := range recs {
				if !deleting {
					l.sent[r.Content] = *r
				}
			}
			wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			start := time.Now()
			var results []error
			var err error
			op := "PutBatch"
			switch {
			case deleting:
				op = "DeleteBatch"
				results, err = l.s.DeleteBatch(wctx, recs)
			case l.mode == schema.InsertOnly && w%2 == 1:
				op = "Send"
				results, err = l.s.Send(wctx, recs)
			default:
				results, err = l.s.PutBatch(wctx, recs)
			}
			cancel()
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			call := outageCall{op: op, start: start, took: now.Sub(start)}
			for i, r := range recs {
				var rerr error
				if len(results) == len(recs) {
					rerr = results[i]
				} else {
					rerr = err
				}
				k := outageKey(r)
				tr := l.tracks[k]
				if tr == nil {
					tr = &outageTrack{states: []*seeds.SMS{nil}}
					l.tracks[k] = tr
				}
				state := r
				if deleting {
					state = nil
				}
				if rerr == nil {
					call.acked++
					l.acked++
					l.ackTimes = append(l.ackTimes, now)
					tr.states, tr.acked = []*seeds.SMS{state}, true
					continue
				}
				l.failed++
				call.errs = append(call.errs, rerr)
				if l.firstErr == nil {
					l.firstErr = rerr
				}
				tr.states, tr.acked, tr.err = append(tr.states[:1], state), false, rerr
			}
			l.calls = append(l.calls, call)
		}
		send(puts, false)
		send(del, true)
		mu.Lock()
		certain = certain[:0]
		for k, tr := range l.tracks {
			if tr.acked && tr.states[0] != nil {
				certain = append(certain, k)
			}
		}
		sort.Strings(certain)
		mu.Unlock()
		if l.failed > failedBefore {
			time.Sleep(100 * time.Millisecond) // as a caller would before trying again
		}
	}
}

// TestIntegrationIndexRestart kills HBase (SIGKILL) and starts it again,
// keeping its state, while writers load SMS records through dao in every
// write mode: new messages, and in the modes that rewrite, updates in
// place, moves and deletes. Afterwards every acknowledged record reads
// back through the data table and through the index, readers return only
// what the data table holds, and Check in ModeRepair then ModeVerify finds
// nothing missing, orphaned or stale, with the index counting exactly what
// the data table holds.
func TestIntegrationIndexRestart(t *testing.T) {
	restartCmd := os.Getenv("HBKIT_RESTART_CMD")
	if restartCmd == "" {
		t.Skip("HBKIT_RESTART_CMD not set: make test-restart runs this test against an HBase of its own")
	}
	const (
		writersPerMode = 2
		batch          = 20
		before         = 5 * time.Second // writing before the kill
		after          = 5 * time.Second // writing after every mode had a write acknowledged by the restarted HBase
		callBudget     = 90 * time.Second
		resumeLimit    = 90 * time.Second
	)
	c := itConnect(t,
		hbase.WithRetryBudget(callBudget),
		hbase.WithMaxRetries(200),
		hbase.WithBackoff(100*time.Millisecond, 2*time.Second),
		hbase.WithRPCTimeout(15*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	backends := outageTables(t, ctx, c)

	il := startIndexLoad(t, ctx, backends, writersPerMode, batch)
	time.Sleep(before)
	killedAt := time.Now()
	cmd := exec.CommandContext(ctx, "sh", "-c", restartCmd)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	t.Logf("running HBKIT_RESTART_CMD: %s", restartCmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("HBKIT_RESTART_CMD %q: %v", restartCmd, err)
	}
	readyAt := time.Now()
	t.Logf("HBase killed and ready again after %.1fs", readyAt.Sub(killedAt).Seconds())

	// Wait (bounded) until every mode had a write acknowledged by the
	// restarted HBase, then keep writing a while.
	il.waitResumed(t, readyAt, resumeLimit)
	t.Logf("every mode writing again %.1fs after HBase reported ready", time.Since(readyAt).Seconds())
	time.Sleep(after)
	il.finish(t, ctx, backends, killedAt)
}

// indexLoad is the writers of the restart and stall tests: writersPerMode
// outageLoads in every write mode, each on its own goroutine.
type indexLoad struct {
	mu    sync.Mutex // guards the loads' results while the writers run
	loads []*outageLoad
	stop  func() // stops the writers and waits for them; once
}

// startIndexLoad starts the writers on the tables of backends; they stop
// at il.stop, at the latest when t ends.
func startIndexLoad(t *testing.T, ctx context.Context, backends modeBackends, writersPerMode, batch int) *indexLoad {
	il := &indexLoad{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, mc := range modeCases {
		b := backends(t, mc.mode)
		for w := range writersPerMode {
			l := &outageLoad{mode: mc.mode, s: b.sms(t, dao.WithWriteMode(mc.mode)), tracks: map[string]*outageTrack{}, sent: map[string]seeds.SMS{}}
			il.loads = append(il.loads, l)
			wg.Go(func() { l.run(ctx, w, batch, stop, &il.mu) })
		}
	}
	il.stop = sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(il.stop)
	return il
}

// waitResumed waits until every mode had a write acknowledged after since,
// and fails t if one had none within limit.
func (il *indexLoad) waitResumed(t *testing.T, since time.Time, limit time.Duration) {
	t.Helper()
	resumed := func() bool {
		for _, mc := range modeCases {
			if !il.ackedSince(mc.mode, since) {
				return false
			}
		}
		return true
	}
	for !resumed() {
		if time.Since(since) > limit {
			il.stop()
			t.Fatalf("some mode had no write acknowledged within %v of %v", limit, since.Format("15:04:05.000"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ackedSince reports whether a writer of mode had a write acknowledged
// after since.
func (il *indexLoad) ackedSince(mode schema.WriteMode, since time.Time) bool {
	il.mu.Lock()
	defer il.mu.Unlock()
	for _, l := range il.loads {
		if l.mode == mode && len(l.ackTimes) > 0 && l.ackTimes[len(l.ackTimes)-1].After(since) {
			return true
		}
	}
	return false
}

// finish stops the writers and checks the tables of every mode against
// what its writers saw (checkOutageMode), the outage having begun at
// outage. It returns the modes whose check passed.
func (il *indexLoad) finish(t *testing.T, ctx context.Context, backends modeBackends, outage time.Time) map[schema.WriteMode]bool {
	t.Helper()
	il.stop()
	for _, l := range il.loads {
		// A verification lost in the outage loses nothing: readers check
		// the entry, Check repairs it.
		if err := l.s.Flush(ctx); err != nil {
			t.Logf("%v: Flush: %v", l.mode, err)
		}
	}
	// The modes are checked side by side (the group returns when all are
	// done).
	var mu sync.Mutex
	ts := map[schema.WriteMode]*testing.T{}
	t.Run("check", func(t *testing.T) {
		for _, mc := range modeCases {
			t.Run(mc.mode.String(), func(t *testing.T) {
				mu.Lock()
				ts[mc.mode] = t
				mu.Unlock()
				t.Parallel()
				checkOutageMode(t, ctx, backends(t, mc.mode), mc.mode, il.loads, outage)
			})
		}
	})
	passed := map[schema.WriteMode]bool{}
	for mode, mt := range ts {
		passed[mode] = !mt.Failed()
	}
	return passed
}

// checkOutageMode checks the tables of one mode after an outage (a restart,
// a stall, a faulty network) that began at outage against what its writers
// saw, in three stages, each a subtest: "data" (every acknowledged record
// as written, exactly once; no failure reported as a clean "no" for a
// write that was applied), "index" (before any repair: every acknowledged
// record found, once, and nothing the data table does not hold) and
// "repair" (Check in ModeRepair then ModeVerify finds nothing missing,
// orphaned or stale; the index counts exactly what the data table holds).
func checkOutageMode(t *testing.T, ctx context.Context, b backend, mode schema.WriteMode, loads []*outageLoad, outage time.Time) {
	tracks := map[string]*outageTrack{}
	sent := map[string]seeds.SMS{}
	var acked, failed, ackedAfter int
	for _, l := range loads {
		if l.mode != mode {
			continue
		}
		for k, tr := range l.tracks {
			tracks[k] = tr
		}
		for c, m := range l.sent {
			sent[c] = m
		}
		acked += l.acked
		failed += l.failed
		for _, at := range l.ackTimes {
			if at.After(outage) {
				ackedAfter++
			}
		}
		if l.firstErr != nil {
			t.Logf("first failed write: %v (retryable: %v)", l.firstErr, hbase.IsRetryable(l.firstErr))
		}
	}
	t.Logf("%d writes acknowledged (%d after the outage began), %d failed, %d records written", acked, ackedAfter, failed, len(tracks))
	if ackedAfter == acked {
		t.Fatalf("no write acknowledged before the outage")
	}
	s := b.sms(t, dao.WithWriteMode(mode), dao.WithGracePeriod(time.Millisecond))
	data, err := dao.Collect(s.Scan(ctx, dao.Query[seeds.SMS]{}))
	if err != nil {
		t.Fatalf("scan of the data table: %v", err)
	}
	t.Run("data", func(t *testing.T) { checkOutageData(t, data, tracks, sent) })

	accounts := outageAccounts(mode)
	days := []time.Time{day0, day0.AddDate(0, 0, 1)}
	truth := map[string]map[string]seeds.SMS{} // account/day -> key -> record
	for _, m := range data {
		g := m.Account + "/" + m.SentAt.UTC().Format("20060102")
		if truth[g] == nil {
			truth[g] = map[string]seeds.SMS{}
		}
		truth[g][outageKey(&m)] = m
	}
	found := func(t *testing.T, s *seedstore.SMSRepo, stage string, exact bool) {
		t.Helper()
		for _, a := range accounts {
			for _, d := range days {
				g := a + "/" + d.Format("20060102")
				got, err := s.MessagesOfAccountOnDate(ctx, a, d)
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, m := range got {
					k := outageKey(&m)
					if w, ok := truth[g][k]; !ok || w != m {
						t.Errorf("%s: the index of %s returned %+v; the data table holds %+v (%v)", stage, g, m, w, ok)
					}
					if seen[k] {
						t.Errorf("%s: exactly once: the index of %s returned %s twice", stage, g, k)
					}
					seen[k] = true
				}
				for k, m := range truth[g] {
					if tr := tracks[k]; !seen[k] && (exact || tr != nil && tr.acked) {
						t.Errorf("%s: the index of %s misses %+v (acknowledged: %v)", stage, g, m, tr != nil && tr.acked)
					}
				}
			}
		}
	}
	t.Run("index", func(t *testing.T) {
		found(t, b.sms(t, dao.WithWriteMode(mode), dao.WithReadRepair(false)), "before repair", false)
	})

	t.Run("repair", func(t *testing.T) {
		time.Sleep(10 * time.Millisecond) // past the checking store's grace period: no write is in flight
		rep, err := s.Check(ctx, index.ModeRepair)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("repair: %+v", rep)
		rep, err = s.Check(ctx, index.ModeVerify)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("verify after repair: %+v", rep)
		if !rep.Clean() || rep.DataRows != int64(len(data)) || rep.Entries != rep.DataRows || rep.Undecodable != 0 {
			t.Errorf("verify after repair: %+v, want nothing missing, orphaned or stale, %d data rows and entries", rep, len(data))
		}
		found(t, s, "after repair", true)
		for _, a := range accounts {
			counts, err := s.CountPerDay(ctx, a, days[0], days[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, dc := range counts {
				g := a + "/" + dc.Date.Format("20060102")
				if dc.Count != int64(len(truth[g])) {
					t.Errorf("count of %s from the index alone: %d; the data table holds %d", g, dc.Count, len(truth[g]))
				}
			}
		}
	})
}

// checkOutageData checks a mode's data table (data) against its writers'
// tracks and the values they sent: every record one a writer sent, whole,
// and stored once (a message's Content is its own); every acknowledged
// record as written (or gone); every record whose last write failed in
// one of the states that write may have left, and not in the failed
// write's when its error said it was not applied (index.ErrExists,
// index.ErrConflict: a clean "no").
func checkOutageData(t testing.TB, data []seeds.SMS, tracks map[string]*outageTrack, sent map[string]seeds.SMS) {
	byKey := map[string]seeds.SMS{}
	keyOf := map[string]string{} // Content -> key
	for _, m := range data {
		k := outageKey(&m)
		byKey[k] = m
		w, ok := sent[m.Content]
		if !ok || w.Mobile != m.Mobile || !w.SentAt.Equal(m.SentAt) || w.Account != m.Account || w.Delivered != m.Delivered {
			t.Errorf("the data table holds %+v, which no writer sent", m)
		}
		if other, dup := keyOf[m.Content]; dup {
			t.Errorf("exactly once: the data table holds %q twice, under %s and %s", m.Content, other, k)
		}
		keyOf[m.Content] = k
	}
	lost := 0
	for k, tr := range tracks {
		got, ok := byKey[k]
		holds := func(st *seeds.SMS) bool { return (st == nil) == !ok && (st == nil || *st == got) }
		if tr.acked {
			if want := tr.states[0]; !holds(want) {
				if lost++; lost <= 10 {
					t.Errorf("acknowledged %s: the data table holds %+v (%v), want %+v", k, got, ok, want)
				}
			}
			continue
		}
		if !slices.ContainsFunc(tr.states, holds) {
			t.Errorf("%s, whose last write failed: the data table holds %+v (%v), want one of %v", k, got, ok, tr.states)
		}
		if notApplied := errors.Is(tr.err, index.ErrExists) || errors.Is(tr.err, index.ErrConflict); notApplied && !holds(tr.states[0]) && holds(tr.states[1]) {
			t.Errorf("misreported outcome: the write of %s failed with %v, but the data table holds what it wrote: %+v", k, tr.err, got)
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged writes lost across the outage", lost)
	}
}

// outageTables creates a pair of SMS tables per write mode, all at once,
// with a quarter of the schema's split keys: fewer regions for a
// restarted HBase to reassign, still several per table. They are not
// dropped: the restart and stall tests run on an instance of their own,
// thrown away after the run.
func outageTables(t *testing.T, ctx context.Context, c *hbase.Client) modeBackends {
	t.Helper()
	b, err := createOutageTables(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// createOutageTables is outageTables on any goroutine: it returns the
// error instead of failing a test.
func createOutageTables(ctx context.Context, c *hbase.Client) (modeBackends, error) {
	st, err := seeds.SMSTable()
	if err != nil {
		return nil, err
	}
	defs := []schema.Definition{st, st.Indexes()[0]}
	bs := make(map[schema.WriteMode]backend, len(modeCases))
	errs := make([]error, len(modeCases))
	var wg sync.WaitGroup
	for i, mc := range modeCases {
		run := strconv.FormatInt(time.Now().UnixNano()/1e6, 36) + "_" + strconv.FormatInt(itSeq.Add(1), 10)
		b := backend{c: c, data: "hbkit_restart_sms_" + run, index: "hbkit_restart_sms_index_" + run}
		bs[mc.mode] = b
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, name := range []string{b.data, b.index} {
				desc := hbase.TableDescriptor{Name: name}
				for _, f := range defs[j].Families() {
					desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
				}
				var splits [][]byte
				for k, key := range defs[j].SplitKeys() {
					if k%4 == 3 {
						splits = append(splits, key)
					}
				}
				if err := c.CreateTable(ctx, desc, splits); err != nil {
					errs[i] = fmt.Errorf("create %s: %w", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return func(_ testing.TB, mode schema.WriteMode) backend { return bs[mode] }, nil
}
