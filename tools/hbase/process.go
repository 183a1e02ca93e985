package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hbkit/hbkit/internal/rpc"
)

// runningPid returns the pid of the HBase this tool started for this state
// directory, if it is alive. A pid file naming a dead process, or a process
// that is not ours (pid reuse), is reported as not running.
func runningPid(c *config) (int, bool) {
	b, err := os.ReadFile(c.pidFile())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	return pid, isOurs(c, pid)
}

// isOurs reports whether pid is alive and was started by this tool for this
// state directory (its command line carries the marker).
func isOurs(c *config, pid int) bool {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		if string(arg) == c.cmdMarker() {
			return true
		}
	}
	return false
}

type launchInfo struct {
	pid, zkPort, masterPort, rsPort, regionServers int
	phoenix                                        bool
	masters                                        int    // distributed instance (cluster.go): its masters
	procs                                          []proc // distributed instance: every JVM started
}

func writeInfo(c *config, pid int) error {
	s := fmt.Sprintf("pid=%d\nzk_port=%d\nmaster_port=%d\nrs_port=%d\nregion_servers=%d\nstarted=%s\n",
		pid, c.zkPort, c.masterPort, c.rsPort, c.regionServers, time.Now().UTC().Format(time.RFC3339))
	if c.phoenix {
		s += "phoenix=" + phoenixVersion + "\n"
	}
	return os.WriteFile(c.infoFile(), []byte(s), 0o644)
}

func readInfo(c *config) (launchInfo, bool) {
	b, err := os.ReadFile(c.infoFile())
	if err != nil {
		return launchInfo{}, false
	}
	var li launchInfo
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(v)
		switch k {
		case "pid":
			li.pid = n
		case "zk_port":
			li.zkPort = n
		case "master_port":
			li.masterPort = n
		case "rs_port":
			li.rsPort = n
		case "region_servers":
			li.regionServers = n
		case "phoenix":
			li.phoenix = v != ""
		case "masters":
			li.masters = n
		case "proc":
			if p, ok := parseProc(v); ok {
				li.procs = append(li.procs, p)
			}
		}
	}
	return li, true
}

// adoptRunning points c at the ports of the running instance, so readiness
// checks and messages use what was actually started.
func adoptRunning(c *config) {
	if li, ok := readInfo(c); ok {
		c.zkPort, c.masterPort, c.rsPort, c.regionServers = li.zkPort, li.masterPort, li.rsPort, li.regionServers
		c.phoenix = li.phoenix
		c.masters = li.masters
	}
}

func up(c *config, fresh bool, rsExplicit bool) error {
	if pid, ok := runningPid(c); ok {
		want, wantPhoenix := c.regionServers, c.phoenix
		adoptRunning(c)
		if rsExplicit && want != c.regionServers {
			return &exitError{2, fmt.Errorf("HBase is already up (pid %d) with %d region server(s), not %d: run make hbase-down first",
				pid, c.regionServers, want)}
		}
		if wantPhoenix && !c.phoenix {
			return &exitError{2, fmt.Errorf("HBase is already up (pid %d) without Phoenix: stop it first (down), "+
				"or give this one its own HBKIT_STATE and ports", pid)}
		}
		if err := waitReady(c, pid, nil, nil); err != nil {
			return err
		}
		fmt.Printf("HBase already up (pid %d); HBKIT_ZK=%s\n", pid, c.zkAddr())
		return nil
	}
	java, err := javaAndState(c, fresh)
	if err != nil {
		return err
	}
	if err := checkPorts(c); err != nil {
		return err
	}
	cp, err := classpath(c)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.confDir(), "hbase-site.xml"), []byte(c.siteXML()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.confDir(), "log4j2.properties"), []byte(c.log4j()), 0o644); err != nil {
		return err
	}
	if err := c.writeCoreSite(); err != nil {
		return err
	}
	// A fresh log per start, so readiness checks read only this run.
	_ = os.Remove(c.logFile())
	out, err := os.Create(c.outFile())
	if err != nil {
		return err
	}
	defer out.Close()

	args := []string{"-Xms256m", "-Xmx" + c.heap, "-XX:+UseG1GC", c.cmdMarker(),
		"-Dzookeeper.admin.enableServer=false",
		"-Dlog4j2.configurationFile=" + filepath.Join(c.confDir(), "log4j2.properties"),
		"-Dhbkit.log.file=" + c.logFile(),
	}
	args = append(args, jdk17Flags...)
	args = append(args, c.kerberos.jvmFlags()...)
	args = append(args, "-cp", c.confDir()+string(os.PathListSeparator)+cp,
		"org.apache.hadoop.hbase.master.HMaster", "start")
	if c.regionServers > 1 {
		args = append(args, "--localRegionServers="+strconv.Itoa(c.regionServers))
	}
	cmd := exec.Command(java, args...)
	cmd.Dir = c.state
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", java, err)
	}
	pid := cmd.Process.Pid
	// exited is closed when the JVM ends; waitErr then holds its status.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	if err := os.WriteFile(c.pidFile(), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return err
	}
	if err := writeInfo(c, pid); err != nil {
		_ = cmd.Process.Kill()
		return err
	}
	with := ""
	if c.phoenix {
		with = " with Phoenix " + phoenixVersion
	}
	fmt.Printf("hbase: started HBase %s%s (pid %d, %d region server(s)); waiting for the master...\n",
		hbaseVersion, with, pid, c.regionServers)
	if err := waitReady(c, pid, exited, &waitErr); err != nil {
		// Do not leave a half-started server behind.
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-exited
		_ = os.Remove(c.pidFile())
		return err
	}
	fmt.Printf("hbase: ready in %.1fs; HBKIT_ZK=%s (master 127.0.0.1:%d)\n",
		time.Since(start).Seconds(), c.zkAddr(), c.masterPort)
	return nil
}

// javaAndState finds Java and readies the state directory for a start:
// emptied first when fresh, created or checked (prepareState).
func javaAndState(c *config, fresh bool) (string, error) {
	java, err := javaBinary()
	if err != nil {
		return "", err
	}
	if fresh {
		if err := removeState(c); err != nil {
			return "", err
		}
	}
	return java, prepareState(c)
}

// prepareState creates the state directory, or checks that an existing one
// is ours and sound.
func prepareState(c *config) error {
	entries, err := os.ReadDir(c.state)
	switch {
	case errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0):
		if err := os.MkdirAll(c.state, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(c.marker(), []byte(markerText), 0o644); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("state directory %s: %w", c.state, err)
	default:
		b, err := os.ReadFile(c.marker())
		if err != nil || string(b) != markerText {
			return fmt.Errorf("state directory %s was not created by this tool (no %s marker); "+
				"refusing to use it: set HBKIT_STATE to another directory or remove it", c.state, filepath.Base(c.marker()))
		}
		if err := checkStateSound(c); err != nil {
			return err
		}
	}
	for _, d := range []string{c.confDir(), filepath.Join(c.state, "logs"), filepath.Join(c.state, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// checkStateSound looks for the damage that makes HBase fail slowly and
// obscurely at startup.
func checkStateSound(c *config) error {
	corrupt := func(what string) error {
		return &exitError{1, fmt.Errorf("state directory %s is corrupt (%s); "+
			"run make hbase-reset to start from an empty HBase", c.state, what)}
	}
	root := filepath.Join(c.state, "root")
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return corrupt("root is not a directory")
	}
	if b, err := os.ReadFile(filepath.Join(root, "hbase.version")); err == nil {
		if !bytes.HasPrefix(b, []byte("PBUF")) {
			return corrupt("root/hbase.version is not an HBase version file")
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "hbase.id")); err == nil {
		if !bytes.HasPrefix(b, []byte("PBUF")) {
			return corrupt("root/hbase.id is not an HBase cluster id")
		}
	}
	if fi, err := os.Stat(filepath.Join(c.state, "zk")); err == nil && !fi.IsDir() {
		return corrupt("zk is not a directory")
	}
	return nil
}

// checkPorts fails when a port HBase would bind is taken: we never take over
// a port another process owns.
func checkPorts(c *config) error {
	ports := []struct {
		port int
		what string
		env  string
	}{
		{c.zkPort, "ZooKeeper", "HBKIT_ZK_PORT"},
		{c.masterPort, "master RPC", "HBKIT_MASTER_PORT"},
	}
	if c.regionServers == 1 {
		ports = append(ports, struct {
			port int
			what string
			env  string
		}{c.rsPort, "region server RPC", "HBKIT_RS_PORT"})
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p.port))
		if err != nil {
			return &exitError{1, fmt.Errorf("port %d (%s) on 127.0.0.1 is already in use by another process: "+
				"stop it, or choose another port with %s=...; nothing was started", p.port, p.what, p.env)}
		}
		_ = l.Close()
	}
	return nil
}

func down(c *config) error {
	if li, ok := readInfo(c); ok && li.masters > 1 {
		return downCluster(c, li)
	}
	pid, ok := runningPid(c)
	if !ok {
		_ = os.Remove(c.pidFile())
		fmt.Println("hbase: already down")
		return nil
	}
	fmt.Printf("hbase: stopping HBase (pid %d)...\n", pid)
	start := time.Now()
	if stopByMaster(c, pid) {
		_ = os.Remove(c.pidFile())
		fmt.Printf("hbase: stopped in %.1fs\n", time.Since(start).Seconds())
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling pid %d: %w", pid, err)
	}
	if !waitGone(c, pid, 90*time.Second) {
		fmt.Printf("hbase: pid %d did not stop in 90s; killing it\n", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if !waitGone(c, pid, 10*time.Second) {
			return fmt.Errorf("pid %d still runs 10s after SIGKILL; its state directory %s is in use", pid, c.state)
		}
	}
	_ = os.Remove(c.pidFile())
	fmt.Printf("hbase: stopped in %.1fs\n", time.Since(start).Seconds())
	return nil
}

// stopByMaster asks the master of the instance with this pid to shut the
// cluster down and reports whether the JVM then ended. The master's
// Shutdown RPC stops the cluster in order: the region servers close their
// regions and leave ZooKeeper while it still runs, then the JVM ends.
// SIGTERM runs the JVM's shutdown hooks instead, which stop the in-process
// ZooKeeper under the region servers; they retry it for about 20 seconds.
//
// The RPC goes only to the master port recorded for this very pid, never to
// a default port another HBase might hold. A call that fails after the
// connection was made may have been carried out, so the JVM gets a short
// while to end before the caller falls back to SIGTERM.
func stopByMaster(c *config, pid int) bool {
	li, ok := readInfo(c)
	if !ok || li.pid != pid || li.masterPort <= 0 {
		fmt.Printf("hbase: %s does not record pid %d's master port; sending SIGTERM\n", c.infoFile(), pid)
		return false
	}
	wait := 60 * time.Second
	opts, err := c.rpcOptions()
	if err != nil {
		fmt.Printf("hbase: %v\n", err)
		return false
	}
	if err := shutdownCluster(li.masterPort, 10*time.Second, opts...); err != nil {
		var dial *dialError
		var refused *rpc.RemoteError
		switch {
		case errors.As(err, &dial):
			fmt.Printf("hbase: %v; sending SIGTERM\n", err)
			return false
		case errors.As(err, &refused):
			// HMaster.shutdown may fail after it has begun stopping.
			fmt.Printf("hbase: the master refused the shutdown request (%v); waiting briefly\n", err)
			wait = 5 * time.Second
		default:
			fmt.Printf("hbase: the master's answer to the shutdown request was lost (%v); waiting for it\n", err)
			wait = 15 * time.Second
		}
	}
	if waitGone(c, pid, wait) {
		return true
	}
	fmt.Printf("hbase: pid %d still runs %s after the shutdown request; sending SIGTERM\n", pid, wait)
	return false
}

func waitGone(c *config, pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !isOurs(c, pid) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return !isOurs(c, pid)
}

func status(c *config) error {
	pid, ok := runningPid(c)
	if !ok {
		fmt.Printf("hbase: down (state %s)\n", c.state)
		return &exitError{3, errors.New("not running")}
	}
	adoptRunning(c)
	if c.distributed() {
		fmt.Printf("hbase: up, distributed, ZooKeeper pid %d, state %s\n", pid, c.state)
		if err := masters(c); err != nil {
			return err
		}
		return printReady(c)
	}
	with := ""
	if c.phoenix {
		with = ", Phoenix " + phoenixVersion
	}
	fmt.Printf("hbase: up, pid %d, %d region server(s)%s, state %s\n", pid, c.regionServers, with, c.state)
	fmt.Printf("  HBKIT_ZK=%s  master=127.0.0.1:%d\n", c.zkAddr(), c.masterPort)
	return printReady(c)
}

// printReady probes a running instance and says whether it is ready, as
// status's last line.
func printReady(c *config) error {
	r, err := probe(c, 5*time.Second)
	if err != nil {
		fmt.Printf("  not ready: %v\n", err)
		return &exitError{4, errors.New("running but not ready")}
	}
	fmt.Printf("  master %s, meta on %s: ready\n", r.master, r.meta)
	return nil
}

func logs(c *config, n int, follow bool) error {
	if li, ok := readInfo(c); ok && li.masters > 1 {
		// A distributed instance: a log per JVM.
		adoptRunning(c)
		if follow {
			return &exitError{2, fmt.Errorf("logs -f: a distributed instance has a log per JVM; follow one of %s", filepath.Join(c.state, "logs"))}
		}
		for _, p := range c.plannedProcs() {
			b, err := os.ReadFile(c.procLog(p))
			if err != nil {
				continue
			}
			fmt.Printf("--- %s ---\n%s\n", c.procLog(p), lastLines(string(b), n))
		}
		return nil
	}
	f, err := os.Open(c.logFile())
	if err != nil {
		return fmt.Errorf("no log yet at %s", c.logFile())
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	fmt.Println(lastLines(string(b), n))
	if !follow {
		return nil
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			fmt.Print(line)
		}
		if err == io.EOF {
			time.Sleep(300 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
	}
}

func reset(c *config) error {
	if err := down(c); err != nil {
		return err
	}
	if err := removeState(c); err != nil {
		return err
	}
	fmt.Printf("hbase: state %s deleted\n", c.state)
	return nil
}

// removeState deletes the state directory, but only one this tool made.
func removeState(c *config) error {
	if pid, ok := runningPid(c); ok {
		return fmt.Errorf("HBase is running (pid %d): stop it first", pid)
	}
	if li, ok := readInfo(c); ok {
		if live := liveProcs(c, li); len(live) > 0 {
			return fmt.Errorf("HBase's %s is running (pid %d): stop it first (down)", live[0].name(), live[0].pid)
		}
	}
	entries, err := os.ReadDir(c.state)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if b, err := os.ReadFile(c.marker()); err != nil || string(b) != markerText {
			return fmt.Errorf("refusing to delete %s: it was not created by this tool", c.state)
		}
	}
	return os.RemoveAll(c.state)
}

// tailLog returns the last n lines of the server log and of the JVM's own
// output, for failure messages.
func tailLog(c *config, n int) string {
	var b strings.Builder
	for _, f := range c.logFiles() {
		data, err := os.ReadFile(f)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		fmt.Fprintf(&b, "--- last lines of %s ---\n%s\n", f, lastLines(string(data), n))
	}
	return b.String()
}
