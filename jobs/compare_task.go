package jobs

import (
	"context"
	"fmt"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/hbapi"
)

// compareTask compares a copy's source and target: units of the source
// find records the target lacks or holds with other values, units of the
// target find records the source lacks.
type compareTask struct {
	c  Client
	cp *dao.Copier
}

func (t *compareTask) Sources() []string {
	return []string{t.cp.SourceTable(), t.cp.TargetTable()}
}

// Run compares the rows of u after after, a batch of rows at a time (one
// scan batch, one Batch of Gets of the other table). Counts: "rows" read,
// "same", "missing", "different", "extra", "undecodable".
func (t *compareTask) Run(ctx context.Context, u Unit, after []byte, commit func([]byte, Counts) error) error {
	fromTarget := u.Table == t.cp.TargetTable()
	var rows []*hbapi.Result
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		counts, err := t.compare(ctx, rows, fromTarget)
		if err != nil {
			return fmt.Errorf("jobs: compare %s with %s: %w", t.cp.SourceTable(), t.cp.TargetTable(), err)
		}
		last := rows[len(rows)-1].Row()
		rows = rows[:0]
		return commit(last, counts)
	}
	for res, err := range hbapi.ScanAll(ctx, t.c, unitScan(u, after, copyBatchRows)) {
		if err != nil {
			return fmt.Errorf("jobs: compare: scan %s: %w", u.Table, err)
		}
		if rows = append(rows, res); len(rows) == copyBatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// compare judges one batch of rows against the other table.
func (t *compareTask) compare(ctx context.Context, rows []*hbapi.Result, fromTarget bool) (Counts, error) {
	counts := Counts{"rows": int64(len(rows))}
	table := t.cp.TargetTable()
	key := t.cp.TargetRowKey
	if fromTarget {
		table = t.cp.SourceTable()
		key = t.cp.SourceKey
	}
	var gets []hbapi.Action
	var mine []*hbapi.Result
	for _, r := range rows {
		k, live, err := key(r)
		switch {
		case err != nil:
			counts["undecodable"]++
		case live:
			gets = append(gets, &hbapi.Get{Table: table, Row: k})
			mine = append(mine, r)
		}
	}
	if len(gets) == 0 {
		return counts, nil
	}
	res, err := t.c.Batch(ctx, gets)
	if err != nil {
		return nil, err
	}
	for i, r := range mine {
		src, tgt := r, res[i].Result
		if fromTarget {
			src, tgt = tgt, r
		}
		o, err := t.cp.Compare(src, tgt)
		switch {
		case err != nil:
			counts["undecodable"]++
		case fromTarget && o == dao.CompareExtra:
			counts["extra"]++
		case fromTarget:
			// Found from the source's side too: counted there.
		case o == dao.CompareSame:
			counts["same"]++
		case o == dao.CompareMissing:
			counts["missing"]++
		case o == dao.CompareDifferent:
			counts["different"]++
		}
	}
	return counts, nil
}
