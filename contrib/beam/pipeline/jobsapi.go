package pipeline

import (
	"context"
	"fmt"

	"github.com/hbkit/hbkit/jobs"
)

// STAND-IN until g1-jobs' Plan and RunUnit are merged: one unit per region,
// no checkpoints.

func plan(ctx context.Context, c jobs.Client, spec jobs.Spec, t jobs.Task) ([]jobs.Unit, error) {
	var units []jobs.Unit
	for _, table := range t.Sources() {
		regions, err := c.TableRegions(ctx, table)
		if err != nil {
			return nil, err
		}
		for i, r := range regions {
			units = append(units, jobs.Unit{ID: fmt.Sprintf("%s/%04d", table, i), Table: table, Start: r.StartKey, Stop: r.EndKey})
		}
	}
	return units, nil
}

func runUnit(ctx context.Context, c jobs.Client, spec jobs.Spec, t jobs.Task, u jobs.Unit) (jobs.Counts, error) {
	total := jobs.Counts{}
	err := t.Run(ctx, u, nil, func(last []byte, d jobs.Counts) error { total.Add(d); return nil })
	return total, err
}
