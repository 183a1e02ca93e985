package hbase

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// namespacesOK answers ListNamespaceDescriptors with "default".
func namespacesOK() (proto.Message, *pb.ExceptionResponse) {
	return &pb.ListNamespaceDescriptorsResponse{NamespaceDescriptor: []*pb.NamespaceDescriptor{{Name: []byte("default")}}}, nil
}

// TestMasterNotActiveRereadsZK: a master that answers ServerNotRunningYet,
// PleaseHold, MasterNotRunning or MasterStopped is forgotten, and the next
// attempt (or call) reads the active master from ZooKeeper; an error about
// the request keeps it.
func TestMasterNotActiveRereadsZK(t *testing.T) {
	tests := []struct {
		class   string
		dnr     bool
		wantZK  int64
		wantErr bool
	}{
		{class: excPleaseHold, wantZK: 1},
		{class: excNotRunningYet, wantZK: 1},
		{class: excMasterNotRunning, wantZK: 1},
		// Do-not-retry: the call fails, the next one reads ZooKeeper.
		{class: excMasterStopped, dnr: true, wantZK: 1, wantErr: true},
		{class: excTableNotFound, dnr: true, wantZK: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.class[strings.LastIndexByte(tt.class, '.')+1:], func(t *testing.T) {
			var calls atomic.Int32
			m := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
				if calls.Add(1) == 1 {
					return nil, masterException(tt.class, "not now", tt.dnr)
				}
				return namespacesOK()
			})
			c := fakeMasterClient(t, m)
			z := c.zk.(*countingZK)
			_, err := c.ListNamespaces(t.Context())
			if (err != nil) != tt.wantErr {
				t.Fatalf("ListNamespaces: %v", err)
			}
			if err != nil {
				if _, err := c.ListNamespaces(t.Context()); err != nil {
					t.Fatalf("second ListNamespaces: %v", err)
				}
			}
			if got := z.masterReads.Load(); got != tt.wantZK {
				t.Errorf("%d ZooKeeper reads of the master, want %d", got, tt.wantZK)
			}
			if c.masterAddr != "master.test:16000" {
				t.Errorf("cached master %q", c.masterAddr)
			}
		})
	}
}

// mastersByAddr serves several fake masters, chosen by the dialled
// address.
func mastersByAddr(ms map[string]*fakeMaster) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		m := ms[addr]
		if m == nil {
			return nil, fmt.Errorf("no master at %s", addr)
		}
		return m.dial(ctx, network, addr)
	}
}

// TestBackupMasterFailover: the client still has the old master cached,
// which is now a backup and answers PleaseHold; ZooKeeper names the new
// active master. The same client's admin calls reach it, and stay there.
func TestBackupMasterFailover(t *testing.T) {
	backup := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		return nil, masterException(excPleaseHold, "Master is initializing", false)
	})
	active := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		return namespacesOK()
	})
	c := fakeMasterClient(t, backup)
	c.masterAddr = "a.test:16000"
	z := &countingZK{masters: []string{"b.test:16000"}}
	c.zk = z
	pool, err := rpc.NewPool(rpc.WithDialFunc(mastersByAddr(map[string]*fakeMaster{"a.test:16000": backup, "b.test:16000": active})), rpc.WithUser("hbkit-test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	c.pool = pool
	for range 3 {
		if _, err := c.ListNamespaces(t.Context()); err != nil {
			t.Fatalf("ListNamespaces: %v", err)
		}
	}
	if got := len(backup.methods()); got != 1 {
		t.Errorf("the backup master got %d calls, want 1", got)
	}
	if got := len(active.methods()); got != 3 {
		t.Errorf("the active master got %d calls, want 3", got)
	}
	if got := z.masterReads.Load(); got != 1 {
		t.Errorf("%d ZooKeeper reads, want 1", got)
	}
	if c.masterAddr != "b.test:16000" {
		t.Errorf("cached master %q, want b.test:16000", c.masterAddr)
	}
}

// TestMasterStillInitializing: a master that keeps answering PleaseHold
// while it initialises is asked again after ZooKeeper is read again at
// each attempt (the master may change meanwhile), within the retries.
func TestMasterStillInitializing(t *testing.T) {
	var calls atomic.Int32
	m := newFakeMaster(t, func(method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
		if calls.Add(1) <= 4 {
			return nil, masterException(excPleaseHold, "Master is initializing", false)
		}
		return namespacesOK()
	})
	c := fakeMasterClient(t, m)
	c.opts.backoffBase, c.opts.backoffMax = time.Millisecond, time.Millisecond
	z := c.zk.(*countingZK)
	if _, err := c.ListNamespaces(t.Context()); err != nil {
		t.Fatalf("ListNamespaces: %v", err)
	}
	if got := z.masterReads.Load(); got != 4 {
		t.Errorf("%d ZooKeeper reads for 4 PleaseHolds, want 4", got)
	}
}
