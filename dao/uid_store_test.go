package dao_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

// logUIDStore returns a store of LogDataUID and its LOG_TYPES on c,
// creating both tables on f.
func logUIDStore(t *testing.T, c dao.Client, u *dao.UIDs, opts ...dao.Option) *dao.Repo[seeds.UIDLogEvent] {
	t.Helper()
	tbl, err := seeds.LogDataUID()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dao.New(c, tbl, append(opts, dao.WithUIDs(u))...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func uidEvent(host, event string, at time.Time, msg string) *seeds.UIDLogEvent {
	return &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: host, Event: event, At: at, Message: msg}}
}

func TestUIDStore(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	r := logUIDStore(t, f, u)
	createTables(t, f, r.Table())

	evs := []*seeds.UIDLogEvent{
		uidEvent("myserver1.mycompany.com", "com.package1.subpackage2.subsubpackage3.ImportantService", t0, "started"),
		uidEvent("a", "e1", t0.Add(time.Second), "short names"),
		uidEvent("myserver1.mycompany.com", "com.package1.subpackage2.subsubpackage3.ImportantService", t0.Add(time.Minute), "stopped"),
	}
	if _, err := r.PutBatch(ctx, evs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(ctx, evs[2]); err != nil {
		t.Fatal(err)
	}
	for _, k := range rawKeys(t, f, seeds.LogDataUIDName) {
		if len(k) != seeds.LogHostWidth+seeds.LogEventWidth+8 {
			t.Errorf("row key %x is %d bytes, want 13", k, len(k))
		}
	}
	got, ok, err := r.Get(ctx, uidEvent("myserver1.mycompany.com", "com.package1.subpackage2.subsubpackage3.ImportantService", t0.Add(time.Minute), ""))
	if err != nil || !ok || got.Message != "stopped" || got.Host != "myserver1.mycompany.com" || got.HostID != 1 || got.EventID != 1 {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
	var msgs []string
	for e, err := range r.Scan(ctx, dao.Prefix(uidEvent("myserver1.mycompany.com", "", time.Time{}, ""), 1)) {
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, e.Host+" "+e.Event[:12]+" "+e.Message)
	}
	if fmt.Sprint(msgs) != "[myserver1.mycompany.com com.package1 started myserver1.mycompany.com com.package1 stopped]" {
		t.Errorf("Scan of a host = %q", msgs)
	}
	// A name nobody wrote selects nothing and assigns nothing.
	for e, err := range r.Scan(ctx, dao.Prefix(uidEvent("nobody", "", time.Time{}, ""), 1)) {
		t.Errorf("Scan of an unknown host: %v, %v", e, err)
	}
	if _, ok, _ := u.Lookup(ctx, "host", "nobody"); ok {
		t.Error("a read assigned an id")
	}
	if err := r.Delete(ctx, evs[1]); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, uidEvent("a", "e1", t0.Add(time.Second), "")); ok || err != nil {
		t.Errorf("Get after Delete = %v, %v", ok, err)
	}

	err = r.Put(ctx, uidEvent("", "e1", t0, "no host"))
	var ve *dao.ValidationError
	if !errors.As(err, &ve) || ve.Field != "host_id" || !errors.Is(err, dao.ErrInvalidUID) {
		t.Errorf("Put without a host: %v, want a *ValidationError for host_id", err)
	}
}

func TestUIDStoreOptions(t *testing.T) {
	f := newFake(t)
	tbl, err := seeds.LogDataUID()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dao.New(f, tbl); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("UID table without WithUIDs: %v", err)
	}
	if _, err := dao.New(f, tbl, dao.WithUIDs(nil)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("WithUIDs(nil): %v", err)
	}
	narrow, err := dao.NewUIDs(f, "log_types", []dao.UIDKind{{Name: "host", Width: 2}, {Name: "event", Width: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dao.New(f, tbl, dao.WithUIDs(narrow)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("host width 2 for a 3-byte key field: %v", err)
	}
	hostsOnly, _ := dao.NewUIDs(f, "log_types", []dao.UIDKind{{Name: "host", Width: 3}})
	if _, err := dao.New(f, tbl, dao.WithUIDs(hostsOnly)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("UID table without kind event: %v", err)
	}
	plain, _ := seeds.LogDataByHost()
	u, _ := dao.NewUIDs(f, "log_types", logKinds)
	if _, err := dao.New(f, plain, dao.WithUIDs(u)); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("WithUIDs on a table without UID fields: %v", err)
	}
}

// ExampleNewUIDs keys seed 004's LOG_DATA by ids from LOG_TYPES:
// [host id 3 bytes][event id 2 bytes][timestamp 8 bytes], and reads the
// events back with their names.
func ExampleNewUIDs() {
	ctx := context.Background()
	c, _ := fake.New()
	defer c.Close()

	types, err := dao.NewUIDs(c, seeds.LogTypesName, []dao.UIDKind{
		{Name: seeds.LogHostKind, Width: seeds.LogHostWidth},
		{Name: seeds.LogEventKind, Width: seeds.LogEventWidth},
	})
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := seeds.LogDataUID()
	if err != nil {
		log.Fatal(err)
	}
	logs, err := dao.New(c, tbl, dao.WithUIDs(types))
	if err != nil {
		log.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, append(logs.Tables(), types.Table())...); err != nil {
		log.Fatal(err)
	}

	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	for i, e := range []seeds.LogEvent{
		{Host: "myserver1.mycompany.com", Event: "com.package1.subpackage2.subsubpackage3.ImportantService", Message: "started"},
		{Host: "a", Event: "e1", Message: "short names"},
		{Host: "myserver1.mycompany.com", Event: "e1", Message: "ping"},
	} {
		e.At = at.Add(time.Duration(i) * time.Second)
		if err := logs.Put(ctx, &seeds.UIDLogEvent{LogEvent: e}); err != nil {
			log.Fatal(err)
		}
	}
	for e, err := range logs.Scan(ctx, dao.Query[seeds.UIDLogEvent]{}) {
		if err != nil {
			log.Fatal(err)
		}
		key, _ := tbl.AppendKey(nil, e)
		fmt.Printf("%x  %s  %s  %s  %s\n", key, e.Host, e.Event, e.At.Format(time.TimeOnly), e.Message)
	}
	id, _ := types.ID(ctx, seeds.LogHostKind, "a")
	name, _ := types.Name(ctx, seeds.LogEventKind, 2)
	fmt.Println("host a:", id, " event 2:", name)
	// Output:
	// 0000010001800001a207a23280  myserver1.mycompany.com  com.package1.subpackage2.subsubpackage3.ImportantService  09:00:00  started
	// 0000010002800001a207a23a50  myserver1.mycompany.com  e1  09:00:02  ping
	// 0000020002800001a207a23668  a  e1  09:00:01  short names
	// host a: 2  event 2: e1
}

// failingIncrements is a UID client whose counters cannot be incremented.
type failingIncrements struct{ dao.UIDClient }

func (failingIncrements) Increment(context.Context, *hbase.Increment) (*hbase.Result, error) {
	return nil, errInjected
}

// TestUIDStoreBatchWhenTheUIDTableFails: a batch whose ids cannot be
// assigned writes nothing and fails as the UID table's failure, not as a
// rejection of invalid records.
func TestUIDStoreBatchWhenTheUIDTableFails(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	u, err := dao.NewUIDs(failingIncrements{f}, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	r := logUIDStore(t, f, u)
	createTables(t, f, r.Table())
	results, err := r.PutBatch(ctx, []*seeds.UIDLogEvent{uidEvent("h", "e", t0, "one"), uidEvent("h", "e", t0.Add(time.Second), "two")})
	var be *dao.BatchError
	if !errors.As(err, &be) || be.Rejected || !errors.Is(err, errInjected) || errors.Is(err, dao.ErrInvalidRecord) {
		t.Fatalf("PutBatch = %v, want a *BatchError, not a rejection, wrapping the UID table's failure", err)
	}
	if !errors.Is(results[0], errInjected) || !errors.Is(results[1], dao.ErrNotAttempted) {
		t.Errorf("results %v, want the failure, then ErrNotAttempted", results)
	}
	if keys := rawKeys(t, f, seeds.LogDataUIDName); len(keys) != 0 {
		t.Errorf("%d rows written", len(keys))
	}
}
