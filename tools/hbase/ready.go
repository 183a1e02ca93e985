package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// readyLine is what the master logs once it has finished initialising:
// hbase:meta and hbase:namespace are online and it accepts DDL.
const readyLine = "Master has completed initialization"

// fatalLines end a startup early: the JVM is going down.
var fatalLines = []string{
	"Master exiting",
	"Failed construction RegionServer",
	"Unhandled exception. Starting shutdown.",
	"***** ABORTING master",
}

type probeResult struct {
	master, meta string
}

// waitReady polls until the master is initialised, the process dies, or the
// timeout passes. exited, when not nil, is closed when the JVM ends, and
// waitErr then holds its exit status.
func waitReady(c *config, pid int, exited <-chan struct{}, waitErr *error) error {
	deadline := time.Now().Add(c.timeout)
	var lastErr error
	for {
		select {
		case <-exited:
			return fmt.Errorf("HBase exited during startup (%v)\n%s", *waitErr, tailLog(c, 40))
		default:
		}
		if exited == nil && !isOurs(c, pid) {
			return fmt.Errorf("HBase (pid %d) is gone\n%s", pid, tailLog(c, 40))
		}
		if line := firstFatal(c); line != "" {
			return fmt.Errorf("HBase failed to start: %s\n%s", line, tailLog(c, 40))
		}
		_, lastErr = probe(c, 3*time.Second)
		if lastErr == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("HBase was not ready after %s (last check: %v); "+
				"if the state directory is damaged, make hbase-reset starts empty\n%s",
				c.timeout, lastErr, tailLog(c, 40))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// probe checks readiness from the outside, as a client would: ZooKeeper
// answers, the master and meta znodes decode and meta is OPEN, the master
// logged the end of its initialisation, and the active master answers
// IsMasterRunning over its RPC port.
func probe(c *config, timeout time.Duration) (probeResult, error) {
	var r probeResult
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	b, err := zk.Locate(ctx, []string{c.zkAddr()}, zk.WithTimeout(timeout))
	if err != nil {
		return r, err
	}
	r.master, r.meta = b.Master.Server.Addr(), b.Meta.Server.Addr()
	if b.Meta.State != zk.StateOpen {
		return r, fmt.Errorf("hbase:meta is %v", b.Meta.State)
	}
	if !logHas(c, readyLine) {
		return r, errors.New("master still initialising")
	}
	opts, err := c.rpcOptions()
	if err != nil {
		return r, err
	}
	conn, err := rpc.Dial(ctx, b.Master.Server.Addr(), "MasterService", opts...)
	if err != nil {
		return r, fmt.Errorf("master RPC: %w", err)
	}
	defer conn.Close()
	var resp pb.IsMasterRunningResponse
	if err := conn.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		return r, fmt.Errorf("master RPC: %w", err)
	}
	if !resp.GetIsMasterRunning() {
		return r, errors.New("master says it is not running")
	}
	return r, nil
}

// dialError is a failure to connect to the master: the request was not sent.
type dialError struct{ err error }

func (e *dialError) Error() string { return "cannot reach the master: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// shutdownCluster asks the master on 127.0.0.1:port to stop the whole
// cluster. A *dialError means the request was never sent; an
// *rpc.RemoteError, that the master refused it.
func shutdownCluster(port int, timeout time.Duration, opts ...rpc.Option) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := rpc.Dial(ctx, fmt.Sprintf("127.0.0.1:%d", port), "MasterService", opts...)
	if err != nil {
		return &dialError{err}
	}
	defer conn.Close()
	if err := conn.Call(ctx, "Shutdown", &pb.ShutdownRequest{}, &pb.ShutdownResponse{}); err != nil {
		return fmt.Errorf("master RPC: %w", err)
	}
	return nil
}

// logHas reports whether any of the instance's server logs holds needle.
func logHas(c *config, needle string) bool {
	for _, f := range c.serverLogs() {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte(needle)) {
			return true
		}
	}
	return false
}

func firstFatal(c *config) string {
	for _, f := range c.serverLogs() {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, f := range fatalLines {
				if strings.Contains(line, f) {
					return strings.TrimSpace(line)
				}
			}
		}
	}
	return ""
}
