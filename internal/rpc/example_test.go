package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// A Pool is the usual entry point: one per client, shared by all
// goroutines, closed when the client closes.
func ExamplePool_Call() {
	pool, err := rpc.NewPool()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var resp pb.IsMasterRunningResponse
	err = pool.Call(ctx, "127.0.0.1:16000", rpc.MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp)
	var remote *rpc.RemoteError
	switch {
	case errors.As(err, &remote):
		fmt.Println("server exception:", remote.Class)
	case err != nil && rpc.IsRetryable(err):
		fmt.Println("transient failure, retry later:", err)
	case err != nil:
		fmt.Println("failed:", err)
	default:
		fmt.Println("master running:", resp.GetIsMasterRunning())
	}
}

// AppendRequest shows the request framing: int32 length, then the
// delimited RequestHeader and parameter.
func ExampleAppendRequest() {
	hdr := &pb.RequestHeader{
		CallId:       proto.Uint32(1),
		MethodName:   proto.String("IsMasterRunning"),
		RequestParam: proto.Bool(true),
	}
	frame, err := rpc.AppendRequest(nil, hdr, &pb.IsMasterRunningRequest{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", frame[:6])
	fmt.Println(len(frame), "bytes")
	// Output:
	// 00 00 00 17 15 08
	// 27 bytes
}
