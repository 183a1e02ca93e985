package rpc

import (
	"bytes"
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// benchRequest is a typical point Get.
func benchRequest() (*pb.RequestHeader, *pb.GetRequest) {
	hdr := &pb.RequestHeader{
		CallId:       proto.Uint32(12345),
		MethodName:   proto.String("Get"),
		RequestParam: proto.Bool(true),
		Timeout:      proto.Uint32(30000),
	}
	req := &pb.GetRequest{
		Region: &pb.RegionSpecifier{
			Type:  pb.RegionSpecifier_REGION_NAME.Enum(),
			Value: []byte("users,user0042,1700000000000.0123456789abcdef0123456789abcdef."),
		},
		Get: &pb.Get{
			Row:    []byte("user0042:profile"),
			Column: []*pb.Column{{Family: []byte("d"), Qualifier: [][]byte{[]byte("name"), []byte("email")}}},
		},
	}
	return hdr, req
}

func BenchmarkAppendRequest(b *testing.B) {
	hdr, req := benchRequest()
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = AppendRequest(buf[:0], hdr, req)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeResponse(b *testing.B) {
	body, err := proto.Marshal(&pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{
		Row: []byte("user0042:profile"), Family: []byte("d"), Qualifier: []byte("name"),
		Timestamp: proto.Uint64(1700000000000), CellType: pb.CellType_PUT.Enum(), Value: []byte("Ada Lovelace"),
	}}}})
	if err != nil {
		b.Fatal(err)
	}
	frame := responseFrame(b, &pb.ResponseHeader{CallId: proto.Uint32(12345)}, body, nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := DecodeResponse(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall measures a full round trip against the in-process fake
// server, with parallel callers sharing one connection.
func BenchmarkCall(b *testing.B) {
	s := newFakeServer(b, echoHandler)
	c, err := Dial(context.Background(), s.addr(), MasterService)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := &pb.IsMasterRunningRequest{}
	b.ReportAllocs()
	b.RunParallel(func(p *testing.PB) {
		var resp pb.IsMasterRunningResponse
		for p.Next() {
			if err := c.Call(context.Background(), "IsMasterRunning", req, &resp); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkReadFrame reads a frame the size of a scan response of the
// default MaxResultSize (2 MiB and one 1 KB row).
func BenchmarkReadFrame(b *testing.B) {
	frame := frameOf(make([]byte, 2<<20+1100))
	r := bytes.NewReader(frame)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		r.Reset(frame)
		if _, err := ReadFrame(r, DefaultMaxFrameSize); err != nil {
			b.Fatal(err)
		}
	}
}
