package dao_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// uidIndexName is the index of uidIndexedLog.
const uidIndexName = "log_uid_by_event"

// uidIndexedLog is LogDataUID with an index keyed by ids too:
// [event id][ts][host id], the events of one type in time order.
func uidIndexedLog(t testing.TB) *schema.Table[seeds.UIDLogEvent] {
	t.Helper()
	uids := seeds.LogDataUIDs()
	ts := func() keys.Field[seeds.UIDLogEvent] {
		return keys.Int64("ts", func(e *seeds.UIDLogEvent) int64 { return e.At.UnixMilli() },
			func(e *seeds.UIDLogEvent, ms int64) { e.At = time.UnixMilli(ms).UTC() })
	}
	key, err := keys.NewLayout(uids[0].Field(), uids[1].Field(), ts())
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(uids[1].Field(), ts(), uids[0].Field())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[seeds.UIDLogEvent]{
		Name:     "log_data_uid_indexed",
		Families: []schema.Family{{Name: "l"}},
		Key:      key,
		UIDs:     uids,
		Columns: []schema.Column[seeds.UIDLogEvent]{
			schema.StringColumn("message", "l", "m",
				func(e *seeds.UIDLogEvent) string { return e.Message }, func(e *seeds.UIDLogEvent, v string) { e.Message = v }),
		},
		Indexes: []schema.IndexSpec[seeds.UIDLogEvent]{{Name: uidIndexName, Families: []schema.Family{{Name: "i"}}, Key: ixKey, RowKeyQualifier: "r"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// checkUIDIndexCounts writes events through a store of uidIndexedLog on c
// and checks that Index.Count and CountRanges look up the names their
// queries give (host, event) as Find does: the counts equal those of the
// records written, and a name nobody wrote counts nothing and gets no id.
func checkUIDIndexCounts(t *testing.T, c dao.Client, u *dao.UIDs, opts ...dao.Option) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := dao.New(c, uidIndexedLog(t), append(opts, dao.WithUIDs(u))...)
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"web01.example.com", "db02.example.com", "a"}
	events := []string{"login", "com.package1.ImportantService", "logout"}
	perEvent := map[string]int64{}
	perEventHost := map[string]map[string]int64{} // event, host id bytes
	var evs []*seeds.UIDLogEvent
	for i := range 24 {
		host, event := hosts[i%3], events[(i/2)%3]
		evs = append(evs, uidEvent(host, event, t0.Add(time.Duration(i)*time.Second), fmt.Sprint("message ", i)))
		perEvent[event]++
	}
	if _, err := r.PutBatch(ctx, evs); err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		id, ok, err := u.Lookup(ctx, seeds.LogHostKind, e.Host)
		if err != nil || !ok {
			t.Fatalf("Lookup(%q) = %d, %v, %v", e.Host, id, ok, err)
		}
		b, err := schema.AppendUID(nil, id, seeds.LogHostWidth)
		if err != nil {
			t.Fatal(err)
		}
		if perEventHost[e.Event] == nil {
			perEventHost[e.Event] = map[string]int64{}
		}
		perEventHost[e.Event][string(b)]++
	}
	x, err := r.Index(uidIndexName)
	if err != nil {
		t.Fatal(err)
	}
	event := func(name string, at time.Time) *seeds.UIDLogEvent { return uidEvent("", name, at, "") }

	for _, name := range events {
		got, err := x.Count(ctx, dao.Eq(event(name, time.Time{}), "event_id"), "")
		if err != nil {
			t.Fatalf("Count(%q): %v", name, err)
		}
		if want := map[string]int64{"": perEvent[name]}; !maps.Equal(got, want) {
			t.Errorf("Count(event %q) = %v, want %v", name, got, want)
		}
		got, err = x.Count(ctx, dao.Eq(event(name, time.Time{}), "event_id"), "host_id")
		if err != nil {
			t.Fatalf("Count(%q by host_id): %v", name, err)
		}
		if !maps.Equal(got, perEventHost[name]) {
			t.Errorf("Count(event %q) by host id = %x, want %x", name, got, perEventHost[name])
		}
	}

	// The first ten seconds of one event type: names and times in one query.
	lo, hi := event("login", t0), event("login", t0.Add(9*time.Second))
	var want int64
	for _, e := range evs {
		if e.Event == "login" && !e.At.After(hi.At) {
			want++
		}
	}
	got, err := x.Count(ctx, dao.Range(lo, hi, "event_id", "ts"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got[""] != want || want == 0 {
		t.Errorf("Count(login, first 10s) = %v, want %d", got, want)
	}

	qs := []dao.Query[seeds.UIDLogEvent]{
		dao.Eq(event("login", time.Time{}), "event_id"),
		dao.Eq(event("logout", time.Time{}), "event_id"),
	}
	got, err = x.CountRanges(ctx, qs, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := perEvent["login"] + perEvent["logout"]; got[""] != want {
		t.Errorf("CountRanges(login, logout) = %v, want %d", got, want)
	}

	// A name nobody wrote counts nothing, alone or with others, and is not
	// assigned an id by the read.
	got, err = x.Count(ctx, dao.Eq(event("nobody", time.Time{}), "event_id"), "")
	if err != nil || got[""] != 0 {
		t.Errorf("Count(unknown event) = %v, %v, want nothing", got, err)
	}
	got, err = x.CountRanges(ctx, append(qs[:1:1], dao.Eq(event("nobody", time.Time{}), "event_id")), "")
	if err != nil || got[""] != perEvent["login"] {
		t.Errorf("CountRanges(login, unknown) = %v, %v, want %d", got, err, perEvent["login"])
	}
	if _, ok, err := u.Lookup(ctx, seeds.LogEventKind, "nobody"); ok || err != nil {
		t.Errorf("a count assigned an id to an unknown name (%v)", err)
	}
}

// Index.Count and CountRanges on a table keyed by UIDs translate the names
// of their queries into ids, on the fake.
func TestUIDIndexCount(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	createTables(t, f, uidIndexedLog(t))
	checkUIDIndexCounts(t, f, u)
}
