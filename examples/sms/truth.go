package main

import (
	"cmp"
	"slices"
	"time"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
)

// truth is what the demo knows about the workload without asking HBase:
// the answers its queries must give. It is computed from the generator
// (which is deterministic), before anything is written.
type truth struct {
	messages int64
	from, to time.Time // the window, [from, to)

	// The mobile with the most messages and all of them, newest first.
	mobile     string
	mobileMsgs []seeds.SMS
	// The window query: [winFrom, winTo) on that mobile.
	winFrom, winTo time.Time
	// The account and UTC date with the most messages, and those messages.
	account     string
	day         time.Time
	accountMsgs []seeds.SMS
	// That account's messages per UTC date, from the first date.
	accountPerDay []int64
	// Messages and delivered messages per UTC date, from the first date.
	perDay       []int64
	perDayOK     []int64
	firstDay     time.Time
	distinctMobs int
}

type accountDay struct {
	account string
	day     int
}

// survey walks the workload once to count, then once more to keep the
// messages of the mobile and the account-day the queries ask about.
func survey(w *seedsim.SMSWorkload) *truth {
	from, to := w.Window()
	t := &truth{from: from, to: to, firstDay: from.Truncate(24 * time.Hour)}
	days := int(to.Sub(t.firstDay)/(24*time.Hour)) + 1
	t.perDay = make([]int64, days)
	t.perDayOK = make([]int64, days)
	perMobile := make(map[string]int)
	perAccountDay := make(map[accountDay]int)
	for m := range w.Records() {
		t.messages++
		day := int(m.SentAt.Sub(t.firstDay) / (24 * time.Hour))
		t.perDay[day]++
		if m.Delivered {
			t.perDayOK[day]++
		}
		perMobile[m.Mobile]++
		perAccountDay[accountDay{m.Account, day}]++
	}
	for len(t.perDay) > 0 && t.perDay[len(t.perDay)-1] == 0 {
		t.perDay, t.perDayOK = t.perDay[:len(t.perDay)-1], t.perDayOK[:len(t.perDayOK)-1]
	}
	t.distinctMobs = len(perMobile)
	t.mobile = busiest(perMobile, func(a, b string) int { return cmp.Compare(a, b) })
	ad := busiest(perAccountDay, func(a, b accountDay) int {
		return cmp.Or(cmp.Compare(a.account, b.account), cmp.Compare(a.day, b.day))
	})
	t.account, t.day = ad.account, t.firstDay.AddDate(0, 0, ad.day)

	t.accountPerDay = make([]int64, len(t.perDay))
	for m := range w.Records() {
		if m.Account == t.account {
			t.accountPerDay[int(m.SentAt.Sub(t.firstDay)/(24*time.Hour))]++
		}
		if m.Mobile == t.mobile {
			t.mobileMsgs = append(t.mobileMsgs, *m)
		}
		if m.Account == t.account && !m.SentAt.Before(t.day) && m.SentAt.Before(t.day.AddDate(0, 0, 1)) {
			t.accountMsgs = append(t.accountMsgs, *m)
		}
	}
	// Newest first, as the data table's key orders a mobile's messages;
	// messages of the same millisecond by their unique suffix.
	slices.SortFunc(t.mobileMsgs, newestFirst)
	// The window query asks for the middle third of the workload's window
	// (to the hour), so that it cuts off messages on both sides.
	span := to.Sub(from)
	t.winFrom = from.Add(span / 3).Truncate(time.Hour)
	t.winTo = from.Add(2 * span / 3).Truncate(time.Hour)
	return t
}

// newestFirst orders messages as the data row key does within a mobile.
func newestFirst(a, b seeds.SMS) int {
	return cmp.Or(b.SentAt.Compare(a.SentAt), cmp.Compare(a.Seq, b.Seq))
}

// busiest returns the key with the highest count; ties go to the smallest
// key, so that the choice does not depend on map order.
func busiest[K comparable](counts map[K]int, less func(a, b K) int) K {
	var best K
	n := -1
	for k, c := range counts {
		if c > n || (c == n && less(k, best) < 0) {
			best, n = k, c
		}
	}
	return best
}

// inWindow returns the messages of ms sent in [from, to), in the order of
// ms.
func inWindow(ms []seeds.SMS, from, to time.Time) []seeds.SMS {
	var out []seeds.SMS
	for _, m := range ms {
		if !m.SentAt.Before(from) && m.SentAt.Before(to) {
			out = append(out, m)
		}
	}
	return out
}
