//go:build integration

package hbase

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestIntegrationBackupMaster needs a distributed HBase of its own with a
// backup master, which it disturbs: make test-backup-master
// (tools/test-backup-master.sh) starts one (a ZooKeeper server, two
// masters and a region server, each in a JVM of its own) and sets
// HBKIT_BACKUP_MASTER_KILL_CMD, the shell command that SIGKILLs the
// active master's JVM. It runs in package hbase to count the client's
// ZooKeeper reads and see every failed attempt of its master calls.
//
// While one goroutine makes admin calls and two make data calls, each
// with a short deadline under context.Background(), the active master is
// killed. Its znode lives until its ZooKeeper session expires; then the
// backup master takes over and initialises. The same client must then
// reach the new master (admin calls and DDL succeed), having dropped the
// dead master's address and the new one's while it answered
// PleaseHold/ServerNotRunningYet; the data calls, served by the region
// server alone, never fail.
func TestIntegrationBackupMaster(t *testing.T) {
	killCmd := os.Getenv("HBKIT_BACKUP_MASTER_KILL_CMD")
	if killCmd == "" {
		t.Skip("HBKIT_BACKUP_MASTER_KILL_CMD not set: make test-backup-master runs this test against an HBase of its own")
	}
	ctx := t.Context()
	c, err := New(ctx, os.Getenv("HBKIT_ZK"),
		WithRPCTimeout(2*time.Second), WithOperationTimeout(30*time.Second), WithMaxRetries(50))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	zc := &zkCounter{coordinator: c.zk}
	c.zk = zc

	table := fmt.Sprintf("backup_master_%d", time.Now().UnixNano())
	if err := c.CreateTable(ctx, TableDescriptor{Name: table, Families: []FamilyDescriptor{{Name: "f"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListNamespaces(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.TableExists(ctx, table); err != nil || !ok {
		t.Fatalf("TableExists = %v, %v", ok, err)
	}
	if err := c.CreateNamespace(ctx, fmt.Sprintf("bm_ns_%d", time.Now().UnixNano())); err != nil {
		t.Fatal(err)
	}
	const rows = 200
	row := func(i int) []byte { return fmt.Appendf(nil, "row-%04d", i) }
	for i := range rows {
		if err := c.Put(ctx, &Put{Table: table, Row: row(i), Values: map[string]map[string][]byte{"f": {"q": []byte("v")}}}); err != nil {
			t.Fatal(err)
		}
	}
	oldMaster, err := c.masterAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Every failed attempt of a master call, by master and error type.
	type attempt struct {
		at     time.Time
		addr   string
		typ    string
		forgot bool
	}
	var mu sync.Mutex
	var attempts []attempt
	c.onMasterFailed = func(addr string, err error, forgot bool) {
		mu.Lock()
		attempts = append(attempts, attempt{time.Now(), addr, errorType(err), forgot})
		mu.Unlock()
	}
	masterReads := zc.masterReads.Load()

	var stop atomic.Bool
	var wg sync.WaitGroup
	// Admin calls, one at a time, each with 3s.
	adminSeen := map[string]int{}
	var lastMasterOK time.Time // of ListNamespaces, which only the active master answers
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !stop.Load(); n++ {
			cctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			var err error
			if n%2 == 0 {
				_, err = c.ListNamespaces(cctx)
			} else {
				_, err = c.TableExists(cctx, table)
			}
			cancel()
			mu.Lock()
			adminSeen[errorType(err)]++
			if err == nil && n%2 == 0 {
				lastMasterOK = time.Now()
			}
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	// Data calls: Puts and Gets, each with 5s.
	var dataOps atomic.Int64
	dataFailed := map[string]int{}
	var firstDataErr error
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for n := 0; !stop.Load(); n++ {
				cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				r := row(rng.IntN(rows))
				var err error
				if n%3 == 0 {
					err = c.Put(cctx, &Put{Table: table, Row: r, Values: map[string]map[string][]byte{"f": {"q": []byte("w")}}})
				} else {
					_, err = c.Get(cctx, &Get{Table: table, Row: r})
				}
				cancel()
				dataOps.Add(1)
				if err != nil {
					mu.Lock()
					dataFailed[errorType(err)]++
					if firstDataErr == nil {
						firstDataErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	stopLoad := func() {
		stop.Store(true)
		wg.Wait()
	}
	defer func() { c.onMasterFailed = nil }()
	time.Sleep(time.Second)

	killAt := time.Now()
	cmd := exec.Command("sh", "-c", killCmd)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		stopLoad()
		t.Fatalf("killing the active master: %v", err)
	}
	// Taken over: a call only the active master answers succeeded
	// after the kill, through a master other than the dead one.
	var newMaster string
	var recoveredAt time.Time
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		c.mu.Lock()
		cached := c.masterAddr
		c.mu.Unlock()
		mu.Lock()
		ok := lastMasterOK.After(killAt)
		mu.Unlock()
		if ok && cached != "" && cached != oldMaster {
			newMaster, recoveredAt = cached, time.Now()
			break
		}
	}
	time.Sleep(time.Second) // the load goes on against the new master
	stopLoad()
	if newMaster == "" {
		t.Fatalf("no admin call succeeded through a new master within 90s of killing %s; admin calls by outcome: %v", oldMaster, adminSeen)
	}
	t.Logf("killed the active master %s; admin calls succeed through %s after %v",
		oldMaster, newMaster, recoveredAt.Sub(killAt).Round(time.Millisecond))

	// The same client, after the takeover: admin calls and DDL.
	if _, err := c.ListNamespaces(ctx); err != nil {
		t.Errorf("ListNamespaces after the takeover: %v", err)
	}
	if ok, err := c.TableExists(ctx, table); err != nil || !ok {
		t.Errorf("TableExists after the takeover = %v, %v", ok, err)
	}
	if err := c.CreateNamespace(ctx, fmt.Sprintf("bm_ns_%d", time.Now().UnixNano())); err != nil {
		t.Errorf("CreateNamespace after the takeover: %v", err)
	}
	table2 := table + "_after"
	if err := c.CreateTable(ctx, TableDescriptor{Name: table2, Families: []FamilyDescriptor{{Name: "f"}}}, nil); err != nil {
		t.Errorf("CreateTable after the takeover: %v", err)
	} else {
		if err := c.Put(ctx, &Put{Table: table2, Row: []byte("r"), Values: map[string]map[string][]byte{"f": {"q": []byte("v")}}}); err != nil {
			t.Errorf("Put to the table created after the takeover: %v", err)
		}
	}
	if now, err := c.masterAddress(ctx); err != nil || now == oldMaster {
		t.Errorf("master after the takeover = %q, %v; want other than %s", now, err, oldMaster)
	}

	mu.Lock()
	defer mu.Unlock()
	// The failed attempts, by master and error type: when each was
	// first and last seen after the kill, and whether every one dropped
	// the cached address.
	type span struct {
		first, last time.Duration
		n, kept     int
	}
	byKind := map[string]*span{}
	var notReady, kept int
	for _, a := range attempts {
		k := a.addr + " " + a.typ
		d := a.at.Sub(killAt).Round(time.Millisecond)
		if byKind[k] == nil {
			byKind[k] = &span{first: d}
		}
		s := byKind[k]
		s.last, s.n = d, s.n+1
		if !a.forgot {
			s.kept++
			// An attempt the caller's deadline cut short says
			// nothing about the master; these do.
			switch a.typ {
			case excPleaseHold, excNotRunningYet, excMasterNotRunning, "hbase.ConnectionError":
				kept++
			}
		}
		if a.addr == newMaster && (a.typ == excPleaseHold || a.typ == excNotRunningYet) {
			notReady++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		s := byKind[k]
		t.Logf("  failed master attempts: %s ×%d from +%v to +%v (address kept %d times)", k, s.n, s.first, s.last, s.kept)
	}
	reads := zc.masterReads.Load() - masterReads
	t.Logf("admin calls by outcome: %v; failed master attempts: %d; ZooKeeper reads of the master: %d",
		adminSeen, len(attempts), reads)
	t.Logf("data calls: %d, failed by type: %v", dataOps.Load(), dataFailed)

	if kept > 0 {
		t.Errorf("%d attempts that met a dead or not yet active master kept its cached address", kept)
	}
	if notReady == 0 {
		t.Errorf("no call reached %s while it initialised (PleaseHold/ServerNotRunningYet); the test did not see the takeover it is about", newMaster)
	}
	// Each failed attempt dropped the address, so at most one read
	// per failure (one goroutine calls the master at a time), plus
	// the calls after the takeover that found nothing cached.
	if limit := int64(len(attempts)) + 5; reads > limit {
		t.Errorf("%d ZooKeeper reads of the master for %d failed attempts, want at most %d", reads, len(attempts), limit)
	}
	if len(dataFailed) > 0 {
		t.Errorf("data calls failed while only the master was down: %v (first: %v)", dataFailed, firstDataErr)
	}
}
