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
	defer nc.Close()
	r := bufio.NewReader(nc)
	// Preamble, then the int32-framed ConnectionHeader.
	var pre [6]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return
	}
	if _, err := rpc.ReadFrame(r, math.MaxInt32); err != nil {
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
		handle(hdr, param, func(resp proto.Message, exc *pb.ExceptionResponse) {
			out, err := encodeTestResponse(hdr.GetCallId(), resp, exc)
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

// encodeTestResponse encodes int32 total | delimited ResponseHeader |
// delimited response (absent when the call failed).
func encodeTestResponse(callID uint32, resp proto.Message, exc *pb.ExceptionResponse) ([]byte, error) {
	hdr, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(callID), Exception: exc})
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
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...), nil
}
