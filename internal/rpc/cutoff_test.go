package rpc

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// TestCallTimeoutMidAnswerClosesConn: a call whose per-RPC timeout passes
// while its answer is still arriving (a slow link) fails with a sent
// *ConnError wrapping ErrAnswerCutOff, and the connection is closed: the
// rest of the answer would hold up every later answer on it.
func TestCallTimeoutMidAnswerClosesConn(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		const cells = 256 << 10
		hb, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(req.id()),
			CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(cells)}})
		if err != nil {
			t.Error(err)
			return
		}
		payload := protowire.AppendBytes(nil, hb)
		payload = protowire.AppendBytes(payload, nil)
		payload = append(payload, make([]byte, cells)...)
		frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
		frame = append(frame, payload...)
		// The first 40 KiB at once, then 1 KiB every 20ms.
		sc.wmu.Lock()
		defer sc.wmu.Unlock()
		for n := 40 << 10; len(frame) > 0; n = 1 << 10 {
			n = min(n, len(frame))
			if _, err := sc.nc.Write(frame[:n]); err != nil {
				return // the client closed the connection
			}
			frame = frame[n:]
			time.Sleep(20 * time.Millisecond)
		}
	})
	c := dialTest(t, s)
	ctx, cancel := CallTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "Big", &pb.IsMasterRunningRequest{}, nil)
	var ce *ConnError
	if !errors.As(err, &ce) || !errors.Is(err, ErrAnswerCutOff) || !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("Call = %v (%T), want a *ConnError wrapping ErrAnswerCutOff and ErrCallTimeout", err, err)
	}
	if !ce.Sent || !IsRetryable(err) || errors.Is(err, ErrConnStalled) {
		t.Errorf("Call = %v: Sent %v, IsRetryable %v; want both, and no stall", err, ce.Sent, IsRetryable(err))
	}
	if !errors.Is(c.Err(), ErrAnswerCutOff) {
		t.Errorf("Conn.Err() = %v, want ErrAnswerCutOff", c.Err())
	}
}
