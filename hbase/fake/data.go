package fake

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Get implements hbase.DataClient.
func (c *Client) Get(ctx context.Context, g *hbapi.Get) (*hbapi.Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	t, err := c.beginData(ctx, "get", g.Table)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	spec := readSpec{families: g.Families, columns: g.Columns, maxVersions: g.MaxVersions, timeRange: g.TimeRange, filter: g.Filter}
	if err := t.checkSelection(spec); err != nil {
		return nil, opErr("get", g.Table, err)
	}
	res := &hbapi.Result{}
	if pageLimit(g.Filter) != 0 {
		if cells, ok := t.readRow(g.Row, spec, c.nowMs()); ok {
			res.Cells = cells
		}
	}
	if g.ExistenceOnly {
		return &hbapi.Result{Exists: len(res.Cells) > 0}, nil
	}
	return res, nil
}

// WriteLimits returns HBase's default limits, which the fake enforces
// as a Client with its defaults does: a cell over
// hbase.DefaultMaxCellSize fails with hbase.ErrCellTooLarge.
func (c *Client) WriteLimits() hbapi.WriteLimits { return hbapi.DefaultWriteLimits() }

// Put implements hbase.DataClient.
func (c *Client) Put(ctx context.Context, p *hbapi.Put) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := hbapi.CheckWriteSize(p, hbapi.DefaultMaxCellSize); err != nil {
		return err
	}
	t, err := c.beginData(ctx, "put", p.Table)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := t.checkMutation(p); err != nil {
		return opErr("put", p.Table, err)
	}
	t.apply(p, p.Row, c.nextTS(), c.nowMs())
	return nil
}

// Delete implements hbase.DataClient.
func (c *Client) Delete(ctx context.Context, d *hbapi.Delete) error {
	if err := d.Validate(); err != nil {
		return err
	}
	t, err := c.beginData(ctx, "delete", d.Table)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := t.checkMutation(d); err != nil {
		return opErr("delete", d.Table, err)
	}
	t.apply(d, d.Row, c.nextTS(), c.nowMs())
	return nil
}

// checkMutation checks that every family of a Put or Delete exists.
func (t *table) checkMutation(m hbapi.Mutation) error {
	switch m := m.(type) {
	case *hbapi.Put:
		for _, c := range m.SortedCells() {
			if err := t.checkFamily([]byte(c.Family)); err != nil {
				return err
			}
		}
	case *hbapi.Delete:
		if m.Family != nil {
			return t.checkFamily(m.Family)
		}
	}
	return nil
}

func explicitTS(ts int64) bool { return ts != 0 && ts != hbapi.LatestTimestamp }

// apply writes a validated and checked Put or Delete to row; ts is the
// timestamp the server assigns to the operation.
func (t *table) apply(m hbapi.Mutation, key []byte, ts, now int64) {
	r := t.row(key, true)
	switch m := m.(type) {
	case *hbapi.Put:
		if explicitTS(m.Timestamp) {
			ts = m.Timestamp
		}
		for _, cv := range m.ColumnValues() {
			r.add(hbapi.Cell{Row: key, Family: cv.Family, Qualifier: cv.Qualifier, Timestamp: ts, Type: hbapi.CellTypePut, Value: cv.Value})
		}
	case *hbapi.Delete:
		if explicitTS(m.Timestamp) {
			ts = m.Timestamp
		}
		switch {
		case m.Family == nil:
			for _, f := range t.desc.Families {
				r.add(hbapi.Cell{Row: key, Family: []byte(f.Name), Timestamp: ts, Type: hbapi.CellTypeDeleteFamily})
			}
		case m.Qualifier == nil:
			// Only a nil qualifier means the family: Delete.Validate
			// refuses a non-nil empty one, and HBase's server deletes the
			// column with the empty qualifier.
			r.add(hbapi.Cell{Row: key, Family: m.Family, Timestamp: ts, Type: hbapi.CellTypeDeleteFamily})
		case m.AllVersions:
			r.add(hbapi.Cell{Row: key, Family: m.Family, Qualifier: m.Qualifier, Timestamp: ts, Type: hbapi.CellTypeDeleteColumn})
		default:
			if !explicitTS(m.Timestamp) {
				// Newest version: the server places the marker at the
				// timestamp of the newest live cell (or "now" if none).
				for _, cell := range t.visible(r, now) {
					if bytes.Equal(cell.Family, m.Family) && bytes.Equal(cell.Qualifier, m.Qualifier) {
						ts = cell.Timestamp
						break
					}
				}
			}
			r.add(hbapi.Cell{Row: key, Family: m.Family, Qualifier: m.Qualifier, Timestamp: ts, Type: hbapi.CellTypeDelete})
		}
	}
}

// latest returns the newest live cell of a column within tr.
func (t *table) latest(key, family, qualifier []byte, tr *hbapi.TimeRange, now int64) (hbapi.Cell, bool) {
	for _, cell := range t.visible(t.rows[string(key)], now) {
		if bytes.Equal(cell.Family, family) && bytes.Equal(cell.Qualifier, qualifier) && tr.Contains(cell.Timestamp) {
			return cell, true
		}
	}
	return hbapi.Cell{}, false
}

// Increment implements hbase.DataClient.
func (c *Client) Increment(ctx context.Context, inc *hbapi.Increment) (*hbapi.Result, error) {
	if err := inc.Validate(); err != nil {
		return nil, err
	}
	t, err := c.beginData(ctx, "increment", inc.Table)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	now := c.nowMs()
	deltas := inc.ColumnDeltas()
	newCells := make([]hbapi.Cell, 0, len(deltas))
	ts := c.nextTS()
	for _, d := range deltas {
		if err := t.checkFamily(d.Family); err != nil {
			return nil, opErr("increment", inc.Table, err)
		}
		var v int64
		cellTS := ts
		if cur, ok := t.latest(inc.Row, d.Family, d.Qualifier, nil, now); ok {
			if len(cur.Value) != 8 {
				return nil, opErr("increment", inc.Table, fmt.Errorf("%w: %s:%s has %d bytes", hbapi.ErrNotCounter, d.Family, d.Qualifier, len(cur.Value)))
			}
			v = int64(binary.BigEndian.Uint64(cur.Value))
			cellTS = max(cellTS, cur.Timestamp+1)
		}
		newCells = append(newCells, hbapi.Cell{Row: inc.Row, Family: d.Family, Qualifier: d.Qualifier, Timestamp: cellTS, Type: hbapi.CellTypePut,
			Value: binary.BigEndian.AppendUint64(nil, uint64(v+d.Delta))})
	}
	return t.writeCells(inc.Row, newCells), nil
}

// writeCells stores computed cells (all families checked) and returns
// them as a Result.
func (t *table) writeCells(key []byte, cells []hbapi.Cell) *hbapi.Result {
	r := t.row(key, true)
	out := make([]hbapi.Cell, len(cells))
	for i, cell := range cells {
		r.add(cell)
		out[i] = cloneCell(cell)
	}
	slices.SortFunc(out, hbapi.CompareCells)
	return &hbapi.Result{Cells: out}
}

// Append implements hbase.DataClient.
func (c *Client) Append(ctx context.Context, a *hbapi.Append) (*hbapi.Result, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if err := hbapi.CheckWriteSize(a, hbapi.DefaultMaxCellSize); err != nil {
		return nil, err
	}
	t, err := c.beginData(ctx, "append", a.Table)
	if err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	now := c.nowMs()
	cols := a.ColumnValues()
	newCells := make([]hbapi.Cell, 0, len(cols))
	ts := c.nextTS()
	for _, cv := range cols {
		if err := t.checkFamily(cv.Family); err != nil {
			return nil, opErr("append", a.Table, err)
		}
		var v []byte
		cellTS := ts
		if cur, ok := t.latest(a.Row, cv.Family, cv.Qualifier, nil, now); ok {
			v = slices.Clone(cur.Value)
			cellTS = max(cellTS, cur.Timestamp+1)
		}
		newCells = append(newCells, hbapi.Cell{Row: a.Row, Family: cv.Family, Qualifier: cv.Qualifier, Timestamp: cellTS, Type: hbapi.CellTypePut,
			Value: append(v, cv.Value...)})
	}
	return t.writeCells(a.Row, newCells), nil
}

// bindMutations checks the mutations of a CheckAndMutate or RowMutations
// (already validated) against the table.
func (t *table) bindMutations(muts []hbapi.Mutation) error {
	for _, m := range muts {
		if err := t.checkMutation(m); err != nil {
			return err
		}
	}
	return nil
}

// CheckAndMutate implements hbase.DataClient.
func (c *Client) CheckAndMutate(ctx context.Context, cam *hbapi.CheckAndMutate) (bool, error) {
	if err := cam.Validate(); err != nil {
		return false, err
	}
	if err := hbapi.CheckWriteSize(cam, hbapi.DefaultMaxCellSize); err != nil {
		return false, err
	}
	t, err := c.beginData(ctx, "check and mutate", cam.Table)
	if err != nil {
		return false, err
	}
	defer c.mu.Unlock()
	if err := t.checkFamily(cam.Family); err != nil {
		return false, opErr("check and mutate", cam.Table, err)
	}
	if err := t.bindMutations(cam.Mutations); err != nil {
		return false, opErr("check and mutate", cam.Table, err)
	}
	now := c.nowMs()
	cur, found := t.latest(cam.Row, cam.Family, cam.Qualifier, cam.TimeRange, now)
	var ok bool
	switch {
	case len(cam.Value) == 0:
		// Absence check, as HBase does it: an absent column counts as
		// empty; NOT_EQUAL needs a present, non-empty value.
		empty := !found || len(cur.Value) == 0
		ok = empty == (cam.Compare != hbapi.CompareNotEqual)
	case !found:
		ok = false
	default:
		ok = cam.Compare.Matches(bytes.Compare(cur.Value, cam.Value))
	}
	if !ok {
		return false, nil
	}
	ts := c.nextTS()
	for _, m := range cam.Mutations {
		t.apply(m, cam.Row, ts, now)
	}
	return true, nil
}

// MutateRow implements hbase.DataClient. All mutations share one
// server-assigned timestamp, as in HBase.
func (c *Client) MutateRow(ctx context.Context, rm *hbapi.RowMutations) error {
	if err := rm.Validate(); err != nil {
		return err
	}
	if err := hbapi.CheckWriteSize(rm, hbapi.DefaultMaxCellSize); err != nil {
		return err
	}
	t, err := c.beginData(ctx, "mutate row", rm.Table)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := t.bindMutations(rm.Mutations); err != nil {
		return opErr("mutate row", rm.Table, err)
	}
	ts, now := c.nextTS(), c.nowMs()
	for _, m := range rm.Mutations {
		t.apply(m, rm.Row, ts, now)
	}
	return nil
}

// Batch implements hbase.DataClient. Actions run one after the other, in
// order, so the CheckAndMutates of one row apply in batch order as on
// HBase.
func (c *Client) Batch(ctx context.Context, actions []hbapi.Action) ([]hbapi.BatchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	results := make([]hbapi.BatchResult, len(actions))
	var failed []hbapi.ActionError
	for i, a := range actions {
		var res *hbapi.Result
		var processed bool
		err := hbapi.ValidateAction(a)
		if err == nil {
			switch a := a.(type) {
			case *hbapi.Get:
				res, err = c.Get(ctx, a)
			case *hbapi.Put:
				err = c.Put(ctx, a)
			case *hbapi.Delete:
				err = c.Delete(ctx, a)
			case *hbapi.Increment:
				res, err = c.Increment(ctx, a)
			case *hbapi.Append:
				res, err = c.Append(ctx, a)
			case *hbapi.CheckAndMutate:
				processed, err = c.CheckAndMutate(ctx, a)
			}
		}
		if err != nil {
			results[i] = hbapi.BatchResult{Err: err}
			failed = append(failed, hbapi.ActionError{Index: i, Action: a, Err: err})
			continue
		}
		if res == nil {
			res = &hbapi.Result{}
		}
		results[i] = hbapi.BatchResult{Result: res, Processed: processed}
	}
	if len(failed) > 0 {
		return results, &hbapi.BatchError{Failed: failed}
	}
	return results, nil
}
