package gohbase

import (
	"context"
	"errors"
	"sync"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/hbkit/hbkit/hbase"
)

// camConcurrency bounds the rows whose CheckAndMutates a Batch sends at
// once (gohbase cannot put them in a multi request).
const camConcurrency = 32

// Batch runs the actions with gohbase's SendBatch, one SendBatch per
// table, all tables at once. gohbase cannot batch CheckAndMutates, so
// each goes as its own call (see Client.CheckAndMutate): the
// CheckAndMutates of one row one after the other in the order of the
// batch, different rows concurrently.
func (c *Client) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	results := make([]hbase.BatchResult, len(actions))
	if len(actions) == 0 {
		return results, nil
	}
	type group struct {
		table string
		idx   []int
		calls []hrpc.Call
	}
	byTable := map[string]*group{}
	var tables []*group
	camRows := map[string][]int{} // table + "\x00" + row → indexes, in batch order
	var rowOrder []string
	cams := make(map[int]*hrpc.CheckAndMutate)
	for i, a := range actions {
		if err := hbase.ValidateAction(a); err != nil {
			results[i].Err = err
			continue
		}
		table := string(tableName(hbase.ActionTable(a)))
		var call hrpc.Call
		var err error
		switch a := a.(type) {
		case *hbase.Get:
			call, err = toGet(ctx, a)
		case *hbase.Put:
			call, err = toPut(ctx, a)
		case *hbase.Delete:
			call, err = toDelete(ctx, a)
		case *hbase.Increment:
			call, err = toIncrement(ctx, a)
		case *hbase.Append:
			call, err = toAppend(ctx, a)
		case *hbase.CheckAndMutate:
			var cam *hrpc.CheckAndMutate
			if cam, err = toCheckAndMutate(ctx, a); err == nil || isUnsupported(err) {
				err = nil
				cams[i] = cam // nil: sent as an atomic RegionAction
				key := table + "\x00" + string(a.Row)
				if _, ok := camRows[key]; !ok {
					rowOrder = append(rowOrder, key)
				}
				camRows[key] = append(camRows[key], i)
			}
		}
		if err != nil {
			results[i].Err = wrapErr(opName(a), table, err)
			continue
		}
		if call == nil {
			continue // a CheckAndMutate
		}
		g := byTable[table]
		if g == nil {
			g = &group{table: table}
			byTable[table] = g
			tables = append(tables, g)
		}
		g.idx = append(g.idx, i)
		g.calls = append(g.calls, call)
	}

	var wg sync.WaitGroup
	for _, g := range tables {
		wg.Go(func() {
			res, _ := c.c.SendBatch(ctx, g.calls)
			for j, i := range g.idx {
				if j >= len(res) {
					results[i].Err = wrapErr(opName(actions[i]), g.table, errors.New("SendBatch returned too few results"))
					continue
				}
				if res[j].Error != nil {
					results[i].Err = wrapErr(opName(actions[i]), g.table, res[j].Error)
					continue
				}
				results[i].Result = fromMsg(res[j].Msg)
			}
		})
	}
	sem := make(chan struct{}, camConcurrency)
	for _, key := range rowOrder {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, i := range camRows[key] {
				ok, err := c.checkAndMutate(ctx, actions[i].(*hbase.CheckAndMutate), cams[i])
				if err != nil {
					results[i].Err = err
					continue
				}
				results[i] = hbase.BatchResult{Result: &hbase.Result{}, Processed: ok}
			}
		})
	}
	wg.Wait()

	var be hbase.BatchError
	for i, r := range results {
		if r.Err != nil {
			be.Failed = append(be.Failed, hbase.ActionError{Index: i, Action: actions[i], Err: r.Err})
		}
	}
	if len(be.Failed) > 0 {
		return results, &be
	}
	return results, nil
}

func opName(a hbase.Action) string {
	switch a.(type) {
	case *hbase.Get:
		return "get"
	case *hbase.Put:
		return "put"
	case *hbase.Delete:
		return "delete"
	case *hbase.Increment:
		return "increment"
	case *hbase.Append:
		return "append"
	case *hbase.CheckAndMutate:
		return "check and mutate"
	}
	return "batch"
}
