package gohbase

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/hbase"
)

// Atomic multi-mutation writes. gohbase's calls carry one mutation each;
// HBase applies several atomically as one RegionAction of a Multi request
// with Atomic set (MutateRow), under the request's Condition for
// CheckAndMutate, answering in MultiResponse.processed. gohbase has no
// call for that, but its client sends any hrpc.Call through SendRPC (the
// gohbase.RPCClient interface its concrete client implements), locating
// the region and retrying on gohbase's terms. atomicCall is that Call,
// built from gohbase's own protobuf types.
//
// The condition travels in MultiRequest.condition, as HBase 2.0 to 2.3
// clients send it (and as every 2.x server accepts it, 2.6 included);
// 2.4 clients put it in RegionAction.condition, a field a 2.0 to 2.3
// server would ignore, applying the mutations unconditionally.

// atomicCall is one atomic RegionAction on one row.
type atomicCall struct {
	ctx      context.Context
	table    []byte
	row      []byte
	muts     []*pb.MutationProto
	cond     *pb.Condition // nil for MutateRow
	region   hrpc.RegionInfo
	resultch chan hrpc.RPCResult
}

var _ hrpc.Call = (*atomicCall)(nil)

func (a *atomicCall) Table() []byte                   { return a.table }
func (a *atomicCall) Name() string                    { return "Multi" }
func (a *atomicCall) Key() []byte                     { return a.row }
func (a *atomicCall) Region() hrpc.RegionInfo         { return a.region }
func (a *atomicCall) SetRegion(r hrpc.RegionInfo)     { a.region = r }
func (a *atomicCall) NewResponse() proto.Message      { return &pb.MultiResponse{} }
func (a *atomicCall) ResultChan() chan hrpc.RPCResult { return a.resultch }
func (a *atomicCall) Context() context.Context        { return a.ctx }

func (a *atomicCall) Description() string {
	if a.cond != nil {
		return "CheckAndMutateRow"
	}
	return "MutateRow"
}

func (a *atomicCall) ToProto() proto.Message {
	actions := make([]*pb.Action, len(a.muts))
	for i, m := range a.muts {
		actions[i] = &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: m}
	}
	ra := &pb.RegionAction{
		Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: a.region.Name()},
		Atomic: proto.Bool(true),
		Action: actions,
	}
	return &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}, Condition: a.cond}
}

// regionExceptions are the region-level failures after which the row's
// region must be located again before the action is resent.
var regionExceptions = map[string]bool{
	"org.apache.hadoop.hbase.NotServingRegionException":                 true,
	"org.apache.hadoop.hbase.exceptions.RegionMovedException":           true,
	"org.apache.hadoop.hbase.exceptions.RegionOpeningException":         true,
	"org.apache.hadoop.hbase.RegionTooBusyException":                    true,
	"org.apache.hadoop.hbase.regionserver.RegionServerStoppedException": true,
}

// atomicRow sends muts, all of row, as one atomic RegionAction, under
// cond if set, and reports whether they were applied. Region-level
// failures are retried, with backoff, until ctx ends: before each resend
// a Get through gohbase makes it locate the region again, since gohbase
// only relocates on errors of its own calls.
func (c *Client) atomicRow(ctx context.Context, op, table string, row []byte, muts []*pb.MutationProto, cond *pb.Condition) (bool, error) {
	rc, ok := c.c.(gohbase.RPCClient)
	if !ok {
		return false, unsupported(op, fmt.Sprintf("several mutations at once need gohbase's SendRPC, which %T does not have", c.c))
	}
	backoff := 16 * time.Millisecond
	for {
		call := &atomicCall{ctx: ctx, table: tableName(table), row: row, muts: muts, cond: cond,
			resultch: make(chan hrpc.RPCResult, 1)}
		msg, err := rc.SendRPC(call)
		if err != nil {
			return false, wrapErr(op, table, err)
		}
		resp, ok := msg.(*pb.MultiResponse)
		if !ok || len(resp.GetRegionActionResult()) != 1 {
			return false, wrapErr(op, table, fmt.Errorf("unexpected answer to Multi: %T", msg))
		}
		rar := resp.GetRegionActionResult()[0]
		if x := rar.GetException(); x != nil {
			if !regionExceptions[x.GetName()] {
				return false, wrapErr(op, table, javaException(x))
			}
			if err := c.relocate(ctx, table, row); err != nil {
				return false, wrapErr(op, table, err)
			}
			select {
			case <-ctx.Done():
				return false, wrapErr(op, table, ctx.Err())
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		for _, roe := range rar.GetResultOrException() {
			if x := roe.GetException(); x != nil {
				return false, wrapErr(op, table, javaException(x))
			}
		}
		if cond == nil {
			return true, nil
		}
		return resp.GetProcessed(), nil
	}
}

// relocate makes gohbase find the row's region again: a Get of the row
// that meets the stale location fails over inside gohbase, which then
// caches the new one.
func (c *Client) relocate(ctx context.Context, table string, row []byte) error {
	g, err := hrpc.NewGet(ctx, tableName(table), row)
	if err != nil {
		return err
	}
	g.ExistsOnly()
	_, err = c.c.Get(g)
	return err
}

// javaException renders an exception of a Multi answer the way gohbase
// renders those of its own calls, so that wrapErr finds the class.
func javaException(x *pb.NameBytesPair) error {
	return fmt.Errorf("HBase Java exception %s:\n%s", x.GetName(), x.GetValue())
}

// Mutations and conditions in gohbase's protobuf types, as the native
// client builds them in its own.

func wireTS(ts int64) *uint64 {
	if ts == 0 || ts == hbase.LatestTimestamp {
		return nil
	}
	v := uint64(ts)
	return &v
}

func mutationProto(m hbase.Mutation, row []byte) (*pb.MutationProto, error) {
	switch m := m.(type) {
	case *hbase.Put:
		ts := wireTS(m.Timestamp)
		mp := &pb.MutationProto{Row: row, MutateType: pb.MutationProto_PUT.Enum(), Timestamp: ts,
			Durability: pb.MutationProto_Durability(m.Durability).Enum()}
		for _, cv := range m.ColumnValues() {
			mp.ColumnValue = append(mp.ColumnValue, &pb.MutationProto_ColumnValue{Family: cv.Family,
				QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{Qualifier: cv.Qualifier, Value: cv.Value, Timestamp: ts}}})
		}
		return mp, nil
	case *hbase.Delete:
		ts := wireTS(m.Timestamp)
		mp := &pb.MutationProto{Row: row, MutateType: pb.MutationProto_DELETE.Enum(), Timestamp: ts,
			Durability: pb.MutationProto_Durability(m.Durability).Enum()}
		if m.Family == nil {
			return mp, nil // the whole row
		}
		qv := &pb.MutationProto_ColumnValue_QualifierValue{Timestamp: ts}
		switch {
		case len(m.Qualifier) == 0:
			qv.DeleteType = pb.MutationProto_DELETE_FAMILY.Enum()
		case m.AllVersions:
			qv.Qualifier, qv.DeleteType = m.Qualifier, pb.MutationProto_DELETE_MULTIPLE_VERSIONS.Enum()
		default:
			qv.Qualifier, qv.DeleteType = m.Qualifier, pb.MutationProto_DELETE_ONE_VERSION.Enum()
		}
		mp.ColumnValue = []*pb.MutationProto_ColumnValue{{Family: m.Family, QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{qv}}}
		return mp, nil
	}
	return nil, errors.New("gohbase adapter: mutation is neither a Put nor a Delete")
}

func mutationProtos(muts []hbase.Mutation, row []byte) ([]*pb.MutationProto, error) {
	out := make([]*pb.MutationProto, len(muts))
	for i, m := range muts {
		var err error
		if out[i], err = mutationProto(m, row); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// conditionProto is the condition of cam, the operator reversed for the
// wire (see toCheckAndMutate).
func conditionProto(cam *hbase.CheckAndMutate) (*pb.Condition, error) {
	cmp, err := filter.NewBinaryComparator(filter.NewByteArrayComparable(nonNil(cam.Value))).ConstructPBComparator()
	if err != nil {
		return nil, err
	}
	cond := &pb.Condition{
		Row:         cam.Row,
		Family:      cam.Family,
		Qualifier:   nonNil(cam.Qualifier),
		CompareType: pb.CompareType(compareType(cam.Compare.Reverse())).Enum(),
		Comparator:  cmp,
	}
	if tr := cam.TimeRange; tr != nil {
		from, to := uint64(tr.From), uint64(tr.To)
		cond.TimeRange = &pb.TimeRange{From: &from, To: &to}
	}
	return cond, nil
}

// checkAndMutate sends cam with gohbase's CheckAndMutate when call is
// set (one mutation, no time range), else as an atomic RegionAction.
func (c *Client) checkAndMutate(ctx context.Context, cam *hbase.CheckAndMutate, call *hrpc.CheckAndMutate) (bool, error) {
	const op = "check and mutate"
	if call != nil {
		ok, err := c.c.CheckAndMutate(call)
		if err != nil {
			return false, wrapErr(op, cam.Table, err)
		}
		return ok, nil
	}
	cond, err := conditionProto(cam)
	if err != nil {
		return false, wrapErr(op, cam.Table, err)
	}
	muts, err := mutationProtos(cam.Mutations, cam.Row)
	if err != nil {
		return false, wrapErr(op, cam.Table, err)
	}
	return c.atomicRow(ctx, op, cam.Table, cam.Row, muts, cond)
}
