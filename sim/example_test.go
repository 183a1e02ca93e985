package sim_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

// Keys with a hashed prefix spread over pre-split regions; a simulation
// reports rows and share per region, and the skew.
func ExampleSimulate() {
	keyList := [][]byte{
		[]byte("0a-user1"), []byte("3f-user2"), []byte("5c-user3"), []byte("7d-user4"),
		[]byte("9e-user5"), []byte("b1-user6"), []byte("c4-user7"), []byte("e8-user8"),
	}
	splits := [][]byte{[]byte("4"), []byte("8"), []byte("c")}
	src, err := sim.FromKeys("users", splits, keyList, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Simulate(context.Background(), src, sim.WithServers(2), sim.WithSlices(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range r.Regions {
		fmt.Printf("[%q, %q) %d rows, %.1f%% on %s\n", g.Start, g.End, g.Rows, 100*g.Share, g.Server)
	}
	fmt.Printf("max/mean %.2f\n", r.Skew.MaxOverMean)
	// Output:
	// ["", "4") 2 rows, 25.0% on rs1
	// ["4", "8") 2 rows, 25.0% on rs2
	// ["8", "c") 2 rows, 25.0% on rs1
	// ["c", "") 2 rows, 25.0% on rs2
	// max/mean 1.00
}

// A timestamp-first key shows one hot region per time slice, however well
// the table is pre-split.
func ExampleBuiltin_hotspot() {
	src, err := seedsim.Builtin(seedsim.NaiveSMSTableName, sim.Config{Records: 10_000, Days: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// One region per day: the best split a timestamp-first key can have.
	from, to := src.Window()
	splits, err := seedsim.NaiveSMSSplits(from, to, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Simulate(context.Background(), src, sim.WithSplits(splits), sim.WithSlices(4))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range r.Slices {
		fmt.Printf("%s: %d writes, hot region %d takes %.0f%%\n", s.From.Format("Jan 2"), s.Rows, s.Hot, 100*s.HotShare)
	}
	// Output:
	// Jan 1: 2500 writes, hot region 0 takes 100%
	// Jan 2: 2500 writes, hot region 1 takes 100%
	// Jan 3: 2500 writes, hot region 2 takes 100%
	// Jan 4: 2500 writes, hot region 3 takes 100%
}

// The text report of a small simulation of the seed SMS design.
func ExampleReport_WriteText() {
	src, err := seedsim.Builtin(seeds.SMSTableName, sim.Config{Records: 1_000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Pre-split into 5 regions only: the last one, from '20' on, takes
	// the remaining 80% of the keyspace.
	r, err := sim.Simulate(context.Background(), src, sim.WithSplits(src.Splits()[:4]), sim.WithSlices(2), sim.WithServers(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// simulated sms: 1000 rows, 235.1 KiB, 5 regions, 2 servers
	// record times from 2025-01-01 00:11:00 to 2025-01-30 23:33:40
	//
	// region  start  end            rows    share        size
	//      0  -      05               51    5.10%    11.9 KiB  ██▍
	//      1  05     10               51    5.10%    11.9 KiB  ██▍
	//      2  10     15               37    3.70%     8.6 KiB  █▊
	//      3  15     20               41    4.10%     9.6 KiB  ██
	//      4  20     -               820   82.00%   193.1 KiB  ████████████████████████████████████████
	// skew: max/mean 4.10 (region 4), min/mean 0.18 (region 2)
	//
	// time slices (writes by record time; hot: the busiest region, busiest rs: the busiest server's share; heat: one column per region, · none):
	// slice  from              to                      rows   hot     hot%  active  busiest rs%  heat
	//     0  2025-01-01 00:00  2025-01-16 00:00         500     4    82.2%       5        90.2%  ▁▁▁▁█
	//     1  2025-01-16 00:00  2025-01-31 00:00         500     4    81.8%       5        91.4%  ▁▁▁▁█
	//
	// region servers (regions round-robin in key order):
	// server                  regions          rows    share
	// rs1                           3           908   90.80%  ████████████████████████████████████████
	// rs2                           2            92    9.20%  ████
	// server skew: max/mean 1.82
}

// The SMS generator is deterministic: a load generator writes exactly the
// messages a simulation with the same Config predicted.
func ExampleNewSMSWorkload() {
	w, err := seedsim.NewSMSWorkload(sim.Config{Records: 3, Entities: 2, Accounts: 2, Days: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	tbl, err := seeds.SMSTable()
	if err != nil {
		fmt.Println(err)
		return
	}
	var key []byte
	for m := range w.Records() {
		key, err = tbl.AppendKey(key[:0], m)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.Mobile, m.SentAt.Format("15:04:05.000"), m.Account, string(key))
	}
	// Output:
	// 17103074811 02:02:21.632 acct10001 1184703017192233703011578341750000
	// 18215113752 12:55:07.363 acct10000 2573115128192233703011186684440001
	// 18215113752 21:34:44.511 acct10001 2573115128192233703010874912960002
}

// Compare sets a simulation beside a measurement region by region.
func ExampleCompare() {
	splits := [][]byte{[]byte("m")}
	predicted, err := sim.FromKeys("t", splits, [][]byte{[]byte("a"), []byte("b"), []byte("x"), []byte("y")}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	simulated, err := sim.Simulate(context.Background(), predicted, sim.WithSlices(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	measured := &sim.Report{Table: "t", Measured: true, Regions: []sim.Region{
		{Index: 0, End: sim.Key("m"), Rows: 3},
		{Index: 1, Start: sim.Key("m"), Rows: 1},
	}}
	measured.Skew = sim.FillShares(measured.Regions)
	c, err := sim.Compare(simulated, measured)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range c.Regions {
		fmt.Printf("region %d: simulated %.0f%%, measured %.0f%%, %+.0f points\n", d.Index, 100*d.Simulated, 100*d.Measured, d.Points)
	}
	// Output:
	// region 0: simulated 50%, measured 75%, +25 points
	// region 1: simulated 50%, measured 25%, -25 points
}
