package zk

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// fakeZK is a minimal ZooKeeper server speaking just enough jute for the
// client: connect, getData, getChildren2 with a watch, ping and close.
type fakeZK struct {
	ln    net.Listener
	nodes map[string][]byte
	wg    sync.WaitGroup

	mu       sync.Mutex
	conns    []net.Conn          // guarded by mu: accepted, for dropConns
	children map[string][]string // guarded by mu
	watchers map[string][]func() // guarded by mu: notify a child watch
}

func startFakeZK(t *testing.T, nodes map[string][]byte) *fakeZK {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeZK{ln: ln, nodes: nodes, children: map[string][]string{}, watchers: map[string][]func(){}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
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

// setChildren replaces the children of path and fires its child watches.
func (s *fakeZK) setChildren(path string, children ...string) {
	s.mu.Lock()
	s.children[path] = children
	ws := s.watchers[path]
	delete(s.watchers, path)
	s.mu.Unlock()
	for _, w := range ws {
		w()
	}
}

func (s *fakeZK) serve(c net.Conn) {
	var wmu sync.Mutex
	send := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writeFrame(c, b)
	}
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
	if send(resp) != nil {
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
				if send(hdr(-101)) != nil {
					return
				}
				continue
			}
			b := hdr(0)
			b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
			b = append(b, data...)
			b = append(b, make([]byte, 68)...) // Stat
			if send(b) != nil {
				return
			}
		case 12: // getChildren2
			if len(req) < 12 {
				return
			}
			plen := binary.BigEndian.Uint32(req[8:12])
			if int(plen) >= len(req)-12 {
				return
			}
			path := string(req[12 : 12+plen])
			watch := req[12+plen] != 0
			s.mu.Lock()
			children, ok := s.children[path]
			if ok && watch {
				s.watchers[path] = append(s.watchers[path], func() {
					ev := binary.BigEndian.AppendUint32(nil, 0xffffffff) // xid -1: a watch event
					ev = binary.BigEndian.AppendUint64(ev, 1)
					ev = binary.BigEndian.AppendUint32(ev, 0)
					ev = binary.BigEndian.AppendUint32(ev, 4) // NodeChildrenChanged
					ev = binary.BigEndian.AppendUint32(ev, 3) // SyncConnected
					ev = binary.BigEndian.AppendUint32(ev, uint32(len(path)))
					ev = append(ev, path...)
					_ = send(ev)
				})
			}
			s.mu.Unlock()
			if !ok {
				if send(hdr(-101)) != nil {
					return
				}
				continue
			}
			b := hdr(0)
			b = binary.BigEndian.AppendUint32(b, uint32(len(children)))
			for _, ch := range children {
				b = binary.BigEndian.AppendUint32(b, uint32(len(ch)))
				b = append(b, ch...)
			}
			b = append(b, make([]byte, 68)...) // Stat
			if send(b) != nil {
				return
			}
		case 11: // ping
			if send(hdr(0)) != nil {
				return
			}
		case -11: // close
			send(hdr(0))
			return
		default:
			if send(hdr(-6)) != nil { // unimplemented
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

// TestRegionServerWatch: RegionServer tells whether a server (start code
// included) is registered, and its channel is closed when the servers
// change, which is how a client waits for the master to see one go.
func TestRegionServerWatch(t *testing.T) {
	srv := startFakeZK(t, nil)
	srv.setChildren("/hbase/rs", "127.0.0.1,16020,7", "127.0.0.1,16021,8")
	ctx := context.Background()
	c, err := Dial(ctx, []string{srv.ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct {
		s    ServerName
		want bool
	}{
		{ServerName{"127.0.0.1", 16020, 7}, true},
		{ServerName{"127.0.0.1", 16020, 6}, false}, // an earlier process on that port
		{ServerName{"127.0.0.1", 16022, 7}, false},
		{ServerName{"127.0.0.1", 16020, 0}, true}, // any process on that port
		{ServerName{"127.0.0.1", 1602, 0}, false},
	} {
		got, _, err := c.RegionServer(ctx, tt.s)
		if err != nil || got != tt.want {
			t.Errorf("RegionServer(%v) = %v, %v; want %v", tt.s, got, err, tt.want)
		}
	}
	registered, changed, err := c.RegionServer(ctx, ServerName{"127.0.0.1", 16021, 8})
	if err != nil || !registered {
		t.Fatalf("RegionServer = %v, %v", registered, err)
	}
	select {
	case <-changed:
		t.Fatal("changed before any change")
	default:
	}
	srv.setChildren("/hbase/rs", "127.0.0.1,16020,7")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change seen")
	}
	if registered, _, err := c.RegionServer(ctx, ServerName{"127.0.0.1", 16021, 8}); err != nil || registered {
		t.Errorf("RegionServer after it went = %v, %v", registered, err)
	}
	if _, _, err := c.RegionServer(ctx, ServerName{"127.0.0.1", 16021, 8}); err != nil {
		t.Fatal(err)
	}
	c2, err := Dial(ctx, []string{srv.ln.Addr().String()}, WithParent("/none"))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, _, err := c2.RegionServer(ctx, ServerName{"127.0.0.1", 16021, 8}); !errors.Is(err, ErrNoNode) {
		t.Errorf("RegionServer without <parent>/rs = %v, want ErrNoNode", err)
	}
}

// dropConns closes every connection accepted so far, as a ZooKeeper
// server that restarts does; the listener stays open.
func (s *fakeZK) dropConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	s.conns = nil
}

// TestSessionEvents: a session that drops and comes back is reported
// through WithSessionEvents ("disconnected", then "connected"); the first
// session is not.
func TestSessionEvents(t *testing.T) {
	srv := startFakeZK(t, nil)
	states := make(chan string, 16)
	c, err := Dial(context.Background(), []string{srv.ln.Addr().String()}, WithSessionEvents(func(s string) { states <- s }))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	select {
	case s := <-states:
		t.Fatalf("event %q before anything happened", s)
	case <-time.After(200 * time.Millisecond):
	}
	srv.dropConns()
	for _, want := range []string{"disconnected", "connected"} {
		select {
		case got := <-states:
			if got != want {
				t.Fatalf("event %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %q event within 10s", want)
		}
	}
}
