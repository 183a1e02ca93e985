package jobs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/jobs"
	"github.com/hbkit/hbkit/schema"
)

// Migration phases of a writer.
const (
	writeOld  = iota // the old table, mirrored to the new one
	writeNew         // the new table, mirrored back to the old one
	writeOnly        // the new table alone: the old one retires
)

// migration is the state of an online migration test.
type migration struct {
	c              backend
	srcDoc, dstDoc schema.Document
	stores         [3]*dao.Repo[schema.Values] // per phase
	quiet          sync.RWMutex                // writers hold it read-locked per write
	writers        []*writer
	users, initial int
}

// writer owns some users' messages: no other writer writes them, so its
// model of their last acknowledged state is exact.
type writer struct {
	m     *migration
	users []int
	phase atomic.Int32
	next  uint64
	model map[uint64]*schema.Values // id -> last acknowledged value; nil: deleted
	user  map[uint64]int            // id -> its user
	ops   [3]int
	err   error
}

// testMigration migrates an inbox keyed by user and time (no index) to a
// hash-bucketed key with an index, 8 regions pre-split from a sample,
// while writers insert, update and delete: copy, compare (clean), switch
// (each writer at its own moment, mid-stream), retire; then every record
// a writer had acknowledged is in the new table with its last value,
// deleted ones absent, none twice.
func testMigration(t *testing.T, c backend, src, dst string, users, perUser, nWriters int) {
	ctx := context.Background()
	m := &migration{c: c, srcDoc: parseDoc(t, inboxDoc(src)), dstDoc: parseDoc(t, inboxBucketedDoc(dst)), users: users}
	plain := createTable(t, c, m.srcDoc)
	recs := loadInbox(t, plain, users, perUser)
	m.initial = len(recs)
	if _, err := jobs.PrepareTarget(ctx, c, c, src, m.dstDoc, 8); err != nil {
		t.Fatal(err)
	}
	fwd, err := dao.NewCopier(c, dao.CopySpec{Source: m.srcDoc, Target: m.dstDoc})
	if err != nil {
		t.Fatal(err)
	}
	back, err := dao.NewCopier(c, dao.CopySpec{Source: m.dstDoc, Target: m.srcDoc})
	if err != nil {
		t.Fatal(err)
	}
	m.stores = [3]*dao.Repo[schema.Values]{
		openStore(t, c, m.srcDoc, dao.WithMirror(fwd)),
		openStore(t, c, m.dstDoc, dao.WithMirror(back)),
		openStore(t, c, m.dstDoc),
	}
	for w := range nWriters {
		wr := &writer{m: m, next: uint64(1_000_000 * (w + 1)), model: map[uint64]*schema.Values{}, user: map[uint64]int{}}
		for u := w; u < users; u += nWriters {
			wr.users = append(wr.users, u)
			for i := range perUser {
				v := recs[u*perUser+i]
				wr.model[v["id"].(uint64)] = &v
				wr.user[v["id"].(uint64)] = u
			}
		}
		m.writers = append(m.writers, wr)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, wr := range m.writers {
		wg.Go(func() { wr.run(ctx, rand.New(rand.NewPCG(uint64(i), 37)), stop) })
	}
	for _, wr := range m.writers {
		waitOps(wr, 30) // the mirror runs before the copy starts, and during it
	}
	m.copyAndCompare(t)
	m.switchWriters(t)
	close(stop)
	wg.Wait()
	for i, wr := range m.writers {
		if wr.err != nil {
			t.Fatalf("writer %d: %v", i, wr.err)
		}
		t.Logf("writer %d: %d writes to the old table, %d to the new one mirrored back, %d to the new one alone", i, wr.ops[0], wr.ops[1], wr.ops[2])
		if wr.ops[0] == 0 || wr.ops[1] == 0 || wr.ops[2] == 0 {
			t.Errorf("writer %d wrote in too few phases: %v", i, wr.ops)
		}
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Drop(ctx, src); err != nil { // the old table retires
		t.Fatal(err)
	}
	m.checkFinal(t, dst)
}

// copyAndCompare runs the copy while the writers write, then compares
// the tables with the writers held still: clean.
func (m *migration) copyAndCompare(t *testing.T) {
	src, dst := m.srcDoc.Name, m.dstDoc.Name
	counts := runJob(t, m.c, jobs.Spec{Kind: jobs.KindCopy, Table: src, Target: dst})
	t.Logf("copy: %v", counts)
	if counts["undecodable"] != 0 || counts["written"] < int64(m.initial)/2 {
		t.Fatalf("copy counts %v", counts)
	}
	m.quiet.Lock()
	cmp := runJob(t, m.c, jobs.Spec{Kind: jobs.KindCompare, Table: src, Target: dst})
	m.quiet.Unlock()
	t.Logf("compare: %v", cmp)
	if cmp["missing"]+cmp["different"]+cmp["extra"]+cmp["undecodable"] != 0 || cmp["same"] == 0 {
		t.Fatalf("compare after the copy is not clean: %v", cmp)
	}
}

// switchWriters moves the writers to the new table one at a time while
// the others write, then drops the mirror the same way.
func (m *migration) switchWriters(t *testing.T) {
	for _, phase := range []int32{writeNew, writeOnly} {
		for _, wr := range m.writers {
			waitOps(wr, 20)
			wr.phase.Store(phase)
		}
	}
	for _, wr := range m.writers {
		waitOps(wr, 20)
	}
}

// waitOps waits until wr has made n more writes in its current phase.
func waitOps(wr *writer, n int) {
	wr.m.quiet.RLock()
	p := wr.phase.Load()
	start := wr.opsIn(p)
	wr.m.quiet.RUnlock()
	for wr.opsIn(p) < start+n && wr.failed() == nil {
		time.Sleep(time.Millisecond)
	}
}

var opsMu sync.Mutex

func (wr *writer) opsIn(p int32) int {
	opsMu.Lock()
	defer opsMu.Unlock()
	return wr.ops[p]
}

func (wr *writer) failed() error {
	opsMu.Lock()
	defer opsMu.Unlock()
	return wr.err
}

// run writes until stop: inserts of new messages, updates, deletes and
// puts of deleted ones again, through the store of its phase.
func (wr *writer) run(ctx context.Context, rng *rand.Rand, stop chan struct{}) {
	ids := make([]uint64, 0, len(wr.model))
	for id := range wr.model {
		ids = append(ids, id)
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		if err := wr.step(ctx, rng, &ids); err != nil {
			opsMu.Lock()
			wr.err = err
			opsMu.Unlock()
			return
		}
	}
}

func (wr *writer) step(ctx context.Context, rng *rand.Rand, ids *[]uint64) error {
	wr.m.quiet.RLock()
	defer wr.m.quiet.RUnlock()
	p := wr.phase.Load()
	store := wr.m.stores[p]
	var err error
	id := (*ids)[rng.IntN(len(*ids))]
	cur := wr.model[id]
	switch r := rng.IntN(10); {
	case r < 2: // a new message
		id = wr.next
		wr.next++
		u := wr.users[rng.IntN(len(wr.users))]
		v := inboxRecord(u, id, "new", false)
		if err = store.Insert(ctx, &v); err == nil {
			wr.model[id], wr.user[id] = &v, u
			*ids = append(*ids, id)
		}
	case r < 4 && cur != nil: // delete
		if err = store.Delete(ctx, cur); err == nil {
			wr.model[id] = nil
		}
	case cur != nil: // update
		c := *cur
		v := schema.Values{"user": c["user"], "sent": c["sent"], "id": c["id"], "body": "edit " + time.Now().String(), "read": rng.IntN(2) == 0}
		if err = store.Put(ctx, &v); err == nil {
			wr.model[id] = &v
		}
	default: // put a deleted message again
		v := inboxRecord(wr.user[id], id, "again", true)
		if err = store.Put(ctx, &v); err == nil {
			wr.model[id] = &v
		}
	}
	if err != nil {
		return err
	}
	opsMu.Lock()
	wr.ops[p]++
	opsMu.Unlock()
	return nil
}

// checkFinal checks the new table against the writers' models.
func (m *migration) checkFinal(t *testing.T, dst string) {
	ctx := context.Background()
	store := m.stores[writeOnly]
	live := 0
	for _, wr := range m.writers {
		for id, want := range wr.model {
			if want == nil {
				key := inboxRecord(wr.user[id], id, "", false)
				if _, ok, err := store.Get(ctx, &key); err != nil || ok {
					t.Fatalf("deleted message %d: in the new table (%v, %v)", id, ok, err)
				}
				continue
			}
			live++
			got, ok, err := store.Get(ctx, want)
			switch {
			case err != nil:
				t.Fatal(err)
			case !ok:
				t.Fatalf("%s: lost", describe(*want))
			case !sameValues(*got, *want):
				t.Fatalf("%s: got %s", describe(*want), describe(*got))
			}
		}
	}
	rows := 0
	cp, err := dao.NewCopier(m.c, dao.CopySpec{Source: m.dstDoc, Target: m.dstDoc})
	if err != nil {
		t.Fatal(err)
	}
	for res, err := range hbapi.ScanAll(ctx, m.c, &hbapi.Scan{Table: dst}) {
		if err != nil {
			t.Fatal(err)
		}
		if cp.Live(res) {
			rows++
		}
	}
	if rows != live {
		t.Fatalf("the new table holds %d live records, the writers acknowledged %d", rows, live)
	}
	rep, err := store.Check(ctx, dao.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("index repair after the switch: %+v", rep)
	rep, err = store.Check(ctx, dao.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing+rep.Orphaned+rep.Stale+rep.Undecodable != 0 || rep.DataRows != int64(live) {
		t.Fatalf("index of the new table after repair: %+v (live records %d)", rep, live)
	}
}

func TestMigrationUnderConcurrentWriters(t *testing.T) {
	testMigration(t, newFake(t), "inbox", "chat:inbox_v2", 24, 40, 4)
}

// personDoc is seed 003's partition layout: Bytes.toBytes(id % n), then
// Bytes.toBytes(id), one family "info" of one version.
func personDoc(name string, partitions int) string {
	return fmt.Sprintf(`{
  "version": 1, "name": %q,
  "families": [{"name": "info", "versions": 1}],
  "fields": [{"name": "id", "type": "int64"}, {"name": "name", "type": "string"}],
  "key": [{"name": "partition", "kind": "java_partition", "buckets": %d, "from": "id"},
          {"name": "id", "kind": "java_long"}],
  "columns": [{"name": "name", "family": "info", "qualifier": "n", "type": "string"}],
  "splits": {"regions": %d}
}`, name, partitions, partitions)
}

// Seed 003's move "to a new table with more pre-split regions": the
// person table of 20 partitions (id % 20) outgrew them; it moves to 64
// partitions, pre-split into 64 regions from a sample, as
// docs/migration.md shows.
func TestMigrationSeed003MorePartitions(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	src := createTable(t, c, parseDoc(t, personDoc("person", 20)), dao.WithBatchSize(1000))
	const n = 20_000
	recs := make([]*schema.Values, n)
	for i := range recs {
		recs[i] = &schema.Values{"id": int64(i + 1), "name": fmt.Sprintf("person %d", i+1)}
	}
	if _, err := src.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	target := parseDoc(t, personDoc("person_v2", 64))
	splits, err := jobs.PrepareTarget(ctx, c, c, "person", target, 64)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 63 {
		t.Fatalf("got %d split keys, want 63", len(splits))
	}
	counts := runJob(t, c, jobs.Spec{Kind: jobs.KindCopy, Table: "person", Target: "person_v2"})
	if counts["written"] != n {
		t.Fatalf("copy counts %v", counts)
	}
	cmp := runJob(t, c, jobs.Spec{Kind: jobs.KindCompare, Table: "person", Target: "person_v2"})
	if cmp["same"] != n || cmp["missing"]+cmp["different"]+cmp["extra"]+cmp["undecodable"] != 0 {
		t.Fatalf("compare %v", cmp)
	}
	checkSpread(t, regionCounts(t, c, "person_v2"), n, 0.10)
	got, ok, err := openStore(t, c, target).Get(ctx, &schema.Values{"id": int64(12345)})
	if err != nil || !ok || (*got)["name"] != "person 12345" {
		t.Fatalf("person 12345 in the new table: %v, %v, %v", got, ok, err)
	}
}
