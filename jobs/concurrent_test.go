package jobs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// ledgerStatuses are the values the writers of the concurrency tests move
// records between.
var ledgerStatuses = []string{"pending", "settled", "held", "void"}

// ledgerWriter moves the statuses of the records it owns, deletes them
// and writes them again, through a store of its own, until stop closes;
// live holds, when it returns, each record it owns as it left it (nil:
// deleted).
type ledgerWriter struct {
	repo *dao.Repo[ledger]
	own  []*ledger
	live map[int64]*ledger
	rng  *rand.Rand
	err  error
}

func (w *ledgerWriter) run(ctx context.Context, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			w.err = w.repo.Flush(ctx)
			return
		default:
		}
		var puts, dels []*ledger
		for range 5 {
			r := w.own[w.rng.IntN(len(w.own))]
			if w.live[r.Seq] == nil || w.rng.IntN(5) > 0 {
				c := *r
				c.Status = ledgerStatuses[w.rng.IntN(len(ledgerStatuses))]
				c.Amount = w.rng.Int64N(1_000_000)
				if !containsSeq(puts, c.Seq) && !containsSeq(dels, c.Seq) {
					puts = append(puts, &c)
				}
			} else if !containsSeq(puts, r.Seq) && !containsSeq(dels, r.Seq) {
				dels = append(dels, r)
			}
		}
		if _, err := w.repo.PutBatch(ctx, puts); err != nil {
			w.err = err
			return
		}
		for _, p := range puts {
			w.live[p.Seq] = p
		}
		if _, err := w.repo.DeleteBatch(ctx, dels); err != nil {
			w.err = err
			return
		}
		for _, d := range dels {
			w.live[d.Seq] = nil
		}
	}
}

func containsSeq(rs []*ledger, seq int64) bool {
	for _, r := range rs {
		if r.Seq == seq {
			return true
		}
	}
	return false
}

// startWriters starts n writers over recs (writer i owns the records
// whose Seq is i modulo n) and returns a function that stops them and
// returns the live records.
func startWriters(ctx context.Context, t testing.TB, c dao.Client, doc schema.Document, recs []*ledger, n int) func() map[int64]*ledger {
	t.Helper()
	tbl, err := schema.Bind[ledger](doc)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ws := make([]*ledgerWriter, n)
	for i := range ws {
		repo, err := dao.New(c, tbl)
		if err != nil {
			t.Fatal(err)
		}
		w := &ledgerWriter{repo: repo, live: map[int64]*ledger{}, rng: rand.New(rand.NewPCG(uint64(i), 37))}
		for _, r := range recs {
			if int(r.Seq)%n == i {
				w.own = append(w.own, r)
				w.live[r.Seq] = r
			}
		}
		ws[i] = w
		wg.Add(1)
		go func() { defer wg.Done(); w.run(ctx, stop) }()
	}
	return func() map[int64]*ledger {
		close(stop)
		wg.Wait()
		live := map[int64]*ledger{}
		for _, w := range ws {
			if w.err != nil {
				t.Fatalf("writer: %v", w.err)
			}
			for k, v := range w.live {
				if v != nil {
					live[k] = v
				}
			}
		}
		return live
	}
}

// runUnitsConcurrently runs every unit of spec's task on workers
// goroutines, each unit once, and returns the counts.
func runUnitsConcurrently(ctx context.Context, t testing.TB, c Client, spec Spec, workers int) Counts {
	t.Helper()
	task, err := NewTask(ctx, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	units := make(chan Unit)
	var mu sync.Mutex
	total := Counts{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range units {
				err := task.Run(ctx, u, nil, func(_ []byte, d Counts) error {
					mu.Lock()
					defer mu.Unlock()
					total.Add(d)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for _, u := range regionUnits(ctx, t, c, task) {
		units <- u
	}
	close(units)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return total
}

// checkFindExact fails unless Find through the status index answers,
// for every status, exactly the live records of that status, each once,
// as last written.
func checkFindExact(ctx context.Context, t testing.TB, repo *dao.Repo[ledger], live map[int64]*ledger, when string) {
	t.Helper()
	for _, s := range ledgerStatuses {
		got := findStatus(ctx, t, repo, s)
		want := 0
		for seq, r := range live {
			if r.Status != s {
				continue
			}
			want++
			if g, ok := got[seq]; !ok {
				t.Errorf("%s: Find %s misses record %d", when, s, seq)
			} else if g.Amount != r.Amount {
				t.Errorf("%s: Find %s: record %d amount %d, want %d", when, s, seq, g.Amount, r.Amount)
			}
		}
		if len(got) != want {
			t.Errorf("%s: Find %s answers %d records, want %d", when, s, len(got), want)
		}
	}
}

// concurrentScenario: writers keep moving indexed fields and deleting
// records while a rebuild job's units and then a repair job's run, two
// at a time; after the writers stop, Find answers exactly the live
// records, and once a repair has removed what the writers' races left
// behind (orphans within the grace period), verify is clean.
func concurrentScenario(ctx context.Context, t testing.TB, c jobClient, name string, n int) {
	doc := ledgerTables(t, name)
	repo, recs := loadLedger(ctx, t, c, doc, n)
	stop := startWriters(ctx, t, c, doc, recs, 3)
	rb := runUnitsConcurrently(ctx, t, c, Spec{Kind: KindRebuild, Table: name}, 2)
	rp := runUnitsConcurrently(ctx, t, c, Spec{Kind: KindRepair, Table: name}, 2)
	live := stop()
	t.Logf("rebuild under writers: %v", rb)
	t.Logf("repair under writers: %v", rp)
	checkFindExact(ctx, t, repo, live, "after the jobs")
	time.Sleep(5 * time.Millisecond)
	fin := runJob(ctx, t, c, Spec{Kind: KindRepair, Table: name, Grace: time.Millisecond})
	t.Logf("repair after the writers: %v", fin)
	got := runJob(ctx, t, c, Spec{Kind: KindVerify, Table: name})
	if !IndexReport(got).Clean() || got["rows"] != int64(len(live)) || got["entries"] != 2*int64(len(live)) {
		t.Errorf("verify after the writers stopped: %v, want clean with %d rows and %d entries", got, len(live), 2*len(live))
	}
	checkFindExact(ctx, t, repo, live, "after the final repair")
}

func TestIndexTaskConcurrentWriters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) { concurrentScenario(ctx, t, newFake(t), "ledger_cw", 1500) })
	}
}
