package seedstore

import (
	"context"
	"iter"
	"slices"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
)

// SMSRepo is the store of the seed SMS tables (seeds.SMSTable: the data
// table and its index) with the seed's queries as calls of their own.
// Every message is checked with seeds.ValidateSMS before any write.
type SMSRepo struct {
	*dao.Repo[seeds.SMS]
	index *dao.Index[seeds.SMS]
}

// NewSMS returns the SMS store on c; opts are those of New.
func NewSMS(c dao.Client, opts ...dao.Option) (*SMSRepo, error) {
	t, err := seeds.SMSTable()
	if err != nil {
		return nil, err
	}
	r, err := dao.New(c, t, opts...)
	if err != nil {
		return nil, err
	}
	ix, err := r.Index(seeds.SMSIndexTableName)
	if err != nil {
		return nil, err
	}
	return &SMSRepo{Repo: r, index: ix}, nil
}

// maxSMSSeq bounds the unique suffix (4 hex digits).
const maxSMSSeq = 0xFFFF

// Send stores new messages, each with Insert semantics, and never loses
// one to another message of the same mobile in the same millisecond: a
// message whose row key is taken gets the next free unique suffix (Seq)
// and is inserted again (InsertUnique), until it lands or the suffixes run
// out (its result then wraps ErrExists). The Seq of each message in msgs
// is updated to the one it was stored under.
func (s *SMSRepo) Send(ctx context.Context, msgs []*seeds.SMS) ([]error, error) {
	return dao.InsertUnique(ctx, s.Repo, msgs, NextSMSSeq)
}

// NextSMSSeq moves m to its next unique suffix, the next key InsertUnique
// tries for a message whose key is taken; false when none is left.
func NextSMSSeq(m *seeds.SMS) bool {
	if m.Seq >= maxSMSSeq {
		return false
	}
	m.Seq++
	return true
}

// WindowQuery returns the query of the messages sent to mobile in
// [from, to), newest first. Use it with Page to page through a window.
func (s *SMSRepo) WindowQuery(mobile string, from, to time.Time) (dao.Query[seeds.SMS], error) {
	if !from.Before(to) {
		return dao.Query[seeds.SMS]{}, &dao.QueryError{Table: s.Name(), Field: "window", Reason: "from must be before to"}
	}
	if from.Before(seeds.SMSMinTime) {
		from = seeds.SMSMinTime
	}
	if t := from.Truncate(time.Millisecond); !t.Equal(from) {
		from = t.Add(time.Millisecond) // keys hold milliseconds: the first one in the window
	}
	last := to.Add(-time.Millisecond).Truncate(time.Millisecond)
	if !to.Truncate(time.Millisecond).Equal(to) {
		last = to.Truncate(time.Millisecond) // to has sub-millisecond parts: its millisecond is in the window
	}
	if last.Before(from) {
		return dao.Query[seeds.SMS]{}, &dao.QueryError{Table: s.Name(), Field: "window", Reason: "the window holds no whole millisecond"}
	}
	return dao.Between(&seeds.SMS{Mobile: mobile, SentAt: from}, &seeds.SMS{Mobile: mobile, SentAt: last}, 2), nil
}

// Messages returns the messages sent to mobile in [from, to), newest
// first, at most limit of them (0: all). It is one range scan: the row
// key is the reversed mobile followed by the reversed send time.
func (s *SMSRepo) Messages(ctx context.Context, mobile string, from, to time.Time, limit int) iter.Seq2[*seeds.SMS, error] {
	q, err := s.WindowQuery(mobile, from, to)
	if err != nil {
		return func(yield func(*seeds.SMS, error) bool) { yield(nil, err) }
	}
	q.Limit = limit
	return s.Scan(ctx, q)
}

// Latest returns the n most recent messages sent to mobile, newest first.
func (s *SMSRepo) Latest(ctx context.Context, mobile string, n int) ([]*seeds.SMS, error) {
	if n < 1 {
		return nil, &dao.QueryError{Table: s.Name(), Field: "n", Reason: "want at least 1 message"}
	}
	out := make([]*seeds.SMS, 0, min(n, 1024))
	for m, err := range s.Scan(ctx, dao.Query[seeds.SMS]{Lo: &seeds.SMS{Mobile: mobile}, Fields: 1, Limit: n}) {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// accountDay is the index query of account's messages on one UTC day: the
// index key starts with hash(mobile) % 10, unknown to the query, so it
// reads one range per bucket.
func (s *SMSRepo) accountDay(account string, day time.Time) dao.Query[seeds.SMS] {
	return dao.Eq(&seeds.SMS{Account: account, SentAt: day}, "day", "account")
}

// MessagesOfAccountOnDate returns the messages account sent on the UTC day
// of date, newest first, through the index: one scan over its ten bucket
// ranges, then one batch of Gets of the data rows, each checked against
// its entry.
func (s *SMSRepo) MessagesOfAccountOnDate(ctx context.Context, account string, date time.Time) ([]seeds.SMS, error) {
	if account == "" {
		return nil, &dao.QueryError{Table: s.index.Name(), Field: "account", Reason: "missing"}
	}
	msgs, err := dao.Collect(s.index.Find(ctx, s.accountDay(account, dayOf(date))))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(msgs, func(a, b seeds.SMS) int {
		if c := b.SentAt.Compare(a.SentAt); c != 0 {
			return c
		}
		return int(b.Seq) - int(a.Seq)
	})
	return msgs, nil
}

// DayCount is the number of messages of one UTC day.
type DayCount struct {
	Date  time.Time // midnight UTC
	Count int64
}

// CountPerDay returns the number of messages account sent on each UTC day
// from from to to, both included, from the index alone (see Index.Count).
// Days without messages are listed with a zero count, in date order.
func (s *SMSRepo) CountPerDay(ctx context.Context, account string, from, to time.Time) ([]DayCount, error) {
	if account == "" {
		return nil, &dao.QueryError{Table: s.index.Name(), Field: "account", Reason: "missing"}
	}
	first, last := dayOf(from), dayOf(to)
	if last.Before(first) {
		return nil, &dao.QueryError{Table: s.index.Name(), Field: "to", Reason: "range ends before it starts"}
	}
	var qs []dao.Query[seeds.SMS]
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		qs = append(qs, s.accountDay(account, d))
	}
	counts, err := s.index.CountRanges(ctx, qs, "day")
	if err != nil {
		return nil, err
	}
	var out []DayCount
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		out = append(out, DayCount{Date: d, Count: counts[d.Format(time.DateOnly)]})
	}
	return out, nil
}

func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
