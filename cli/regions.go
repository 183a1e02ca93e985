package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/sim"
)

const regionsUsage = `usage: hbkit regions --table T [--zk ADDR] [--compare-schema NAME --records N] [flags]

Measures how the rows of a live table are spread over its regions: rows per
region from a key-only scan of each region (FirstKeyOnlyFilter and
KeyOnlyFilter: one key per row crosses the network, no values), the
region's server, and HBase's read and write request counts per region when
the client reports them. The report has the format of "hbkit simulate".

With --compare-schema, the built-in workload is simulated with the table's
current region boundaries and printed beside the measurement, with the
difference per region in percentage points. Give the workload the settings
the table was loaded with (--records, --mobiles, --days, --seed ...).

Flags:
`

// regionsAdmin is what regions needs of an admin client.
type regionsAdmin interface {
	TableRegions(ctx context.Context, table string) ([]hbase.RegionInfo, error)
}

// rowScanner is what regions needs of a data client.
type rowScanner interface {
	Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error)
}

type regionsFlags struct {
	table    string
	zk       string
	compare  string
	servers  int
	parallel int
	work     workloadFlags
	out      outputFlags
}

func regionsFlagSet(e *Env, f *regionsFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("hbkit regions", flag.ContinueOnError)
	fs.StringVar(&f.table, "table", "", "table `T` to measure (\"name\" or \"namespace:name\")")
	e.connectFlags(fs, &f.zk)
	fs.StringVar(&f.compare, "compare-schema", "", "simulate the built-in workload `NAME` with the table's regions and compare")
	fs.IntVar(&f.servers, "servers", 1, "region servers for the simulated side of --compare-schema")
	fs.IntVar(&f.parallel, "parallel", 4, "regions scanned at a time")
	f.work.register(fs, 1_000_000)
	f.out.register(fs)
	return fs
}

// regionsCommand is hbkit regions. It also uses the client as a
// rowScanner, as every Client is, and as an admin.RegionLoader when it is
// one, as *hbase.Client is.
func regionsCommand(e *Env, connect connectFunc[regionsAdmin]) command {
	return command{name: "regions", summary: "measure rows and requests per region of a live table", usage: text(regionsUsage),
		bind: func() (*flag.FlagSet, runFunc) {
			var f regionsFlags
			fs := regionsFlagSet(e, &f)
			return fs, func(ctx context.Context, args []string) error { return e.regions(ctx, f, fs, args, connect) }
		}}
}

// runRegions runs hbkit regions with args over e's client.
func runRegions(ctx context.Context, e *Env, args []string) error {
	return runRegionsWith(ctx, e, args, connectAs(e, func(c Client) regionsAdmin { return c }))
}

// runRegionsWith runs hbkit regions with args over connect.
func runRegionsWith(ctx context.Context, e *Env, args []string, connect connectFunc[regionsAdmin]) error {
	return runOne(ctx, e, regionsCommand(e, connect), args)
}

// regions runs hbkit regions with its flags (of fs) and arguments.
func (e *Env) regions(ctx context.Context, f regionsFlags, fs *flag.FlagSet, args []string, connect connectFunc[regionsAdmin]) error {
	if len(args) > 0 {
		fmt.Fprintf(e.Stderr, "%s regions: unexpected argument %q\n", e.name(), args[0])
		return ErrUsage
	}
	if f.table == "" {
		fmt.Fprintf(e.Stderr, "%s regions: need --table T\n", e.name())
		fs.Usage()
		return ErrUsage
	}
	var cfg sim.Config
	if f.compare != "" {
		var err error
		if cfg, err = f.work.config(); err != nil {
			return err
		}
		// Check the workload before reading the whole table.
		if _, err := e.workload(f.compare, sim.Config{Records: 1, Entities: 1, Accounts: 1}); err != nil {
			return err
		}
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	scanner, ok := c.(rowScanner)
	if !ok {
		return &UnsupportedError{Command: "regions", Call: "Scan", Need: "to count the rows of each region (a key-only scan)",
			Err: errors.ErrUnsupported}
	}
	loader, ok := c.(admin.RegionLoader)
	if !ok {
		fmt.Fprintf(e.Stderr, "%s regions: no request counts: this client does not report region loads (RegionLoads)\n", e.name())
	}
	began := time.Now()
	r, err := measureRegions(ctx, c, scanner, loader, f.table, f.parallel)
	if err != nil {
		return err
	}
	r.Elapsed = time.Since(began)
	var cmp *sim.Comparison
	if f.compare != "" {
		cmp, err = compareWithSimulation(ctx, e, r, f.compare, cfg, f.servers)
		if err != nil {
			return err
		}
	}
	return writeReport(e, &f.out, r, cmp)
}

// measureRegions measures the live table: its regions (TableRegions), the
// rows of each (a key-only scan per region, FirstKeyOnlyFilter and
// KeyOnlyFilter in a MustPassAll list, up to parallel regions at a time)
// and, when loader is not nil, their request counts, read before the scans
// so that they do not count them. Servers are the regions' hosting
// servers.
func measureRegions(ctx context.Context, a regionsAdmin, s rowScanner, loader admin.RegionLoader, table string, parallel int) (*sim.Report, error) {
	infos, err := a.TableRegions(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("regions of %s: %w", table, err)
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("table %s has no regions", table)
	}
	// Request counts first: the key-only scans below are reads too.
	var loads []admin.RegionLoad
	if loader != nil {
		if loads, err = loader.RegionLoads(ctx, table); err != nil {
			return nil, fmt.Errorf("request counts of %s: %w", table, err)
		}
	}
	counts, err := countRegions(ctx, s, table, infos, parallel)
	if err != nil {
		return nil, err
	}
	r := &sim.Report{Table: table, Measured: true, Regions: make([]sim.Region, len(infos))}
	for i, info := range infos {
		n := counts[i]
		server := info.Server
		if server == "" {
			server = "(unassigned)"
		}
		r.Regions[i] = sim.Region{Index: i, Start: sim.Key(info.StartKey), End: sim.Key(info.EndKey), Rows: n, Server: server}
		r.Rows += n
		for _, l := range loads {
			if bytes.Equal(l.RegionName, info.RegionName) {
				r.Regions[i].ReadRequests = int64(l.ReadRequests)
				r.Regions[i].WriteRequests = int64(l.WriteRequests)
			}
		}
	}
	r.Skew = sim.FillShares(r.Regions)
	r.Servers, r.ServerSkew = sim.ServerLoad(r.Regions)
	return r, nil
}

// countRegions counts the rows of each region, up to parallel scans at a
// time. The first failure cancels the other scans and is returned.
func countRegions(ctx context.Context, s rowScanner, table string, infos []hbase.RegionInfo, parallel int) ([]int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	counts := make([]int64, len(infos))
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	for i, info := range infos {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			n, err := countRows(ctx, s, table, info.StartKey, info.EndKey)
			if err != nil {
				cancel(fmt.Errorf("count rows of region %d of %s: %w", i, table, err))
				return
			}
			counts[i] = n
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return counts, nil
}

// countRows counts the rows in [start, end) with a key-only scan.
func countRows(ctx context.Context, s rowScanner, table string, start, end []byte) (int64, error) {
	scan := &hbase.Scan{
		Table:    table,
		StartRow: start,
		StopRow:  end,
		Filter: &hbase.FilterList{Op: hbase.MustPassAll, Filters: []hbase.Filter{
			&hbase.FirstKeyOnlyFilter{}, &hbase.KeyOnlyFilter{},
		}},
		Caching: 5000,
		// Rows are counted, not kept.
		ReuseMemory: true,
	}
	sc, err := s.Scan(ctx, scan)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, err := range hbase.All(ctx, sc) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// compareWithSimulation simulates the workload with the measured table's
// region boundaries and compares it with the measurement.
func compareWithSimulation(ctx context.Context, e *Env, measured *sim.Report, name string, cfg sim.Config, servers int) (*sim.Comparison, error) {
	src, err := e.workload(name, cfg)
	if err != nil {
		return nil, err
	}
	splits := make([][]byte, 0, len(measured.Regions)-1)
	for _, g := range measured.Regions[1:] {
		splits = append(splits, g.Start)
	}
	simulated, err := sim.Simulate(ctx, src, sim.WithSplits(splits), sim.WithSlices(0), sim.WithServers(servers))
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", name, err)
	}
	simulated.Table = name
	return sim.Compare(simulated, measured)
}
