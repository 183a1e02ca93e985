package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

type regionsNopCloser struct{}

func (regionsNopCloser) Close() error { return nil }

// loadSMS creates the SMS data table on the fake, pre-split as declared,
// and writes the messages of the SMS workload, as the demo does.
func loadSMS(t *testing.T, c *fake.Client, cfg sim.Config) {
	t.Helper()
	ctx := context.Background()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	desc := hbase.TableDescriptor{Name: seeds.SMSTableName, Families: []hbase.FamilyDescriptor{{Name: "cf"}}}
	if err := c.CreateTable(ctx, desc, tbl.SplitKeys()); err != nil {
		t.Fatal(err)
	}
	if err := putSMS(ctx, c, seeds.SMSTableName, cfg); err != nil {
		t.Fatal(err)
	}
}

// putSMS writes the messages of the SMS workload to table in batches.
func putSMS(ctx context.Context, c hbase.DataClient, table string, cfg sim.Config) error {
	tbl, err := seeds.SMSTable()
	if err != nil {
		return err
	}
	w, err := seedsim.NewSMSWorkload(cfg)
	if err != nil {
		return err
	}
	var row schema.Row
	var batch []hbase.Action
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := c.Batch(ctx, batch)
		batch = batch[:0]
		return err
	}
	for m := range w.Records() {
		if err := tbl.EncodeRow(&row, m); err != nil {
			return err
		}
		vals := map[string][]byte{}
		for _, cell := range row.Cells {
			vals[cell.Qualifier] = bytes.Clone(cell.Value)
		}
		batch = append(batch, &hbase.Put{Table: table, Row: bytes.Clone(row.Key), Values: map[string]map[string][]byte{"cf": vals}})
		if len(batch) == 1000 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// requestCountingFake adds fixed request counts to the fake.
type requestCountingFake struct {
	*fake.Client
}

func (c requestCountingFake) RegionLoads(ctx context.Context, table string) ([]admin.RegionLoad, error) {
	infos, err := c.TableRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	out := make([]admin.RegionLoad, len(infos))
	for i, info := range infos {
		out[i] = admin.RegionLoad{RegionName: info.RegionName, ReadRequests: uint64(10 * i), WriteRequests: uint64(100 + i)}
	}
	return out, nil
}

func runRegionsOn(t *testing.T, c regionsAdmin, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	e := withSeeds(&Env{Stdout: &out, Stderr: &errw, Getenv: func(string) string { return "" }})
	connect := func(ctx context.Context, zk string) (regionsAdmin, io.Closer, error) {
		return c, regionsNopCloser{}, nil
	}
	err = runRegionsWith(context.Background(), e, args, connect)
	return out.String(), errw.String(), err
}

// Measured on a table loaded with the SMS workload, the distribution is
// exactly the simulated one: same generator, same keys, same regions.
func TestRegionsMatchSimulation(t *testing.T) {
	c, err := fake.New(fake.WithServer("rs1:16020"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Records: 3_000, Entities: 500, Days: 3, Seed: 9}
	loadSMS(t, c, cfg)
	out, errOut, err := runRegionsOn(t, requestCountingFake{c}, "--table", "sms", "--compare-schema", "sms",
		"--records", "3000", "--mobiles", "500", "--days", "3", "--seed", "9", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	var got struct {
		Report     sim.Report     `json:"report"`
		Comparison sim.Comparison `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("bad JSON: %v\n%.400s", err, out)
	}
	r := got.Report
	if !r.Measured || r.Rows != 3_000 || len(r.Regions) != 20 {
		t.Fatalf("measured %d rows in %d regions (measured=%v), want 3000 in 20", r.Rows, len(r.Regions), r.Measured)
	}
	if r.Regions[3].WriteRequests != 103 || r.Regions[3].ReadRequests != 30 || r.Regions[3].Server != "rs1:16020" {
		t.Errorf("region 3: %+v, want the loader's request counts and the fake's server", r.Regions[3])
	}
	if len(r.Servers) != 1 || r.Servers[0].Regions != 20 {
		t.Errorf("servers %+v, want rs1:16020 with 20 regions", r.Servers)
	}
	if !got.Comparison.HasRequests || got.Comparison.Regions[3].Requests == 0 {
		t.Errorf("comparison lacks the write request shares: %+v", got.Comparison.Regions[3])
	}
	if got.Comparison.MaxPoints != 0 {
		t.Errorf("simulated and measured differ by %.3f points, want 0: %+v", got.Comparison.MaxPoints, got.Comparison.Regions)
	}
	for i, d := range got.Comparison.Regions {
		if d.SimRows != d.RealRows || d.RealRows != r.Regions[i].Rows {
			t.Errorf("region %d: simulated %d rows, measured %d", i, d.SimRows, d.RealRows)
		}
	}

	// A different seed is a different load: close, not equal.
	text, errOut, err := runRegionsOn(t, c, "--table", "sms", "--compare-schema", "sms",
		"--records", "3000", "--mobiles", "500", "--days", "3", "--seed", "10")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	for _, want := range []string{"measured sms: 3000 rows", "rs1:16020", "diff pp", "largest difference"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestRegionsErrors(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runRegionsOn(t, c); !errors.Is(err, ErrUsage) {
		t.Errorf("no --table: got %v, want ErrUsage", err)
	}
	if _, _, err := runRegionsOn(t, c, "--table", "missing"); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("missing table: got %v, want ErrTableNotFound", err)
	}
	if _, _, err := runRegionsOn(t, c, "--table", "sms", "--compare-schema", "nope"); !errors.Is(err, sim.ErrInvalidConfig) {
		t.Errorf("unknown workload: got %v, want ErrInvalidConfig", err)
	}
	var adminOnly struct{ regionsAdmin }
	adminOnly.regionsAdmin = c
	_, _, err = runRegionsOn(t, adminOnly, "--table", "sms")
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Call != "Scan" || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("client without Scan: got %v, want an *UnsupportedError naming Scan", err)
	}
}

// failingScans fails the scan of the region starting at bad.
type failingScans struct {
	*fake.Client
	bad []byte
}

var errScanBroken = errors.New("scan broken")

func (c failingScans) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	if bytes.Equal(s.StartRow, c.bad) {
		return nil, errScanBroken
	}
	return c.Client.Scan(ctx, s)
}

func TestRegionsScanFailure(t *testing.T) {
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	loadSMS(t, c, sim.Config{Records: 500, Seed: 1})
	for _, parallel := range []string{"1", "8"} {
		_, _, err := runRegionsOn(t, failingScans{c, []byte("50")}, "--table", "sms", "--parallel", parallel)
		if !errors.Is(err, errScanBroken) || !strings.Contains(err.Error(), "region 10 of sms") {
			t.Errorf("--parallel %s: got %v, want the failure of region 10", parallel, err)
		}
	}
	out, _, err := runRegionsOn(t, c, "--table", "sms", "--parallel", "3")
	if err != nil || !strings.Contains(out, "measured sms: 500 rows") {
		t.Errorf("--parallel 3: %v\n%s", err, out)
	}
}
