package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// writer returns the writer of messages: package index's Table, which
// writes each data row together with its index entry (unverified entry,
// conditional data-row write, verification), so that the index never
// misses a message.
func (d *demo) writer() (*index.Table[schema.SMS], error) {
	return index.New(d.c, d.table, index.WithValidator(dao.ValidateSMS))
}

// reader returns the typed repository of the data table, for the
// queries by mobile.
func (d *demo) reader() (*dao.SMSRepo, error) {
	return dao.NewSMS(d.c, dao.WithBatchSize(d.cfg.Batch))
}

// indexRanges returns one scan range per hash bucket of the index key:
// from bucket + the first `fields` key fields of lo (after the bucket) to
// the end of those of hi. The bucket is hash(mobile) % 10, which a query
// by account or by date does not know, so it reads every bucket.
func (d *demo) indexRanges(lo, hi *schema.SMS, fields int) ([]keys.KeyRange, error) {
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
	return dao.BucketRanges(schema.SMSIndexBuckets, width, a[width:], keys.PrefixEnd(b[width:]))
}

// indexQueries runs the two queries the index answers: an account's
// messages on a date, and the number of messages per day.
func (d *demo) indexQueries(ctx context.Context, t *truth) error {
	w, err := d.writer()
	if err != nil {
		return err
	}
	ixName := d.index.Name().String()

	// 3. An account's messages on a date: one scan per bucket of
	//    [bucket][yyyyMMdd][md5(account)], then a batch of Gets of the data
	//    rows the entries point at (each entry is checked against its row).
	name := fmt.Sprintf("messages of account %s on %s", t.account, t.day.Format(time.DateOnly))
	start := time.Now()
	key := &schema.SMS{Mobile: t.mobile, Account: t.account, SentAt: t.day}
	ranges, err := d.indexRanges(key, key, 2)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	got, err := w.Lookup(ctx, ixName, ranges)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	took := time.Since(start)
	want := slices.Clone(t.accountMsgs)
	canon := func(a, b schema.SMS) int { return cmp.Or(cmp.Compare(a.Mobile, b.Mobile), newestFirst(a, b)) }
	sorted := slices.Clone(got)
	slices.SortFunc(sorted, canon)
	slices.SortFunc(want, canon)
	if err := d.check(name, sorted, want); err != nil {
		return err
	}
	d.printf("\n  %s\n    %d messages in %s, as written (index scan of %d buckets + Gets of the data rows)\n",
		name, len(got), roundMs(took), len(ranges))
	d.samples(got)

	// 4. Messages per day over the whole window, from the index alone:
	//    [bucket][yyyyMMdd] ranges, counted by date.
	name = "messages per day"
	start = time.Now()
	last := t.firstDay.AddDate(0, 0, len(t.perDay)-1)
	ranges, err = d.indexRanges(&schema.SMS{Mobile: t.mobile, SentAt: t.firstDay}, &schema.SMS{Mobile: t.mobile, SentAt: last}, 1)
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	width := d.index.KeySegments()[0].Width
	dayWidth := d.index.KeySegments()[1].Width
	counts, err := w.Count(ctx, ixName, ranges, func(k []byte) string { return string(k[width : width+dayWidth]) })
	if err != nil {
		return fmt.Errorf("sms demo: %s: %w", name, err)
	}
	took = time.Since(start)
	var total int64
	var lines []string
	for i, n := range t.perDay {
		day := t.firstDay.AddDate(0, 0, i)
		got := counts[day.Format("20060102")]
		if got != n {
			return &MismatchError{Query: name, Got: int(got), Want: int(n), Detail: "count of " + day.Format(time.DateOnly)}
		}
		total += got
		lines = append(lines, fmt.Sprintf("%s %7s", day.Format(time.DateOnly), grouped(got)))
	}
	if len(counts) != len(t.perDay) {
		return &MismatchError{Query: name, Got: len(counts), Want: len(t.perDay), Detail: "number of days with messages"}
	}
	d.printf("\n  %s\n    %d days, %s messages in %s, from the index alone (scan of %d buckets), as written\n",
		name, len(t.perDay), grouped(total), roundMs(took), len(ranges))
	for lo := 0; lo < len(lines); lo += 4 {
		d.printf("    %s\n", strings.Join(lines[lo:min(lo+4, len(lines))], "   "))
	}
	return nil
}

// check compares two lists of messages in order.
func (d *demo) check(name string, got, want []schema.SMS) error {
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
func (d *demo) samples(ms []schema.SMS) {
	for i := range min(samples, len(ms)) {
		d.printf("    %s\n", smsLine(ms[i]))
	}
	if len(ms) > samples {
		d.printf("    … %d more\n", len(ms)-samples)
	}
}
