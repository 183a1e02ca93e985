package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
)

// hbaseVersion must match <hbase.version> in pom.xml.
const hbaseVersion = "2.6.4-hadoop3"

// phoenixVersion must match <phoenix.version> in phoenix/pom.xml.
const phoenixVersion = "5.2.1"

type config struct {
	toolDir       string // directory holding pom.xml
	cache         string // cache root, outside the repo
	state         string // HBase state: root dir, ZooKeeper data, logs, pid
	m2            string // local Maven repository, "" for Maven's default
	zkPort        int
	masterPort    int
	rsPort        int
	regionServers int
	heap          string
	timeout       time.Duration
	phoenix       bool // Apache Phoenix's server side on the classpath and in hbase-site.xml
	// zkSession is the ZooKeeper session timeout of the JVM's master
	// and region servers; 0 keeps HBase's standalone default (10s).
	zkSession time.Duration
	kerberos  kerberos       // Kerberos authentication (secure.go); zero: SIMPLE
	krbClient *client.Client // the launcher's own Kerberos login, made on first use
	tls       tlsFiles       // native RPC TLS (tls.go); zero: plain TCP
	// masters is the number of HMaster JVMs of a distributed instance
	// (cluster.go); 0 or 1: the standalone single JVM.
	masters int
}

func loadConfig() (*config, error) {
	toolDir, err := findToolDir()
	if err != nil {
		return nil, err
	}
	cache := os.Getenv("HBKIT_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory: set HBKIT_CACHE: %w", err)
		}
		cache = filepath.Join(base, "hbkit")
	}
	cfg := &config{
		toolDir: toolDir,
		cache:   cache,
		state:   os.Getenv("HBKIT_STATE"),
		m2:      os.Getenv("HBKIT_M2"),
		heap:    envOr("HBKIT_HBASE_HEAP", "2g"),
	}
	if cfg.state == "" {
		cfg.state = filepath.Join(cache, "state")
	}
	if cfg.state, err = filepath.Abs(cfg.state); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		dst  *int
		name string
		def  int
		min  int
	}{
		{&cfg.zkPort, "HBKIT_ZK_PORT", 2181, 1},
		{&cfg.masterPort, "HBKIT_MASTER_PORT", 16000, 1},
		{&cfg.rsPort, "HBKIT_RS_PORT", 16020, 1},
		{&cfg.regionServers, "RS", 1, 1},
	} {
		v, err := envInt(p.name, p.def)
		if err != nil {
			return nil, err
		}
		if v < p.min || v > 65535 {
			return nil, fmt.Errorf("%s=%d is out of range", p.name, v)
		}
		*p.dst = v
	}
	switch v := strings.TrimSpace(os.Getenv("HBKIT_PHOENIX")); v {
	case "", "0", "false":
	case "1", "true":
		cfg.phoenix = true
	default:
		return nil, fmt.Errorf("HBKIT_PHOENIX=%q: want 1 or 0", v)
	}
	secs, err := envInt("HBKIT_HBASE_TIMEOUT", 180)
	if err != nil {
		return nil, err
	}
	cfg.timeout = time.Duration(secs) * time.Second
	zs, err := envInt("HBKIT_ZK_SESSION_TIMEOUT", 0)
	if err != nil {
		return nil, err
	}
	cfg.zkSession = time.Duration(zs) * time.Second
	if err := cfg.checkZKSession(); err != nil {
		return nil, err
	}
	if cfg.kerberos, err = loadKerberos(); err != nil {
		return nil, err
	}
	if cfg.tls, err = loadTLS(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkZKSession checks the session timeout against what the JVM's
// ZooKeeper server grants: between 2 and 20 ticks (see siteXML).
func (c *config) checkZKSession() error {
	if c.zkSession != 0 && (c.zkSession < 4*time.Second || c.zkSession > 10*time.Minute) {
		return fmt.Errorf("ZooKeeper session timeout %v: want 4s to 10m (HBKIT_ZK_SESSION_TIMEOUT, in seconds, or up -zk-session-timeout)", c.zkSession)
	}
	return nil
}

// findToolDir locates tools/hbase from the working directory or its parents,
// so the tool runs from anywhere in the repo.
func findToolDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, "tools", "hbase")
		if _, err := os.Stat(filepath.Join(cand, "pom.xml")); err == nil {
			return cand, nil
		}
		if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err == nil && filepath.Base(dir) == "hbase" {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cannot find tools/hbase/pom.xml above %s: run from the hbkit repo", dir)
		}
		dir = parent
	}
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a number", name, v)
	}
	return n, nil
}

func (c *config) pidFile() string   { return filepath.Join(c.state, "hbase.pid") }
func (c *config) infoFile() string  { return filepath.Join(c.state, "launcher.info") }
func (c *config) marker() string    { return filepath.Join(c.state, ".hbkit-state") }
func (c *config) logFile() string   { return filepath.Join(c.state, "logs", "hbase.log") }
func (c *config) outFile() string   { return filepath.Join(c.state, "logs", "hbase.out") }
func (c *config) confDir() string   { return filepath.Join(c.state, "conf") }
func (c *config) zkAddr() string    { return fmt.Sprintf("127.0.0.1:%d", c.zkPort) }
func (c *config) cmdMarker() string { return "-Dhbkit.state=" + c.state }

// markerText identifies a state directory created by this tool.
const markerText = "hbkit local HBase state, format 1\n"

// siteXML is the standalone configuration: one JVM, the local filesystem,
// loopback only, no web UI.
func (c *config) siteXML() string {
	rsPort := c.rsPort
	if c.regionServers > 1 && !c.distributed() {
		// LocalHBaseCluster gives every region server the same
		// configuration; only ephemeral ports let several bind.
		rsPort = 0
	}
	props := [][2]string{
		{"hbase.cluster.distributed", strconv.FormatBool(c.distributed())},
		{"hbase.rootdir", "file://" + filepath.Join(c.state, "root")},
		{"hbase.tmp.dir", filepath.Join(c.state, "tmp")},
		{"hbase.zookeeper.property.dataDir", filepath.Join(c.state, "zk")},
		{"hbase.unsafe.stream.capability.enforce", "false"},
		{"hbase.zookeeper.quorum", "127.0.0.1"},
		{"hbase.zookeeper.property.clientPort", strconv.Itoa(c.zkPort)},
		{"hbase.master.hostname", "127.0.0.1"},
		{"hbase.unsafe.regionserver.hostname", "127.0.0.1"},
		{"hbase.master.port", strconv.Itoa(c.masterPort)},
		{"hbase.regionserver.port", strconv.Itoa(rsPort)},
		{"hbase.master.info.port", "-1"},
		{"hbase.regionserver.info.port", "-1"},
		{"hbase.io.compress.snappy.codec", "org.apache.hadoop.hbase.io.compress.xerial.SnappyCodec"},
		// Creating a table checks that its compression codec really loads.
		{"hbase.table.sanity.checks", "true"},
		// A region server checks in with the master, and when stopping
		// looks again for regions still open, at this interval (default
		// 3s); at 1s a cluster shutdown takes about 4s less.
		{"hbase.regionserver.msginterval", "1000"},
	}
	if c.distributed() {
		// A master (at start, or taking over) waits for the region
		// servers to check in: by default 4.5s whatever their number.
		// Here the number is known.
		props = append(props, [2]string{"hbase.master.wait.on.regionservers.maxtostart", strconv.Itoa(c.regionServers)})
	}
	if c.phoenix {
		props = append(props, phoenixSite...)
	}
	props = append(props, c.kerberos.site()...)
	props = append(props, c.tls.site()...)
	if ms := c.zkSession.Milliseconds(); ms > 0 && c.distributed() {
		// Each JVM asks for this; the ZooKeeper server's bounds
		// (zooCfg) grant it.
		props = append(props, [2]string{"zookeeper.session.timeout", strconv.FormatInt(ms, 10)})
	} else if ms > 0 {
		// Standalone HBase takes its sessions' timeout from this key
		// (default 10s, whatever zookeeper.session.timeout says). Its
		// ZooKeeper server grants at most 20 ticks of 2s: lengthen the
		// tick for longer sessions.
		props = append(props,
			[2]string{"zookeeper.session.timeout.localHBaseCluster", strconv.FormatInt(ms, 10)},
			[2]string{"zookeeper.session.timeout", strconv.FormatInt(ms, 10)})
		if ms > 40000 {
			props = append(props, [2]string{"hbase.zookeeper.property.tickTime", strconv.FormatInt((ms+19)/20, 10)})
		}
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!-- written by tools/hbase; changes are overwritten on every start -->\n<configuration>\n")
	for _, p := range props {
		fmt.Fprintf(&b, "  <property><name>%s</name><value>%s</value></property>\n", p[0], xmlEscape(p[1]))
	}
	b.WriteString("</configuration>\n")
	return b.String()
}

// phoenixSite is what Apache Phoenix 5.2 asks of every region server's
// hbase-site.xml (and the master's: here they share one JVM). Its clients
// must agree on phoenix.schema.isNamespaceMappingEnabled.
var phoenixSite = [][2]string{
	// WAL entries that carry the index updates of mutable global indexes
	// through WAL replay; Phoenix refuses CREATE INDEX on a mutable table
	// without it (ERROR 1029).
	{"hbase.regionserver.wal.codec", "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec"},
	// Separate handler queues for index and metadata RPCs, so that index
	// writes between region servers cannot deadlock behind data writes.
	{"hbase.region.server.rpc.scheduler.factory.class", "org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory"},
	{"hbase.rpc.controllerfactory.class", "org.apache.hadoop.hbase.ipc.controller.ServerRpcControllerFactory"},
	// Phoenix tables in HBase's default namespace (SYSTEM.CATALOG, not
	// SYSTEM:CATALOG); Phoenix's default, stated so clients can match it.
	{"phoenix.schema.isNamespaceMappingEnabled", "false"},
}

// log4j is the logging configuration of every JVM: one file each, at the
// path in the system property hbkit.log.file (startJVM sets it), so that
// a distributed instance's JVMs do not write into one another's log.
func (c *config) log4j() string {
	return "status = warn\n" +
		"appender.file.type = File\n" +
		"appender.file.name = FILE\n" +
		"appender.file.fileName = ${sys:hbkit.log.file}\n" +
		"appender.file.layout.type = PatternLayout\n" +
		"appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n\n" +
		"rootLogger.level = INFO\n" +
		"rootLogger.appenderRef.file.ref = FILE\n" +
		"logger.zk.name = org.apache.zookeeper\n" +
		"logger.zk.level = ERROR\n" +
		"logger.hadoop.name = org.apache.hadoop.hbase.shaded\n" +
		"logger.hadoop.level = WARN\n"
}

func xmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

// jdk17Flags are the module flags HBase's own bin/hbase adds on JDK 11+.
var jdk17Flags = []string{
	"-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
	"--add-modules", "jdk.unsupported",
	"--add-opens", "java.base/java.io=ALL-UNNAMED",
	"--add-opens", "java.base/java.nio=ALL-UNNAMED",
	"--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang=ALL-UNNAMED",
	"--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens", "java.base/java.util=ALL-UNNAMED",
	"--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
	"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
	"--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
	"--add-exports", "java.base/sun.net.dns=ALL-UNNAMED",
	"--add-exports", "java.base/sun.net.util=ALL-UNNAMED",
}
