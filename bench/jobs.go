package bench

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/proccpu"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// The job workloads (issue 37) run over indexedWrite's SMS tables, which
// indexedWrite fills just before: scanAll reads both tables whole, the
// others run a job of package jobs over them on WithWorkers workers. bench
// does not link package jobs (it links the admin layer); the caller
// supplies the job through WithJobRunner (hbkit bench: jobs.Run).

// Job is a job workload's job, for its JobRunner.
type Job struct {
	Kind    string // "verify", "rebuild" or "copy" (a jobs.Kind)
	Table   string // the data table
	Workers int
	// Target, TargetDocument and Regions are a copy's: the table it
	// writes, its layout, and the regions to pre-split it into from a
	// sample of Table (jobs.PrepareTarget) before the copy.
	Target         string
	TargetDocument schema.Document
	Regions        int
}

// JobRunner runs one job of a job workload and returns the counts of the
// job's report.
type JobRunner func(ctx context.Context, j Job) (map[string]int64, error)

// copyRegions is the pre-split of copyJob's target: more regions than the
// source's one.
const copyRegions = 8

// WithJobRunner sets the runner of the job workloads (verifyJob,
// rebuildJob, copyJob); without one they fail with ErrInvalidOption.
func WithJobRunner(f JobRunner) Option { return func(o *options) { o.jobs = f } }

// WithWorkers sets the workers of the job workloads' jobs (default 1).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// scanAllCaching is the rows per scanner RPC of scanAll: a full scan's,
// not PE's 30.
const scanAllCaching = 1000

// job is the job of a job workload.
func (r *Runner) job(k kind) (Job, error) {
	n := r.layerNames()
	switch k {
	case kindVerifyJob:
		return Job{Kind: "verify", Table: n.indexed, Workers: r.o.workers}, nil
	case kindRebuildJob:
		return Job{Kind: "rebuild", Table: n.indexed, Workers: r.o.workers}, nil
	}
	doc, err := smsJobDocument(n)
	if err != nil {
		return Job{}, err
	}
	doc.Name, doc.Indexes = n.copy, nil
	return Job{Kind: "copy", Table: n.indexed, Workers: r.o.workers, Target: n.copy, TargetDocument: doc, Regions: copyRegions}, nil
}

// runJob runs the job of a job workload; a copy's target is dropped before
// (left by an earlier run) and after.
func (r *Runner) runJob(ctx context.Context, k kind) (map[string]int64, error) {
	j, err := r.job(k)
	if err != nil {
		return nil, err
	}
	if j.Target == "" {
		return r.o.jobs(ctx, j)
	}
	if err := dropTable(ctx, r.admin, j.Target); err != nil {
		return nil, err
	}
	counts, err := r.o.jobs(ctx, j)
	if derr := dropTable(ctx, r.admin, j.Target); err == nil {
		err = derr
	}
	return counts, err
}

// runJobWorkload runs scanAll or a job workload once, timed as one
// client: wall time, this process's CPU and the server's.
func (r *Runner) runJobWorkload(ctx context.Context, w workload) (Result, error) {
	if err := r.ensureJobTables(ctx); err != nil {
		return Result{}, err
	}
	if w.kind != kindScanAll && r.o.jobs == nil {
		return Result{}, fmt.Errorf("%w: %s needs a job runner (WithJobRunner)", ErrInvalidOption, w.Name)
	}
	cpu, err := proccpu.Start(r.o.serverPID)
	if err != nil {
		return Result{}, fmt.Errorf("bench: server CPU time: %w", err)
	}
	start := time.Now()
	var counts map[string]int64
	if w.kind == kindScanAll {
		counts, err = r.scanAll(ctx)
	} else {
		counts, err = r.runJob(ctx, w.kind)
	}
	wall := time.Since(start)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", w.Name, err)
	}
	client, server, err := cpu.Stop()
	if err != nil {
		return Result{}, fmt.Errorf("bench: server CPU time: %w", err)
	}
	out := Result{Workload: w.Name, Threads: 1, Workers: r.o.workers, Rows: counts["rows"], ElapsedMS: ms(wall),
		ServerPID: r.o.serverPID, ClientCPUMS: ms(client), ServerCPUMS: ms(server), Counts: counts}
	if w.kind == kindScanAll {
		out.Workers = 0
	}
	if wall > 0 {
		out.RowsPerSec = float64(out.Rows) / wall.Seconds()
	}
	return out, nil
}

// scanAll scans indexedWrite's data table, then its index table, every
// cell. Counts: data_rows, index_rows, cells, data_ms and index_ms (the
// time of each scan), and rows: the data rows, so that its rows/s, both
// tables read per data row, compares with a verify job's, which reads
// both tables too and counts data rows.
func (r *Runner) scanAll(ctx context.Context) (map[string]int64, error) {
	n := r.layerNames()
	counts := map[string]int64{}
	for _, t := range []struct{ table, name string }{{n.indexed, "data"}, {n.index, "index"}} {
		start := time.Now()
		for res, err := range hbase.ScanAll(ctx, r.data, &hbase.Scan{Table: t.table, Caching: scanAllCaching}) {
			if err != nil {
				return nil, fmt.Errorf("scan %s: %w", t.table, err)
			}
			counts[t.name+"_rows"]++
			counts["cells"] += int64(len(res.Cells))
		}
		counts[t.name+"_ms"] = time.Since(start).Milliseconds()
	}
	counts["rows"] = counts["data_rows"]
	if counts["data_rows"] == 0 {
		return nil, fmt.Errorf("%w (table %s is empty: run indexedWrite first)", ErrNoData, n.indexed)
	}
	return counts, nil
}

// ensureJobTables stores in indexedWrite's data table the SMS schema
// document naming its tables, which a job reads to open its store. The
// tables must exist (indexedWrite created them).
func (r *Runner) ensureJobTables(ctx context.Context) error {
	n := r.layerNames()
	desc, err := r.admin.DescribeTable(ctx, n.indexed)
	if err != nil {
		return fmt.Errorf("%w (describe %s: %v; run indexedWrite first)", ErrNoData, n.indexed, err)
	}
	doc, err := smsJobDocument(n)
	if err != nil {
		return err
	}
	stored, err := doc.JSON()
	if err != nil {
		return err
	}
	if desc.Attributes[schema.DocumentAttribute] == string(stored) {
		return nil
	}
	desc.Attributes = maps.Clone(desc.Attributes)
	if desc.Attributes == nil {
		desc.Attributes = map[string]string{}
	}
	desc.Attributes[schema.DocumentAttribute] = string(stored)
	if err := r.admin.ModifyTable(ctx, desc); err != nil {
		return fmt.Errorf("bench: store the schema document of %s: %w", n.indexed, err)
	}
	return nil
}

// smsJobDocument is the SMS schema's document under the names of
// indexedWrite's tables.
func smsJobDocument(n layerNames) (schema.Document, error) {
	st, err := seeds.SMSTable()
	if err != nil {
		return schema.Document{}, err
	}
	doc, err := st.Document()
	if err != nil {
		return schema.Document{}, err
	}
	doc.Name = n.indexed
	doc.Indexes[0].Name = n.index
	return doc, nil
}
