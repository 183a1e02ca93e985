//go:build integration

package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/jobs"
)

// TestMeasurePrismVsRun times one job over the same table of
// HBKIT_BEAM_MEASURE_ROWS rows (four regions, two units each) through the
// pipeline on Prism and through jobs.RunTask in this process with 1 and 2
// workers, in turns, HBKIT_BEAM_MEASURE_ROUNDS times (default 2); the
// tests' Task (a marker per row, batches of 500), each run with a marker
// table and a checkpoint table of its own. It logs rows/s, the most units
// run at once, and the load average; docs/beam.md keeps the numbers. It
// is skipped unless HBKIT_BEAM_MEASURE_ROWS is set.
func TestMeasurePrismVsRun(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HBKIT_BEAM_MEASURE_ROWS"))
	if n <= 0 {
		t.Skip("HBKIT_BEAM_MEASURE_ROWS is not set")
	}
	c := ittest.Connect(t)
	j := newItJob(t, c, n)
	ctx := context.Background()
	rounds, _ := strconv.Atoi(os.Getenv("HBKIT_BEAM_MEASURE_ROUNDS"))
	var order []string
	for range max(rounds, 2) {
		order = append(order, "prism", "run1", "run2")
	}
	var batches, finished, running, peak atomic.Int64
	for i, how := range order {
		marker, store := fmt.Sprintf("%s_%d", j.marker, i), fmt.Sprintf("%s_%d", j.store, i)
		ittest.DropLater(t, marker, store)
		if err := c.CreateTable(ctx, hbapi.TableDescriptor{Name: marker, Families: []hbapi.FamilyDescriptor{{Name: "m"}}}, nil); err != nil {
			t.Fatal(err)
		}
		mk := func(c jobs.Client) *markTask {
			return &markTask{c: c, src: j.src, marker: marker, batch: 500, batches: &batches, finished: &finished, running: &running, peak: &peak}
		}
		job := j.job(filepath.Join(t.TempDir(), "report.json"))
		job.Spec.Target, job.StoreTable, job.UnitsPerRegion = marker, store, 2
		peak.Store(0)
		start := time.Now()
		var rows int64
		switch how {
		case "prism":
			useTask(t, mk)
			r, err := runPrism(t, job)
			if err != nil {
				t.Fatal(err)
			}
			rows = r.Rows
		default:
			st, err := jobs.NewStore(c, jobs.WithStoreTable(store))
			if err == nil {
				err = jobs.EnsureStore(ctx, c, jobs.WithStoreTable(store))
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := jobs.RunTask(ctx, c, job.Spec, mk(c), jobs.WithStore(st), jobs.WithWorkers(int(how[3]-'0')),
				jobs.WithPlan(jobs.WithUnitsPerRegion(2)))
			if err != nil {
				t.Fatal(err)
			}
			rows = r.Rows
		}
		d := time.Since(start)
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("%-5s %d rows in %.2f s: %6.0f rows/s, at most %d units at once (load average %s)",
			how, rows, d.Seconds(), float64(rows)/d.Seconds(), peak.Load(), strings.Join(strings.Fields(string(load))[:3], " "))
		if rows != int64(n) {
			t.Errorf("%s: %d rows, want %d", how, rows, n)
		}
	}
}
