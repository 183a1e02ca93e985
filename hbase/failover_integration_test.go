//go:build integration

package hbase

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// TestIntegrationFailover needs an HBase of its own with three region
// servers, which it disturbs: make test-failover (tools/test-failover.sh)
// starts one and sets HBKIT_FAILOVER_RESTART_CMD, the shell command that
// restarts it. It runs in package hbase to count the client's meta
// lookups.
//
//   - region server stopped: under load on a table spread over the three
//     servers, one region server (not the one holding hbase:meta) is
//     stopped with AdminService.StopServer; the master reassigns its
//     regions. Every call succeeds, and the client reads meta at most
//     twice per region while it finds them again.
//   - master restarted: the whole HBase is stopped and started again
//     (the launcher runs the master and region servers in one JVM, so the
//     master cannot restart alone); the same client's admin and data calls
//     succeed again.
func TestIntegrationFailover(t *testing.T) {
	restartCmd := os.Getenv("HBKIT_FAILOVER_RESTART_CMD")
	if restartCmd == "" {
		t.Skip("HBKIT_FAILOVER_RESTART_CMD not set: make test-failover runs this test against an HBase of its own")
	}
	quorum := os.Getenv("HBKIT_ZK")
	ctx := t.Context()
	opts := []Option{WithRPCTimeout(5 * time.Second), WithOperationTimeout(60 * time.Second), WithMaxRetries(30)}
	c, err := New(ctx, quorum, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// mon watches the cluster without touching c's cache.
	mon, err := New(ctx, quorum, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mon.Close() })
	zc := &zkCounter{coordinator: c.zk}
	c.zk = zc

	table := fmt.Sprintf("failover_%d", time.Now().UnixNano())
	const regions, rowsPerRegion = 12, 50
	var splits [][]byte
	for i := 1; i < regions; i++ {
		splits = append(splits, []byte(fmt.Sprintf("%x", i)))
	}
	if err := mon.CreateTable(ctx, TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "f"}}}, splits); err != nil {
		t.Fatal(err)
	}
	row := func(i int) []byte { return fmt.Appendf(nil, "%x-%04d", i%regions, i) }
	var puts []Action
	for i := range regions * rowsPerRegion {
		puts = append(puts, &Put{Table: table, Row: row(i), Values: map[string]map[string][]byte{"f": {"q": []byte("v")}}})
	}
	if _, err := mon.Batch(ctx, puts); err != nil {
		t.Fatal(err)
	}

	t.Run("region server stopped", func(t *testing.T) {
		layout, err := mon.TableRegions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := mon.metaServer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		perServer := map[string]int{}
		for _, r := range layout {
			perServer[r.Server]++
		}
		if len(perServer) < 2 {
			t.Fatalf("the table's regions are on %d server(s): %v", len(perServer), perServer)
		}
		victim := ""
		for s, n := range perServer {
			if s != meta && (victim == "" || n > perServer[victim]) {
				victim = s
			}
		}
		if victim == "" {
			t.Fatalf("every region of the table is on the meta server %s", meta)
		}
		var victimRegions []string
		for _, r := range layout {
			if r.Server == victim {
				victimRegions = append(victimRegions, string(r.StartKey))
			}
		}
		t.Logf("meta on %s; stopping %s, which holds regions %q of %d (spread %v)", meta, victim, victimRegions, len(layout), perServer)
		regionOf := func(r []byte) string {
			i := sort.Search(len(layout), func(i int) bool { return string(layout[i].StartKey) > string(r) }) - 1
			return string(layout[i].StartKey)
		}
		// Warm c's cache.
		for i := range regions {
			if _, err := c.Get(ctx, &Get{Table: table, Row: row(i)}); err != nil {
				t.Fatal(err)
			}
		}
		canon := canonicalTable(table)
		var mu sync.Mutex
		type lookup struct {
			at     time.Time
			region string
			found  string // where it was found
			err    error
		}
		var lookups []lookup
		c.regions.onLookup = func(tbl string, r []byte, before bool, found *region, err error) {
			if tbl != canon {
				return
			}
			where := ""
			if found != nil {
				where = found.addr
				if found.opening {
					where += " (opening)"
				}
			}
			mu.Lock()
			lookups = append(lookups, lookup{time.Now(), regionOf(r), where, err})
			mu.Unlock()
		}
		zkBefore := zc.metaReads.Load()
		type failure struct {
			at     time.Time
			region string
			err    string
		}
		var cacheFailures []failure
		c.regions.onFailure = func(r *region, err error) {
			if r.table != canon {
				return
			}
			mu.Lock()
			cacheFailures = append(cacheFailures, failure{time.Now(), string(r.start), errorType(err)})
			mu.Unlock()
		}

		// Load: 16 goroutines of Gets and Puts with context.Background().
		var stopLoad atomic.Bool
		var wg sync.WaitGroup
		var ops, failures atomic.Int64
		var errMu sync.Mutex
		var errs []error
		lastOK := map[string]time.Time{} // region -> last success
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 7))
				for n := 0; !stopLoad.Load(); n++ {
					r := row(rng.IntN(regions * rowsPerRegion))
					var err error
					if n%4 == 3 {
						err = c.Put(context.Background(), &Put{Table: table, Row: r, Values: map[string]map[string][]byte{"f": {"q": []byte("w")}}})
					} else {
						_, err = c.Get(context.Background(), &Get{Table: table, Row: r})
					}
					ops.Add(1)
					errMu.Lock()
					if err != nil {
						failures.Add(1)
						errs = append(errs, err)
					} else {
						lastOK[regionOf(r)] = time.Now()
					}
					errMu.Unlock()
				}
			}()
		}
		time.Sleep(time.Second)

		stopAt := time.Now()
		var empty emptypb.Empty
		if err := mon.pool.Call(ctx, victim, rpc.AdminService, "StopServer", wrapperspb.String("hbkit failover test"), &empty); err != nil {
			t.Fatalf("StopServer %s: %v", victim, err)
		}
		// Reassigned: meta shows every region open elsewhere, and the
		// load has been served from each of the victim's regions since.
		var reassignedAt, servedAt time.Time
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if reassignedAt.IsZero() {
				rs, err := mon.TableRegions(ctx, table)
				if err == nil && !slices.ContainsFunc(rs, func(r RegionInfo) bool { return r.Server == victim || r.Server == "" }) {
					reassignedAt = time.Now()
				}
				continue
			}
			errMu.Lock()
			served := true
			for _, start := range victimRegions {
				served = served && lastOK[start].After(reassignedAt)
			}
			errMu.Unlock()
			if served {
				servedAt = time.Now()
				break
			}
		}
		if servedAt.IsZero() {
			t.Errorf("not recovered 60s after the stop (reassigned after %v)", reassignedAt.Sub(stopAt))
		}
		time.Sleep(time.Second) // late lookups, if any
		stopLoad.Store(true)
		wg.Wait()
		c.regions.onLookup = nil
		c.regions.onFailure = nil
		mu.Lock()
		// The failures of the cached regions, by region and class: when
		// each was first and last seen.
		type span struct {
			first, last time.Duration
			n           int
		}
		byKind := map[string]*span{}
		var kinds []string
		for _, f := range cacheFailures {
			k := fmt.Sprintf("region %q %s", f.region, f.err)
			d := f.at.Sub(stopAt).Round(time.Millisecond)
			if byKind[k] == nil {
				byKind[k] = &span{first: d}
				kinds = append(kinds, k)
			}
			byKind[k].last, byKind[k].n = d, byKind[k].n+1
		}
		mu.Unlock()
		for _, k := range kinds {
			t.Logf("  failures: %s ×%d from +%v to +%v", k, byKind[k].n, byKind[k].first, byKind[k].last)
		}

		mu.Lock()
		perRegion := map[string]int{}
		lookupErrs := 0
		for _, l := range lookups {
			if l.at.Before(stopAt) {
				continue
			}
			perRegion[l.region]++
			if l.err != nil {
				lookupErrs++
			}
			t.Logf("  lookup at +%v: region %q -> %s %v", l.at.Sub(stopAt).Round(time.Millisecond), l.region, l.found, l.err)
		}
		total := len(lookups)
		mu.Unlock()
		t.Logf("stop → meta reassigned %v, → every moved region served again %v; %d operations, %d failed",
			reassignedAt.Sub(stopAt).Round(time.Millisecond), servedAt.Sub(stopAt).Round(time.Millisecond), ops.Load(), failures.Load())
		t.Logf("meta lookups during recovery: %d (%d failed), by region %v; ZooKeeper reads of meta: %d, of the region servers: %d",
			total, lookupErrs, perRegion, zc.metaReads.Load()-zkBefore, zc.rsReads.Load())
		for region, n := range perRegion {
			if n > 2 {
				t.Errorf("region %q: %d meta lookups during recovery, want at most 2", region, n)
			}
			if !slices.Contains(victimRegions, region) {
				t.Errorf("region %q was not on the stopped server but was looked up %d times", region, n)
			}
		}
		errMu.Lock()
		for i, err := range errs {
			if i < 5 {
				t.Errorf("call failed: %v", err)
			}
		}
		errMu.Unlock()
	})

	t.Run("master restarted", func(t *testing.T) {
		if _, err := c.ListNamespaces(ctx); err != nil {
			t.Fatal(err)
		}
		masterReads := zc.masterReads.Load()
		// Admin calls keep coming while HBase restarts.
		var stop atomic.Bool
		var wg sync.WaitGroup
		var mu sync.Mutex
		seen := map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				_, err := c.ListNamespaces(cctx)
				cancel()
				mu.Lock()
				seen[errorType(err)]++
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}()
		start := time.Now()
		cmd := exec.Command("sh", "-c", restartCmd)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("restart: %v", err)
		}
		upAt := time.Now()
		t.Logf("HBase restarted in %v", upAt.Sub(start).Round(time.Millisecond))
		// The same client: an admin call, a DDL, and data calls.
		if _, err := c.ListNamespaces(ctx); err != nil {
			t.Errorf("ListNamespaces after the restart: %v", err)
		}
		adminAt := time.Now()
		if ok, err := c.TableExists(ctx, table); err != nil || !ok {
			t.Errorf("TableExists after the restart = %v, %v", ok, err)
		}
		if err := c.CreateNamespace(ctx, fmt.Sprintf("failover_ns_%d", time.Now().UnixNano())); err != nil {
			t.Errorf("CreateNamespace after the restart: %v", err)
		}
		for i := range regions {
			if _, err := c.Get(ctx, &Get{Table: table, Row: row(i)}); err != nil {
				t.Errorf("Get after the restart: %v", err)
				break
			}
		}
		stop.Store(true)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("first admin call after ready: %v; admin calls during the restart by outcome: %v; ZooKeeper reads of the master: %d",
			adminAt.Sub(upAt).Round(time.Millisecond), seen, zc.masterReads.Load()-masterReads)
	})
}

// zkCounter counts the client's ZooKeeper reads.
type zkCounter struct {
	coordinator
	masterReads, metaReads, rsReads atomic.Int64
}

func (z *zkCounter) Master(ctx context.Context) (zk.Master, error) {
	z.masterReads.Add(1)
	return z.coordinator.Master(ctx)
}

func (z *zkCounter) MetaRegionServer(ctx context.Context) (zk.MetaLocation, error) {
	z.metaReads.Add(1)
	return z.coordinator.MetaRegionServer(ctx)
}

func (z *zkCounter) RegionServer(ctx context.Context, s zk.ServerName) (bool, <-chan struct{}, error) {
	z.rsReads.Add(1)
	return z.coordinator.(serverRegistry).RegionServer(ctx, s)
}
