//go:build integration

package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/internal/faultnet"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The wire-fault scenarios of issue 34: "a broken network never duplicates
// a record, never misreports an outcome, never wedges a connection".
// make test-faults (tools/test-faults.sh) runs them against an HBase of
// its own with two region servers; HBKIT_FAULTS_DURATION (a Go duration)
// is how long each scenario's faults last, and HBKIT_FAULTS_REPORT, when
// set, the file the table of counts is written to (docs/faults.md).

const (
	faultsOpTimeout  = 5 * time.Second
	faultsRPCTimeout = 2 * time.Second
)

// faultScenario is one way of breaking the writers' and readers'
// connections: faults returns the faults in force at elapsed into the
// scenario, asked again every tick.
type faultScenario struct {
	name   string
	tick   time.Duration
	faults func(rng *rand.Rand, elapsed time.Duration) faultnet.Faults
	// undetectable: answers are changed in ways no check of the protocol
	// can see (HBase's RPC carries no checksum; TCP's is what catches a
	// flipped bit on a real link), so a value read may not be one that was
	// written. Readers' values are then counted, not failed.
	undetectable bool
}

func steady(f faultnet.Faults) func(*rand.Rand, time.Duration) faultnet.Faults {
	return func(*rand.Rand, time.Duration) faultnet.Faults { return f }
}

var faultScenarios = []faultScenario{
	// An answer dropped after the server acted on the request, and the
	// connection reset: 5-15% of the answers, the rate drawn anew every
	// second.
	{name: "reset", tick: time.Second, faults: func(rng *rand.Rand, _ time.Duration) faultnet.Faults {
		return faultnet.Faults{ResetAnswer: 0.05 + 0.10*rng.Float64()}
	}},
	// The peer vanishes for 3s (longer than the RPC timeout) in every 4s:
	// requests are dropped, nothing is answered, nothing is closed.
	{name: "halfopen", tick: 250 * time.Millisecond, faults: func(_ *rand.Rand, el time.Duration) faultnet.Faults {
		return faultnet.Faults{HalfOpen: el%(4*time.Second) >= time.Second}
	}},
	// 100ms on every answer, and 2% of them 2.5s more (past the RPC
	// timeout).
	{name: "latency", tick: time.Second, faults: steady(faultnet.Faults{Latency: 100 * time.Millisecond, SpikeAnswer: 0.02, Spike: 2500 * time.Millisecond})},
	{name: "slowlink", tick: time.Second, faults: steady(faultnet.Faults{BytesPerSecond: 64 << 10})},
	// One random bit flipped in 2% of the answers.
	{name: "corrupt", tick: time.Second, faults: steady(faultnet.Faults{CorruptAnswer: 0.02}), undetectable: true},
	// The length prefix of 1% of the answers 1-8 bytes short of the bytes
	// that follow, and of 1% 1-8 bytes long: truncated and lengthened
	// frames.
	{name: "frames", tick: time.Second, faults: steady(faultnet.Faults{ShortenAnswer: 0.01, LengthenAnswer: 0.01})},
}

// TestFaults runs every scenario of faultScenarios, each as a subtest
// (-run 'TestFaults/reset' runs one), on a client of its own with
// WithOperationTimeout(5s) and WithRPCTimeout(2s) whose connections go
// through a faultnet.Dialer: two writers per write mode write SMS records
// through dao (outageLoad: new messages by PutBatch, by Send for the odd
// insert-only writer, and in the modes that rewrite, updates in place,
// moves of the indexed account and deletes) while a reader per mode
// queries the index. Once every mode had a write acknowledged, the faults
// are on for HBKIT_FAULTS_DURATION; then they stop, and for every mode:
//
//   - bound: every writer's call returned within stallCallLimit (the
//     operation timeouts that can expire one after the other, docs/
//     timeouts.md), every reader's within queryCallLimit;
//   - wedge: every mode writes again after the faults end, and every call
//     begun wedgeGrace after their end succeeds;
//   - reads: a reader returned only records a writer sent, each once
//     (counted, not failed, where faults are undetectable);
//   - data, index, repair: the stages of checkOutageMode: every
//     acknowledged record reads back exactly once through the data table
//     and the index, no failure is a clean "no" for a write that was
//     applied, and Check is clean after repair;
//   - goroutines: back to the baseline once the writers stopped.
//
// The table of counts per scenario and mode is logged, and written to
// HBKIT_FAULTS_REPORT when set.
func TestFaults(t *testing.T) {
	dur := faultsDuration(t)
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("HBKIT_FAULTS_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("faults for %v per scenario, seed %d (HBKIT_FAULTS_SEED)", dur, seed)
	admin := itConnect(t)
	pre := &tablePrefetch{admin: admin}
	defer pre.wait()
	var rows []faultRow
	for i, sc := range faultScenarios {
		t.Run(sc.name, func(t *testing.T) {
			var got []faultRow
			defer func() { // also when the scenario stops on t.Fatal
				if got == nil {
					got = []faultRow{{scenario: sc.name, aborted: true}}
				}
				rows = append(rows, got...)
			}()
			tables := pre.tables(t, i)
			got = runFaultScenario(t, tables, sc, dur, seed+uint64(i), func() { pre.start(i + 1) })
		})
	}
	table := faultTable(rows, dur, seed)
	t.Logf("\n%s", table)
	if path := os.Getenv("HBKIT_FAULTS_REPORT"); path != "" && len(rows) > 0 {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// faultsDuration is HBKIT_FAULTS_DURATION; it skips t when unset.
func faultsDuration(t *testing.T) time.Duration {
	v := os.Getenv("HBKIT_FAULTS_DURATION")
	if v == "" {
		t.Skip("HBKIT_FAULTS_DURATION not set: make test-faults runs these scenarios against an HBase of its own")
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("HBKIT_FAULTS_DURATION=%q: want a positive Go duration", v)
	}
	return d
}

// wedgeGrace is how long after the faults' end a call may still fail: an
// attempt begun under them ends within the RPC timeout (and a tenth). A
// call begun after it, on a network without faults, must succeed: its
// attempts may meet a connection the faults broke, which the client must
// notice and replace within the call's operation timeout; one that fails
// met a connection the faults left wedged.
const wedgeGrace = faultsRPCTimeout + faultsRPCTimeout/10

// tablePrefetch creates the tables of the next scenario while the tables
// of the one before are checked (after its goroutines were counted).
type tablePrefetch struct {
	admin    *hbase.Client
	scenario int           // the scenario of the tables under way
	done     chan struct{} // nil: none under way
	backends modeBackends
	err      error
}

// start creates the tables of scenario i in the background.
func (p *tablePrefetch) start(i int) {
	if i >= len(faultScenarios) {
		return
	}
	p.wait()
	done := make(chan struct{})
	p.scenario, p.done = i, done
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		p.backends, p.err = createOutageTables(ctx, p.admin)
	}()
}

// wait waits for the tables under way, if any.
func (p *tablePrefetch) wait() {
	if p.done != nil {
		<-p.done
	}
}

// tables returns the tables of scenario i: those made beforehand, or new
// ones. Nothing is under way when it returns.
func (p *tablePrefetch) tables(t *testing.T, i int) modeBackends {
	p.wait()
	ready := p.done != nil && p.scenario == i
	p.done = nil
	if !ready {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		return outageTables(t, ctx, p.admin)
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.backends
}

// runFaultScenario runs one scenario on fresh tables and returns its row
// of counts per mode; settled is called once the goroutines were counted.
func runFaultScenario(t *testing.T, tables modeBackends, sc faultScenario, dur time.Duration, seed uint64, settled func()) []faultRow {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute+2*dur)
	defer cancel()
	t0 := time.Now()
	d := faultnet.New(nil, nil)
	d.Seed(seed)
	c := itConnect(t, hbase.WithOperationTimeout(faultsOpTimeout), hbase.WithRPCTimeout(faultsRPCTimeout), hbase.WithDialer(d.Dial))
	faulty := func(tb testing.TB, mode schema.WriteMode) backend {
		b := tables(tb, mode)
		b.c = c
		return b
	}
	warmUp(t, ctx, c, faulty)
	base := ittest.SettledGoroutines()
	t.Logf("client warmed up in %v", time.Since(t0).Round(time.Millisecond))

	start := time.Now()
	il := startIndexLoad(t, ctx, faulty, 2, 10)
	readers := startFaultReaders(t, ctx, faulty)
	il.waitResumed(t, start, 30*time.Second)
	faultsAt, before := time.Now(), d.Stats()
	stopDriver := driveFaults(d, sc, seed)
	time.Sleep(dur)
	stopDriver()
	d.SetFaults(faultnet.Faults{})
	healedAt, stats := time.Now(), statsSince(d.Stats(), before)
	t.Logf("faults on for %v: %+v", healedAt.Sub(faultsAt).Round(time.Millisecond), stats)

	// Every mode writes again, and the load goes on past wedgeGrace for
	// the calls that must succeed.
	wedged := waitWriting(t, il, healedAt, stallCallLimit(schema.Strict, faultsOpTimeout)+faultsOpTimeout)
	time.Sleep(time.Until(healedAt.Add(wedgeGrace + time.Second)))
	readers.stop()
	il.stop()
	// The checks get a context of their own: a call that hung must not
	// take their time.
	cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer ccancel()
	for _, l := range il.loads {
		if err := l.s.Flush(cctx); err != nil {
			t.Logf("%v: Flush: %v", l.mode, err)
		}
	}
	for _, r := range readers.rs {
		if err := r.s.Flush(cctx); err != nil {
			t.Logf("%v: reader's Flush: %v", r.mode, err)
		}
	}
	back := ittest.SettleGoroutines(t, base, 15*time.Second) <= base
	settled()
	t.Logf("writers and readers stopped, flushed and their goroutines gone %v after the faults' end", time.Since(healedAt).Round(time.Millisecond))

	rows := faultRows(t, sc, il, readers, faultsAt, healedAt)
	// The tables are checked through the clean client.
	t1 := time.Now()
	passed := il.finish(t, cctx, tables, faultsAt)
	t.Logf("tables checked in %v", time.Since(t1).Round(time.Millisecond))
	for i := range rows {
		r := &rows[i]
		r.stats, r.goroutines, r.checked = stats, back, passed[r.mode]
		r.wedged = r.wedged || wedged[r.mode]
	}
	return rows
}

// statsSince is what the dialer did between the counts before and now.
func statsSince(now, before faultnet.Stats) faultnet.Stats {
	return faultnet.Stats{
		Dials: now.Dials - before.Dials, Resets: now.Resets - before.Resets, Corrupted: now.Corrupted - before.Corrupted,
		Mangled: now.Mangled - before.Mangled, Frames: now.Frames - before.Frames, Spikes: now.Spikes - before.Spikes,
		Shortened: now.Shortened - before.Shortened, Lengthened: now.Lengthened - before.Lengthened,
	}
}

// warmUp opens the client's connections to every region server holding
// the tables (a full scan of each, empty yet) before the goroutines are
// counted: the stores' goroutines, not the client's connections, are what
// must go back to the baseline.
func warmUp(t *testing.T, ctx context.Context, c *hbase.Client, backends modeBackends) {
	t.Helper()
	for _, mc := range modeCases {
		b := backends(t, mc.mode)
		for _, table := range []string{b.data, b.index} {
			sc, err := c.Scan(ctx, &hbase.Scan{Table: table})
			if err != nil {
				t.Fatal(err)
			}
			for sc.Next() {
			}
			err = sc.Err()
			sc.Close()
			if err != nil {
				t.Fatalf("warm-up scan of %s: %v", table, err)
			}
		}
		// The master's connection too: the stores read their index
		// tables' state through it (DescribeTable).
		if _, err := c.DescribeTable(ctx, b.index); err != nil {
			t.Fatalf("warm-up describe of %s: %v", b.index, err)
		}
	}
}

// driveFaults sets the scenario's faults on d every tick until the
// returned function is called.
func driveFaults(d *faultnet.Dialer, sc faultScenario, seed uint64) (stop func()) {
	rng := rand.New(rand.NewPCG(seed, 2))
	done := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	d.SetFaults(sc.faults(rng, 0))
	wg.Go(func() {
		tk := time.NewTicker(sc.tick)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				d.SetFaults(sc.faults(rng, time.Since(start)))
			}
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// waitWriting waits (at most limit) until every mode had a write
// acknowledged after healed, and returns the modes that had none: a
// connection the faults left wedged.
func waitWriting(t *testing.T, il *indexLoad, healed time.Time, limit time.Duration) map[schema.WriteMode]bool {
	t.Helper()
	wedged := map[schema.WriteMode]bool{}
	for _, mc := range modeCases {
		for !il.ackedSince(mc.mode, healed) && time.Since(healed) < limit {
			time.Sleep(100 * time.Millisecond)
		}
		if !il.ackedSince(mc.mode, healed) {
			wedged[mc.mode] = true
			t.Errorf("%v: wedge: no write acknowledged within %v of the faults' end", mc.mode, limit)
		} else {
			t.Logf("%v: writing again %v after the faults' end", mc.mode, time.Since(healed).Round(time.Millisecond))
		}
	}
	return wedged
}

// queryCallLimit bounds a reader's query: it reads the index (a scan,
// whose few rows here come in one fetch, one operation) and then the data
// rows (one Batch, one operation), each within the operation timeout
// plus a tenth, as stallCallLimit counts them.
func queryCallLimit(opTimeout time.Duration) time.Duration {
	return 2 * (opTimeout + opTimeout/10)
}

// faultReader queries the index of one mode while the writers write, and
// records its calls and the records they returned.
type faultReader struct {
	mode     schema.WriteMode
	s        *seedstore.SMSRepo
	calls    []outageCall
	returned map[seeds.SMS]bool // every record returned, as returned
	twice    []string           // records returned twice by one query
}

// faultReaders are the readers of every mode.
type faultReaders struct {
	rs   []*faultReader
	stop func() // stops the readers and waits for them; once
}

func startFaultReaders(t *testing.T, ctx context.Context, backends modeBackends) *faultReaders {
	fr := &faultReaders{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, mc := range modeCases {
		r := &faultReader{mode: mc.mode, s: backends(t, mc.mode).sms(t, dao.WithWriteMode(mc.mode)), returned: map[seeds.SMS]bool{}}
		fr.rs = append(fr.rs, r)
		wg.Go(func() { r.run(ctx, done) })
	}
	fr.stop = sync.OnceFunc(func() { close(done); wg.Wait() })
	t.Cleanup(fr.stop)
	return fr
}

// run alternates MessagesOfAccountOnDate and CountPerDay over the mode's
// accounts and days until done is closed.
func (r *faultReader) run(ctx context.Context, done <-chan struct{}) {
	accounts := outageAccounts(r.mode)
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		case <-time.After(50 * time.Millisecond):
		}
		a, day := accounts[i%len(accounts)], day0.AddDate(0, 0, i/len(accounts)%2)
		// A cap far past the bound, as the writers have: a query that
		// hangs is reported, and does not hold up the run.
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		start := time.Now()
		var err error
		op := "CountPerDay"
		if i%2 == 0 {
			op = "MessagesOfAccountOnDate"
			var got []seeds.SMS
			got, err = r.s.MessagesOfAccountOnDate(qctx, a, day)
			seen := map[string]bool{}
			for _, m := range got {
				r.returned[m] = true
				if k := outageKey(&m); seen[k] {
					r.twice = append(r.twice, k)
				} else {
					seen[k] = true
				}
			}
		} else {
			_, err = r.s.CountPerDay(qctx, a, day0, day0.AddDate(0, 0, 1))
		}
		call := outageCall{op: op, start: start, took: time.Since(start)}
		cancel()
		if err != nil {
			call.errs = []error{err}
		}
		r.calls = append(r.calls, call)
	}
}

// faultErrKind names the kind of a failed record's error for the table.
func faultErrKind(err error) string {
	switch {
	case errors.Is(err, hbase.ErrOutcomeUnknown):
		return "unknown"
	case errors.Is(err, hbase.ErrTimeout):
		return "timeout"
	case errors.Is(err, index.ErrExists):
		return "exists"
	case errors.Is(err, index.ErrConflict):
		return "conflict"
	}
	return "other"
}

var faultErrKinds = []string{"timeout", "unknown", "exists", "conflict", "other"}

// faultRow is what one mode saw under one scenario.
type faultRow struct {
	scenario     string
	mode         schema.WriteMode
	calls, acked int
	errs         map[string]int // failed records by faultErrKind
	longest      time.Duration
	overBound    int
	reads        int
	readErrs     int
	longestRead  time.Duration
	badReads     int // records returned that no writer sent, or twice by one query
	undetectable bool
	stats        faultnet.Stats
	wedged       bool
	goroutines   bool // back to the baseline (the scenario's, for every mode)
	checked      bool // data, index and repair stages passed
	aborted      bool // the scenario stopped before its checks (see the log)
}

// faultRows counts each mode's calls and checks the bound and reads
// invariants (failing t for each call past its bound and each bad read).
func faultRows(t *testing.T, sc faultScenario, il *indexLoad, fr *faultReaders, faultsAt, healedAt time.Time) []faultRow {
	t.Helper()
	var rows []faultRow
	for _, mc := range modeCases {
		row := faultRow{scenario: sc.name, mode: mc.mode, errs: map[string]int{}, undetectable: sc.undetectable}
		sent := map[string]seeds.SMS{}
		limit := stallCallLimit(mc.mode, faultsOpTimeout)
		for _, l := range il.loads {
			if l.mode != mc.mode {
				continue
			}
			for c, m := range l.sent {
				sent[c] = m
			}
			for _, call := range l.calls {
				if call.start.After(healedAt.Add(wedgeGrace)) && len(call.errs) > 0 {
					row.wedged = true
					t.Errorf("%v: wedge: a %s made %v after the faults' end failed %d records, the first with %v",
						mc.mode, call.op, call.start.Sub(healedAt).Round(time.Millisecond), len(call.errs), call.errs[0])
				}
				if call.took > limit {
					row.overBound++
					t.Errorf("%v: bound: a %s made %v into the faults took %v, over %v (%d of its records failed, the first with %v)",
						mc.mode, call.op, call.start.Sub(faultsAt).Round(time.Millisecond), call.took.Round(time.Millisecond), limit, len(call.errs), firstErr(call.errs))
				}
				if !during(call, faultsAt, healedAt) {
					continue
				}
				row.calls++
				row.acked += call.acked
				row.longest = max(row.longest, call.took)
				for _, err := range call.errs {
					row.errs[faultErrKind(err)]++
				}
			}
			if l.firstErr != nil && faultErrKind(l.firstErr) == "other" {
				t.Logf("%v: first failed write: %v", mc.mode, l.firstErr)
			}
		}
		for _, r := range fr.rs {
			if r.mode == mc.mode {
				countReads(t, &row, r, sent, faultsAt, healedAt)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// countReads adds a reader's calls to row and checks them: each within
// queryCallLimit; each record returned one a writer sent, once per query.
func countReads(t *testing.T, row *faultRow, r *faultReader, sent map[string]seeds.SMS, faultsAt, healedAt time.Time) {
	t.Helper()
	limit := queryCallLimit(faultsOpTimeout)
	for _, call := range r.calls {
		if call.start.After(healedAt.Add(wedgeGrace)) && len(call.errs) > 0 {
			row.wedged = true
			t.Errorf("%v: wedge: a %s made %v after the faults' end failed: %v", r.mode, call.op, call.start.Sub(healedAt).Round(time.Millisecond), call.errs[0])
		}
		if call.took > limit {
			row.overBound++
			t.Errorf("%v: bound: a %s made %v into the faults took %v, over %v (%v)", r.mode, call.op, call.start.Sub(faultsAt).Round(time.Millisecond), call.took.Round(time.Millisecond), limit, firstErr(call.errs))
		}
		if !during(call, faultsAt, healedAt) {
			continue
		}
		row.reads++
		row.longestRead = max(row.longestRead, call.took)
		if len(call.errs) > 0 {
			row.readErrs++
		}
	}
	report := t.Errorf
	if row.undetectable {
		report = t.Logf
	}
	for m := range r.returned {
		if w, ok := sent[m.Content]; !ok || w.Mobile != m.Mobile || !w.SentAt.Equal(m.SentAt) || w.Account != m.Account || w.Delivered != m.Delivered {
			row.badReads++
			report("%v: reads: a query returned %+v, which no writer sent", r.mode, m)
		}
	}
	for _, k := range r.twice {
		row.badReads++
		report("%v: reads: exactly once: a query returned %s twice", r.mode, k)
	}
}

// during reports whether call ran while the faults were on.
func during(call outageCall, faultsAt, healedAt time.Time) bool {
	return call.start.Before(healedAt) && call.start.Add(call.took).After(faultsAt)
}

func firstErr(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// faultTable is the Markdown table of rows, with how it was made.
func faultTable(rows []faultRow, dur time.Duration, seed uint64) string {
	var b strings.Builder
	cmd := os.Getenv("HBKIT_FAULTS_COMMAND")
	if cmd == "" {
		cmd = fmt.Sprintf("HBKIT_FAULTS_DURATION=%v go test -tags integration -run TestFaults ./index/", dur)
	}
	fmt.Fprintf(&b, "# Wire faults (issue 34)\n\nWritten by `%s` (index/faults_integration_test.go, TestFaults), %s, faults for %v per scenario, seed %d. ",
		cmd, time.Now().UTC().Format("2006-01-02 15:04 UTC"), dur, seed)
	b.WriteString("Two region servers; client WithOperationTimeout(5s), WithRPCTimeout(2s); two writers (batches of 10 SMS records through dao) and one reader per write mode, all modes at once. ")
	b.WriteString("Counts are of the calls that ran while the faults were on; the bound is checked on every call. Writes: calls and acknowledged records; failed records by error. Reads: queries, failed, longest. Faults: what the dialer did while they were on (all modes). ")
	b.WriteString("HBKIT_FAULTS_RUN=reset make test-faults runs one scenario; make test-faults (5s per scenario) runs them all in CI. ")
	b.WriteString("Invariants: bound (no call past its limit), wedge (writing again after the faults, and every call made 2.2s after them succeeds), reads (only records written, once), check (every acknowledged record exactly once in the data table and the index, no misreported outcome, Check clean after repair), goroutines (back to the baseline).\n\n")
	b.WriteString("| scenario | mode | write calls | acked | " + strings.Join(faultErrKinds, " | ") + " | longest write | reads | read errors | longest read | faults | failed invariants |\n")
	b.WriteString("|---|---|---:|---:|" + strings.Repeat("---:|", len(faultErrKinds)) + "---:|---:|---:|---:|---|---|\n")
	for _, r := range rows {
		mode := r.mode.String()
		if r.aborted {
			mode = "all"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d |", r.scenario, mode, r.calls, r.acked)
		for _, k := range faultErrKinds {
			fmt.Fprintf(&b, " %d |", r.errs[k])
		}
		st := r.stats
		fmt.Fprintf(&b, " %v | %d | %d | %v | %d frames: %d reset, %d flipped, %d short, %d long, %d spikes | %s |\n",
			r.longest.Round(time.Millisecond), r.reads, r.readErrs, r.longestRead.Round(time.Millisecond),
			st.Frames, st.Resets, st.Corrupted, st.Shortened, st.Lengthened, st.Spikes, r.failed())
	}
	return b.String()
}

// failed names the invariants r broke, or "none".
func (r faultRow) failed() string {
	if r.aborted {
		return "aborted before its checks (see the test log)"
	}
	var out []string
	if r.overBound > 0 {
		out = append(out, fmt.Sprintf("bound (%d calls)", r.overBound))
	}
	if r.wedged {
		out = append(out, "wedge")
	}
	if r.badReads > 0 && !r.undetectable {
		out = append(out, fmt.Sprintf("reads (%d)", r.badReads))
	}
	if !r.checked {
		out = append(out, "check")
	}
	if !r.goroutines {
		out = append(out, "goroutines")
	}
	if len(out) == 0 {
		if r.badReads > 0 {
			return fmt.Sprintf("none (%d reads changed in flight, undetectable)", r.badReads)
		}
		return "none"
	}
	return strings.Join(out, ", ")
}

// errRecorder records what a check reports instead of failing a test.
type errRecorder struct {
	testing.TB
	errs []string
}

func (r *errRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *errRecorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// TestOutageDataChecks shows that checkOutageData, which the fault, stall
// and restart tests use, reports each broken invariant: a record stored
// twice, an acknowledged write lost, a clean "no" for a write that was
// applied, a failed write that left a state it never wrote. It needs no
// HBase.
func TestOutageDataChecks(t *testing.T) {
	a := &seeds.SMS{Mobile: "13800000001", SentAt: day0, Seq: 1, Account: "x", Content: "a"}
	a2 := *a
	a2.Seq = 2 // Send's next key for the same message
	b := &seeds.SMS{Mobile: "13800000002", SentAt: day0, Seq: 2, Account: "x", Content: "b"}
	sent := map[string]seeds.SMS{"a": *a, "b": *b}
	acked := func(m *seeds.SMS) *outageTrack { return &outageTrack{states: []*seeds.SMS{m}, acked: true} }
	failed := func(m *seeds.SMS, err error) *outageTrack {
		return &outageTrack{states: []*seeds.SMS{nil, m}, err: err}
	}
	for _, tc := range []struct {
		name   string
		data   []seeds.SMS
		tracks map[string]*outageTrack
		want   string // in the one error reported; "" for none
	}{
		{"clean", []seeds.SMS{*a}, map[string]*outageTrack{outageKey(a): acked(a), outageKey(b): failed(b, hbase.ErrTimeout)}, ""},
		{"failed write applied, outcome unknown", []seeds.SMS{*b}, map[string]*outageTrack{outageKey(b): failed(b, hbase.ErrOutcomeUnknown)}, ""},
		{"stored twice", []seeds.SMS{*a, a2}, map[string]*outageTrack{outageKey(&a2): acked(&a2)}, "exactly once"},
		{"acknowledged, lost", nil, map[string]*outageTrack{outageKey(a): acked(a)}, "acknowledged"},
		{"clean no, applied", []seeds.SMS{*b}, map[string]*outageTrack{outageKey(b): failed(b, index.ErrExists)}, "misreported outcome"},
		{"never written", []seeds.SMS{*b}, map[string]*outageTrack{outageKey(b): {states: []*seeds.SMS{nil, a}, err: hbase.ErrTimeout}}, "whose last write failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &errRecorder{TB: t}
			checkOutageData(r, tc.data, tc.tracks, sent)
			switch {
			case tc.want == "" && len(r.errs) > 0:
				t.Errorf("reported %q, want nothing", r.errs)
			case tc.want != "" && (len(r.errs) == 0 || !strings.Contains(r.errs[0], tc.want)):
				t.Errorf("reported %q, want an error about %q", r.errs, tc.want)
			}
		})
	}
}
