package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/examples/internal/text"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// Client is what the example needs of HBase: data calls and admin calls.
// *hbase.Client and the fake satisfy it.
type Client interface {
	hbase.DataClient
	hbase.AdminClient
}

// Config is the example's workload.
type Config struct {
	Events int    // log events to generate
	Seed   uint64 // generator seed
	Keep   bool   // keep the tables at the end
}

// DefaultConfig is the workload of a plain run.
func DefaultConfig() Config { return Config{Events: 20_000, Seed: 4} }

var (
	hosts  = []string{"web01.example.com", "web02.example.com", "db01.example.com"}
	events = []string{"login", "error", "gc"}
	// start is the start of the two hours the events fall in.
	start = time.Date(2017, 8, 22, 6, 0, 0, 0, time.UTC)
)

type key struct {
	host, event string
	ms          int64
}

// model is what the table holds: message by key.
type model map[key]string

// series returns the model's keys of one series in [from, to], in time
// order: the brute-force answer of a time-range read.
func (m model) series(host, event string, from, to int64) []key {
	var out []key
	for k := range m {
		if k.host == host && k.event == event && k.ms >= from && k.ms <= to {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b key) int { return cmp.Compare(a.ms, b.ms) })
	return out
}

func event(host, ev string, ms int64, msg string) *seeds.UIDLogEvent {
	return &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: host, Event: ev, At: time.UnixMilli(ms).UTC(), Message: msg}}
}

// Run creates LOG_TYPES and LOG_DATA on steroids, loads the events, reads
// a time range of one series, counts the columns of its rows, replaces
// and deletes events, checks every answer against what was written, and
// reports to out.
func Run(ctx context.Context, cfg Config, c Client, out io.Writer) error {
	if cfg.Events < 1 {
		return fmt.Errorf("logwide: --events %d: want at least 1", cfg.Events)
	}
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	types, err := seeds.LogTypes()
	if err != nil {
		return err
	}
	wide, err := seeds.LogDataWide()
	if err != nil {
		return err
	}
	adm, err := admin.New(c)
	if err != nil {
		return err
	}
	if err := drop(ctx, c, adm); err != nil {
		return err
	}
	res, err := adm.EnsureTables(ctx, types, wide)
	if err != nil {
		return fmt.Errorf("logwide: create tables: %w", err)
	}
	p("hbkit wide-row example (seed 004, log data on steroids): %s events, one column each\n\n", text.Grouped(int64(cfg.Events)))
	for _, r := range res {
		regions, err := c.TableRegions(ctx, r.Table)
		if err != nil {
			return fmt.Errorf("logwide: regions of %s: %w", r.Table, err)
		}
		unit := "regions"
		if len(regions) == 1 {
			unit = "region"
		}
		p("table %-14s %-8s %d %s\n", r.Table, r.Outcome, len(regions), unit)
	}

	uids, err := dao.NewUIDs(c, seeds.LogTypesName, []dao.UIDKind{
		{Name: seeds.LogHostKind, Width: seeds.LogHostWidth}, {Name: seeds.LogEventKind, Width: seeds.LogEventWidth},
	})
	if err != nil {
		return err
	}
	w, err := dao.NewWide(c, wide, dao.WithUIDs(uids))
	if err != nil {
		return err
	}

	// Load: batches of 1,000 events, one Put per row in one Batch each.
	r := rand.New(rand.NewPCG(cfg.Seed, 18))
	m := model{}
	span := seeds.LogWideSpan.Milliseconds()
	rows := map[[3]any]bool{}
	var batch []*seeds.UIDLogEvent
	began := time.Now()
	for i := range cfg.Events {
		e := event(hosts[r.IntN(len(hosts))], events[r.IntN(len(events))], start.UnixMilli()+r.Int64N(2*3600_000), fmt.Sprint("event ", i))
		batch = append(batch, e)
		m[key{e.Host, e.Event, e.At.UnixMilli()}] = e.Message
		rows[[3]any{e.Host, e.Event, e.At.UnixMilli() / span}] = true
		if len(batch) == 1000 || i == cfg.Events-1 {
			if _, err := w.PutBatch(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	p("\nloaded %s events in %s: %d series, %d rows of five minutes\n",
		text.Grouped(int64(cfg.Events)), time.Since(began).Round(10*time.Millisecond), len(hosts)*len(events), len(rows))

	// One cell cut into its parts.
	first := event(hosts[0], events[0], start.UnixMilli()+22*60_000+34_567, "")
	var cell schema.WideCell
	if err := uidsOf(ctx, uids, first); err != nil {
		return err
	}
	if err := wide.EncodeKey(&cell, first); err != nil {
		return err
	}
	parts, err := wide.KeyParts(cell.Row)
	if err != nil {
		return err
	}
	qparts, err := wide.QualifierParts(cell.Qualifier)
	if err != nil {
		return err
	}
	p("\nthe cell of %s %s at %s:\n  row key   %s (%d bytes):", first.Host, first.Event, first.At.Format("15:04:05.000"), schema.QuoteKey(cell.Row), len(cell.Row))
	for _, part := range parts {
		p(" %s", part)
	}
	p("\n  qualifier %s (%d bytes): %s\n", schema.QuoteKey(cell.Qualifier), len(cell.Qualifier), qparts[0])

	// A time range of one series: one scan, trimmed at both ends.
	from, to := start.UnixMilli()+22*60_000+34_000, start.UnixMilli()+31*60_000+10_000
	if err := readRange(ctx, w, m, hosts[0], events[0], from, to, p); err != nil {
		return err
	}
	if err := countRows(ctx, w, m, hosts[0], events[0], from, to, p); err != nil {
		return err
	}

	// Replace the first event of the range and delete the second.
	in := m.series(hosts[0], events[0], from, to)
	if len(in) >= 2 {
		rep := event(in[0].host, in[0].event, in[0].ms, "replaced")
		if err := w.Put(ctx, rep); err != nil {
			return err
		}
		m[in[0]] = "replaced"
		if err := w.Delete(ctx, event(in[1].host, in[1].event, in[1].ms, "")); err != nil {
			return err
		}
		delete(m, in[1])
		p("\nreplaced the event at %s, deleted the one at %s; again:\n",
			time.UnixMilli(in[0].ms).UTC().Format("15:04:05.000"), time.UnixMilli(in[1].ms).UTC().Format("15:04:05.000"))
		if err := readRange(ctx, w, m, hosts[0], events[0], from, to, p); err != nil {
			return err
		}
	}

	if cfg.Keep {
		p("\nkept tables %s and %s (--keep)\n", types.Name(), wide.Name())
		return nil
	}
	return drop(ctx, c, adm)
}

// uidsOf sets the ids of e's names (for showing its key).
func uidsOf(ctx context.Context, u *dao.UIDs, e *seeds.UIDLogEvent) (err error) {
	if e.HostID, _, err = u.Lookup(ctx, seeds.LogHostKind, e.Host); err != nil {
		return err
	}
	e.EventID, _, err = u.Lookup(ctx, seeds.LogEventKind, e.Event)
	return err
}

func readRange(ctx context.Context, w *dao.Wide[seeds.UIDLogEvent], m model, host, ev string, from, to int64, p func(string, ...any)) error {
	want := m.series(host, ev, from, to)
	var got []*seeds.UIDLogEvent
	for e, err := range w.Scan(ctx, dao.WideQuery[seeds.UIDLogEvent]{From: event(host, ev, from, ""), To: event(host, ev, to, "")}) {
		if err != nil {
			return err
		}
		got = append(got, e)
	}
	clock := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05.000") }
	p("\n%s %s from %s to %s: %d events, in time order\n", host, ev, clock(from), clock(to), len(got))
	if len(got) != len(want) {
		return fmt.Errorf("logwide: range read returned %d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		k := key{e.Host, e.Event, e.At.UnixMilli()}
		if k != want[i] || e.Message != m[k] {
			return fmt.Errorf("logwide: event %d of the range is %v %q, want %v %q", i, k, e.Message, want[i], m[want[i]])
		}
		if i < 3 || i >= len(got)-2 {
			p("  %s  %s\n", clock(k.ms), e.Message)
		} else if i == 3 {
			p("  …\n")
		}
	}
	p("  (equal to the events written, filtered and sorted by time)\n")
	return nil
}

func countRows(ctx context.Context, w *dao.Wide[seeds.UIDLogEvent], m model, host, ev string, from, to int64, p func(string, ...any)) error {
	span := seeds.LogWideSpan.Milliseconds()
	want := map[int64]int{}
	for _, k := range m.series(host, ev, from, to) {
		want[k.ms-k.ms%span]++
	}
	p("\ncolumns per row in that range (keys only, no value read):\n")
	n := 0
	for rc, err := range w.Counts(ctx, dao.WideQuery[seeds.UIDLogEvent]{From: event(host, ev, from, ""), To: event(host, ev, to, "")}) {
		if err != nil {
			return err
		}
		base := rc.Row.At.UnixMilli()
		if rc.Columns != want[base] {
			return fmt.Errorf("logwide: row of %s has %d columns in the range, want %d", rc.Row.At, rc.Columns, want[base])
		}
		p("  %s %s %s  %4d\n", rc.Row.Host, rc.Row.Event, rc.Row.At.Format("15:04"), rc.Columns)
		n++
	}
	if n != len(want) {
		return fmt.Errorf("logwide: %d rows counted, want %d", n, len(want))
	}
	return nil
}

// drop drops the example's tables where they exist.
func drop(ctx context.Context, c Client, adm *admin.Admin) error {
	for _, name := range []string{seeds.LogDataWideName, seeds.LogTypesName} {
		ok, err := c.TableExists(ctx, name)
		if err != nil {
			return fmt.Errorf("logwide: table %s: %w", name, err)
		}
		if ok {
			if err := adm.Drop(ctx, name); err != nil && !errors.Is(err, hbase.ErrTableNotFound) {
				return fmt.Errorf("logwide: drop %s: %w", name, err)
			}
		}
	}
	return nil
}
