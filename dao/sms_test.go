package dao_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
)

func TestSMSMessages(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	recs := smsData(t, r)
	m0 := mobiles[0]
	cases := []struct {
		name     string
		from, to time.Time
		limit    int
	}{
		{"whole span", t0, t0.Add(3 * time.Hour), 0},
		{"from included, to excluded", t0.Add(10 * time.Minute), t0.Add(50 * time.Minute), 0},
		{"a single millisecond", t0, t0.Add(time.Millisecond), 0},
		{"sub-millisecond bounds", t0.Add(-time.Microsecond), t0.Add(10*time.Minute + time.Microsecond), 0},
		{"before the epoch", time.Unix(-100, 0), t0.Add(time.Minute), 0},
		{"limit", t0, t0.Add(3 * time.Hour), 4},
		{"empty window", t0.Add(time.Minute), t0.Add(2 * time.Minute), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []*seeds.SMS
			for m, err := range r.Messages(ctx, m0, tc.from, tc.to, tc.limit) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, m)
			}
			var want []*seeds.SMS
			for _, m := range recs {
				ms := m.SentAt.UnixMilli()
				if m.Mobile == m0 && ms >= ceilMilli(tc.from) && ms < ceilMilli(tc.to) {
					want = append(want, m)
				}
			}
			// newest first; same millisecond by seq
			slices.SortStableFunc(want, func(a, b *seeds.SMS) int {
				if c := b.SentAt.Compare(a.SentAt); c != 0 {
					return c
				}
				return int(a.Seq) - int(b.Seq)
			})
			if tc.limit > 0 && len(want) > tc.limit {
				want = want[:tc.limit]
			}
			if len(got) != len(want) {
				t.Fatalf("%d messages, want %d", len(got), len(want))
			}
			for i := range got {
				if !got[i].SentAt.Equal(want[i].SentAt) || got[i].Seq != want[i].Seq || got[i].Content != want[i].Content {
					t.Errorf("message %d = %s, want %s", i, got[i].Content, want[i].Content)
				}
			}
		})
	}
}

// ceilMilli is the first millisecond at or after t, clamped at the epoch.
func ceilMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return max(ms, 0)
}

func TestSMSWindowErrors(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	cases := []struct {
		name     string
		mobile   string
		from, to time.Time
	}{
		{"to before from", mobiles[0], t0, t0.Add(-time.Second)},
		{"empty", mobiles[0], t0, t0},
		{"no whole millisecond", mobiles[0], t0.Add(100 * time.Microsecond), t0.Add(900 * time.Microsecond)},
		{"bad mobile", "12345", t0, t0.Add(time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for m, err := range r.Messages(ctx, tc.mobile, tc.from, tc.to, 0) {
				if m != nil || !errors.Is(err, dao.ErrInvalidQuery) {
					t.Fatalf("Messages = %v, %v; want ErrInvalidQuery", m, err)
				}
			}
		})
	}
}

func TestSMSLatest(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	smsData(t, r)
	got, err := r.Latest(ctx, mobiles[3], 3)
	if err != nil || len(got) != 3 {
		t.Fatalf("Latest = %d messages, %v; want 3", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].SentAt.After(got[i-1].SentAt) {
			t.Errorf("message %d is newer than message %d", i, i-1)
		}
	}
	if want := t0.Add(113 * time.Minute); !got[0].SentAt.Equal(want) || got[0].Mobile != mobiles[3] {
		t.Errorf("latest = %s at %v, want %s at %v", got[0].Mobile, got[0].SentAt, mobiles[3], want)
	}
	if _, err := r.Latest(ctx, mobiles[3], 0); !errors.Is(err, dao.ErrInvalidQuery) {
		t.Errorf("Latest(0) = %v, want ErrInvalidQuery", err)
	}
	none, err := r.Latest(ctx, "10000000000", 5)
	if err != nil || len(none) != 0 {
		t.Errorf("Latest of an unknown mobile = %v, %v", none, err)
	}
}
