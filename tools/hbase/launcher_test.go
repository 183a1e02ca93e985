package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testConfig is a config rooted in a temporary directory, on ports nobody
// uses, so these tests never meet a developer's running HBase.
func testConfig(t *testing.T) *config {
	t.Helper()
	dir := t.TempDir()
	toolDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return &config{
		toolDir:       toolDir,
		cache:         filepath.Join(dir, "cache"),
		state:         filepath.Join(dir, "state"),
		zkPort:        freePort(t),
		masterPort:    freePort(t),
		rsPort:        freePort(t),
		regionServers: 1,
		heap:          "512m",
		timeout:       30 * time.Second,
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestJavaMajor(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      int
	}{
		{"openjdk17", `openjdk version "17.0.15" 2025-04-15`, 17},
		{"java8", `java version "1.8.0_392"`, 8},
		{"java21", `openjdk version "21" 2023-09-19`, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := javaMajor(tc.out)
			if err != nil || got != tc.want {
				t.Fatalf("javaMajor(%q) = %d, %v; want %d", tc.out, got, err, tc.want)
			}
		})
	}
	if _, err := javaMajor("bash: java: command not found"); err == nil {
		t.Fatal("javaMajor accepted output with no version")
	}
}

func TestJavaMissing(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	_, err := javaBinary()
	if err == nil || !strings.Contains(err.Error(), "no Java installed") {
		t.Fatalf("javaBinary() error = %v; want one naming the missing Java", err)
	}
}

func TestPortTaken(t *testing.T) {
	c := testConfig(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c.masterPort = l.Addr().(*net.TCPAddr).Port
	err = checkPorts(c)
	if err == nil {
		t.Fatal("checkPorts passed with the master port taken")
	}
	for _, want := range []string{strconv.Itoa(c.masterPort), "master RPC", "already in use", "HBKIT_MASTER_PORT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The listener we hold is untouched.
	if _, err := net.Dial("tcp", l.Addr().String()); err != nil {
		t.Fatalf("our listener stopped answering: %v", err)
	}
}

func TestStateDirectory(t *testing.T) {
	t.Run("new", func(t *testing.T) {
		c := testConfig(t)
		if err := prepareState(c); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(c.marker()); err != nil || string(b) != markerText {
			t.Fatalf("marker = %q, %v", b, err)
		}
		// A second run accepts its own directory.
		if err := prepareState(c); err != nil {
			t.Fatalf("second prepareState: %v", err)
		}
	})
	t.Run("foreign", func(t *testing.T) {
		c := testConfig(t)
		mustWrite(t, filepath.Join(c.state, "precious.txt"), "not ours")
		err := prepareState(c)
		if err == nil || !strings.Contains(err.Error(), "not created by this tool") {
			t.Fatalf("prepareState on a foreign directory: %v", err)
		}
		if err := removeState(c); err == nil {
			t.Fatal("removeState deleted a directory it did not create")
		}
		if _, err := os.Stat(filepath.Join(c.state, "precious.txt")); err != nil {
			t.Fatalf("foreign file gone: %v", err)
		}
	})
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"version", "root/hbase.version", "garbage", "hbase.version"},
		{"id", "root/hbase.id", "\x00\x01", "hbase.id"},
		{"zk", "zk", "a file where a directory belongs", "zk is not a directory"},
	} {
		t.Run("corrupt_"+tc.name, func(t *testing.T) {
			c := testConfig(t)
			if err := prepareState(c); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(c.state, tc.file), tc.content)
			err := prepareState(c)
			if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "hbase-reset") {
				t.Fatalf("prepareState = %v; want a corrupt-state error naming %q and the fix", err, tc.want)
			}
		})
	}
}

// TestNeverSignalsForeignProcess: a pid file naming a process this tool did
// not start (pid reuse, a hand-edited file) must not lead to a signal.
func TestNeverSignalsForeignProcess(t *testing.T) {
	c := testConfig(t)
	if err := prepareState(c); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	mustWrite(t, c.pidFile(), strconv.Itoa(other.Process.Pid))
	if _, ok := runningPid(c); ok {
		t.Fatal("runningPid claimed a foreign process")
	}
	if err := down(c); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- other.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the foreign process ended after down: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
}

// startLookalike starts a process that this tool takes for its own HBase
// (its command line carries the state marker) and that ends on SIGTERM.
func startLookalike(t *testing.T, c *config) *exec.Cmd {
	t.Helper()
	if err := prepareState(c); err != nil {
		t.Fatal(err)
	}
	p := exec.Command("bash", "-c", `trap "exit 0" TERM; sleep 30 & wait`, c.cmdMarker())
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Process.Kill(); _, _ = p.Process.Wait() })
	mustWrite(t, c.pidFile(), strconv.Itoa(p.Process.Pid))
	// Until the child has exec'd bash, /proc shows the test binary's
	// command line.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := runningPid(c); ok {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatal("runningPid does not recognise the look-alike after 10s")
		}
	}
}

// TestDownFallsBackToSIGTERM: with no master to take the Shutdown request,
// or no record of which port this pid's master has, down sends SIGTERM at
// once, and never sends the request to a port recorded for another pid.
func TestDownFallsBackToSIGTERM(t *testing.T) {
	tests := []struct {
		name string
		info func(c *config, pid int) string
	}{
		{"no master listening", func(c *config, pid int) string {
			return fmt.Sprintf("pid=%d\nmaster_port=%d\n", pid, c.masterPort)
		}},
		{"info of another pid", func(c *config, pid int) string {
			return fmt.Sprintf("pid=%d\nmaster_port=%d\n", pid+1, c.masterPort)
		}},
		{"no info file", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConfig(t)
			// A listener on the recorded port that must never be dialled
			// when the info names another pid.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			accepted := make(chan struct{}, 1)
			if tt.name == "info of another pid" {
				c.masterPort = l.Addr().(*net.TCPAddr).Port
				go func() {
					if conn, err := l.Accept(); err == nil {
						accepted <- struct{}{}
						conn.Close()
					}
				}()
			}
			p := startLookalike(t, c)
			if tt.info != nil {
				mustWrite(t, c.infoFile(), tt.info(c, p.Process.Pid))
			}
			start := time.Now()
			if err := down(c); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("down took %s; want SIGTERM at once", d)
			}
			if isOurs(c, p.Process.Pid) {
				t.Error("the look-alike still runs after down")
			}
			if _, err := os.Stat(c.pidFile()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("pid file left behind: %v", err)
			}
			select {
			case <-accepted:
				t.Error("down dialled the master port recorded for another pid")
			default:
			}
		})
	}
}

func TestMavenUnreachable(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("mvn not installed")
	}
	if testing.Short() {
		t.Skip("starts Maven")
	}
	c := testConfig(t)
	c.m2 = filepath.Join(t.TempDir(), "empty-m2")
	// A proxy on a closed port makes Maven Central unreachable.
	dead := freePort(t)
	t.Setenv("MAVEN_OPTS", "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort="+strconv.Itoa(dead)+
		" -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort="+strconv.Itoa(dead))
	_, err := classpath(c)
	if err == nil || !strings.Contains(err.Error(), "cannot resolve HBase") || !strings.Contains(err.Error(), "Maven Central") {
		t.Fatalf("classpath() with Maven Central unreachable = %v", err)
	}
}

func TestSiteXML(t *testing.T) {
	c := testConfig(t)
	x := c.siteXML()
	for _, want := range []string{
		"<name>hbase.cluster.distributed</name><value>false</value>",
		"<name>hbase.zookeeper.property.clientPort</name><value>" + strconv.Itoa(c.zkPort) + "</value>",
		"<name>hbase.master.info.port</name><value>-1</value>",
		"<name>hbase.regionserver.info.port</name><value>-1</value>",
		"<name>hbase.master.hostname</name><value>127.0.0.1</value>",
		"<name>hbase.regionserver.port</name><value>" + strconv.Itoa(c.rsPort) + "</value>",
	} {
		if !strings.Contains(x, want) {
			t.Errorf("hbase-site.xml lacks %s", want)
		}
	}
	c.regionServers = 3
	if !strings.Contains(c.siteXML(), "<name>hbase.regionserver.port</name><value>0</value>") {
		t.Error("with 3 region servers the region server port must be ephemeral")
	}
}

func TestExitCodes(t *testing.T) {
	err := error(&exitError{3, errors.New("not running")})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 3 {
		t.Fatalf("exitError lost its code: %v", err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSiteXMLPhoenix: Phoenix's settings are written only with Phoenix on;
// the default configuration stays plain HBase.
func TestSiteXMLPhoenix(t *testing.T) {
	c := testConfig(t)
	plain := c.siteXML()
	c.phoenix = true
	x := c.siteXML()
	for _, p := range phoenixSite {
		want := "<name>" + p[0] + "</name><value>" + p[1] + "</value>"
		if !strings.Contains(x, want) {
			t.Errorf("hbase-site.xml with Phoenix lacks %s", want)
		}
		if strings.Contains(plain, "<name>"+p[0]+"</name>") {
			t.Errorf("hbase-site.xml without Phoenix sets %s", p[0])
		}
	}
	if !strings.Contains(x, "<name>hbase.regionserver.wal.codec</name><value>org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec</value>") {
		t.Error("hbase-site.xml with Phoenix lacks the indexed WAL codec")
	}
	if !strings.HasPrefix(x, plain[:strings.Index(plain, "</configuration>")]) {
		t.Error("Phoenix's settings change the plain ones")
	}
}

// TestPhoenixPom holds phoenix/pom.xml to this tool: it inherits pom.xml
// (the same HBase), names phoenixVersion, and brings the server jars and
// the HBase 2.6 adapter.
func TestPhoenixPom(t *testing.T) {
	c := testConfig(t)
	if got, want := c.pomFile(), filepath.Join(c.toolDir, "pom.xml"); got != want {
		t.Fatalf("pomFile() = %s, want %s", got, want)
	}
	c.phoenix = true
	b, err := os.ReadFile(c.pomFile())
	if err != nil {
		t.Fatal(err)
	}
	pom := string(b)
	for _, want := range []string{
		"<artifactId>hbkit-local-hbase</artifactId>",
		"<relativePath>../pom.xml</relativePath>",
		"<phoenix.version>" + phoenixVersion + "</phoenix.version>",
		"<artifactId>phoenix-core-server</artifactId>",
		"<artifactId>phoenix-hbase-compat-2.6.0</artifactId>",
	} {
		if !strings.Contains(pom, want) {
			t.Errorf("phoenix/pom.xml lacks %s", want)
		}
	}
}

func TestPhoenixEnv(t *testing.T) {
	for _, tc := range []struct {
		v       string
		want    bool
		wantErr bool
	}{{"", false, false}, {"0", false, false}, {"1", true, false}, {"true", true, false}, {"yes", false, true}} {
		t.Run("HBKIT_PHOENIX="+tc.v, func(t *testing.T) {
			t.Setenv("HBKIT_PHOENIX", tc.v)
			t.Setenv("HBKIT_CACHE", t.TempDir())
			c, err := loadConfig()
			if (err != nil) != tc.wantErr {
				t.Fatalf("loadConfig: %v", err)
			}
			if err == nil && c.phoenix != tc.want {
				t.Fatalf("phoenix = %v, want %v", c.phoenix, tc.want)
			}
		})
	}
}

// TestUpWantsPhoenixRunning: up -phoenix on a state directory whose HBase
// runs without Phoenix fails and leaves that HBase alone; the launch info
// records Phoenix for status and zk.
func TestUpWantsPhoenixRunning(t *testing.T) {
	c := testConfig(t)
	p := startLookalike(t, c)
	if err := writeInfo(c, p.Process.Pid); err != nil {
		t.Fatal(err)
	}
	c.phoenix = true
	err := up(c, false, false)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "without Phoenix") {
		t.Fatalf("up -phoenix on a plain HBase: %v; want exit 2 naming Phoenix", err)
	}
	if !isOurs(c, p.Process.Pid) {
		t.Fatal("the running HBase was stopped")
	}
	c.phoenix = true
	if err := writeInfo(c, p.Process.Pid); err != nil {
		t.Fatal(err)
	}
	c.phoenix = false
	adoptRunning(c)
	if !c.phoenix {
		t.Fatal("the launch info of an HBase with Phoenix does not say so")
	}
}
