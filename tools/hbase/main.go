// Command hbase runs a real, standalone Apache HBase 2.6 on 127.0.0.1 for
// hbkit's tests, examples and demo.
//
// HBase is resolved from Maven Central (pom.xml beside this file) into the
// local Maven repository, and runs as one JVM: ZooKeeper, the master and one
// or more region servers. Everything it binds listens on the loopback
// interface only, and the web UIs are off.
//
// Usage:
//
//	go run ./tools/hbase up [-rs N] [-fresh] [-phoenix] [-zk-session-timeout D] [-masters N]
//	                                           start and wait until ready (no-op when up)
//	go run ./tools/hbase down                  stop what this tool started (no-op when down)
//	go run ./tools/hbase status                report; exit 0 only when up and ready
//	go run ./tools/hbase logs [-n N] [-f]      show the server log
//	go run ./tools/hbase reset                 stop, then delete the state directory
//	go run ./tools/hbase zk                    print HBKIT_ZK for the running instance
//	go run ./tools/hbase masters               a distributed instance's masters: active, backup or gone
//	go run ./tools/hbase kill-master           SIGKILL the active master's JVM (distributed instance)
//	go run ./tools/hbase classpath             resolve and print the Java classpath
//	go run ./tools/hbase snappy-check          check that the Snappy codec loads
//
// With -masters N (N >= 2) the instance is distributed instead: a
// ZooKeeper server, N masters and the region servers each run in a JVM of
// their own (cluster.go), so that a backup master can take over from a
// killed active one (make test-backup-master).
//
// The Makefile wraps these as make hbase-up, hbase-down, hbase-status,
// hbase-logs and hbase-reset. Settings come from the environment:
//
//	HBKIT_CACHE        cache root (default $XDG_CACHE_HOME/hbkit or ~/.cache/hbkit)
//	HBKIT_STATE        state directory (default $HBKIT_CACHE/state)
//	HBKIT_ZK_PORT      ZooKeeper client port (default 2181)
//	HBKIT_MASTER_PORT  master RPC port (default 16000)
//	HBKIT_RS_PORT      region server RPC port (default 16020; with RS > 1 the
//	                   region servers take ephemeral loopback ports)
//	RS                 number of region servers in the JVM (default 1)
//	HBKIT_HBASE_HEAP   JVM heap (default 2g)
//	HBKIT_HBASE_TIMEOUT seconds to wait for readiness (default 180)
//	HBKIT_M2           local Maven repository (default Maven's ~/.m2/repository)
//	HBKIT_PHOENIX      1: as up -phoenix, Apache Phoenix's server jars on the
//	                   classpath (phoenix/pom.xml) and its settings in
//	                   hbase-site.xml (default 0: plain HBase)
//	HBKIT_ZK_SESSION_TIMEOUT seconds, as up -zk-session-timeout: the ZooKeeper
//	                   session timeout of the master and region servers
//	                   (default: HBase's standalone 10s). A JVM stopped for
//	                   longer aborts when it resumes (fault tests).
//	HBKIT_HBASE_KEYTAB, HBKIT_HBASE_PRINCIPAL, HBKIT_KRB5_CONF
//	                   a Kerberized HBase: the master's and region servers'
//	                   keytab and principal, and the krb5.conf of their realm
//	                   (tools/secure-hbase.sh sets them; docs/security.md)
//	HBKIT_RPC_PROTECTION hbase.rpc.protection of a Kerberized HBase:
//	                   authentication (default), integrity or privacy
//	HBKIT_ZK_JAAS      a JAAS file: the embedded ZooKeeper authenticates
//	                   HBase with SASL, and HBase puts ACLs on its znodes
//	HBKIT_TLS_KEYSTORE, HBKIT_TLS_TRUSTSTORE
//	                   HBase 2.6's native RPC TLS on every RPC port, plain
//	                   clients refused: PEM files with the servers' key and
//	                   certificate chain, and the CA certificates they trust
//	                   (tools/secure-hbase.sh with HBKIT_SECURE_TLS=1)
//
// The tool only ever signals the process it started: the pid file must name
// a live process whose command line carries this state directory's marker.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	cfg, err := loadConfig()
	if err != nil {
		fail(err)
	}
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	switch cmd {
	case "up":
		rs := fs.Int("rs", cfg.regionServers, "region servers to start in the JVM")
		fresh := fs.Bool("fresh", false, "delete the state directory before starting")
		phoenix := fs.Bool("phoenix", cfg.phoenix, "load Apache Phoenix "+phoenixVersion+" into the region server (HBKIT_PHOENIX=1)")
		zkSession := fs.Duration("zk-session-timeout", cfg.zkSession, "ZooKeeper session timeout of the master and region servers (0: HBase's 10s; HBKIT_ZK_SESSION_TIMEOUT)")
		nMasters := fs.Int("masters", 1, "masters; 2 or more: a distributed instance, every server in a JVM of its own, the first master active and the others backups")
		_ = fs.Parse(args)
		cfg.phoenix = *phoenix
		cfg.zkSession = *zkSession
		if err := cfg.checkZKSession(); err != nil {
			fail(err)
		}
		rsExplicit := os.Getenv("RS") != ""
		fs.Visit(func(f *flag.Flag) { rsExplicit = rsExplicit || f.Name == "rs" })
		cfg.regionServers = *rs
		if *nMasters > 1 {
			cfg.masters = *nMasters
			err = upCluster(cfg, *fresh)
			break
		}
		err = up(cfg, *fresh, rsExplicit)
	case "down":
		_ = fs.Parse(args)
		err = down(cfg)
	case "status":
		_ = fs.Parse(args)
		err = status(cfg)
	case "logs":
		n := fs.Int("n", 100, "lines to show")
		follow := fs.Bool("f", false, "follow the log")
		_ = fs.Parse(args)
		err = logs(cfg, *n, *follow)
	case "reset":
		_ = fs.Parse(args)
		err = reset(cfg)
	case "classpath":
		_ = fs.Parse(args)
		var cp string
		cp, err = classpath(cfg)
		if err == nil {
			fmt.Println(cp)
		}
	case "zk":
		// The ZooKeeper address of the running instance, for HBKIT_ZK.
		_ = fs.Parse(args)
		if _, ok := runningPid(cfg); !ok {
			err = &exitError{3, errors.New("not running")}
			break
		}
		adoptRunning(cfg)
		fmt.Println(cfg.zkAddr())
	case "masters":
		_ = fs.Parse(args)
		err = masters(cfg)
	case "kill-master":
		_ = fs.Parse(args)
		err = killMaster(cfg)
	case "snappy-check":
		_ = fs.Parse(args)
		err = snappyCheck(cfg)
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run ./tools/hbase up|down|status|logs|reset|zk|masters|kill-master|classpath|snappy-check [flags]")
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hbase:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}
