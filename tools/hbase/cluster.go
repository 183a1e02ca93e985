package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hbkit/hbkit/internal/zk"
)

// A distributed instance (up -masters N, N >= 2) runs every server in a
// JVM of its own on loopback: a ZooKeeper server, N masters and the region
// servers, with hbase.cluster.distributed=true. Standalone HBase cannot
// stand in: its first master owns the in-process ZooKeeper and stops it
// when it stops, so killing the active master would end the cluster
// instead of handing it to a backup.
//
// Ports: ZooKeeper on HBKIT_ZK_PORT, master i on HBKIT_MASTER_PORT+10*i,
// region server j on HBKIT_RS_PORT+j. Each JVM carries the state
// directory's marker, and launcher.info records every pid, so that down
// stops all of them and nothing else.

const (
	roleZK     = "zookeeper"
	roleMaster = "master"
	roleRS     = "regionserver"
)

// backupLine is what a master logs when another one is active and it
// waits to take over (HBase's ActiveMasterManager).
const backupLine = "waiting to become the next active master"

// proc is one JVM of a distributed instance.
type proc struct {
	role string
	port int
	pid  int // 0 until started
}

func (p proc) name() string { return p.role + "-" + strconv.Itoa(p.port) }

func (c *config) distributed() bool { return c.masters > 1 }

// plannedProcs lists the JVMs of a distributed instance in start order:
// ZooKeeper, the masters (the first becomes the active one), the region
// servers.
func (c *config) plannedProcs() []proc {
	ps := []proc{{role: roleZK, port: c.zkPort}}
	for i := range c.masters {
		ps = append(ps, proc{role: roleMaster, port: c.masterPort + 10*i})
	}
	for j := range c.regionServers {
		ps = append(ps, proc{role: roleRS, port: c.rsPort + j})
	}
	return ps
}

func (c *config) procLog(p proc) string { return filepath.Join(c.state, "logs", p.name()+".log") }
func (c *config) procOut(p proc) string { return filepath.Join(c.state, "logs", p.name()+".out") }
func (c *config) zooCfg() string        { return filepath.Join(c.confDir(), "zoo.cfg") }

// serverLogs are the logs the masters and region servers write, where
// readiness and fatal lines are looked for.
func (c *config) serverLogs() []string {
	if !c.distributed() {
		return []string{c.logFile()}
	}
	var fs []string
	for _, p := range c.plannedProcs() {
		if p.role != roleZK {
			fs = append(fs, c.procLog(p))
		}
	}
	return fs
}

// logFiles are every log and JVM output of the instance, for failure
// messages.
func (c *config) logFiles() []string {
	if !c.distributed() {
		return []string{c.logFile(), c.outFile()}
	}
	var fs []string
	for _, p := range c.plannedProcs() {
		fs = append(fs, c.procLog(p), c.procOut(p))
	}
	return fs
}

// clusterSession is the ZooKeeper session timeout of a distributed
// instance's servers: HBase's distributed default (90s) would keep a
// killed master's znode for a minute and a half.
func (c *config) clusterSession() time.Duration {
	if c.zkSession > 0 {
		return c.zkSession
	}
	return 10 * time.Second
}

// zooCfgText configures the ZooKeeper server: loopback only, no admin
// server, and a tick of 1s so that sessions from 2s up are granted as
// asked (ZooKeeper grants 2 to 20 ticks unless told otherwise).
func (c *config) zooCfgText() string {
	maxSession := max(60*time.Second, c.clusterSession())
	return fmt.Sprintf("# written by tools/hbase; changes are overwritten on every start\n"+
		"tickTime=1000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"minSessionTimeout=2000\nmaxSessionTimeout=%d\nmaxClientCnxns=0\nadmin.enableServer=false\n",
		filepath.Join(c.state, "zk"), c.zkPort, maxSession.Milliseconds())
}

// jvm is a started process of a distributed instance.
type jvm struct {
	proc
	cmd    *exec.Cmd
	exited chan struct{} // closed when it ends; err is then its status
	err    error
}

// startJVM starts one server of a distributed instance in a session of its
// own (it outlives the launcher), its output in the state's logs.
func startJVM(c *config, java, cp string, p proc, heap, mainClass string, args ...string) (*jvm, error) {
	_ = os.Remove(c.procLog(p))
	out, err := os.Create(c.procOut(p))
	if err != nil {
		return nil, err
	}
	defer out.Close()
	jargs := []string{"-Xms64m", "-Xmx" + heap, "-XX:+UseG1GC", c.cmdMarker(),
		"-Dzookeeper.admin.enableServer=false",
		"-Dlog4j2.configurationFile=" + filepath.Join(c.confDir(), "log4j2.properties"),
		"-Dhbkit.log.file=" + c.procLog(p),
	}
	jargs = append(jargs, jdk17Flags...)
	jargs = append(jargs, "-cp", c.confDir()+string(os.PathListSeparator)+cp, mainClass)
	jargs = append(jargs, args...)
	cmd := exec.Command(java, jargs...)
	cmd.Dir = c.state
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.name(), err)
	}
	j := &jvm{proc: p, cmd: cmd, exited: make(chan struct{})}
	j.pid = cmd.Process.Pid
	go func() { j.err = cmd.Wait(); close(j.exited) }()
	return j, nil
}

// writeClusterInfo records the instance and every JVM started so far, so
// that down finds them all even when up failed half way.
func writeClusterInfo(c *config, zkPid int, started []*jvm) error {
	s := fmt.Sprintf("pid=%d\nzk_port=%d\nmaster_port=%d\nrs_port=%d\nregion_servers=%d\nmasters=%d\nstarted=%s\n",
		zkPid, c.zkPort, c.masterPort, c.rsPort, c.regionServers, c.masters, time.Now().UTC().Format(time.RFC3339))
	for _, j := range started {
		s += fmt.Sprintf("proc=%s %d %d\n", j.role, j.port, j.pid)
	}
	return os.WriteFile(c.infoFile(), []byte(s), 0o644)
}

// parseProc reads a "proc=" value of launcher.info: role, port, pid.
func parseProc(v string) (proc, bool) {
	f := strings.Fields(v)
	if len(f) != 3 {
		return proc{}, false
	}
	port, err1 := strconv.Atoi(f[1])
	pid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || pid <= 1 {
		return proc{}, false
	}
	return proc{role: f[0], port: port, pid: pid}, true
}

// upCluster starts a distributed instance and waits until its active
// master has initialised and every backup master waits to take over. On
// failure it kills every JVM it started.
func upCluster(c *config, fresh bool) (err error) {
	if c.kerberos.enabled() || c.tls.enabled() || c.phoenix {
		return &exitError{2, errors.New("up -masters: Kerberos, TLS and Phoenix are for the standalone instance only")}
	}
	if pid, ok := runningPid(c); ok {
		li, _ := readInfo(c)
		if li.masters < 2 {
			return &exitError{2, fmt.Errorf("a standalone HBase is up on this state (pid %d): stop it first (down)", pid)}
		}
		adoptRunning(c)
		if _, err := probe(c, 5*time.Second); err != nil {
			return fmt.Errorf("HBase is up (ZooKeeper pid %d) but not ready: %w", pid, err)
		}
		fmt.Printf("HBase already up with %d masters; HBKIT_ZK=%s\n", c.masters, c.zkAddr())
		return nil
	}
	java, err := javaAndState(c, fresh)
	if err != nil {
		return err
	}
	for _, p := range c.plannedProcs() {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p.port))
		if err != nil {
			return &exitError{1, fmt.Errorf("port %d (%s) on 127.0.0.1 is already in use by another process: "+
				"choose other ports (HBKIT_ZK_PORT, HBKIT_MASTER_PORT, HBKIT_RS_PORT); nothing was started", p.port, p.role)}
		}
		_ = l.Close()
	}
	cp, err := classpath(c)
	if err != nil {
		return err
	}
	for name, text := range map[string]string{
		"hbase-site.xml":    c.siteXML(),
		"log4j2.properties": c.log4j(),
		"zoo.cfg":           c.zooCfgText(),
	} {
		if err := os.WriteFile(filepath.Join(c.confDir(), name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := c.writeCoreSite(); err != nil {
		return err
	}

	var started []*jvm
	// anyExited is closed when the first JVM ends; exitErr says which.
	anyExited := make(chan struct{})
	var once sync.Once
	var exitErr error
	defer func() {
		if err == nil {
			return
		}
		// Do not leave a half-started instance behind.
		for _, j := range started {
			_ = syscall.Kill(j.pid, syscall.SIGKILL)
		}
		for _, j := range started {
			<-j.exited
		}
		_ = os.Remove(c.pidFile())
	}()
	zkPid := 0
	start := func(p proc, heap, mainClass string, args ...string) error {
		j, err := startJVM(c, java, cp, p, heap, mainClass, args...)
		if err != nil {
			return err
		}
		started = append(started, j)
		if zkPid == 0 {
			zkPid = j.pid
			if err := os.WriteFile(c.pidFile(), []byte(strconv.Itoa(j.pid)+"\n"), 0o644); err != nil {
				return err
			}
		}
		go func() {
			<-j.exited
			once.Do(func() {
				exitErr = fmt.Errorf("%s (pid %d) exited: %v", j.name(), j.pid, j.err)
				close(anyExited)
			})
		}()
		return writeClusterInfo(c, zkPid, started)
	}
	t0 := time.Now()
	deadline := t0.Add(c.timeout)
	// wait polls cond until it holds, a JVM ends, or the timeout passes.
	wait := func(what string, cond func() error) error {
		for {
			lastErr := cond()
			if lastErr == nil {
				return nil
			}
			select {
			case <-anyExited:
				return fmt.Errorf("HBase exited while %s: %v\n%s", what, exitErr, tailLog(c, 40))
			default:
			}
			if line := firstFatal(c); line != "" {
				return fmt.Errorf("HBase failed to start: %s\n%s", line, tailLog(c, 40))
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("HBase was not up after %s while %s (last check: %v)\n%s", c.timeout, what, lastErr, tailLog(c, 40))
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	procs := c.plannedProcs()
	site := func(key string, v int) []string { return []string{"-D", key + "=" + strconv.Itoa(v)} }
	for _, p := range procs {
		switch p.role {
		case roleZK:
			err = start(p, "256m", "org.apache.zookeeper.server.ZooKeeperServerMain", c.zooCfg())
			if err == nil {
				err = wait("waiting for ZooKeeper", func() error { return dialZK(c) })
			}
		case roleMaster:
			err = start(p, "768m", "org.apache.hadoop.hbase.master.HMaster", append(site("hbase.master.port", p.port), "start")...)
			if err == nil && p.port == c.masterPort {
				// The first master becomes the active one before
				// the others start, which then wait as backups.
				err = wait("waiting for the first master to become active", func() error { return activeMasterIs(c, p.port) })
			}
		case roleRS:
			err = start(p, c.heap, "org.apache.hadoop.hbase.regionserver.HRegionServer", append(site("hbase.regionserver.port", p.port), "start")...)
		}
		if err != nil {
			return err
		}
	}
	fmt.Printf("hbase: started HBase %s distributed: %d JVMs (ZooKeeper pid %d); waiting for the master...\n",
		hbaseVersion, len(started), zkPid)
	exitedErr := &exitErr
	if err = waitReady(c, zkPid, anyExited, exitedErr); err != nil {
		return err
	}
	err = wait("waiting for the backup masters", func() error {
		for _, p := range procs {
			if p.role == roleMaster && p.port != c.masterPort && !fileHas(c.procLog(p), backupLine) {
				return fmt.Errorf("%s has not logged %q", p.name(), backupLine)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("hbase: ready in %.1fs; HBKIT_ZK=%s (active master 127.0.0.1:%d)\n", time.Since(t0).Seconds(), c.zkAddr(), c.masterPort)
	for _, j := range started {
		fmt.Printf("  %-18s pid %d\n", j.name(), j.pid)
	}
	return nil
}

func fileHas(path, needle string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), needle)
}

// dialZK checks that the ZooKeeper server accepts connections.
func dialZK(c *config) error {
	conn, err := net.DialTimeout("tcp", c.zkAddr(), time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

// activeMaster reads the active master from ZooKeeper.
func activeMaster(c *config) (zk.ServerName, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	zc, err := zk.Dial(ctx, []string{c.zkAddr()}, zk.WithTimeout(5*time.Second))
	if err != nil {
		return zk.ServerName{}, err
	}
	defer zc.Close()
	m, err := zc.Master(ctx)
	if err != nil {
		return zk.ServerName{}, err
	}
	return m.Server, nil
}

func activeMasterIs(c *config, port int) error {
	s, err := activeMaster(c)
	if err != nil {
		return err
	}
	if s.Port != port {
		return fmt.Errorf("the active master is %s", s.Addr())
	}
	return nil
}

// liveProcs returns the recorded JVMs of a distributed instance that are
// still ours and alive.
func liveProcs(c *config, li launchInfo) []proc {
	var live []proc
	for _, p := range li.procs {
		if isOurs(c, p.pid) {
			live = append(live, p)
		}
	}
	return live
}

// downCluster stops a distributed instance: the active master's Shutdown
// RPC stops the masters and region servers in order, then ZooKeeper is
// stopped; whatever remains gets SIGTERM, then SIGKILL.
func downCluster(c *config, li launchInfo) error {
	live := liveProcs(c, li)
	if len(live) == 0 {
		_ = os.Remove(c.pidFile())
		fmt.Println("hbase: already down")
		return nil
	}
	fmt.Printf("hbase: stopping the distributed HBase (%d JVMs)...\n", len(live))
	start := time.Now()
	isServer := func(p proc) bool { return p.role != roleZK }
	requested := false
	if m, err := activeMaster(c); err == nil {
		for _, p := range live {
			if p.role == roleMaster && p.port == m.Port {
				opts, err := c.rpcOptions()
				if err == nil {
					err = shutdownCluster(p.port, 10*time.Second, opts...)
				}
				if err != nil {
					fmt.Printf("hbase: shutdown request to the master %s: %v\n", m.Addr(), err)
				}
				requested = err == nil
			}
		}
	}
	// stopAll sends each signal in turn (0: none, only wait) to those
	// of the live JVMs that which selects and still run, and waits grace
	// after each for them to end.
	stopAll := func(which func(proc) bool, grace time.Duration, sigs ...syscall.Signal) error {
		left := func() []proc {
			var ps []proc
			for _, p := range liveProcs(c, launchInfo{procs: live}) {
				if which(p) {
					ps = append(ps, p)
				}
			}
			return ps
		}
		for _, sig := range sigs {
			ps := left()
			if len(ps) == 0 {
				return nil
			}
			for _, p := range ps {
				if sig != 0 {
					fmt.Printf("hbase: sending %s to %s (pid %d)\n", sigName[sig], p.name(), p.pid)
					_ = syscall.Kill(p.pid, sig)
				}
			}
			deadline := time.Now().Add(grace)
			for _, p := range ps {
				waitGone(c, p.pid, time.Until(deadline))
			}
		}
		if ps := left(); len(ps) > 0 {
			return fmt.Errorf("%s (pid %d) still runs after SIGKILL; its state directory %s is in use", ps[0].name(), ps[0].pid, c.state)
		}
		return nil
	}
	// The servers stop on the master's request (a backup master when
	// the cluster goes down); ZooKeeper only on a signal.
	sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}
	if requested {
		sigs = append([]syscall.Signal{0}, sigs...)
	}
	if err := stopAll(isServer, 30*time.Second, sigs...); err != nil {
		return err
	}
	if err := stopAll(func(p proc) bool { return !isServer(p) }, 10*time.Second, syscall.SIGTERM, syscall.SIGKILL); err != nil {
		return err
	}
	_ = os.Remove(c.pidFile())
	fmt.Printf("hbase: stopped in %.1fs\n", time.Since(start).Seconds())
	return nil
}

var sigName = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL"}

// clusterInfo reads launcher.info and fails unless it describes a
// distributed instance.
func clusterInfo(c *config) (launchInfo, error) {
	li, ok := readInfo(c)
	if !ok || li.masters < 2 {
		return li, &exitError{3, fmt.Errorf("no distributed HBase (up -masters N) recorded in %s", c.state)}
	}
	adoptRunning(c)
	return li, nil
}

// masters prints every master of a distributed instance: address, pid and
// whether it is the active one (the master znode names it), a backup, or
// gone.
func masters(c *config) error {
	li, err := clusterInfo(c)
	if err != nil {
		return err
	}
	active, aerr := activeMaster(c)
	for _, p := range li.procs {
		if p.role != roleMaster {
			continue
		}
		state := "backup"
		switch {
		case !isOurs(c, p.pid):
			state = "gone"
		case aerr == nil && active.Port == p.port:
			state = "active"
		}
		fmt.Printf("127.0.0.1:%d pid=%d %s\n", p.port, p.pid, state)
	}
	if aerr != nil {
		fmt.Printf("no active master: %v\n", aerr)
	}
	return nil
}

// killMaster SIGKILLs the active master's JVM, as a crash would end it:
// its ZooKeeper session, and so its master znode, lives on until the
// session times out; then a backup master takes over.
func killMaster(c *config) error {
	li, err := clusterInfo(c)
	if err != nil {
		return err
	}
	active, err := activeMaster(c)
	if err != nil {
		return fmt.Errorf("reading the active master: %w", err)
	}
	for _, p := range li.procs {
		if p.role != roleMaster || p.port != active.Port {
			continue
		}
		if !isOurs(c, p.pid) {
			return fmt.Errorf("the active master %s is not a live JVM of this instance (pid %d)", active.Addr(), p.pid)
		}
		if err := syscall.Kill(p.pid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("killing pid %d: %w", p.pid, err)
		}
		if !waitGone(c, p.pid, 10*time.Second) {
			return fmt.Errorf("pid %d still runs 10s after SIGKILL", p.pid)
		}
		fmt.Printf("killed the active master %s (pid %d)\n", active.Addr(), p.pid)
		return nil
	}
	return fmt.Errorf("the active master %s is not one this instance started", active.Addr())
}
