package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/jobs"
)

// fakeJobRunner runs the job workloads' jobs with jobs.Run on the fake,
// each run anew (its checkpoints reset), as hbkit bench does.
func fakeJobRunner(c *fake.Client) JobRunner {
	return func(ctx context.Context, j Job) (map[string]int64, error) {
		if j.Target != "" {
			if _, err := jobs.PrepareTarget(ctx, c, c, j.Table, j.TargetDocument, j.Regions); err != nil {
				return nil, err
			}
		}
		if err := jobs.EnsureStore(ctx, c); err != nil {
			return nil, err
		}
		s, err := jobs.NewStore(c)
		if err != nil {
			return nil, err
		}
		spec := jobs.Spec{Kind: jobs.Kind(j.Kind), Table: j.Table, Target: j.Target}
		if err := s.Reset(ctx, spec.ID()); err != nil {
			return nil, err
		}
		rep, err := jobs.Run(ctx, c, spec, jobs.WithStore(s), jobs.WithWorkers(j.Workers))
		return rep.Counts, err
	}
}

func TestJobWorkloadsOnFake(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	clock := func() time.Time { return time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC) }
	const rows, threads = 30, 2
	r := newRunner(t, c, WithRows(rows), WithThreads(threads), WithClock(clock), WithWorkers(2), WithJobRunner(fakeJobRunner(c)))
	if _, err := r.Run(ctx, "scanAll"); !errors.Is(err, ErrNoData) {
		t.Fatalf("scanAll before indexedWrite: got %v, want ErrNoData", err)
	}
	if _, err := r.Run(ctx, "indexedWrite"); err != nil {
		t.Fatal(err)
	}
	scan, err := r.Run(ctx, "scanAll")
	if err != nil {
		t.Fatal(err)
	}
	if scan.Counts["data_rows"] != rows*threads || scan.Counts["index_rows"] != rows*threads || scan.Rows != rows*threads {
		t.Fatalf("scanAll counts %v, rows %d", scan.Counts, scan.Rows)
	}
	for _, w := range []string{"verifyJob", "rebuildJob", "verifyJob", "copyJob"} {
		res, err := r.Run(ctx, w)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if res.Workers != 2 || res.Counts["rows"] == 0 || res.Rows != res.Counts["rows"] || res.RowsPerSec <= 0 {
			t.Fatalf("%s: %+v", w, res)
		}
		if res.Counts["missing"] != 0 || res.Counts["orphaned"] != 0 {
			t.Fatalf("%s: counts %v, want nothing missing or orphaned", w, res.Counts)
		}
		if w == "copyJob" && res.Counts["written"] != rows*threads {
			t.Fatalf("copyJob: counts %v, want %d written", res.Counts, rows*threads)
		}
		if !strings.Contains(res.String(), "workers=2") {
			t.Fatalf("%s: line %q", w, res.String())
		}
		t.Log(res)
	}
	if ok, err := c.TableExists(ctx, r.layerNames().copy); err != nil || ok {
		t.Fatalf("copyJob's target after the run: exists=%v, %v", ok, err)
	}
	if got := countRows(t, c, r.layerNames().index); got != rows*threads {
		t.Fatalf("index holds %d rows after the rebuild, want %d", got, rows*threads)
	}
}

func TestJobWorkloadNeedsRunner(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	r := newRunner(t, c, WithRows(5))
	if _, err := r.Run(ctx, "indexedWrite"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "verifyJob"); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("verifyJob without a runner: got %v, want ErrInvalidOption", err)
	}
}
