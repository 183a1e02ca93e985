package hbase

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

var _ DataClient = (*Client)(nil)

// canonicalTable returns the canonical spelling of a validated table name,
// the key of the region cache and of hbase:meta rows.
func canonicalTable(table string) string {
	tn, err := ParseTableName(table)
	if err != nil {
		return table
	}
	return tn.String()
}

// regionCall runs fn against the region of table holding row, retrying
// with relocation and backoff as the error asks (wire protocol
// reference, section 8), within ctx and the client's retry bounds. table
// is canonical. fn gets a context bounded by WithRPCTimeout; the whole
// call is bounded by WithOperationTimeout.
func (c *Client) regionCall(ctx context.Context, table string, row []byte, fn func(ctx context.Context, r *region) error) error {
	return c.regionWrite(ctx, table, row, true, fn)
}

// regionWrite is regionCall for a write, which may not be idempotent: then
// a final error after an attempt that may have reached the server says the
// outcome is unknown (ErrOutcomeUnknown).
func (c *Client) regionWrite(ctx context.Context, table string, row []byte, idempotent bool, fn func(ctx context.Context, r *region) error) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancelOp := c.operationContext(ctx)
	defer cancelOp()
	sp := spanFromContext(ctx)
	rt := c.newRetrier(func(reason string) { sp.retried(ctx, reason) })
	rt.idempotent = idempotent
	for {
		r, err := c.locate(ctx, table, row, false)
		if err == nil {
			sp.setServer(r.addr)
			actx, cancel := c.attemptContext(ctx)
			sent := time.Now()
			err = rt.attempted(attemptError(ctx, actx, fn(actx, r)))
			cancel()
			if err == nil {
				c.regions.answered(r, sent)
				return nil
			}
		}
		if err == errConditionFailed {
			return rt.conditionFailed()
		}
		if c.closed.Load() {
			return ErrClosed
		}
		kind := c.handleRegionError(ctx, table, r, err)
		if kind == retryRelocate {
			// A disabled or deleted table answers NotServingRegion
			// forever: say so instead of retrying.
			if terr := c.tableStateError(ctx, table, err); terr != nil {
				return rt.final(terr)
			}
		}
		if werr := rt.wait(ctx, err, kind); werr != nil {
			return werr
		}
	}
}

// handleRegionError updates the region cache after err from region r
// (nil if the lookup failed) and returns how to retry.
func (c *Client) handleRegionError(ctx context.Context, table string, r *region, err error) retryKind {
	kind := classify(err)
	if kind == retryReopenScanner {
		kind = retryBackoff
	}
	return c.regionFailed(r, err, kind) // locate.go
}

// tableStateError explains a region that is not served: after a
// NotServingRegionException (or a region not assigned in meta) it reads
// the table's state and returns an error wrapping ErrTableDisabled or
// ErrTableNotFound, or nil when the table looks fine.
func (c *Client) tableStateError(ctx context.Context, table string, err error) error {
	var re *rpc.RemoteError
	notServing := errors.Is(err, errRegionNotReady) || (errors.As(err, &re) && re.Class == excNotServingRegion)
	if !notServing || ctx.Err() != nil {
		return nil
	}
	return c.checkTableUsable(ctx, table)
}

// rsCall calls a ClientService method on a region server. Without
// rpc.WithCellBlock among opts, the cells of a cell block are moved into
// resp's protobuf Results.
func (c *Client) rsCall(ctx context.Context, addr, method string, req, resp proto.Message, opts ...rpc.CallOption) error {
	return c.pool.Call(ctx, addr, rpc.ClientService, method, req, resp, opts...)
}

// mutate sends one MutateRequest to the region of row and returns the
// response, with the cell block of its result. A conditional write whose
// condition failed returns errConditionFailed (see
// retrier.conditionFailed).
func (c *Client) mutate(ctx context.Context, table string, row []byte, m *pb.MutationProto, cond *pb.Condition, nonced bool) (*pb.MutateResponse, []byte, error) {
	var resp *pb.MutateResponse
	var block []byte
	sentTo := "" // the server an attempt of a nonced write may have reached
	err := c.regionWrite(ctx, table, row, cond == nil && mutationIdempotent(m), func(ctx context.Context, r *region) error {
		if nonced && sentTo != "" && r.addr != sentTo {
			return &elsewhereError{from: sentTo, to: r.addr}
		}
		req := &pb.MutateRequest{Region: r.specifier(), Mutation: m, Condition: cond}
		if nonced {
			req.NonceGroup = proto.Uint64(c.nonceGroup)
		}
		resp = new(pb.MutateResponse)
		var msg []byte
		if err := c.rsCall(ctx, r.addr, "Mutate", req, resp, rpc.WithCellBlock(&block), rpc.WithMessage(&msg),
			rpc.WithCheck(func() error {
				_, err := rowResult(resp.GetResult(), block, row)
				if err == nil && cond != nil {
					err = checkFlag(msg, mutateProcessed)
				}
				return err
			})); err != nil {
			if nonced && sentTo == "" && requestSent(err) {
				sentTo = r.addr
			}
			return err
		}
		if cond != nil && !resp.GetProcessed() {
			return errConditionFailed
		}
		return nil
	})
	return resp, block, err
}

// opErr wraps the failure of a data call, keeping validation errors and
// ErrClosed as they are.
func opErr(op, table string, err error) error {
	if err == nil {
		return nil
	}
	var ie *InvalidRequestError
	if errors.As(err, &ie) || errors.Is(err, ErrClosed) {
		return err
	}
	return fmt.Errorf("hbase: %s %s: %w", op, table, err)
}

// Get reads one row. A missing row yields an empty Result.
func (c *Client) Get(ctx context.Context, g *Get) (_ *Result, err error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "get", g.Table)
	defer func() { sp.end(ctx, err) }()
	pg, err := getToPB(g)
	if err != nil {
		return nil, err
	}
	table := canonicalTable(g.Table)
	var res *Result
	err = c.regionCall(ctx, table, g.Row, func(ctx context.Context, r *region) error {
		var err error
		res, err = c.coalesced(ctx, r, g.Row, true, func() *pb.Action { return &pb.Action{Get: pg} },
			func() (*Result, error) {
				var resp pb.GetResponse
				var block []byte
				var res *Result
				err := c.rsCall(ctx, r.addr, "Get", &pb.GetRequest{Region: r.specifier(), Get: pg}, &resp, rpc.WithCellBlock(&block),
					rpc.WithCheck(func() (err error) { res, err = rowResult(resp.GetResult(), block, g.Row); return err }))
				return res, err
			})
		return err
	})
	return res, opErr("get", table, err)
}

// Put writes cells to one row.
func (c *Client) Put(ctx context.Context, p *Put) (err error) {
	if err := p.Validate(); err != nil {
		return err
	}
	if _, err := WriteSize(p, c.opts.maxCellSize); err != nil {
		return err
	}
	if err := c.checkOpen(); err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, "put", p.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(p.Table)
	err = c.writeRow(ctx, table, p.Row, putToPB(p, p.Row))
	return opErr("put", table, err)
}

// Delete writes a delete marker.
func (c *Client) Delete(ctx context.Context, d *Delete) (err error) {
	if err := d.Validate(); err != nil {
		return err
	}
	if err := c.checkOpen(); err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, "delete", d.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(d.Table)
	m := deleteToPB(d, d.Row)
	if mutationIdempotent(m) {
		err = c.writeRow(ctx, table, d.Row, m)
	} else {
		_, _, err = c.mutate(ctx, table, d.Row, m, nil, false)
	}
	return opErr("delete", table, err)
}

// Increment adds to counters and returns their new values. It carries a
// nonce, so a resend after a broken connection is not applied twice.
func (c *Client) Increment(ctx context.Context, inc *Increment) (_ *Result, err error) {
	if err := inc.Validate(); err != nil {
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "increment", inc.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(inc.Table)
	resp, block, err := c.mutate(ctx, table, inc.Row, incrementToPB(inc, c.newNonce()), nil, true)
	if err != nil {
		return nil, opErr("increment", table, err)
	}
	res, err := singleResult(resp.GetResult(), block)
	return res, opErr("increment", table, err)
}

// Append appends to values and returns the new values. Like Increment it
// carries a nonce.
func (c *Client) Append(ctx context.Context, a *Append) (_ *Result, err error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if _, err := WriteSize(a, c.opts.maxCellSize); err != nil {
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "append", a.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(a.Table)
	resp, block, err := c.mutate(ctx, table, a.Row, appendToPB(a, c.newNonce()), nil, true)
	if err != nil {
		return nil, opErr("append", table, err)
	}
	res, err := singleResult(resp.GetResult(), block)
	return res, opErr("append", table, err)
}

// CheckAndMutate applies the mutations atomically when the condition
// holds. One mutation is sent as a conditional Mutate; several as an
// atomic, conditional RegionAction of a Multi (HBase 2.4+).
func (c *Client) CheckAndMutate(ctx context.Context, cam *CheckAndMutate) (_ bool, err error) {
	if err := cam.Validate(); err != nil {
		return false, err
	}
	if _, err := WriteSize(cam, c.opts.maxCellSize); err != nil {
		return false, err
	}
	if err := c.checkOpen(); err != nil {
		return false, err
	}
	ctx, sp := c.startOp(ctx, "check_and_mutate", cam.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(cam.Table)
	cond, muts, err := camToPB(cam)
	if err != nil {
		return false, err
	}
	if len(muts) == 1 {
		_, _, err = c.mutate(ctx, table, cam.Row, muts[0], cond, false)
	} else {
		err = c.atomicRow(ctx, table, cam.Row, muts, cond)
	}
	switch {
	case err == errConditionFailed:
		return false, nil
	case err != nil:
		return false, opErr("check_and_mutate", table, err)
	}
	return true, nil
}

// MutateRow applies several Puts and Deletes to one row atomically: one
// atomic RegionAction of a Multi, as the Java client's mutateRow does.
func (c *Client) MutateRow(ctx context.Context, rm *RowMutations) (err error) {
	if err := rm.Validate(); err != nil {
		return err
	}
	if _, err := WriteSize(rm, c.opts.maxCellSize); err != nil {
		return err
	}
	if err := c.checkOpen(); err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, "mutate_row", rm.Table)
	defer func() { sp.end(ctx, err) }()
	table := canonicalTable(rm.Table)
	muts := make([]*pb.MutationProto, len(rm.Mutations))
	for i, m := range rm.Mutations {
		if muts[i], err = mutationToPB(m, rm.Row); err != nil {
			return err
		}
	}
	err = c.atomicRow(ctx, table, rm.Row, muts, nil)
	return opErr("mutate_row", table, err)
}

// camToPB converts a validated CheckAndMutate: its condition (operator
// reversed for the wire) and its mutations.
func camToPB(cam *CheckAndMutate) (*pb.Condition, []*pb.MutationProto, error) {
	muts := make([]*pb.MutationProto, len(cam.Mutations))
	for i, m := range cam.Mutations {
		var err error
		if muts[i], err = mutationToPB(m, cam.Row); err != nil {
			return nil, nil, err
		}
	}
	return conditionToPB(cam), muts, nil
}

// atomicActions numbers muts as the actions of one atomic RegionAction.
func atomicActions(muts []*pb.MutationProto) []*pb.Action {
	actions := make([]*pb.Action, len(muts))
	for i, m := range muts {
		actions[i] = &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: m}
	}
	return actions
}

// atomicRegionAction is the RegionAction applying actions atomically in
// region r, under cond if set (HBase 2.4+).
func atomicRegionAction(r *region, actions []*pb.Action, cond *pb.Condition) *pb.RegionAction {
	return &pb.RegionAction{Region: r.specifier(), Atomic: &boolTrue, Action: actions, Condition: cond}
}

// atomicOutcome reads the answer to an atomic RegionAction: the failure
// (region-level or of any action: the whole RegionAction failed), else
// RegionActionResult.processed.
func atomicOutcome(rar *pb.RegionActionResult) (bool, error) {
	if x := rar.GetException(); x != nil {
		return false, exceptionFromPair(x)
	}
	for _, roe := range rar.GetResultOrException() {
		if x := roe.GetException(); x != nil {
			return false, exceptionFromPair(x)
		}
	}
	return rar.GetProcessed(), nil
}

// atomicRow sends muts (all of row) as one atomic RegionAction, with cond
// if set; errConditionFailed when RegionActionResult.processed is false.
func (c *Client) atomicRow(ctx context.Context, table string, row []byte, muts []*pb.MutationProto, cond *pb.Condition) error {
	actions := atomicActions(muts)
	idempotent := cond == nil
	for _, m := range muts {
		idempotent = idempotent && mutationIdempotent(m)
	}
	return c.regionWrite(ctx, table, row, idempotent, func(ctx context.Context, r *region) error {
		req := &pb.MultiRequest{RegionAction: []*pb.RegionAction{atomicRegionAction(r, actions, cond)}}
		var resp pb.MultiResponse
		var msg []byte
		if err := c.rsCall(ctx, r.addr, "Multi", req, &resp, rpc.WithMessage(&msg),
			rpc.WithCheck(func() error { return checkMultiFlags(msg) })); err != nil {
			return err
		}
		rars := resp.GetRegionActionResult()
		if len(rars) != 1 {
			return fmt.Errorf("hbase: Multi answered %d region actions for 1", len(rars))
		}
		p, err := atomicOutcome(rars[0])
		if err != nil {
			return err
		}
		// Without a condition, success is the answer.
		if !p && cond != nil {
			return errConditionFailed
		}
		return nil
	})
}

// exceptionFromPair converts a Multi exception (NameBytesPair of the Java
// class and the stringified exception) into an *rpc.RemoteError, so that
// the retry logic classifies it like a call-level exception.
func exceptionFromPair(x *pb.NameBytesPair) error {
	class := x.GetName()
	msg := string(x.GetValue())
	he := remoteErrorFromClass(class, msg, false, false)
	re := &rpc.RemoteError{Class: class, Message: he.Message, StackTrace: msg, DoNotRetry: !he.retryable}
	if class == excRegionMoved {
		re.Hostname, re.Port = parseRegionMoved(he.Message)
	}
	return re
}

// parseRegionMoved reads the new location from a RegionMovedException
// message: "Region moved to: hostname=h port=p startCode=s. ...".
func parseRegionMoved(msg string) (string, int32) {
	var host string
	var port int32
	for _, f := range strings.Fields(msg) {
		if v, ok := strings.CutPrefix(f, "hostname="); ok {
			host = v
		} else if v, ok := strings.CutPrefix(f, "port="); ok {
			if n, err := strconv.ParseInt(strings.TrimRight(v, ".,"), 10, 32); err == nil && n > 0 && n < 65536 {
				port = int32(n)
			}
		}
	}
	if host == "" || port == 0 {
		return "", 0
	}
	return host, port
}
