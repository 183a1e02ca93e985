package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/examples/internal/nsclient"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

// smallConfig is a workload small enough for unit tests under -race on a
// shared machine, big enough for every region to get rows.
func smallConfig() Config {
	c := DefaultConfig()
	c.Messages, c.Mobiles, c.Accounts, c.Days = 4000, 2000, 40, 7
	c.Batch, c.Concurrency = 250, 2
	return c
}

func newFake(t *testing.T) *fake.Client {
	t.Helper()
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestRunFake runs the whole demo on the fake: it creates the tables,
// loads, checks every query against the workload (Run fails on any
// difference), and prints the distribution.
func TestRunFake(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	var out, progress bytes.Buffer
	cfg := smallConfig()
	cfg.Batch = 200 // 4,000 messages in ten rounds of two batches: a progress line per round
	cfg.Progress = &progress
	if err := Run(ctx, cfg, f, &out); err != nil {
		t.Fatalf("Run: %v\noutput:\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"table sms        created  pre-split into 20 regions",
		"table sms_index  created  pre-split into 10 regions",
		"loaded 4,000 messages",
		"latest 5 messages of mobile",
		"messages of account",
		"messages per day\n    7 days, 4,000 messages",
		"every region within 1.5× the mean",
		"naive key: region 5 takes 100.0% of the rows",
		"messages/s with the index",
		"Rows per region, max/mean: sms ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q\noutput:\n%s", want, s)
		}
	}
	// Without --keep the tables are gone at the end, and the baseline's
	// always.
	for _, name := range []string{seeds.SMSTableName, seeds.SMSIndexTableName, "sms_noindex"} {
		ok, err := f.TableExists(ctx, name)
		if err != nil || ok {
			t.Errorf("TableExists(%s) = %v, %v after the run; want false, nil", name, ok, err)
		}
	}
	// Not a terminal: at most one progress line per 10% of each load (a
	// tenth that two workers' batches cross together gets one line), the
	// percentages growing to 100%, for the load and for the baseline load
	// without the index, taking turns: ten rounds of 400 messages, so
	// each round of a load crosses one tenth, with the index first in
	// odd rounds and last in even ones.
	lines := strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\n")
	labels := []string{"loading: ", "loading without the index: "}
	last := map[string]int{}
	var order []string
	for i, l := range lines {
		label := ""
		for _, lb := range labels {
			if strings.HasPrefix(l, lb) {
				label = lb
			}
		}
		var pct int
		if _, err := fmt.Sscanf(strings.TrimPrefix(l, label), "%d%%", &pct); label == "" || err != nil || pct <= last[label] || pct%10 != 0 {
			t.Fatalf("progress line %d is %q after %d%%: want a load's next tenth\n%s", i+1, l, last[label], progress.String())
		}
		last[label] = pct
		if len(order) == 0 || order[len(order)-1] != label {
			order = append(order, label)
		}
	}
	for _, lb := range labels {
		if last[lb] != 100 {
			t.Errorf("progress of %q ended at %d%%, want 100%%:\n%s", lb, last[lb], progress.String())
		}
	}
	// The turns: with, without, without, with, with, ... as runs of one
	// label: each run but the first and last holds two rounds.
	if len(order) < 6 || order[0] != labels[0] {
		t.Errorf("progress took turns %q, want the loads alternating, the index first:\n%s", order, progress.String())
	}
	if !strings.Contains(out.String(), "with / without the index, round by round: ") {
		t.Errorf("output lacks the ratio of each round:\n%s", out.String())
	}
}

// TestDistribution checks the measured distribution of a loaded table: no
// region above 1.5× the mean, and the naive key's hotspot.
func TestDistribution(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	c, _, err := nsclient.Setup(ctx, f, "smsdemo")
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	cfg.Keep = true
	d, err := newDemo(cfg, c, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.run(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := d.measure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.measured) != seeds.SMSRegions {
		t.Fatalf("measured %d regions, want %d", len(r.measured), seeds.SMSRegions)
	}
	var total int64
	for _, g := range r.measured {
		total += g.Rows
		if g.Rows == 0 {
			t.Errorf("region %d (start %q) is empty", g.Index, g.Start)
		}
	}
	if total != cfg.Messages {
		t.Errorf("measured %d rows, want %d", total, cfg.Messages)
	}
	if r.skew.MaxOverMean > MaxOverMean {
		t.Errorf("max/mean = %.2f, want <= %.1f", r.skew.MaxOverMean, MaxOverMean)
	}
	var entries int64
	for _, g := range r.index {
		entries += g.Rows
	}
	if len(r.index) != seeds.SMSIndexBuckets || entries != cfg.Messages || r.indexSkew.MaxOverMean > MaxOverMean {
		t.Errorf("index: %d entries in %d regions, max/mean %.2f; want %d in %d, <= %.1f",
			entries, len(r.index), r.indexSkew.MaxOverMean, cfg.Messages, seeds.SMSIndexBuckets, MaxOverMean)
	}
	// package sim predicted the count exactly (the same keys, the same
	// split keys).
	if r.predicted == nil || r.predicted.MaxPoints > 0.001 {
		t.Errorf("simulation vs measurement: %+v, want a difference of 0 points", r.predicted)
	}
	// The naive key writes every row to the one region holding "2025…".
	if got := r.naive.Regions[r.naive.Skew.Max]; got.Rows != cfg.Messages || got.Start.String() != "20" {
		t.Errorf("naive key: fullest region starts at %q with %d rows; want \"20\" with all %d",
			got.Start, got.Rows, cfg.Messages)
	}
	// Over time, the sms key spreads each day's writes; the naive key split
	// on time does not.
	keyedHot, _ := sliceStats(r.keyed.Slices)
	timedHot, timedActive := sliceStats(r.naiveTime.Slices)
	if keyedHot > 0.15 || timedHot < 0.95 || timedActive > 1.1 {
		t.Errorf("busiest region's share per slice: sms key %.2f (want <= 0.15), naive split on time %.2f over %.1f regions (want >= 0.95 over <= 1.1)",
			keyedHot, timedHot, timedActive)
	}
	// The tables were kept, in the test's namespace.
	for _, name := range []string{"smsdemo:sms", "smsdemo:sms_index"} {
		if ok, err := f.TableExists(ctx, name); err != nil || !ok {
			t.Errorf("TableExists(%s) = %v, %v; want true (--keep)", name, ok, err)
		}
	}
}

// TestRerun runs the demo twice on the same cluster: the second run
// recreates the tables and gives the same answers.
func TestRerun(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	cfg := smallConfig()
	cfg.Messages, cfg.Keep = 1500, true
	for i := range 2 {
		var out bytes.Buffer
		if err := Run(ctx, cfg, f, &out); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, out.String())
		}
		if i == 1 && !strings.Contains(out.String(), "table sms        created") {
			t.Errorf("second run did not recreate the tables:\n%s", out.String())
		}
	}
}

// TestQueriesDetectMissingRow deletes one message after the load and
// checks that the demo's own verification notices.
func TestQueriesDetectMissingRow(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	cfg := smallConfig()
	cfg.Messages, cfg.Mobiles = 1500, 150
	d, err := newDemo(cfg, f, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.createTables(ctx); err != nil {
		t.Fatal(err)
	}
	tr := survey(d.work)
	if _, _, err := d.load(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if err := d.queries(ctx, tr); err != nil {
		t.Fatalf("queries before the delete: %v", err)
	}
	key, err := d.table.AppendKey(nil, &tr.mobileMsgs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, &hbase.Delete{Table: seeds.SMSTableName, Row: key}); err != nil {
		t.Fatal(err)
	}
	err = d.queries(ctx, tr)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("queries after deleting the newest message of %s: err = %v, want a *MismatchError", tr.mobile, err)
	}
	if !strings.Contains(me.Query, "latest") {
		t.Errorf("mismatch reported by %q, want the latest-messages query", me.Query)
	}
}

func TestSurvey(t *testing.T) {
	d, err := newDemo(smallConfig(), newFake(t), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	tr := survey(d.work)
	var sum int64
	for _, n := range tr.perDay {
		sum += n
	}
	if sum != tr.messages || tr.messages != 4000 || len(tr.perDay) != 7 {
		t.Errorf("per-day counts sum to %d over %d days for %d messages; want 4000 over 7", sum, len(tr.perDay), tr.messages)
	}
	if len(tr.mobileMsgs) == 0 || len(tr.accountMsgs) == 0 {
		t.Fatalf("no messages for the probe mobile (%d) or account-day (%d)", len(tr.mobileMsgs), len(tr.accountMsgs))
	}
	for i := 1; i < len(tr.mobileMsgs); i++ {
		if newestFirst(tr.mobileMsgs[i-1], tr.mobileMsgs[i]) > 0 {
			t.Errorf("mobile messages not newest first at %d", i)
		}
	}
	for _, m := range tr.accountMsgs {
		if m.Account != tr.account || !m.SentAt.Truncate(24*time.Hour).Equal(tr.day) {
			t.Errorf("account-day message %s is not of %s on %s", smsLine(m), tr.account, tr.day)
		}
	}
}

func TestParseFlags(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "HBKIT_ZK" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		args    []string
		zkEnv   string
		wantZK  string
		check   func(Config) bool
		wantErr error
	}{
		{name: "defaults", wantZK: "127.0.0.1:2181", check: func(c Config) bool {
			return c.Messages == 200_000 && c.Mobiles == 20_000 && c.Accounts == 2_000 && c.Days == 30 && !c.Keep
		}},
		{name: "zk from env", zkEnv: "zk1:2181,zk2:2181", wantZK: "zk1:2181,zk2:2181"},
		{name: "zk flag wins", args: []string{"--zk", "h:1"}, zkEnv: "e:2", wantZK: "h:1"},
		{name: "workload", args: []string{"--messages", "1000", "--mobiles", "10", "--accounts", "3", "--days", "2", "--keep"},
			wantZK: "127.0.0.1:2181", check: func(c Config) bool {
				return c.Messages == 1000 && c.Mobiles == 10 && c.Accounts == 3 && c.Days == 2 && c.Keep
			}},
		{name: "no messages", args: []string{"--messages", "0"}, wantErr: ErrConfig},
		{name: "bad batch", args: []string{"--batch", "0"}, wantErr: ErrConfig},
		{name: "bad days", args: []string{"--days", "0"}, wantErr: ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args, env(tt.zkEnv), &bytes.Buffer{})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.zk != tt.wantZK {
				t.Errorf("zk = %q, want %q", o.zk, tt.wantZK)
			}
			if tt.check != nil && !tt.check(o.config) {
				t.Errorf("config = %+v", o.config)
			}
		})
	}
}

func TestRunMainFake(t *testing.T) {
	var out, errOut bytes.Buffer
	err := runMain(context.Background(), []string{"--fake", "--messages", "600", "--mobiles", "60", "--accounts", "6", "--days", "3", "--rounds", "2"},
		&out, &errOut, false)
	if err != nil {
		t.Fatalf("runMain: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "in-memory fake") || !strings.Contains(out.String(), "loaded 600 messages") {
		t.Errorf("output:\n%s", out.String())
	}
	// Two rounds of one batch each: one progress line per round, the
	// load with the index first, then twice without, then with.
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	want := []string{"loading:  50% 300/600, ", "loading without the index:  50% 300/600, ",
		"loading without the index: 100% 600/600, ", "loading: 100% 600/600, "}
	ok := len(lines) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(lines[i], want[i])
	}
	if !ok {
		t.Errorf("progress %q, want four lines starting %q", errOut.String(), want)
	}
	if !strings.Contains(out.String(), "without the index (table sms_noindex") {
		t.Errorf("output has no baseline load:\n%s", out.String())
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&b, false, "loading", 1000, func() time.Time { return now })
	p.begin()
	for range 40 {
		now = now.Add(10 * time.Millisecond)
		p.add(25)
	}
	p.end()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s", len(lines), b.String())
	}
	if want := "loading:  10% 100/1,000, 2,500/s, ETA 0s"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "loading: 100% 1,000/1,000, 2,500/s, 400ms"; lines[9] != want {
		t.Errorf("last line %q, want %q", lines[9], want)
	}
}

// TestProgressPaused: the clock runs between resume and pause only, so a
// load that takes turns with another reports its own rate and time.
func TestProgressPaused(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&b, false, "loading", 1000, func() time.Time { return now })
	for range 2 {
		p.resume()
		for range 20 {
			now = now.Add(10 * time.Millisecond)
			p.add(25)
		}
		p.pause()
		now = now.Add(time.Hour) // the other load's turn
	}
	p.end()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s", len(lines), b.String())
	}
	if want := "loading: 100% 1,000/1,000, 2,500/s, 400ms"; lines[9] != want {
		t.Errorf("last line %q, want %q", lines[9], want)
	}
}

func TestProgressTTY(t *testing.T) {
	var b syncBuffer
	p := newProgress(&b, true, "loading", 100, nil)
	p.every = time.Millisecond
	p.begin()
	p.add(40)
	time.Sleep(20 * time.Millisecond)
	p.add(60)
	p.end()
	p.end() // idempotent
	s := b.String()
	if !strings.HasPrefix(s, "\rloading ") || !strings.HasSuffix(s, "\n") {
		t.Errorf("terminal output %q: want carriage-return redraws ending with a newline", s)
	}
	last := s[strings.LastIndex(s, "\r"):]
	if !strings.Contains(last, "100% 100/100") || !strings.Contains(last, strings.Repeat("█", 30)) {
		t.Errorf("final redraw %q: want a full bar at 100%%", last)
	}
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine and the
// test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
