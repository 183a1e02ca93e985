package hbasetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// waitReady polls until the HBase behind quorum answers as a client would
// see it (see probe), ctx ends, or alive reports that the server is gone.
// alive may be nil.
func waitReady(ctx context.Context, quorum string, alive func(ctx context.Context) error) error {
	var last error
	for {
		if alive != nil {
			if err := alive(ctx); err != nil {
				return err
			}
		}
		last = probe(ctx, quorum, 5*time.Second)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last check: %v)", ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// probe checks readiness from the outside: ZooKeeper answers, the master
// and meta znodes decode and meta is OPEN, and the active master answers
// IsMasterRunning over its RPC port.
func probe(ctx context.Context, quorum string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b, err := zk.Locate(ctx, strings.Split(quorum, ","), zk.WithTimeout(timeout))
	if err != nil {
		return err
	}
	if b.Meta.State != zk.StateOpen {
		return fmt.Errorf("hbase:meta is %v", b.Meta.State)
	}
	conn, err := rpc.Dial(ctx, b.Master.Server.Addr(), "MasterService")
	if err != nil {
		return fmt.Errorf("master RPC: %w", err)
	}
	defer conn.Close()
	var resp pb.IsMasterRunningResponse
	if err := conn.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		return fmt.Errorf("master RPC: %w", err)
	}
	if !resp.GetIsMasterRunning() {
		return errors.New("the master says it is not running")
	}
	return nil
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("hbasetest: no free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// fillPorts gives every port left at 0 a free one.
func (o *options) fillPorts() error {
	free, err := freePorts(3)
	if err != nil {
		return err
	}
	for i, p := range []*int{&o.zkPort, &o.masterPort, &o.rsPort} {
		if *p == 0 {
			*p = free[i]
		}
	}
	return nil
}

// portFree reports an error naming the port when something listens on it.
func portFree(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("hbasetest: port %d is taken: %w", port, err)
	}
	return l.Close()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
