package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// KindCompare compares the records of a copy's two tables (Spec.Table and
// Spec.Target): counts "same", "missing" (in the source only),
// "different" and "extra" (in the target only). A migration switches
// reads once it comes out clean (docs/migration.md).
const KindCompare Kind = "compare"

// Copy tuning: rows per batch and batches in flight per worker.
const (
	copyBatchRows = 1000
	copyInFlight  = 8
)

// newCopyTask returns the copy or compare Task of spec: the documents
// stored with spec.Table and spec.Target say how each encodes a record
// (dao.Copier).
func newCopyTask(ctx context.Context, c Client, spec Spec) (Task, error) {
	if spec.Target == "" {
		return nil, fmt.Errorf("%w: %s needs a target table", ErrSpec, spec.Kind)
	}
	src, err := tableDocument(ctx, c, spec.Table)
	if err != nil {
		return nil, err
	}
	dst, err := tableDocument(ctx, c, spec.Target)
	if err != nil {
		return nil, err
	}
	cp, err := dao.NewCopier(c, dao.CopySpec{Source: src, Target: dst, SourceTable: spec.Table, TargetTable: spec.Target})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	if spec.Kind == KindCompare {
		return &compareTask{c: c, cp: cp}, nil
	}
	return &copyTask{c: c, cp: cp, batch: copyBatchRows, inFlight: copyInFlight}, nil
}

// tableDocument reads the schema document stored with table
// (admin.ReadDocument: written by admin.EnsureTables, dao.CreateTables or
// PrepareTarget). The client must describe tables (admin.Client).
func tableDocument(ctx context.Context, c Client, table string) (schema.Document, error) {
	ac, ok := c.(admin.Client)
	if !ok {
		return schema.Document{}, fmt.Errorf("jobs: read the document of %q: the client cannot describe tables: %w", table, errors.ErrUnsupported)
	}
	a, err := admin.New(ac)
	if err != nil {
		return schema.Document{}, err
	}
	doc, err := a.ReadDocument(ctx, table)
	if err != nil {
		return schema.Document{}, fmt.Errorf("jobs: %w", err)
	}
	return doc, nil
}

// copyTask copies the rows of one unit of the source into the target.
type copyTask struct {
	c        Client
	cp       *dao.Copier
	batch    int
	inFlight int
}

func (t *copyTask) Sources() []string { return []string{t.cp.SourceTable()} }

// copyBatch is one batch of a unit: its source rows, the last one's key,
// and, once sent, its counts.
type copyBatch struct {
	rows   []*hbapi.Result
	last   []byte
	counts Counts
	done   chan error
}

// Run copies the rows of u after after: each batch of source rows becomes
// one Batch of target writes (each record's data row and index entries,
// at the row's version), encoded and sent in the background, up to
// inFlight batches at a time, committed in order. Counts: "rows" read,
// "written" records, "tombstones" skipped (deleted records: a mirrored
// store copies its own deletes), "undecodable" rows skipped.
func (t *copyTask) Run(ctx context.Context, u Unit, after []byte, commit func([]byte, Counts) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pending []*copyBatch
	settle := func() error { // waits for the oldest batch and commits it
		b := pending[0]
		pending = pending[1:]
		if err := <-b.done; err != nil {
			return fmt.Errorf("jobs: copy %s into %s: %w", u.Table, t.cp.TargetTable(), err)
		}
		return commit(b.last, b.counts)
	}
	b := &copyBatch{}
	for res, err := range hbapi.ScanAll(ctx, t.c, unitScan(u, after, t.batch)) {
		if err != nil {
			return fmt.Errorf("jobs: copy: scan %s: %w", u.Table, err)
		}
		if b.rows = append(b.rows, res); len(b.rows) < t.batch {
			continue
		}
		if len(pending) == t.inFlight {
			if err := settle(); err != nil {
				return err
			}
		}
		pending = append(pending, t.send(ctx, b))
		b = &copyBatch{}
	}
	if len(b.rows) > 0 {
		pending = append(pending, t.send(ctx, b))
	}
	for len(pending) > 0 {
		if err := settle(); err != nil {
			return err
		}
	}
	return nil
}

// send encodes b's rows into target writes and sends them, in the
// background: batches in flight encode on as many cores.
func (t *copyTask) send(ctx context.Context, b *copyBatch) *copyBatch {
	b.done = make(chan error, 1)
	b.last = b.rows[len(b.rows)-1].Row()
	go func() {
		acts := t.actions(b)
		if len(acts) == 0 {
			b.done <- nil
			return
		}
		_, err := t.c.Batch(ctx, acts)
		b.done <- err
	}()
	return b
}

// actions returns the target writes of b's rows and sets b's counts.
func (t *copyTask) actions(b *copyBatch) []hbapi.Action {
	b.counts = Counts{"rows": int64(len(b.rows))}
	var acts []hbapi.Action
	for _, res := range b.rows {
		if !t.cp.Live(res) {
			b.counts["tombstones"]++
			continue
		}
		var err error
		if acts, _, err = t.cp.Actions(acts, res.Row(), res, 0); err != nil {
			b.counts["undecodable"]++
			continue
		}
		b.counts["written"]++
	}
	return acts
}

// unitScan is the scan of the rows of u after after.
func unitScan(u Unit, after []byte, caching int) *hbapi.Scan {
	start := u.Start
	if after != nil {
		start = append(append([]byte(nil), after...), 0)
	}
	return &hbapi.Scan{Table: u.Table, StartRow: start, StopRow: u.Stop, Caching: caching}
}
