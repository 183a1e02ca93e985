package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/schema"
)

// indexTask is the Task of a verify, repair, rebuild or build job: a unit
// of the data table checks (or writes) the entries of its rows, a unit of
// an index table checks its entries against their data rows (see
// dao.Repo.CheckRange).
type indexTask struct {
	spec    Spec
	mode    dao.Mode
	repo    *dao.Repo[schema.Values]
	only    []string // spec.Index, declared name; nil: every index
	sources []string
}

// newIndexTask opens the store of the data table's stored schema
// document, over schema.Values records: any schema with indexes.
func newIndexTask(ctx context.Context, c Client, spec Spec) (Task, error) {
	if spec.Table == "" {
		return nil, fmt.Errorf("%w: %s: no table", ErrSpec, spec.Kind)
	}
	ac, ok := c.(admin.Client)
	if !ok {
		return nil, fmt.Errorf("jobs: %s %s: reading the stored schema document needs DescribeTable: %w", spec.Kind, spec.Table, errors.ErrUnsupported)
	}
	a, err := admin.New(ac)
	if err != nil {
		return nil, err
	}
	doc, err := a.ReadDocument(ctx, spec.Table)
	if err != nil {
		return nil, fmt.Errorf("jobs: %s %s: %w", spec.Kind, spec.Table, err)
	}
	if len(doc.Indexes) == 0 {
		return nil, fmt.Errorf("%w: %s %s: its schema document declares no index", ErrSpec, spec.Kind, spec.Table)
	}
	var opts []dao.Option
	if spec.Grace > 0 {
		opts = append(opts, dao.WithGracePeriod(spec.Grace))
	}
	if declared, err := schema.ParseTableName(doc.Name); err == nil && declared.String() != spec.Table {
		opts = append(opts, dao.WithTableNames(map[string]string{doc.Name: spec.Table})) // a renamed data table
	}
	repo, err := dao.OpenDocument(c, doc, spec.UIDTable, opts...)
	if err != nil {
		return nil, fmt.Errorf("jobs: %s %s: %w", spec.Kind, spec.Table, err)
	}
	t := &indexTask{spec: spec, repo: repo, mode: modeOf(spec.Kind), sources: []string{repo.Name()}}
	if spec.Index != "" {
		x, err := repo.Index(spec.Index)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %s: %w", ErrSpec, spec.Kind, spec.Table, err)
		}
		t.only = []string{x.Schema().Name().String()}
		if spec.Kind != KindBuild {
			t.sources = append(t.sources, x.Name())
		}
	} else if spec.Kind != KindBuild {
		t.sources = append(t.sources, repo.IndexTables()...)
	}
	return t, nil
}

// modeOf is the check mode of an index job's kind: a build writes the
// entries a rebuild writes.
func modeOf(k Kind) dao.Mode {
	switch k {
	case KindVerify:
		return dao.ModeVerify
	case KindRepair:
		return dao.ModeRepair
	}
	return dao.ModeRebuild
}

// Sources lists the data table, then the index tables the job checks
// (none for a build, which reads the data rows only).
func (t *indexTask) Sources() []string { return t.sources }

// Run checks, repairs or writes the rows of u after after, committing
// after each batch with the counts of that batch (IndexCounts' names).
func (t *indexTask) Run(ctx context.Context, u Unit, after []byte, commit func(last []byte, delta Counts) error) error {
	sp := dao.Span{Table: u.Table, Start: u.Start, Stop: u.Stop, After: after}
	if u.Table == t.repo.Name() {
		sp.Indexes = t.only
	}
	var done Counts
	_, err := t.repo.CheckRange(ctx, t.mode, sp, dao.WithCheckpoint(func(cp dao.Checkpoint) error {
		total := IndexCounts(cp.Report)
		delta := Counts{}
		for k, v := range total {
			if d := v - done[k]; d != 0 {
				delta[k] = d
			}
		}
		done = total
		return commit(cp.After, delta)
	}))
	if err != nil {
		return fmt.Errorf("jobs: %s %s: unit %s: %w", t.spec.Kind, t.spec.Table, u.ID, err)
	}
	return nil
}

// Finish ends a build once every unit is done: it marks the index (every
// index, for a Spec without one) active, so that reads through it answer.
// For the other kinds it does nothing.
func (t *indexTask) Finish(ctx context.Context, total Counts) error {
	if t.spec.Kind != KindBuild {
		return nil
	}
	return t.repo.ActivateIndex(ctx, t.spec.Index)
}

// IndexCounts returns the counts of a check's report, by the names an
// index job's units report.
func IndexCounts(r dao.Report) Counts {
	return Counts{
		"rows": r.DataRows, "entries": r.Entries, "missing": r.Missing, "orphaned": r.Orphaned, "stale": r.Stale,
		"undecodable": r.Undecodable, "tombstones": r.Tombstones, "duplicates": r.Duplicates,
		"repaired": r.Repaired, "skipped": r.Skipped, "skipped_changed": r.Skips.Changed,
		"skipped_in_flight": r.Skips.InFlight, "skipped_foreign": r.Skips.Foreign,
	}
}

// IndexReport returns the report an index job's total counts make, to
// judge it (Report.Clean) or print it.
func IndexReport(c Counts) dao.Report {
	return dao.Report{
		DataRows: c["rows"], Entries: c["entries"], Missing: c["missing"], Orphaned: c["orphaned"], Stale: c["stale"],
		Undecodable: c["undecodable"], Tombstones: c["tombstones"], Duplicates: c["duplicates"],
		Repaired: c["repaired"], Skipped: c["skipped"],
		Skips: dao.Skips{Changed: c["skipped_changed"], InFlight: c["skipped_in_flight"], Foreign: c["skipped_foreign"]},
	}
}
