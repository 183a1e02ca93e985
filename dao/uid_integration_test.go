//go:build integration

package dao_test

import (
	"context"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/conformance"
	"github.com/hbkit/hbkit/seeds"
)

// The UID tests' tables are called uid_… on the shared HBase.
var uidNames = conformance.NameGenerator("uid_it")

// Writers with caches of their own, in goroutines of one process, assign
// the same names at once on HBase: one id per name.
func TestIntegrationUIDConcurrent(t *testing.T) {
	c := itClient(t)
	tbl, err := seeds.LogTypes()
	if err != nil {
		t.Fatal(err)
	}
	name := itTableNamed(t, c, tbl, uidNames(seeds.LogTypesName))
	checkConcurrentUIDs(t, c, name, 8, 40)
}

// LogEvents written through a store keyed by UIDs read back with their
// names; the keys are 13 bytes.
func TestIntegrationUIDLogData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := itClient(t)
	types, err := seeds.LogTypes()
	if err != nil {
		t.Fatal(err)
	}
	u, err := dao.NewUIDs(c, itTableNamed(t, c, types, uidNames(seeds.LogTypesName)), logKinds)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.LogDataUID()
	if err != nil {
		t.Fatal(err)
	}
	data := itTableNamed(t, c, tbl, uidNames(seeds.LogDataUIDName))
	r := logUIDStore(t, c, u, dao.WithTableNames(map[string]string{seeds.LogDataUIDName: data}))

	hosts := []string{"web01.example.com", "myserver1.mycompany.com", "a"}
	events := []string{"e1", "com.package1.subpackage2.subsubpackage3.ImportantService"}
	var want []*seeds.UIDLogEvent
	for i := range 30 {
		want = append(want, uidEvent(hosts[i%3], events[i%2], t0.Add(time.Duration(i)*time.Second), "message "+string(rune('A'+i))))
	}
	if _, err := r.PutBatch(ctx, want); err != nil {
		t.Fatal(err)
	}
	for _, k := range rawKeys(t, c, data) {
		if len(k) != 13 {
			t.Errorf("row key %x is %d bytes, want 13", k, len(k))
		}
	}
	// A fresh UIDs (another process's cache) reads every name back.
	fresh, err := dao.NewUIDs(c, u.Table().Name().String(), logKinds)
	if err != nil {
		t.Fatal(err)
	}
	r2 := logUIDStore(t, c, fresh, dao.WithTableNames(map[string]string{seeds.LogDataUIDName: data}))
	got := map[string]string{}
	n := 0
	for e, err := range r2.Scan(ctx, dao.Query[seeds.UIDLogEvent]{}) {
		if err != nil {
			t.Fatal(err)
		}
		got[e.Host+"|"+e.Event+"|"+e.At.String()] = e.Message
		n++
	}
	for _, e := range want {
		if m := got[e.Host+"|"+e.Event+"|"+e.At.String()]; m != e.Message {
			t.Errorf("%s %s %s: read back %q, want %q", e.Host, e.Event, e.At, m, e.Message)
		}
	}
	if n != len(want) {
		t.Errorf("scan read %d events, want %d", n, len(want))
	}
	// One host's events of one type: one range, in time order.
	var last time.Time
	count := 0
	for e, err := range r2.Scan(ctx, dao.Prefix(uidEvent("a", "e1", time.Time{}, ""), 2)) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Host != "a" || e.Event != "e1" || e.At.Before(last) {
			t.Errorf("prefix scan: %s %s %s after %s", e.Host, e.Event, e.At, last)
		}
		last = e.At
		count++
	}
	if count != 5 {
		t.Errorf("host a, event e1: %d events, want 5", count)
	}
	rep, err := fresh.Check(ctx)
	if err != nil || !rep.OK() || rep.Names["host"] != 3 || rep.Names["event"] != 2 {
		t.Errorf("Check = %+v, %v", rep, err)
	}
}
