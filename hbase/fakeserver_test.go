package hbase

import (
	"encoding/binary"
	"errors"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// The in-process servers of these tests (fakeMaster, fakeCluster) frame
// RPCs with these two helpers, written apart from internal/rpc so that a
// bug in the client's framing cannot hide itself.

// readTestFrame reads one int32-length-prefixed frame.
func readTestFrame(r io.Reader) ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(l[:]))
	_, err := io.ReadFull(r, b)
	return b, err
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
