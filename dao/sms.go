package dao

import (
	"context"
	"errors"
	"iter"
	"slices"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// SMSRepo is the store of the seed SMS tables (schema.SMSTable: the data
// table and its index) with the seed's queries as calls of their own.
// Every message is checked with schema.ValidateSMS before any write.
type SMSRepo struct {
	*Repo[schema.SMS]
	index *Index[schema.SMS]
}

// NewSMS returns the SMS store on c; opts are those of New.
func NewSMS(c Client, opts ...Option) (*SMSRepo, error) {
	t, err := schema.SMSTable()
	if err != nil {
		return nil, err
	}
	r, err := New(c, t, opts...)
	if err != nil {
		return nil, err
	}
	ix, err := r.Index(schema.SMSIndexTableName)
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
func (s *SMSRepo) Send(ctx context.Context, msgs []*schema.SMS) ([]error, error) {
	return InsertUnique(ctx, s.Repo, msgs, NextSMSSeq)
}

// NextSMSSeq moves m to its next unique suffix, the next key InsertUnique
// tries for a message whose key is taken; false when none is left.
func NextSMSSeq(m *schema.SMS) bool {
	if m.Seq >= maxSMSSeq {
		return false
	}
	m.Seq++
	return true
}

// InsertUnique inserts recs like InsertBatch, and gives each record whose
// row key a live record holds the next key next proposes (by changing
// the record's key fields in place), inserting it again, until it lands or
// next reports none is left (its result then wraps ErrExists). A unique
// suffix, such as the SMS key's Seq, is what next changes.
//
// A record is never moved on for its own write: on an indexed table each
// record keeps one insert token (schema.Record.Token) under every key it
// tries, an insert whose answer the network hid is settled by reading the
// token back, and Check counts two rows holding one token as Duplicates.
// A result wrapping hbase.ErrOutcomeUnknown (the read back failed too) is
// not moved on either: read the record before sending it again. Every
// attempt shares one operation timeout (docs/timeouts.md).
func InsertUnique[T any](ctx context.Context, r *Repo[T], recs []*T, next func(*T) bool) (results []error, err error) {
	ctx, endOp := hbapi.StartOperation(ctx, r.c)
	defer func() { err = endOp(err) }()
	tokens := make([][]byte, len(recs))
	for i := range tokens {
		tokens[i] = index.NewToken()
	}
	results, err = r.batch(ctx, OpInsert, recs, tokens)
	for err != nil {
		var retry []int
		for i, e := range results {
			if errors.Is(e, ErrExists) && next(recs[i]) {
				retry = append(retry, i)
			}
		}
		if len(retry) == 0 {
			break
		}
		again := make([]*T, len(retry))
		againTokens := make([][]byte, len(retry))
		for j, i := range retry {
			again[j], againTokens[j] = recs[i], tokens[i]
		}
		res, _ := r.batch(ctx, OpInsert, again, againTokens)
		for j, i := range retry {
			results[i] = res[j]
		}
		err = r.batchError("insert", results)
	}
	return results, err
}

// batchError is the *BatchError of results, or nil when all succeeded.
func (r *Repo[T]) batchError(op string, results []error) error {
	var failed []ItemError
	for i, err := range results {
		if err != nil {
			failed = append(failed, ItemError{Index: i, Err: err})
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &BatchError{Table: r.name, Op: op, Failed: failed}
}

// WindowQuery returns the query of the messages sent to mobile in
// [from, to), newest first. Use it with Page to page through a window.
func (s *SMSRepo) WindowQuery(mobile string, from, to time.Time) (Query[schema.SMS], error) {
	if !from.Before(to) {
		return Query[schema.SMS]{}, &QueryError{Table: s.name, Field: "window", Reason: "from must be before to"}
	}
	if from.Before(schema.SMSMinTime) {
		from = schema.SMSMinTime
	}
	if t := from.Truncate(time.Millisecond); !t.Equal(from) {
		from = t.Add(time.Millisecond) // keys hold milliseconds: the first one in the window
	}
	last := to.Add(-time.Millisecond).Truncate(time.Millisecond)
	if !to.Truncate(time.Millisecond).Equal(to) {
		last = to.Truncate(time.Millisecond) // to has sub-millisecond parts: its millisecond is in the window
	}
	if last.Before(from) {
		return Query[schema.SMS]{}, &QueryError{Table: s.name, Field: "window", Reason: "the window holds no whole millisecond"}
	}
	return Between(&schema.SMS{Mobile: mobile, SentAt: from}, &schema.SMS{Mobile: mobile, SentAt: last}, 2), nil
}

// Messages returns the messages sent to mobile in [from, to), newest
// first, at most limit of them (0: all). It is one range scan: the row
// key is the reversed mobile followed by the reversed send time.
func (s *SMSRepo) Messages(ctx context.Context, mobile string, from, to time.Time, limit int) iter.Seq2[*schema.SMS, error] {
	q, err := s.WindowQuery(mobile, from, to)
	if err != nil {
		return func(yield func(*schema.SMS, error) bool) { yield(nil, err) }
	}
	q.Limit = limit
	return s.Scan(ctx, q)
}

// Latest returns the n most recent messages sent to mobile, newest first.
func (s *SMSRepo) Latest(ctx context.Context, mobile string, n int) ([]*schema.SMS, error) {
	if n < 1 {
		return nil, &QueryError{Table: s.name, Field: "n", Reason: "want at least 1 message"}
	}
	out := make([]*schema.SMS, 0, min(n, 1024))
	for m, err := range s.Scan(ctx, Query[schema.SMS]{Lo: &schema.SMS{Mobile: mobile}, Fields: 1, Limit: n}) {
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
func (s *SMSRepo) accountDay(account string, day time.Time) Query[schema.SMS] {
	return Eq(&schema.SMS{Account: account, SentAt: day}, "day", "account")
}

// MessagesOfAccountOnDate returns the messages account sent on the UTC day
// of date, newest first, through the index: one scan over its ten bucket
// ranges, then one batch of Gets of the data rows, each checked against
// its entry.
func (s *SMSRepo) MessagesOfAccountOnDate(ctx context.Context, account string, date time.Time) ([]schema.SMS, error) {
	if account == "" {
		return nil, &QueryError{Table: s.index.name, Field: "account", Reason: "missing"}
	}
	msgs, err := Collect(s.index.Find(ctx, s.accountDay(account, dayOf(date))))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(msgs, func(a, b schema.SMS) int {
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
		return nil, &QueryError{Table: s.index.name, Field: "account", Reason: "missing"}
	}
	first, last := dayOf(from), dayOf(to)
	if last.Before(first) {
		return nil, &QueryError{Table: s.index.name, Field: "to", Reason: "range ends before it starts"}
	}
	var qs []Query[schema.SMS]
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
