package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Client is what a job calls: reads and writes of the tables, and their
// regions. The native client (package hbase) and the fake (hbase/fake)
// implement it.
type Client interface {
	hbapi.DataClient
	TableRegions(ctx context.Context, table string) ([]hbapi.RegionInfo, error)
}

// Kind is what a job does.
type Kind string

const (
	KindVerify  Kind = "verify"  // count missing, orphaned and stale index entries
	KindRepair  Kind = "repair"  // verify, and fix what is wrong
	KindRebuild Kind = "rebuild" // rewrite every index entry of every record
	KindBuild   Kind = "build"   // build one new index over the rows already in the table
	KindCopy    Kind = "copy"    // copy the rows of a table into another table, re-keyed by its document
)

// Spec describes a job. It is plain data: a Beam worker or a process given
// a shard rebuilds the Task from it.
type Spec struct {
	Kind  Kind   `json:"kind"`
	Table string `json:"table"`           // the data table (the source of a copy)
	Index string `json:"index,omitempty"` // build: the index to build; verify, repair, rebuild: only this index ("" all)
	// Target is the table a copy writes; its stored document says how.
	Target string `json:"target,omitempty"`
	// Grace is how old an orphaned entry must be before repair deletes it.
	Grace time.Duration `json:"grace,omitempty"`
	// UIDTable is the table of the dictionary of uid-coded fields, when the
	// document has any.
	UIDTable string `json:"uid_table,omitempty"`
}

// ID names the job in the checkpoint table: the same Spec is the same job,
// so a process started again resumes it.
func (s Spec) ID() string {
	id := string(s.Kind) + "/" + s.Table
	if s.Index != "" {
		id += "/" + s.Index
	}
	if s.Target != "" {
		id += "->" + s.Target
	}
	return id
}

// Unit is one piece of a job: the rows of Table in [Start, Stop).
type Unit struct {
	ID    string `json:"id"`    // unique within the job; a unit split mid-job keeps its ID as prefix of its parts'
	Table string `json:"table"` // the table the unit reads
	Start []byte `json:"start"` // inclusive; empty: the table's first row
	Stop  []byte `json:"stop"`  // exclusive; empty: past the table's last row
}

// String prints the unit as its ID, table and range, keys quoted as
// schema.QuoteKey does.
func (u Unit) String() string {
	return fmt.Sprintf("%s %s [%s, %s)", u.ID, u.Table, schema.QuoteKey(u.Start), schema.QuoteKey(u.Stop))
}

// Counts are what a unit did, by name ("rows", "written", "missing"...).
// A job's report is the sum of its units' counts.
type Counts map[string]int64

// Add adds d to c.
func (c Counts) Add(d Counts) {
	for k, v := range d {
		c[k] += v
	}
}

// Task does a job's work on one unit at a time. Run must be idempotent
// from any position: a unit resumed from its checkpoint redoes the rows
// after it, and they must come out the same.
type Task interface {
	// Sources lists the tables whose rows the job reads, in order: the
	// units are cut from their regions.
	Sources() []string
	// Run handles the rows of u after row after (nil: from u.Start). After
	// each batch it calls commit with the last row handled and the counts
	// of that batch; commit stores both in one write, and its error stops
	// the run. Workers call Run concurrently, on different units.
	Run(ctx context.Context, u Unit, after []byte, commit func(last []byte, delta Counts) error) error
}

// ErrSpec is wrapped by the errors of a Spec that cannot be run.
var ErrSpec = errors.New("jobs: invalid job spec")

// NewTask returns the Task of spec, reading the documents stored with its
// tables.
func NewTask(ctx context.Context, c Client, spec Spec) (Task, error) {
	switch spec.Kind {
	case KindVerify, KindRepair, KindRebuild, KindBuild:
		return newIndexTask(ctx, c, spec)
	case KindCopy, KindCompare:
		return newCopyTask(ctx, c, spec)
	}
	return nil, fmt.Errorf("%w: kind %q (want verify, repair, rebuild, build, copy or compare)", ErrSpec, spec.Kind)
}
