//go:build integration

package gohbase_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationRegionLoads: the adapter reads every region's load from
// the cluster status, as the native client does: after 200 puts into a
// table of two regions, both report, and their write counts reach 200 in
// all (region servers report to the master every second or so).
func TestIntegrationRegionLoads(t *testing.T) {
	c := adapter(t)
	ctx := itCtx(t, 2*time.Minute)
	name := itNames("loads")
	dropLater(t, c, name)
	desc := hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "f"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("r100")}); err != nil {
		t.Fatal(err)
	}
	acts := make([]hbase.Action, 200)
	for i := range acts {
		acts[i] = &hbase.Put{Table: name, Row: fmt.Appendf(nil, "r%03d", i), Values: map[string]map[string][]byte{"f": {"q": []byte("v")}}}
	}
	if _, err := c.Batch(ctx, acts); err != nil {
		t.Fatal(err)
	}
	var loads []hbase.RegionLoad
	var writes uint64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		var err error
		if loads, err = c.RegionLoads(ctx, name); err != nil {
			t.Fatal(err)
		}
		writes = 0
		for _, l := range loads {
			writes += l.WriteRequests
		}
		if len(loads) == 2 && writes >= 200 || time.Now().After(deadline) {
			break
		}
	}
	if len(loads) != 2 || writes < 200 {
		t.Fatalf("RegionLoads = %d regions, %d writes in all; want 2 regions and at least 200 writes", len(loads), writes)
	}
	native, err := nativeClient(t).RegionLoads(ctx, name)
	if err != nil || len(native) != len(loads) {
		t.Errorf("the native client's RegionLoads = %d regions, %v; want %d", len(native), err, len(loads))
	}
	if other, err := c.RegionLoads(ctx, name+"_none"); err != nil || len(other) != 0 {
		t.Errorf("RegionLoads(a table without regions) = %v, %v; want none", other, err)
	}
}
