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

// The wide-row tests' tables are called wide_it… on the shared HBase.
var wideNames = conformance.NameGenerator("wide_it")

// The wide-row scenario of TestWide on HBase: writes, replacements and
// deletes reflected in Get, time-range reads equal to the brute-force
// answer in time order across range boundaries and rows, and per-row
// column counts equal to the brute-force counts. The table is pre-split
// into its 16 regions, so series live in different regions.
func TestIntegrationWide(t *testing.T) {
	c := itClient(t)
	types, err := seeds.LogTypes()
	if err != nil {
		t.Fatal(err)
	}
	u, err := dao.NewUIDs(c, itTableNamed(t, c, types, wideNames(seeds.LogTypesName)), logKinds)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	data := itTableNamed(t, c, tbl, wideNames(seeds.LogDataWideName))
	w := newWideStore(t, c, u, dao.WithTableNames(map[string]string{seeds.LogDataWideName: data}), dao.WithBatchSize(25))
	runWideScenario(t, w, 1500)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, k := range rawKeys(t, c, data) {
		if len(k) != 14 {
			t.Errorf("row key %x is %d bytes, want 14", k, len(k))
		}
	}
	// A fresh UID cache (another process) reads the names back.
	fresh, err := dao.NewUIDs(c, u.Table().Name().String(), logKinds)
	if err != nil {
		t.Fatal(err)
	}
	w2 := newWideStore(t, c, fresh, dao.WithTableNames(map[string]string{seeds.LogDataWideName: data}))
	span := seeds.LogWideSpan.Milliseconds()
	n := 0
	for e, err := range w2.Scan(ctx, dao.WideQuery[seeds.UIDLogEvent]{
		From: wideEvent(wideHosts[0], wideEvents[0], wideStart-span, ""),
		To:   wideEvent(wideHosts[0], wideEvents[0], wideStart+40*span, ""),
	}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Host != wideHosts[0] || e.Event != wideEvents[0] {
			t.Fatalf("got %s/%s, want %s/%s", e.Host, e.Event, wideHosts[0], wideEvents[0])
		}
		n++
	}
	if n == 0 {
		t.Error("a fresh cache read nothing")
	}
}
