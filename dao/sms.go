package dao

import (
	"context"
	"iter"
	"time"

	"github.com/hbkit/hbkit/schema"
)

// SMSRepo is a Repo over the seed SMS data table (schema.SMSTable) with
// the seed's queries as calls of their own. It validates every message
// with ValidateSMS before any write.
type SMSRepo struct {
	*Repo[schema.SMS]
}

// NewSMS returns the repository of the seed SMS table on c. opts are
// those of New; ValidateSMS runs before any validator they add.
func NewSMS(c Client, opts ...Option) (*SMSRepo, error) {
	t, err := schema.SMSTable()
	if err != nil {
		return nil, err
	}
	r, err := New(c, t, append([]Option{WithValidator(ValidateSMS)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &SMSRepo{r}, nil
}

// Bounds of a valid SMS send time: the Unix epoch (the reversed timestamp
// holds no earlier instant) and the end of year 9999 (the index key's
// yyyyMMdd date holds no later one).
var (
	minSMSTime = time.Unix(0, 0).UTC()
	maxSMSTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ValidateSMS checks the rules of a stored message that its row key alone
// does not enforce: an 11-digit mobile, a sending account, and a send time
// between the Unix epoch and the end of year 9999. Errors come from
// Invalid and name the field.
func ValidateSMS(m *schema.SMS) error {
	if len(m.Mobile) != schema.SMSMobileWidth {
		return Invalid("mobile", "want 11 digits")
	}
	for i := 0; i < len(m.Mobile); i++ {
		if c := m.Mobile[i]; c < '0' || c > '9' {
			return Invalid("mobile", "want 11 digits")
		}
	}
	if m.Account == "" {
		return Invalid("account", "missing")
	}
	if m.SentAt.Before(minSMSTime) || !m.SentAt.Before(maxSMSTime) {
		return Invalid("sent", "send time out of range [1970-01-01, 9999-12-31]")
	}
	return nil
}

// WindowQuery returns the query of the messages sent to mobile in
// [from, to), newest first. Use it with Page to page through a window.
func (s *SMSRepo) WindowQuery(mobile string, from, to time.Time) (Query[schema.SMS], error) {
	if !from.Before(to) {
		return Query[schema.SMS]{}, &QueryError{Table: s.name, Field: "window", Reason: "from must be before to"}
	}
	if from.Before(minSMSTime) {
		from = minSMSTime
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
