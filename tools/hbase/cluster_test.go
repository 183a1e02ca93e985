package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClusterLayout(t *testing.T) {
	c := testConfig(t)
	c.zkPort, c.masterPort, c.rsPort, c.masters, c.regionServers = 2881, 16800, 16820, 2, 2
	var got []string
	for _, p := range c.plannedProcs() {
		got = append(got, p.name())
	}
	want := "zookeeper-2881 master-16800 master-16810 regionserver-16820 regionserver-16821"
	if strings.Join(got, " ") != want {
		t.Errorf("plannedProcs = %v, want %s", got, want)
	}
	if n := len(c.serverLogs()); n != 4 {
		t.Errorf("%d server logs, want 4 (masters and region servers): %v", n, c.serverLogs())
	}
	c.masters = 1
	if logs := c.serverLogs(); len(logs) != 1 || logs[0] != c.logFile() {
		t.Errorf("standalone server logs = %v, want [%s]", logs, c.logFile())
	}
}

func TestSiteXMLDistributed(t *testing.T) {
	c := testConfig(t)
	c.masters, c.regionServers, c.zkSession = 2, 2, 6*time.Second
	x := c.siteXML()
	for _, want := range []string{
		"<name>hbase.cluster.distributed</name><value>true</value>",
		"<name>zookeeper.session.timeout</name><value>6000</value>",
		"<name>hbase.master.wait.on.regionservers.maxtostart</name><value>2</value>",
		// Each region server JVM gets its own port on its command
		// line; the site names the first, never an ephemeral one.
		"<name>hbase.regionserver.port</name><value>" + strconv.Itoa(c.rsPort) + "</value>",
	} {
		if !strings.Contains(x, want) {
			t.Errorf("hbase-site.xml lacks %s", want)
		}
	}
	if strings.Contains(x, "localHBaseCluster") {
		t.Error("a distributed instance's site sets the standalone session timeout")
	}
	z := c.zooCfgText()
	for _, want := range []string{"clientPortAddress=127.0.0.1\n", "tickTime=1000\n", "minSessionTimeout=2000\n", "maxSessionTimeout=60000\n", "admin.enableServer=false\n"} {
		if !strings.Contains(z, want) {
			t.Errorf("zoo.cfg lacks %q:\n%s", want, z)
		}
	}
	c.zkSession = 0
	if d := c.clusterSession(); d != 10*time.Second {
		t.Errorf("default session of a distributed instance = %v, want 10s (HBase's 90s would keep a dead master's znode)", d)
	}
}

func TestClusterInfoRoundTrip(t *testing.T) {
	c := testConfig(t)
	c.masters = 2
	if err := os.MkdirAll(c.state, 0o755); err != nil {
		t.Fatal(err)
	}
	started := []*jvm{
		{proc: proc{role: roleZK, port: c.zkPort, pid: 100}},
		{proc: proc{role: roleMaster, port: c.masterPort, pid: 101}},
		{proc: proc{role: roleMaster, port: c.masterPort + 10, pid: 102}},
	}
	if err := writeClusterInfo(c, 100, started); err != nil {
		t.Fatal(err)
	}
	li, ok := readInfo(c)
	if !ok || li.pid != 100 || li.masters != 2 || len(li.procs) != 3 {
		t.Fatalf("readInfo = %+v, %v", li, ok)
	}
	for i, p := range li.procs {
		if p != started[i].proc {
			t.Errorf("proc %d = %+v, want %+v", i, p, started[i].proc)
		}
	}
	for _, bad := range []string{"master 16800", "master x 5", "master 16800 1", ""} {
		if p, ok := parseProc(bad); ok {
			t.Errorf("parseProc(%q) = %+v, want rejected", bad, p)
		}
	}
	// None of the recorded pids is a JVM of this state: nothing is live,
	// and down signals none of them.
	if live := liveProcs(c, li); len(live) != 0 {
		t.Errorf("liveProcs = %v, want none", live)
	}
	if err := down(c); err != nil {
		t.Fatal(err)
	}
}
