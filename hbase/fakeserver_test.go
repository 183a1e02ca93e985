package hbase

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// The in-process servers of these tests (fakeMaster, fakeCluster) serve
// connections with serveTestConn. Frames are read with rpc.ReadFrame, which
// internal/rpc tests against a server of its own; requests are parsed and
// responses encoded here, apart from the client's code, so that a bug in
// the client's encoding cannot hide itself.

// serveTestConn reads the connection preamble and header from nc, then
// each request, and hands its header and parameter to handle with a reply
// function that encodes and writes one response (safe for concurrent use;
// a handler that never replies leaves the call hanging). It returns when
// the connection ends; malformed requests fail t.
func serveTestConn(t testing.TB, who string, nc net.Conn, handle func(hdr *pb.RequestHeader, param []byte, reply func(proto.Message, *pb.ExceptionResponse))) {
	serveTestConnCells(t, who, nc, func(_ *pb.ConnectionHeader, hdr *pb.RequestHeader, param []byte, reply func(proto.Message, []byte, *pb.ExceptionResponse)) {
		handle(hdr, param, func(resp proto.Message, exc *pb.ExceptionResponse) { reply(resp, nil, exc) })
	})
}

// serveTestConnCells is serveTestConn for servers that look at the
// ConnectionHeader (the cell codec it announces) and may answer with a
// cell block after the response message.
func serveTestConnCells(t testing.TB, who string, nc net.Conn, handle func(ch *pb.ConnectionHeader, hdr *pb.RequestHeader, param []byte, reply func(proto.Message, []byte, *pb.ExceptionResponse))) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	// Preamble, then the int32-framed ConnectionHeader.
	var pre [6]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return
	}
	chb, err := rpc.ReadFrame(r, math.MaxInt32)
	if err != nil {
		return
	}
	ch := new(pb.ConnectionHeader)
	if err := proto.Unmarshal(chb, ch); err != nil {
		t.Errorf("%s: connection header: %v", who, err)
		return
	}
	var wmu sync.Mutex
	for {
		frame, err := rpc.ReadFrame(r, math.MaxInt32)
		if err != nil {
			return
		}
		hb, n := protowire.ConsumeBytes(frame)
		param, m := protowire.ConsumeBytes(frame[max(n, 0):])
		if n < 0 || m < 0 {
			t.Errorf("%s: bad request frame", who)
			return
		}
		hdr := new(pb.RequestHeader)
		if err := proto.Unmarshal(hb, hdr); err != nil {
			t.Errorf("%s: request header: %v", who, err)
			return
		}
		handle(ch, hdr, param, func(resp proto.Message, cells []byte, exc *pb.ExceptionResponse) {
			out, err := encodeTestResponseCells(hdr.GetCallId(), resp, cells, exc)
			if err != nil {
				t.Errorf("%s: %v", who, err)
				return
			}
			wmu.Lock()
			defer wmu.Unlock()
			_, _ = nc.Write(out)
		})
	}
}

// encodeTestResponseCells encodes int32 total | delimited ResponseHeader |
// delimited response (absent when the call failed) | cell block, announced
// in the header's cell_block_meta, when cells is not empty.
func encodeTestResponseCells(callID uint32, resp proto.Message, cells []byte, exc *pb.ExceptionResponse) ([]byte, error) {
	rh := &pb.ResponseHeader{CallId: proto.Uint32(callID), Exception: exc}
	if len(cells) > 0 && exc == nil {
		rh.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(cells)))}
	} else {
		cells = nil
	}
	hdr, err := proto.Marshal(rh)
	if err != nil {
		return nil, err
	}
	body := protowire.AppendBytes(nil, hdr)
	if exc == nil {
		if resp == nil {
			return nil, errors.New("no response and no exception")
		}
		p, err := proto.Marshal(resp)
		if err != nil {
			return nil, err
		}
		body = protowire.AppendBytes(body, p)
	}
	body = append(body, cells...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...), nil
}
