//go:build integration

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/sim"
)

// On a real HBase (make hbase-up; HBKIT_ZK, default 127.0.0.1:2181), a
// table pre-split like the SMS data table and loaded with the SMS workload
// has, region by region, the distribution the simulator predicts.
//
//	go test -tags integration -run TestRegionsIntegration ./cli/
func TestRegionsIntegration(t *testing.T) {
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, zk)
	if err != nil {
		t.Fatalf("connect %s: %v", zk, err)
	}
	t.Cleanup(func() { c.Close() }) // after the table is dropped
	table := "hbkit_it_regions_" + strconv.FormatInt(time.Now().UnixNano()/1e6, 36)
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	desc := hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "cf"}}}
	if err := c.CreateTable(ctx, desc, tbl.SplitKeys()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.DisableTable(ctx, table)
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Errorf("cleanup: delete %s: %v", table, err)
		}
	})
	cfg := sim.Config{Records: 20_000, Entities: 2_000, Days: 7, Seed: 5}
	if err := putSMS(ctx, c, table, cfg); err != nil {
		t.Fatal(err)
	}

	// Region servers report request counts every few seconds: wait until
	// the load shows, so that the comparison covers HBase's counters too.
	c2, closer, err := ConnectNative(ctx, zk)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	loader, _ := c2.(admin.RegionLoader)
	for deadline := time.Now().Add(20 * time.Second); loader != nil && time.Now().Before(deadline); time.Sleep(time.Second) {
		loads, err := loader.RegionLoads(ctx, table)
		if err != nil {
			t.Fatalf("request counts: %v", err)
		}
		var n uint64
		for _, l := range loads {
			n += l.WriteRequests
		}
		if n >= 20_000 {
			break
		}
	}

	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(k string) string { return map[string]string{"HBKIT_ZK": zk}[k] },
		Connect: ConnectNative})
	args := []string{"--table", table, "--compare-schema", "sms", "--records", "20000", "--mobiles", "2000", "--days", "7", "--seed", "5", "--json"}
	if err := runRegions(ctx, e, args); err != nil {
		t.Fatalf("%v: %s", err, errw.String())
	}
	var got struct {
		Report     sim.Report     `json:"report"`
		Comparison sim.Comparison `json:"comparison"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("bad JSON: %v", err)
	}
	if got.Report.Rows != 20_000 || len(got.Report.Regions) != seeds.SMSRegions {
		t.Fatalf("measured %d rows in %d regions, want 20000 in %d", got.Report.Rows, len(got.Report.Regions), seeds.SMSRegions)
	}
	if got.Comparison.MaxPoints > 0.5 {
		t.Errorf("simulated and measured differ by up to %.2f points per region, want < 0.5", got.Comparison.MaxPoints)
	}
	var writes int64
	for _, g := range got.Report.Regions {
		writes += g.WriteRequests
	}
	t.Logf("write requests reported: %d", writes)
	if !got.Comparison.HasRequests {
		t.Errorf("no write request counts from the cluster status")
	} else if got.Comparison.MaxRequestPoints > 0.5 {
		t.Errorf("simulated rows and HBase's write requests differ by up to %.2f points per region, want < 0.5", got.Comparison.MaxRequestPoints)
	}
	t.Logf("max difference %.3f pp; skew simulated %.3f, measured %.3f", got.Comparison.MaxPoints, got.Comparison.SimSkew, got.Comparison.RealSkew)
}
