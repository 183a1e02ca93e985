package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
)

// samples is how many rows each query prints.
const samples = 3

// MismatchError reports a query whose answer differs from what the
// workload wrote.
type MismatchError struct {
	Query  string
	Got    int
	Want   int
	Detail string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("sms demo: query %q returned %d rows, want %d: %s", e.Query, e.Got, e.Want, e.Detail)
}

// queries runs the seed's queries and checks each answer against truth.
func (d *demo) queries(ctx context.Context, t *truth) error {
	repo, err := d.store()
	if err != nil {
		return err
	}
	d.printf("Queries (each answer checked against the generated workload)\n")

	// 1. A mobile's latest N messages: one scan of the prefix
	//    [reversed mobile], newest first because the timestamp is reversed.
	name := fmt.Sprintf("latest %d messages of mobile %s", d.cfg.Latest, t.mobile)
	start := time.Now()
	latest, err := repo.Latest(ctx, t.mobile, d.cfg.Latest)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	want := t.mobileMsgs[:min(d.cfg.Latest, len(t.mobileMsgs))]
	if err := d.report(name, time.Since(start), deref(latest), want, len(t.mobileMsgs)); err != nil {
		return err
	}

	// 2. A mobile's messages in a time window: one scan between
	//    [mobile][reversed to] and [mobile][reversed from].
	name = fmt.Sprintf("messages of mobile %s sent %s .. %s", t.mobile,
		t.winFrom.Format("2006-01-02 15:04"), t.winTo.Format("2006-01-02 15:04"))
	start = time.Now()
	got, err := dao.Collect(repo.Messages(ctx, t.mobile, t.winFrom, t.winTo, 0))
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	want = inWindow(t.mobileMsgs, t.winFrom, t.winTo)
	if err := d.report(name, time.Since(start), got, want, len(t.mobileMsgs)); err != nil {
		return err
	}

	return d.indexQueries(ctx, repo, t)
}

// deref copies records.
func deref(ms []*seeds.SMS) []seeds.SMS {
	out := make([]seeds.SMS, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out
}

// report checks got against want, in order, and prints the query's
// outcome and a few rows.
func (d *demo) report(name string, took time.Duration, got, want []seeds.SMS, of int) error {
	if err := d.check(name, got, want); err != nil {
		return err
	}
	d.printf("\n  %s\n    %d messages (of the mobile's %d) in %s, newest first, as written (one range scan)\n",
		name, len(got), of, roundMs(took))
	d.samples(got)
	return nil
}

// sameSMS compares every field of two messages.
func sameSMS(a, b seeds.SMS) bool {
	return a.Mobile == b.Mobile && a.SentAt.Equal(b.SentAt) && a.Seq == b.Seq &&
		a.Account == b.Account && a.Content == b.Content && a.Delivered == b.Delivered
}

// smsLine shows one message on one line (generated data: the numbers are
// not anyone's).
func smsLine(m seeds.SMS) string {
	st := "delivered"
	if !m.Delivered {
		st = "failed"
	}
	return fmt.Sprintf("%s  %s  %s  %-9s %s", m.SentAt.Format("2006-01-02 15:04:05.000"), m.Mobile, m.Account, st, m.Content)
}

func roundMs(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Millisecond)
}
