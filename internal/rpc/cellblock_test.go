package rpc

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
)

// TestCellBlockFill checks what a caller gets from a response whose cells
// come in a cell block: the raw block with WithCellBlock, else the cells
// moved into the protobuf Results (the generic path, e.g. for hbase:meta
// lookups); a malformed block is an error for that call only.
func TestCellBlockFill(t *testing.T) {
	cell := cellblock.Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 7, Type: 4, Value: []byte("v")}
	block, err := cellblock.AppendCell(nil, cell)
	if err != nil {
		t.Fatal(err)
	}
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() != "Get" {
			echoHandler(sc, req)
			return
		}
		var in pb.GetRequest
		if err := proto.Unmarshal(req.param, &in); err != nil {
			t.Errorf("GetRequest: %v", err)
		}
		cells := block
		if string(in.GetGet().GetRow()) == "bad" {
			cells = block[:len(block)-1]
		}
		body, _ := proto.Marshal(&pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}})
		sc.writeFrame(&pb.ResponseHeader{CallId: proto.Uint32(req.id()), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(cells)))}}, body, cells)
	})
	c := dialTest(t, s, WithCellBlockCodec(cellblock.KeyValueCodec))
	ctx := testContext(t)
	get := func(row string) *pb.GetRequest {
		return &pb.GetRequest{Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("t,,1.x.")},
			Get: &pb.Get{Row: []byte(row)}}
	}

	var filled pb.GetResponse
	if err := c.Call(ctx, "Get", get("r"), &filled); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got := filled.GetResult().GetCell(); len(got) != 1 || !proto.Equal(got[0], cell.Proto()) {
		t.Errorf("filled cells = %v, want [%v]", got, cell.Proto())
	}

	var raw pb.GetResponse
	var got []byte
	if err := c.Call(ctx, "Get", get("r"), &raw, WithCellBlock(&got)); err != nil {
		t.Fatalf("Call WithCellBlock: %v", err)
	}
	if !bytes.Equal(got, block) || len(raw.GetResult().GetCell()) != 0 || raw.GetResult().GetAssociatedCellCount() != 1 {
		t.Errorf("WithCellBlock: block %x, %d inline cells, count %d; want %x, 0, 1", got, len(raw.GetResult().GetCell()), raw.GetResult().GetAssociatedCellCount(), block)
	}

	if err := c.Call(ctx, "Get", get("bad"), &pb.GetResponse{}); !errors.Is(err, cellblock.ErrMalformed) {
		t.Errorf("truncated block: error %v, want cellblock.ErrMalformed", err)
	}
	// The connection survives a malformed block.
	if err := c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{}); err != nil {
		t.Errorf("call after a malformed block: %v", err)
	}
}
