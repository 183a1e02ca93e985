package gohbase

import (
	"context"
	"errors"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"

	"github.com/hbkit/hbkit/hbase"
)

// Get reads one row with gohbase's Get.
func (c *Client) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, wrapErr("get", g.Table, err)
	}
	get, err := toGet(ctx, g)
	if err != nil {
		return nil, wrapErr("get", g.Table, err)
	}
	r, err := c.c.Get(get)
	if err != nil {
		return nil, wrapErr("get", g.Table, err)
	}
	return fromResult(r), nil
}

// Put writes one row with gohbase's Put.
func (c *Client) Put(ctx context.Context, p *hbase.Put) error {
	if err := p.Validate(); err != nil {
		return err
	}
	m, err := toPut(ctx, p)
	if err != nil {
		return wrapErr("put", p.Table, err)
	}
	_, err = c.c.Put(m)
	return wrapErr("put", p.Table, err)
}

// Delete writes a delete marker with gohbase's Delete.
func (c *Client) Delete(ctx context.Context, d *hbase.Delete) error {
	if err := d.Validate(); err != nil {
		return err
	}
	m, err := toDelete(ctx, d)
	if err != nil {
		return wrapErr("delete", d.Table, err)
	}
	_, err = c.c.Delete(m)
	return wrapErr("delete", d.Table, err)
}

// Increment adds to counters. gohbase's Increment returns one counter
// only, so the request goes as a batch of one, whose answer carries every
// new value. gohbase sends no nonce: if it resends an Increment after a
// lost answer, the server may apply it twice.
func (c *Client) Increment(ctx context.Context, inc *hbase.Increment) (*hbase.Result, error) {
	if err := inc.Validate(); err != nil {
		return nil, err
	}
	m, err := toIncrement(ctx, inc)
	if err != nil {
		return nil, wrapErr("increment", inc.Table, err)
	}
	return c.sendOne(ctx, "increment", inc.Table, m)
}

// Append appends to values with gohbase's Append (no nonce either).
func (c *Client) Append(ctx context.Context, a *hbase.Append) (*hbase.Result, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	m, err := toAppend(ctx, a)
	if err != nil {
		return nil, wrapErr("append", a.Table, err)
	}
	r, err := c.c.Append(m)
	if err != nil {
		return nil, wrapErr("append", a.Table, err)
	}
	return fromResult(r), nil
}

// sendOne sends one batchable call through SendBatch and returns its
// result.
func (c *Client) sendOne(ctx context.Context, op, table string, call hrpc.Call) (*hbase.Result, error) {
	res, _ := c.c.SendBatch(ctx, []hrpc.Call{call})
	if len(res) != 1 {
		return nil, wrapErr(op, table, errors.New("SendBatch returned no result"))
	}
	if res[0].Error != nil {
		return nil, wrapErr(op, table, res[0].Error)
	}
	return fromMsg(res[0].Msg), nil
}

// fromMsg is the result of a Get or Mutate answered in a batch.
func fromMsg(msg any) *hbase.Result {
	switch m := msg.(type) {
	case *pb.GetResponse:
		return fromPBResult(m.GetResult())
	case *pb.MutateResponse:
		return fromPBResult(m.GetResult())
	}
	return &hbase.Result{}
}

// CheckAndMutate applies its mutations if the condition holds. One
// mutation (or Puts that merge into one: same timestamp and durability,
// distinct columns) without a TimeRange goes through gohbase's
// CheckAndMutate; anything else as one atomic RegionAction through
// gohbase's SendRPC (see atomic.go), which needs a client that implements
// gohbase.RPCClient (gohbase's own does; without it the call fails with
// an *UnsupportedError).
func (c *Client) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	if err := cam.Validate(); err != nil {
		return false, err
	}
	call, err := toCheckAndMutate(ctx, cam)
	if err != nil && !isUnsupported(err) {
		return false, wrapErr("check and mutate", cam.Table, err)
	}
	return c.checkAndMutate(ctx, cam, call)
}

// MutateRow applies the mutations of one row atomically: with gohbase's
// Put or Delete when they fit in one mutation (one Delete, or Puts that
// merge into one), else as one atomic RegionAction through gohbase's
// SendRPC (see CheckAndMutate).
func (c *Client) MutateRow(ctx context.Context, rm *hbase.RowMutations) error {
	const op = "mutate row"
	if err := rm.Validate(); err != nil {
		return err
	}
	m, err := oneMutation(ctx, op, rm.Table, rm.Row, rm.Mutations)
	switch {
	case isUnsupported(err):
		muts, err := mutationProtos(rm.Mutations, rm.Row)
		if err != nil {
			return wrapErr(op, rm.Table, err)
		}
		_, err = c.atomicRow(ctx, op, rm.Table, rm.Row, muts, nil)
		return err
	case err != nil:
		return wrapErr(op, rm.Table, err)
	}
	if _, ok := rm.Mutations[0].(*hbase.Delete); ok {
		_, err = c.c.Delete(m)
	} else {
		_, err = c.c.Put(m)
	}
	return wrapErr(op, rm.Table, err)
}

func isUnsupported(err error) bool {
	var ue *UnsupportedError
	return errors.As(err, &ue)
}
