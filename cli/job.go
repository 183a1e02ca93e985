package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hbkit/hbkit/jobs"
)

const jobSynopsis = `usage: hbkit job run|status|plan|reset --kind K --table T [--index I] [--target T2] [flags]
`

// jobSubcommands describes each subcommand of job.
var jobSubcommands = []struct{ name, summary string }{
	{"run", `plan the job (or read the plan another process stored), run the
units of this process's shard on --workers workers until each is
done, taking over units whose worker died, and print the report`},
	{"status", "units done and the counts of every unit, from the checkpoint table"},
	{"plan", `print the job's units: the stored plan, or the plan a run would
store (not stored)`},
	{"reset", `delete the job's plan and checkpoints (needs --yes): its next run
plans it again and runs every unit anew`},
}

const jobAbout = `A job (--kind verify, repair, rebuild, build, copy or compare) is cut into
units, key ranges of the regions of the tables it reads; each unit keeps its
checkpoint in the checkpoint table (--jobs-table), so a job run again, in
this process or any other, resumes where it stopped. The same --kind,
--table, --index and --target name the same job.

Many processes run one job: give each --shard i/N (the units whose index
is i modulo N), or run it as a Kubernetes Indexed Job with --shards N
(N = the Job's completions): the index comes from JOB_COMPLETION_INDEX.
A process whose units are all done exits; the job is complete when every
shard's are ("hbkit job status").

Progress goes to stderr: a line redrawn on a terminal, a line every 10 s
elsewhere (--progress auto), JSON lines (--progress json) or nothing
(--progress none). The report goes to stdout, as JSON with --json.
`

// jobUsage is the usage text of job: every subcommand when sub is empty,
// else sub's own description.
func jobUsage(sub string) string {
	return subcommandUsage(jobSynopsis, "job", sub, jobSubcommands, jobAbout)
}

// jobClient is what job needs of a client: data, regions, and creating
// the checkpoint table.
type jobClient interface {
	jobs.Client
	jobs.StoreAdmin
}

// jobTaskFunc turns a Spec into its Task (jobs.NewTask; tests pass their
// own).
type jobTaskFunc func(ctx context.Context, c jobs.Client, spec jobs.Spec) (jobs.Task, error)

type jobFlags struct {
	spec      jobs.Spec
	kind      string
	zk        string
	workers   int
	shard     string
	shards    int
	store     string
	lease     time.Duration
	perRegion int
	progress  string
	json      bool
	yes       bool
}

func jobFlagSet(e *Env, f *jobFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("job", flag.ContinueOnError)
	fs.StringVar(&f.kind, "kind", "", "what the job does (`K`): verify, repair, rebuild, build, copy or compare")
	fs.StringVar(&f.spec.Table, "table", "", "the data `TABLE` (the source of a copy)")
	fs.StringVar(&f.spec.Index, "index", "", "the index `NAME` (build: the one to build; verify, repair, rebuild: only this one)")
	fs.StringVar(&f.spec.Target, "target", "", "copy: the `TABLE` to copy into (its stored document says how)")
	fs.StringVar(&f.spec.UIDTable, "uid-table", "", "the UID `TABLE` of a schema that declares UID fields")
	fs.DurationVar(&f.spec.Grace, "grace", time.Minute, "repair: age after which an unverified orphan is deleted")
	fs.IntVar(&f.workers, "workers", 0, "units run at once in this process (default GOMAXPROCS)")
	fs.StringVar(&f.shard, "shard", "", "run only the units of shard `i/N`")
	fs.IntVar(&f.shards, "shards", 0, "the shard count `N` of a Kubernetes Indexed Job: the shard index is $JOB_COMPLETION_INDEX")
	fs.StringVar(&f.store, "jobs-table", jobs.DefaultStoreTable, "the checkpoint `TABLE` (created if missing)")
	fs.DurationVar(&f.lease, "lease", jobs.DefaultLease, "how long a dead worker's unit stays claimed")
	fs.IntVar(&f.perRegion, "units-per-region", 1, "plan: cut every region into at least `N` units")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr: `auto|json|none`")
	fs.BoolVar(&f.json, "json", false, "print the report (status: and the units; plan: the units) as JSON")
	fs.BoolVar(&f.yes, "yes", false, "reset: yes, delete the job's checkpoints")
	e.connectFlags(fs, &f.zk)
	return fs
}

// jobCommand is hbkit job: one subcommand per jobSubcommands, all with
// the flags of jobFlagSet.
func jobCommand(e *Env, connect connectFunc[jobClient], newTask jobTaskFunc) command {
	c := command{name: "job", summary: "run index and copy jobs over whole tables: units, checkpoints, shards",
		usage: text(jobUsage("")),
		bind:  func() (*flag.FlagSet, runFunc) { return jobFlagSet(e, &jobFlags{}), nil }}
	for _, s := range jobSubcommands {
		c.subs = append(c.subs, command{name: s.name, summary: strings.SplitN(s.summary, "\n", 2)[0], usage: text(jobUsage(s.name)),
			bind: func() (*flag.FlagSet, runFunc) {
				var f jobFlags
				return jobFlagSet(e, &f), func(ctx context.Context, args []string) error {
					return e.job(ctx, s.name, f, args, connect, newTask)
				}
			}})
	}
	return c
}

// runJobWith runs hbkit job with args over connect.
func runJobWith(ctx context.Context, e *Env, args []string, connect connectFunc[jobClient], newTask jobTaskFunc) error {
	return runOne(ctx, e, jobCommand(e, connect, newTask), args)
}

// job runs the job subcommand sub with its flags and arguments.
func (e *Env) job(ctx context.Context, sub string, f jobFlags, args []string, connect connectFunc[jobClient], newTask jobTaskFunc) error {
	shard, err := f.check(e, args)
	if err != nil {
		return err
	}
	if sub == "reset" && !f.yes {
		fmt.Fprintf(e.Stderr, "%s job reset: deleting the checkpoints of job %s needs --yes\n", e.name(), f.spec.ID())
		return ErrUsage
	}
	c, closer, err := dial(ctx, e, connect, f.zk)
	if err != nil {
		return err
	}
	defer closer.Close()
	store, err := jobs.NewStore(c, jobs.WithStoreTable(f.store), jobs.WithLease(f.lease))
	if err != nil {
		return err
	}
	switch sub {
	case "status":
		return jobStatus(ctx, e, store, f)
	case "plan":
		return jobPlan(ctx, e, c, store, f, newTask)
	case "reset":
		if err := store.Reset(ctx, f.spec.ID()); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "job %s: plan and checkpoints deleted from %s\n", f.spec.ID(), store.Table())
		return nil
	}
	if err := jobs.EnsureStore(ctx, c, jobs.WithStoreTable(f.store)); err != nil {
		return err
	}
	task, err := newTask(ctx, c, f.spec)
	if err != nil {
		return err
	}
	return jobRun(ctx, e, c, store, task, f, shard)
}

// check validates the flags and returns the shard of --shard, or of
// --shards and JOB_COMPLETION_INDEX.
func (f *jobFlags) check(e *Env, args []string) (jobs.Shard, error) {
	f.spec.Kind = jobs.Kind(f.kind)
	usage := func(format string, args ...any) (jobs.Shard, error) {
		fmt.Fprintf(e.Stderr, "%s job: %s\n", e.name(), fmt.Sprintf(format, args...))
		return jobs.Shard{}, ErrUsage
	}
	switch {
	case len(args) > 0:
		return usage("unexpected argument %q", args[0])
	case f.kind == "" || f.spec.Table == "":
		return usage("name the job with --kind K and --table T")
	case !slices.Contains([]jobs.Kind{jobs.KindVerify, jobs.KindRepair, jobs.KindRebuild, jobs.KindBuild, jobs.KindCopy, jobs.KindCompare}, f.spec.Kind):
		return usage("--kind %q: want verify, repair, rebuild, build, copy or compare", f.kind)
	case f.progress != "auto" && f.progress != "json" && f.progress != "none":
		return usage("--progress %q: want auto, json or none", f.progress)
	case f.workers < 0:
		return usage("--workers %d: want a positive number", f.workers)
	case f.shard != "" && f.shards != 0:
		return usage("give --shard i/N or --shards N, not both")
	case f.shard != "":
		sh, err := jobs.ParseShard(f.shard)
		if err != nil {
			return usage("--shard: %v", err)
		}
		return sh, nil
	case f.shards != 0:
		var env string
		if e.Getenv != nil {
			env = e.Getenv("JOB_COMPLETION_INDEX")
		}
		i, err := strconv.Atoi(env)
		if err != nil {
			return usage("--shards %d: JOB_COMPLETION_INDEX is %q, not an index (outside a Kubernetes Indexed Job, give --shard i/N)", f.shards, env)
		}
		sh, err := jobs.ParseShard(fmt.Sprintf("%d/%d", i, f.shards))
		if err != nil {
			return usage("--shards: %v", err)
		}
		return sh, nil
	}
	return jobs.Shard{}, nil
}

func jobRun(ctx context.Context, e *Env, c jobs.Client, store *jobs.Store, task jobs.Task, f jobFlags, shard jobs.Shard) error {
	opts := []jobs.Option{jobs.WithStore(store), jobs.WithShard(shard), jobs.WithPlan(jobs.WithUnitsPerRegion(f.perRegion))}
	if f.workers > 0 {
		opts = append(opts, jobs.WithWorkers(f.workers))
	}
	var bar *progressBar
	switch f.progress {
	case "auto":
		bar = newProgressBar(e.Stderr)
		opts = append(opts, jobs.WithProgress(func(p jobs.Progress) { drawJobProgress(bar, p) }, time.Second))
	case "json":
		enc := json.NewEncoder(e.Stderr)
		opts = append(opts, jobs.WithProgress(func(p jobs.Progress) { _ = enc.Encode(p) }, time.Second))
	}
	r, err := jobs.RunTask(ctx, c, f.spec, task, opts...)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	if f.json {
		return jobJSON(e, r)
	}
	fmt.Fprintf(e.Stdout, "job %s (shard %s)\n", r.Job, shard)
	writeJobReport(e, r)
	return nil
}

// drawJobProgress renders a job's progress as a bar of its units.
func drawJobProgress(bar *progressBar, p jobs.Progress) {
	fraction := 0.0
	if p.Units > 0 {
		fraction = float64(p.UnitsDone) / float64(p.Units)
	}
	if p.Done {
		bar.last = time.Time{} // the last line is always drawn
	}
	eta := "ETA ?"
	switch {
	case p.Done:
		eta = "ended"
	case p.ETA > 0:
		eta = "ETA " + p.ETA.Round(time.Second).String()
	}
	bar.draw(fraction, fmt.Sprintf("units %d/%d, %d rows, %.0f rows/s, %s", p.UnitsDone, p.Units, p.Rows, p.RowsPerSec, eta))
}

func writeJobReport(e *Env, r jobs.Report) {
	fmt.Fprintf(e.Stdout, "  units        %d/%d done\n  complete     %v\n  finished     %v\n", r.UnitsDone, r.Units, r.Complete, r.Finished)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.Counts {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		fmt.Fprintf(e.Stdout, "  %-12s %d\n", k, r.Counts[k])
	}
	if r.Seconds > 0 {
		fmt.Fprintf(e.Stdout, "  seconds      %.1f\n  rows/s       %.0f\n", r.Seconds, r.RowsPerSec)
	}
}

func jobJSON(e *Env, v any) error {
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func jobStatus(ctx context.Context, e *Env, store *jobs.Store, f jobFlags) error {
	r, err := store.Status(ctx, f.spec.ID())
	if errors.Is(err, jobs.ErrNoPlan) {
		return fmt.Errorf("job %s has not run (no plan in %s): %w", f.spec.ID(), store.Table(), err)
	}
	if err != nil {
		return err
	}
	units, err := store.Units(ctx, f.spec.ID())
	if err != nil {
		return err
	}
	if f.json {
		return jobJSON(e, struct {
			jobs.Report
			UnitList []jobs.UnitStatus `json:"unit_list"`
		}{r, units})
	}
	fmt.Fprintf(e.Stdout, "job %s\n", r.Job)
	writeJobReport(e, r)
	for _, u := range units {
		if u.State != jobs.StateDone {
			fmt.Fprintf(e.Stdout, "  %s: %s, owner %q, %d attempts, %d rows\n", u.Unit, u.State, u.Owner, u.Attempts, u.Counts["rows"])
		}
	}
	return nil
}

func jobPlan(ctx context.Context, e *Env, c jobs.Client, store *jobs.Store, f jobFlags, newTask jobTaskFunc) error {
	js, err := store.Job(ctx, f.spec.ID())
	units, note := js.Plan, "stored in "+store.Table()
	if errors.Is(err, jobs.ErrNoPlan) {
		task, terr := newTask(ctx, c, f.spec)
		if terr != nil {
			return terr
		}
		units, err = jobs.Plan(ctx, c, f.spec, task, jobs.WithUnitsPerRegion(f.perRegion))
		note = `not stored: "hbkit job run" stores it`
	}
	if err != nil {
		return err
	}
	if f.json {
		return jobJSON(e, units)
	}
	fmt.Fprintf(e.Stdout, "job %s: %d units (%s)\n", f.spec.ID(), len(units), note)
	for _, u := range units {
		fmt.Fprintf(e.Stdout, "  %s\n", strings.TrimSpace(u.String()))
	}
	return nil
}
