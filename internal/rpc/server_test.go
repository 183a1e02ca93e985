package rpc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// fakeServer is an in-process HBase RPC server on 127.0.0.1. Its framing
// code is written independently of the package under test (encoding/binary
// and protowire only), so a symmetric bug cannot hide.
type fakeServer struct {
	t      testing.TB
	ln     net.Listener
	handle func(sc *serverConn, req *serverRequest)

	mu        sync.Mutex
	conns     []*serverConn
	tlsProbes int // TLS ClientHellos received (probes), guarded by mu
	wg        sync.WaitGroup
}

type serverConn struct {
	nc     net.Conn
	header *pb.ConnectionHeader
	wmu    sync.Mutex
}

type serverRequest struct {
	header *pb.RequestHeader
	param  []byte
}

func (r *serverRequest) id() uint32 { return r.header.GetCallId() }

func newFakeServer(t testing.TB, handle func(sc *serverConn, req *serverRequest)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &fakeServer{t: t, ln: ln, handle: handle}
	s.wg.Add(1)
	go s.acceptLoop()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// connections returns the handshaken connections so far.
func (s *fakeServer) connections() []*serverConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*serverConn(nil), s.conns...)
}

func (s *fakeServer) acceptLoop() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go s.serve(nc)
	}
}

// readPreamble reads the 6 bytes a client opens a connection with. A TLS
// ClientHello there is the client's probe of a connection closed before
// any answer (see ErrTLSRequired): the test servers speak no TLS and drop
// it, as a plain HBase does, after calling probed. ok is false then, and
// when the read fails.
func readPreamble(nc net.Conn, probed func()) (pre [6]byte, ok bool) {
	if _, err := io.ReadFull(nc, pre[:]); err != nil {
		return pre, false
	}
	if pre[0] == 0x16 && pre[1] == 0x03 {
		probed()
		return pre, false
	}
	return pre, true
}

func (s *fakeServer) serve(nc net.Conn) {
	defer s.wg.Done()
	defer nc.Close()
	pre, ok := readPreamble(nc, func() {
		s.mu.Lock()
		s.tlsProbes++
		s.mu.Unlock()
	})
	if !ok {
		return
	}
	if !bytes.Equal(pre[:], []byte("HBas\x00\x50")) {
		s.t.Errorf("server: preamble %x, want %x", pre, "HBas\x00\x50")
		return
	}
	body, err := readServerFrame(nc)
	if err != nil {
		s.t.Errorf("server: read connection header: %v", err)
		return
	}
	sc := &serverConn{nc: nc, header: new(pb.ConnectionHeader)}
	if err := proto.Unmarshal(body, sc.header); err != nil {
		s.t.Errorf("server: decode connection header: %v", err)
		return
	}
	s.mu.Lock()
	s.conns = append(s.conns, sc)
	s.mu.Unlock()
	for {
		body, err := readServerFrame(nc)
		if err != nil {
			return
		}
		req, err := parseServerRequest(body)
		if err != nil {
			s.t.Errorf("server: %v", err)
			return
		}
		s.handle(sc, req)
	}
}

func readServerFrame(r io.Reader) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(lb[:]))
	_, err := io.ReadFull(r, b)
	return b, err
}

func parseServerRequest(b []byte) (*serverRequest, error) {
	hb, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, fmt.Errorf("bad request header length")
	}
	req := &serverRequest{header: new(pb.RequestHeader)}
	if err := proto.Unmarshal(hb, req.header); err != nil {
		return nil, err
	}
	param, m := protowire.ConsumeBytes(b[n:])
	if m < 0 || n+m != len(b) {
		return nil, fmt.Errorf("bad request param framing")
	}
	req.param = param
	return req, nil
}

// writeFrame writes one response frame: header, then (if body is non-nil)
// the delimited body, then the raw cell block.
func (sc *serverConn) writeFrame(hdr *pb.ResponseHeader, body []byte, cells []byte) error {
	hb, err := proto.Marshal(hdr)
	if err != nil {
		return err
	}
	var payload []byte
	payload = protowire.AppendBytes(payload, hb)
	if body != nil {
		payload = protowire.AppendBytes(payload, body)
	}
	payload = append(payload, cells...)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	frame = append(frame, payload...)
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	_, err = sc.nc.Write(frame)
	return err
}

func (sc *serverConn) reply(id uint32, msg proto.Message) error {
	body, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	if body == nil {
		body = []byte{}
	}
	return sc.writeFrame(&pb.ResponseHeader{CallId: proto.Uint32(id)}, body, nil)
}

func (sc *serverConn) replyException(id uint32, x *pb.ExceptionResponse) error {
	return sc.writeFrame(&pb.ResponseHeader{CallId: proto.Uint32(id), Exception: x}, nil, nil)
}

// echoHandler answers GetTableNames with one table named after the
// request's regex, and IsMasterRunning with true.
func echoHandler(sc *serverConn, req *serverRequest) {
	switch req.header.GetMethodName() {
	case "IsMasterRunning":
		sc.reply(req.id(), &pb.IsMasterRunningResponse{IsMasterRunning: proto.Bool(true)})
	case "GetTableNames":
		sc.reply(req.id(), echoResponse(req))
	default:
		sc.replyException(req.id(), &pb.ExceptionResponse{
			ExceptionClassName: proto.String("org.apache.hadoop.hbase.DoNotRetryIOException"),
			DoNotRetry:         proto.Bool(true),
		})
	}
}

func echoResponse(req *serverRequest) *pb.GetTableNamesResponse {
	var in pb.GetTableNamesRequest
	if err := proto.Unmarshal(req.param, &in); err != nil {
		panic(err)
	}
	return &pb.GetTableNamesResponse{TableNames: []*pb.TableName{{
		Namespace: []byte("default"), Qualifier: []byte(in.GetRegex()),
	}}}
}
