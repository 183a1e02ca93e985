package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/examples/internal/text"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

// MaxOverMean is the highest max/mean share of rows per region the demo
// accepts for the data table; the README promises it.
const MaxOverMean = 1.5

// distributionReport is what the demo shows about where the rows went.
type distributionReport struct {
	measured  []sim.Region // the data table, as counted on the cluster
	skew      sim.Skew
	predicted *sim.Comparison // the simulation of the sms key against the measurement; nil if regions differ
	index     []sim.Region    // the index table, as counted on the cluster
	indexSkew sim.Skew
	naive     *sim.Report // naive key, same split keys (simulated)
	keyed     *sim.Report // the data table's key, per day (simulated)
	naiveTime *sim.Report // naive key, split on time (simulated)
}

// measure counts the rows of every region of the data table with a
// key-only scan per region (admin.Describe with CountRows) and simulates
// the same messages under a naive timestamp-first key.
func (d *demo) measure(ctx context.Context) (*distributionReport, error) {
	name := d.table.Name().String()
	desc, err := d.adm.Describe(ctx, name, admin.CountRows())
	if err != nil {
		return nil, fmt.Errorf("sms demo: count rows per region: %w", err)
	}
	r := &distributionReport{}
	for i, g := range desc.Regions {
		r.measured = append(r.measured, sim.Region{
			Index: i, Start: sim.Key(g.StartKey), End: sim.Key(g.EndKey), Rows: g.Rows, Server: g.Server,
		})
	}
	r.skew = sim.FillShares(r.measured)

	// The index table, likewise: its hash-bucket prefix spreads it too.
	ixDesc, err := d.adm.Describe(ctx, d.index.Name().String(), admin.CountRows())
	if err != nil {
		return nil, fmt.Errorf("sms demo: count index rows per region: %w", err)
	}
	for i, g := range ixDesc.Regions {
		r.index = append(r.index, sim.Region{Index: i, Start: sim.Key(g.StartKey), End: sim.Key(g.EndKey), Rows: g.Rows})
	}
	r.indexSkew = sim.FillShares(r.index)

	// The same messages, keyed [yyyyMMddHHmmss][mobile][seq], on a table
	// pre-split at the data table's own split keys.
	same, err := seedsim.NaiveSMSTable(d.table.SplitKeys())
	if err != nil {
		return nil, err
	}
	// As many time slices as regions: with the naive key split on time,
	// each slice is one region's span.
	slices := sim.WithSlices(len(d.table.SplitKeys()) + 1)
	if r.naive, err = sim.Simulate(ctx, sim.FromTable(same, d.work, seedsim.SMSTime), slices, sim.WithFlushSize(0)); err != nil {
		return nil, fmt.Errorf("sms demo: simulate the naive key: %w", err)
	}
	if r.keyed, err = sim.Simulate(ctx, sim.FromTable(d.table, d.work, seedsim.SMSTime), slices, sim.WithFlushSize(0)); err != nil {
		return nil, fmt.Errorf("sms demo: simulate the sms key: %w", err)
	}
	// What package sim predicted for the sms key, against the count. The
	// regions differ only if HBase split one during the load.
	measured := &sim.Report{Table: name, Measured: true, Rows: d.cfg.Messages, Regions: r.measured, Skew: r.skew}
	if c, err := sim.Compare(r.keyed, measured); err == nil {
		r.predicted = c
	}
	// The best a timestamp-first key can be pre-split: the window cut
	// into as many equal spans as the data table has regions.
	from, to := d.work.Window()
	splits, err := seedsim.NaiveSMSSplits(from, to, len(d.table.SplitKeys())+1)
	if err != nil {
		return nil, err
	}
	timed, err := seedsim.NaiveSMSTable(splits)
	if err != nil {
		return nil, err
	}
	if r.naiveTime, err = sim.Simulate(ctx, sim.FromTable(timed, d.work, seedsim.SMSTime), slices, sim.WithFlushSize(0)); err != nil {
		return nil, fmt.Errorf("sms demo: simulate the naive key split on time: %w", err)
	}
	return r, nil
}

// distribution measures and prints where the rows went.
func (d *demo) distribution(ctx context.Context) (*distributionReport, error) {
	r, err := d.measure(ctx)
	if err != nil {
		return nil, err
	}
	d.printDistribution(r)
	return r, nil
}

// barScale is the share of rows one character of a bar stands for, and
// barMax the longest bar: a region with the mean share of 20 regions (5%)
// gets 10 characters, and anything above 10% is cut at 20 with "▶".
const (
	barScale = 0.005
	barMax   = 20
)

func bar(share float64) string {
	n := int(share/barScale + 0.5)
	if n > barMax {
		return strings.Repeat("█", barMax-1) + "▶"
	}
	return strings.Repeat("█", n)
}

// row prints one line of a table without trailing blanks.
func (d *demo) row(format string, args ...any) {
	d.printf("%s\n", strings.TrimRight(fmt.Sprintf(format, args...), " "))
}

func (d *demo) printDistribution(r *distributionReport) {
	name := d.table.Name().String()
	var total int64
	for _, g := range r.measured {
		total += g.Rows
	}
	d.printf("\nRows per region of %s: measured on the cluster (a key-only scan of each of its %d regions),\n",
		name, len(r.measured))
	d.printf("next to where the same %s messages go with a naive timestamp-first key\n", text.Grouped(total))
	d.printf("[yyyyMMddHHmmss][mobile][seq] on a table with the same split keys (simulated with package sim;\n")
	d.printf("nothing is written for it). One █ is %.2g%% of the rows.\n\n", barScale*100)
	d.row("  %-6s %-6s | %10s %6s  %-20s | %10s %6s",
		"region", "start", name+" rows", "share", "", "naive rows", "share")
	naive := r.naive.Regions
	for i, g := range r.measured {
		var nv sim.Region
		if len(naive) == len(r.measured) {
			nv = naive[i]
		}
		start := schema.QuoteKey(g.Start)
		d.row("  %6d %-6s | %10s %5.1f%%  %-20s | %10s %5.1f%%  %s",
			i+1, start, text.Grouped(g.Rows), g.Share*100, bar(g.Share), text.Grouped(nv.Rows), nv.Share*100, bar(nv.Share))
	}
	verdict := "every region within 1.5× the mean"
	if r.skew.MaxOverMean > MaxOverMean {
		verdict = fmt.Sprintf("ABOVE the %.1f× limit", MaxOverMean)
	}
	d.printf("  %-13s | %10s %6.2f  %-20s | %10s %6.2f\n", "max/mean", "", r.skew.MaxOverMean, "", "", r.naive.Skew.MaxOverMean)
	d.printf("  %s: the fullest region holds %.2f× the mean share (%s);\n", name, r.skew.MaxOverMean, verdict)
	d.printf("  naive key: region %d takes %.1f%% of the rows, the other %d regions sit idle or nearly so.\n",
		r.naive.Skew.Max+1, naive[r.naive.Skew.Max].Share*100, len(naive)-1)
	if len(r.index) > 0 {
		d.printf("  %s (measured the same way): %d regions, %.1f%% to %.1f%% of the entries each, max/mean %.2f.\n",
			d.index.Name(), len(r.index), r.index[r.indexSkew.Min].Share*100, r.index[r.indexSkew.Max].Share*100, r.indexSkew.MaxOverMean)
	}
	if r.predicted != nil {
		d.printf("  package sim's simulation of the sms key matches this count: largest difference %.2f percentage points.\n",
			r.predicted.MaxPoints)
	}

	// Over time: how many regions share the writes of each moment.
	from, to := d.work.Window()
	d.printf("\nWrites over time (simulated, the window cut into %d slices of %s): the share of a slice's\n",
		len(r.keyed.Slices), span(to.Sub(from)/time.Duration(len(r.keyed.Slices))))
	d.printf("writes taken by its busiest region, and the regions taking at least 1%% of them, averaged over\n")
	d.printf("the slices. Pre-splitting a timestamp-first table on time spreads the stored rows, but the\n")
	d.printf("writes of any moment still go to one region.\n\n")
	d.printf("  %-34s %16s %16s\n", "key", "busiest region", "active regions")
	for _, row := range []struct {
		label string
		rep   *sim.Report
	}{
		{name + " key (as loaded)", r.keyed},
		{"naive key, same split keys", r.naive},
		{fmt.Sprintf("naive key, split on time (%d)", len(r.naiveTime.Regions)), r.naiveTime},
	} {
		hot, active := sliceStats(row.rep.Slices)
		d.printf("  %-34s %15.1f%% %16.1f\n", row.label, hot*100, active)
	}
}

// sliceStats returns the mean, over slices with writes, of the busiest
// region's share and of the number of active regions.
func sliceStats(ss []sim.Slice) (hot, active float64) {
	n := 0
	for _, s := range ss {
		if s.Rows == 0 {
			continue
		}
		n++
		hot += s.HotShare
		active += float64(s.Active)
	}
	if n == 0 {
		return 0, 0
	}
	return hot / float64(n), active / float64(n)
}

// span writes a duration in hours, or minutes below two hours: "36h".
func span(d time.Duration) string {
	if d >= 2*time.Hour {
		return fmt.Sprintf("%.3gh", d.Hours())
	}
	return fmt.Sprintf("%.3gmin", d.Minutes())
}
