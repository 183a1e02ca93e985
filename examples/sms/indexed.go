package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/examples/internal/text"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// store returns the SMS store: it validates every message with the
// schema's check (seeds.ValidateSMS), writes each data row together with
// its index entry through the index protocol (unverified entry,
// conditional data-row write, verification), so that the index never
// misses a message, reads the data table itself (the queries by mobile)
// and answers the queries by account and day through the index.
func (d *demo) store() (*seedstore.SMSRepo, error) {
	return seedstore.NewSMS(d.c, dao.WithBatchSize(d.cfg.Batch))
}

// indexRanges returns one scan range per hash bucket of the index key:
// from bucket + the first `fields` key fields of lo (after the bucket) to
// the end of those of hi. The bucket is hash(mobile) % 10, which a query
// by account or by date does not know, so it reads every bucket.
func (d *demo) indexRanges(lo, hi *seeds.SMS, fields int) ([]keys.KeyRange, error) {
	width := d.index.KeySegments()[0].Width
	l := d.index.Key()
	a, err := l.AppendPrefix(nil, lo, fields+1)
	if err != nil {
		return nil, err
	}
	b, err := l.AppendPrefix(nil, hi, fields+1)
	if err != nil {
		return nil, err
	}
	return dao.BucketRanges(seeds.SMSIndexBuckets, width, a[width:], keys.PrefixEnd(b[width:]))
}

// indexQueries runs the two queries the index answers: an account's
// messages on a date, and the number of messages per day.
func (d *demo) indexQueries(ctx context.Context, w *seedstore.SMSRepo, t *truth) error {
	ix, err := w.Index(d.index.Name().String())
	if err != nil {
		return err
	}

	// 3. An account's messages on a date: one scan over the ten bucket
	//    ranges [bucket][yyyyMMdd][md5(account)], then a batch of Gets of
	//    the data rows the entries point at (each entry checked against
	//    its row).
	name := fmt.Sprintf("messages of account %s on %s", t.account, t.day.Format(time.DateOnly))
	start := time.Now()
	got, err := w.MessagesOfAccountOnDate(ctx, t.account, t.day)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	took := time.Since(start)
	want := slices.Clone(t.accountMsgs)
	canon := func(a, b seeds.SMS) int { return cmp.Or(cmp.Compare(a.Mobile, b.Mobile), newestFirst(a, b)) }
	sorted := slices.Clone(got)
	slices.SortFunc(sorted, canon)
	slices.SortFunc(want, canon)
	if err := d.check(name, sorted, want); err != nil {
		return err
	}
	d.printf("\n  %s\n    %d messages in %s, newest first, as written (index scan of %d buckets + Gets of the data rows)\n",
		name, len(got), roundMs(took), seeds.SMSIndexBuckets)
	d.samples(got)

	// 4. The account's messages per day over the window, from the index
	//    alone.
	last := t.firstDay.AddDate(0, 0, len(t.perDay)-1)
	name = fmt.Sprintf("messages of account %s per day", t.account)
	start = time.Now()
	days, err := w.CountPerDay(ctx, t.account, t.firstDay, last)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	took = time.Since(start)
	if len(days) != len(t.accountPerDay) {
		return &MismatchError{Query: name, Got: len(days), Want: len(t.accountPerDay), Detail: "number of days"}
	}
	var total int64
	var lines []string
	for i, dc := range days {
		if want := t.firstDay.AddDate(0, 0, i); !dc.Date.Equal(want) || dc.Count != t.accountPerDay[i] {
			return &MismatchError{Query: name, Got: int(dc.Count), Want: int(t.accountPerDay[i]),
				Detail: fmt.Sprintf("day %d is %s with %d messages, want %s with %d", i,
					dc.Date.Format(time.DateOnly), dc.Count, want.Format(time.DateOnly), t.accountPerDay[i])}
		}
		total += dc.Count
		lines = append(lines, fmt.Sprintf("%s %3d", dc.Date.Format("01-02"), dc.Count))
	}
	d.printf("\n  %s\n    %d days, %s messages in %s, from the index alone (%d ranges: %d buckets × %d days), as written\n",
		name, len(days), text.Grouped(total), roundMs(took), seeds.SMSIndexBuckets*len(days), seeds.SMSIndexBuckets, len(days))
	for lo := 0; lo < len(lines); lo += 8 {
		d.printf("    %s\n", strings.Join(lines[lo:min(lo+8, len(lines))], "   "))
	}

	// 5. All messages per day over the window, from the index alone:
	//    [bucket][yyyyMMdd] ranges, counted by date.
	name = "all messages per day"
	start = time.Now()
	ranges, err := d.indexRanges(&seeds.SMS{Mobile: t.mobile, SentAt: t.firstDay}, &seeds.SMS{Mobile: t.mobile, SentAt: last}, 1)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	counts, err := ix.Count(ctx, dao.Query[seeds.SMS]{Ranges: ranges}, "day")
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	took = time.Since(start)
	total, lines = 0, nil
	for i, n := range t.perDay {
		day := t.firstDay.AddDate(0, 0, i)
		got := counts[day.Format(time.DateOnly)]
		if got != n {
			return &MismatchError{Query: name, Got: int(got), Want: int(n), Detail: "count of " + day.Format(time.DateOnly)}
		}
		total += got
		lines = append(lines, fmt.Sprintf("%s %7s", day.Format(time.DateOnly), text.Grouped(got)))
	}
	busy := 0
	for _, n := range t.perDay {
		if n > 0 {
			busy++
		}
	}
	if len(counts) != busy {
		return &MismatchError{Query: name, Got: len(counts), Want: busy, Detail: "number of days with messages"}
	}
	d.printf("\n  %s\n    %d days, %s messages in %s, from the index alone (scan of %d buckets), as written\n",
		name, len(t.perDay), text.Grouped(total), roundMs(took), len(ranges))
	for lo := 0; lo < len(lines); lo += 4 {
		d.printf("    %s\n", strings.Join(lines[lo:min(lo+4, len(lines))], "   "))
	}
	return nil
}

// check compares two lists of messages in order.
func (d *demo) check(name string, got, want []seeds.SMS) error {
	if len(got) != len(want) {
		return &MismatchError{Query: name, Got: len(got), Want: len(want), Detail: "row count differs"}
	}
	for i := range got {
		if !sameSMS(got[i], want[i]) {
			return &MismatchError{Query: name, Got: len(got), Want: len(want),
				Detail: fmt.Sprintf("row %d is %s, want %s", i, smsLine(got[i]), smsLine(want[i]))}
		}
	}
	return nil
}

// samples prints the first few messages.
func (d *demo) samples(ms []seeds.SMS) {
	for i := range min(samples, len(ms)) {
		d.printf("    %s\n", smsLine(ms[i]))
	}
	if len(ms) > samples {
		d.printf("    … %d more\n", len(ms)-samples)
	}
}
