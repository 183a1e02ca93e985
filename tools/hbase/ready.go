package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
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

// probe checks readiness from the outside: ZooKeeper answers, the master and
// meta znodes exist, the master logged the end of its initialisation, and its
// RPC port accepts connections.
func probe(c *config, timeout time.Duration) (probeResult, error) {
	var r probeResult
	conn, err := net.DialTimeout("tcp", c.zkAddr(), timeout)
	if err != nil {
		return r, fmt.Errorf("ZooKeeper at %s: %w", c.zkAddr(), err)
	}
	_ = conn.Close()
	zc, _, err := zk.Connect([]string{c.zkAddr()}, timeout, zk.WithLogger(quietLogger{}))
	if err != nil {
		return r, err
	}
	defer zc.Close()
	for _, p := range []struct {
		path string
		dst  *string
	}{{"/hbase/master", &r.master}, {"/hbase/meta-region-server", &r.meta}} {
		data, err := getWithin(zc, p.path, timeout)
		if err != nil {
			return r, fmt.Errorf("znode %s: %w", p.path, err)
		}
		if len(data) == 0 {
			return r, fmt.Errorf("znode %s is empty", p.path)
		}
		*p.dst = znodeHost(data)
	}
	if !logHas(c, readyLine) {
		return r, errors.New("master still initialising")
	}
	mc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.masterPort), timeout)
	if err != nil {
		return r, fmt.Errorf("master RPC port: %w", err)
	}
	_ = mc.Close()
	return r, nil
}

func getWithin(zc *zk.Conn, path string, timeout time.Duration) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, _, err := zc.Get(path)
		ch <- res{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-time.After(timeout):
		return nil, errors.New("timed out")
	}
}

// znodeHost pulls the advertised host name out of a master or meta znode for
// display only; the Go client decodes these properly in internal/zk.
func znodeHost(data []byte) string {
	i := bytes.Index(data, []byte("PBUF"))
	if i < 0 {
		return "?"
	}
	s := data[i+4:]
	// ServerName is field 1 of both messages; its host_name is field 1 of it.
	if len(s) < 4 || s[0] != 0x0a || s[2] != 0x0a {
		return "?"
	}
	n := int(s[3])
	if 4+n > len(s) {
		return "?"
	}
	return string(s[4 : 4+n])
}

func logHas(c *config, needle string) bool {
	b, err := os.ReadFile(c.logFile())
	return err == nil && bytes.Contains(b, []byte(needle))
}

func firstFatal(c *config) string {
	b, err := os.ReadFile(c.logFile())
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		for _, f := range fatalLines {
			if strings.Contains(line, f) {
				return strings.TrimSpace(line)
			}
		}
	}
	return ""
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
