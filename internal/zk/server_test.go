package zk

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// fakeZK is a minimal ZooKeeper server speaking just enough jute for the
// client: connect, getData, ping and close.
type fakeZK struct {
	ln    net.Listener
	nodes map[string][]byte
	wg    sync.WaitGroup
}

func startFakeZK(t *testing.T, nodes map[string][]byte) *fakeZK {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeZK{ln: ln, nodes: nodes}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<20 {
		return nil, errors.New("frame too large")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

func writeFrame(w io.Writer, b []byte) error {
	_, err := w.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...))
	return err
}

func (s *fakeZK) serve(c net.Conn) {
	req, err := readFrame(c)
	if err != nil || len(req) < 20 {
		return
	}
	timeout := binary.BigEndian.Uint32(req[12:16])
	var resp []byte
	resp = binary.BigEndian.AppendUint32(resp, 0)       // protocol version
	resp = binary.BigEndian.AppendUint32(resp, timeout) // negotiated timeout
	resp = binary.BigEndian.AppendUint64(resp, 0x1234)  // session id
	resp = binary.BigEndian.AppendUint32(resp, 16)
	resp = append(resp, make([]byte, 16)...)
	if writeFrame(c, resp) != nil {
		return
	}
	for {
		req, err := readFrame(c)
		if err != nil || len(req) < 8 {
			return
		}
		xid := binary.BigEndian.Uint32(req[0:4])
		op := int32(binary.BigEndian.Uint32(req[4:8]))
		hdr := func(errCode int32) []byte {
			b := binary.BigEndian.AppendUint32(nil, xid)
			b = binary.BigEndian.AppendUint64(b, 1) // zxid
			return binary.BigEndian.AppendUint32(b, uint32(errCode))
		}
		switch op {
		case 4: // getData
			if len(req) < 12 {
				return
			}
			plen := binary.BigEndian.Uint32(req[8:12])
			if int(plen) > len(req)-12 {
				return
			}
			data, ok := s.nodes[string(req[12:12+plen])]
			if !ok {
				if writeFrame(c, hdr(-101)) != nil {
					return
				}
				continue
			}
			b := hdr(0)
			b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
			b = append(b, data...)
			b = append(b, make([]byte, 68)...) // Stat
			if writeFrame(c, b) != nil {
				return
			}
		case 11: // ping
			if writeFrame(c, hdr(0)) != nil {
				return
			}
		case -11: // close
			writeFrame(c, hdr(0))
			return
		default:
			if writeFrame(c, hdr(-6)) != nil { // unimplemented
				return
			}
		}
	}
}

func TestClientReadsZnodes(t *testing.T) {
	master := withMeta("master:16000", cat(field(1, serverNameMsg("127.0.0.1", 16000, 7)), varintField(3, 16010)))
	meta := withMeta("rs:16020", cat(field(1, serverNameMsg("127.0.0.1", 16020, 8)), varintField(3, uint64(StateOpen))))
	srv := startFakeZK(t, map[string][]byte{
		"/hbase/master":             master,
		"/hbase/meta-region-server": meta,
		"/other/master":             []byte("garbage"),
	})
	servers := []string{srv.ln.Addr().String()}
	ctx := context.Background()

	b, err := Locate(ctx, servers)
	if err != nil {
		t.Fatalf("Locate: %v", err)
	}
	if b.Master.Server != (ServerName{"127.0.0.1", 16000, 7}) || b.Master.InfoPort != 16010 {
		t.Errorf("master = %+v", b.Master)
	}
	if b.Meta.Server != (ServerName{"127.0.0.1", 16020, 8}) || b.Meta.State != StateOpen {
		t.Errorf("meta = %+v", b.Meta)
	}

	c, err := Dial(ctx, servers, WithParent("/other"))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	if _, err := c.Master(ctx); !errors.Is(err, ErrMalformed) {
		t.Errorf("Master under /other = %v, want ErrMalformed", err)
	}
	if _, err := c.MetaRegionServer(ctx); !errors.Is(err, ErrNoNode) {
		t.Errorf("MetaRegionServer under /other = %v, want ErrNoNode", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Master(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("Master with a canceled context = %v, want Canceled", err)
	}
}
