package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// answerFrame is the frame (length prefix included) of a plain answer to
// call id with msg.
func answerFrame(t *testing.T, id uint32, msg proto.Message) []byte {
	t.Helper()
	hb, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(id)})
	if err != nil {
		t.Fatal(err)
	}
	body, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	payload := protowire.AppendBytes(nil, hb)
	payload = protowire.AppendBytes(payload, body)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

func addToLength(delta int) func([]byte) []byte {
	return func(f []byte) []byte {
		binary.BigEndian.PutUint32(f, uint32(int(binary.BigEndian.Uint32(f))+delta))
		return f
	}
}

func flipBit(i int) func([]byte) []byte {
	return func(f []byte) []byte {
		f[i/8] ^= 1 << (i % 8)
		return f
	}
}

// TestCorruptFrameRedials (issue 34, item 3): an answer whose length is
// off (64 KiB too long, 3 bytes short, a bit flipped in the length or in
// the header's length) fails its call at once with a retryable, sent
// *ConnError wrapping ErrCorruptAnswer; the connection is closed and the
// next call through the Pool succeeds on a new one, all well within a
// second. Before, the client kept reading the connection as frames from
// the wrong offset and the call waited for its context.
func TestCorruptFrameRedials(t *testing.T) {
	tests := []struct {
		name   string
		mangle func([]byte) []byte
	}{
		{"length +64KiB", addToLength(64 << 10)},
		{"length -3", addToLength(-3)},
		{"length bit 2 flipped", flipBit(3*8 + 5)}, // +-4 bytes
		{"length bit 9 flipped", flipBit(2*8 + 6)}, // +-512 bytes
		{"header length bit flipped", flipBit(4*8 + 7 - 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
				if req.header.GetMethodName() != "Bad" {
					echoHandler(sc, req)
					return
				}
				f := tt.mangle(answerFrame(t, req.id(), echoResponse(req)))
				sc.wmu.Lock()
				sc.nc.Write(f)
				sc.wmu.Unlock()
			})
			p, err := NewPool()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			req := &pb.GetTableNamesRequest{Regex: proto.String("a table name long enough to flip bits in")}
			start := time.Now()
			err = p.Call(ctx, s.addr(), MasterService, "Bad", req, &pb.GetTableNamesResponse{})
			failed := time.Since(start)
			var ce *ConnError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorruptAnswer) || !IsRetryable(err) || !RequestSent(err) {
				t.Fatalf("Call = %v (%T) after %v; want a retryable, sent *ConnError wrapping ErrCorruptAnswer", err, err, failed)
			}
			var resp pb.GetTableNamesResponse
			if err := p.Call(ctx, s.addr(), MasterService, "GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String("next")}, &resp); err != nil {
				t.Fatalf("next call: %v", err)
			}
			if got := string(resp.GetTableNames()[0].GetQualifier()); got != "next" {
				t.Errorf("next call got %q, want %q", got, "next")
			}
			total := time.Since(start)
			if failed > 500*time.Millisecond || total > time.Second {
				t.Errorf("the corrupt answer failed its call after %v, the next call returned after %v; want well within a second", failed, total)
			}
			if n := len(s.connections()); n != 2 {
				t.Errorf("server saw %d connections, want 2 (a fresh one after the corrupt answer)", n)
			}
		})
	}
}

// TestStallCountsAnswersNotBytes (issue 34, item 3): bytes that reach no
// waiting call are not progress. An answer whose call id was corrupted
// (a bit flipped) is dropped; when the call it was meant for runs out of
// its per-RPC timeout with no other answer since, the connection is closed
// as stalled, and the next call goes on a new one. Before, the dropped
// frame's bytes kept the connection open.
func TestStallCountsAnswersNotBytes(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() != "Misaddressed" {
			echoHandler(sc, req)
			return
		}
		sc.reply(req.id()^(1<<20), echoResponse(req))
	})
	p, err := NewPool()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := CallTimeout(testContext(t), 200*time.Millisecond)
	defer cancel()
	err = p.Call(ctx, s.addr(), MasterService, "Misaddressed", &pb.GetTableNamesRequest{}, &pb.GetTableNamesResponse{})
	if !errors.Is(err, ErrConnStalled) || !errors.Is(err, ErrCallTimeout) || !IsRetryable(err) {
		t.Fatalf("Call = %v, want a retryable ErrConnStalled after ErrCallTimeout", err)
	}
	if err := p.Call(testContext(t), s.addr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{}); err != nil {
		t.Fatalf("next call: %v", err)
	}
	if n := len(s.connections()); n != 2 {
		t.Errorf("server saw %d connections, want 2 (a fresh one after the stall)", n)
	}
}

// TestCheckRejectsAnswer (issue 34, item 5): an answer that arrives whole
// but fails to decode, or fails the caller's check, is a retryable error
// of that call alone (its frame was intact, so the connection stays), and
// says the request reached the server. Before, decode errors were not
// retryable.
func TestCheckRejectsAnswer(t *testing.T) {
	s := newFakeServer(t, func(sc *serverConn, req *serverRequest) {
		if req.header.GetMethodName() == "Garbled" {
			// A whole frame whose message is not a GetTableNamesResponse:
			// field 1 with a length that overruns the message.
			sc.writeFrame(&pb.ResponseHeader{CallId: proto.Uint32(req.id())}, []byte{0x0a, 0x7f, 0x01}, nil)
			return
		}
		echoHandler(sc, req)
	})
	c := dialTest(t, s)
	ctx := testContext(t)
	errWrongRow := errors.New("not the row asked for")
	tests := []struct {
		name, method string
		check        func() error
		want         error
	}{
		{"message does not decode", "Garbled", nil, nil},
		{"check fails", "GetTableNames", func() error { return errWrongRow }, errWrongRow},
	}
	for _, tt := range tests {
		var opts []CallOption
		if tt.check != nil {
			opts = append(opts, WithCheck(tt.check))
		}
		err := c.Call(ctx, tt.method, &pb.GetTableNamesRequest{}, &pb.GetTableNamesResponse{}, opts...)
		var xe *CorruptError
		if !errors.As(err, &xe) || !errors.Is(err, ErrCorruptAnswer) || !IsRetryable(err) || !RequestSent(err) {
			t.Errorf("%s: Call = %v (%T); want a retryable, sent *CorruptError", tt.name, err, err)
		}
		if tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: Call = %v, want it to wrap %v", tt.name, err, tt.want)
		}
		if c.Err() != nil {
			t.Fatalf("%s: connection closed: %v", tt.name, c.Err())
		}
	}
	ok := false
	if err := c.Call(ctx, "GetTableNames", &pb.GetTableNamesRequest{}, &pb.GetTableNamesResponse{},
		WithCheck(func() error { ok = true; return nil })); err != nil || !ok {
		t.Errorf("Call with a passing check = %v, check ran: %v", err, ok)
	}
}

// FuzzReadHead: readHead never panics, never reads past the frame, and
// accepts every frame DecodeResponse accepts whose header carries no
// exception (for those it is stricter: the bytes after the header must
// be a message and the cell block, or nothing).
func FuzzReadHead(f *testing.F) {
	hdr := func(h *pb.ResponseHeader) []byte {
		b, err := proto.Marshal(h)
		if err != nil {
			f.Fatal(err)
		}
		return protowire.AppendBytes(nil, b)
	}
	plain := hdr(&pb.ResponseHeader{CallId: proto.Uint32(7)})
	f.Add(append(append([]byte(nil), plain...), 2, 8, 1))
	f.Add(append(append(hdr(&pb.ResponseHeader{CallId: proto.Uint32(1), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(3)}}), 1, 8, 9), 1, 2, 3))
	f.Add(hdr(&pb.ResponseHeader{CallId: proto.Uint32(2), Exception: &pb.ExceptionResponse{ExceptionClassName: proto.String("x")}}))
	f.Add(plain)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		// The frame, then bytes that must not be read.
		br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(frame), neverReader{}), 64<<10)
		fh, checked, err := readHead(br, len(frame))
		if err == nil && checked && len(frame) == 0 {
			t.Fatalf("readHead accepted an empty frame")
		}
		r, derr := DecodeResponse(frame)
		if derr == nil && r.Header.Exception == nil && (err != nil || !checked) {
			t.Fatalf("DecodeResponse accepts %x, readHead says %v (checked %v)", frame, err, checked)
		}
		if err == nil && checked && derr == nil && fh.hasID && fh.id != r.Header.GetCallId() {
			t.Fatalf("readHead read call id %d, proto %d", fh.id, r.Header.GetCallId())
		}
	})
}

// neverReader fails the test's reads past the frame: it blocks nothing,
// it reports that they happened.
type neverReader struct{}

func (neverReader) Read([]byte) (int, error) { return 0, errPastFrame }

var errPastFrame = errors.New("read past the frame")
