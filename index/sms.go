package index

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// SMS is the seed-000 SMS store with its index (schema.SMSTable): a Table
// of schema.SMS records plus the seed's two queries as first-class calls.
type SMS struct {
	*Table[schema.SMS]
}

// NewSMS returns the SMS store over c. Options are those of New; use
// WithTableNames to serve the built-in schema under other table names.
func NewSMS(c Client, opts ...Option) (*SMS, error) {
	t, err := schema.SMSTable()
	if err != nil {
		return nil, err
	}
	tb, err := New(c, t, opts...)
	if err != nil {
		return nil, err
	}
	return &SMS{Table: tb}, nil
}

// DayCount is the number of messages of one UTC day.
type DayCount struct {
	Date  time.Time // midnight UTC
	Count int64
}

// smsPrefixes returns the index ranges of account on each UTC day from
// from to to (both included): the index key starts with hash(mobile) % 10,
// unknown to the query, so each day costs one range per bucket, all read
// in a single scan.
func smsPrefixes(account string, from, to time.Time) ([]keys.KeyRange, error) {
	if account == "" {
		return nil, fmt.Errorf("%w: empty account", ErrInvalidQuery)
	}
	first := dayOf(from)
	last := dayOf(to)
	if last.Before(first) {
		return nil, fmt.Errorf("%w: range ends before it starts", ErrInvalidQuery)
	}
	var out []keys.KeyRange
	for b := range schema.SMSIndexBuckets {
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			p, err := keys.AppendBucket(nil, b, schema.SMSIndexBuckets)
			if err == nil {
				p, err = keys.AppendDate(p, d)
			}
			if err == nil {
				p, err = keys.AppendMD5Hex(p, account, schema.SMSAccountMD5Hex)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
			}
			out = append(out, keys.KeyRange{Start: p, Stop: keys.PrefixEnd(p)})
		}
	}
	return out, nil
}

func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// MessagesOfAccountOnDate returns the messages account sent on the UTC
// day of date, newest first: one scan over the ten bucket ranges of the
// index, then one batch of Gets of the data rows, each checked against
// its entry.
func (s *SMS) MessagesOfAccountOnDate(ctx context.Context, account string, date time.Time) ([]schema.SMS, error) {
	ranges, err := smsPrefixes(account, date, date)
	if err != nil {
		return nil, err
	}
	msgs, err := s.Lookup(ctx, schema.SMSIndexTableName, ranges)
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

// CountPerDay returns the number of messages account sent on each UTC day
// from from to to, both included, from the index alone (unverified entries
// excepted, see Table.Count). Days without messages are listed with a zero
// count, in date order.
func (s *SMS) CountPerDay(ctx context.Context, account string, from, to time.Time) ([]DayCount, error) {
	ranges, err := smsPrefixes(account, from, to)
	if err != nil {
		return nil, err
	}
	bw := keys.BucketWidth(schema.SMSIndexBuckets)
	counts, err := s.Count(ctx, schema.SMSIndexTableName, ranges, func(key []byte) string {
		if len(key) < bw+keys.DateWidth {
			return ""
		}
		return string(key[bw : bw+keys.DateWidth])
	})
	if err != nil {
		return nil, err
	}
	var out []DayCount
	for d := dayOf(from); !d.After(dayOf(to)); d = d.AddDate(0, 0, 1) {
		out = append(out, DayCount{Date: d, Count: counts[d.Format("20060102")]})
	}
	return out, nil
}
