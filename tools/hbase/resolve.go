package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// javaBinary finds a Java 17+ runtime: $JAVA_HOME/bin/java, then java on PATH.
func javaBinary() (string, error) {
	cand := ""
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			cand = p
		}
	}
	if cand == "" {
		p, err := exec.LookPath("java")
		if err != nil {
			return "", errors.New("no Java installed (no java on PATH and no JAVA_HOME): " +
				"HBase 2.6 needs Java 17; on Debian: apt-get install -y openjdk-17-jre-headless")
		}
		cand = p
	}
	out, err := exec.Command(cand, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -version failed: %v: %s", cand, err, bytes.TrimSpace(out))
	}
	major, err := javaMajor(string(out))
	if err != nil {
		return "", fmt.Errorf("%s: %w", cand, err)
	}
	if major < 17 {
		return "", fmt.Errorf("%s is Java %d; HBase 2.6 here needs Java 17 or newer "+
			"(set JAVA_HOME, or apt-get install -y openjdk-17-jre-headless)", cand, major)
	}
	return cand, nil
}

var javaVersionRE = regexp.MustCompile(`version "(\d+)(?:\.(\d+))?`)

// javaMajor reads the major version from `java -version` output
// ("1.8.0_392" is 8, "17.0.15" is 17).
func javaMajor(out string) (int, error) {
	m := javaVersionRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("cannot read a Java version from %q", strings.TrimSpace(out))
	}
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return major, nil
}

// pomFile is the pom whose runtime classpath the server runs on: pom.xml,
// or with Phoenix phoenix/pom.xml, which inherits it.
func (c *config) pomFile() string {
	if c.phoenix {
		return filepath.Join(c.toolDir, "phoenix", "pom.xml")
	}
	return filepath.Join(c.toolDir, "pom.xml")
}

// classpath returns HBase's runtime classpath (with Phoenix's server jars
// when c.phoenix), resolving it with Maven on first use. The result is
// cached per pom content, and re-resolved when a jar it names has gone (an
// emptied ~/.m2).
func classpath(c *config) (string, error) {
	pom, err := os.ReadFile(filepath.Join(c.toolDir, "pom.xml"))
	if err != nil {
		return "", err
	}
	key := append(pom, c.m2...)
	what := "HBase " + hbaseVersion
	if c.phoenix {
		child, err := os.ReadFile(c.pomFile())
		if err != nil {
			return "", err
		}
		key = append(append(key, 0), child...)
		what += " with Phoenix " + phoenixVersion
	}
	sum := sha256.Sum256(key)
	cacheFile := filepath.Join(c.cache, "classpath-"+hex.EncodeToString(sum[:8])+".txt")
	if b, err := os.ReadFile(cacheFile); err == nil {
		cp := strings.TrimSpace(string(b))
		if cp != "" && jarsPresent(cp) {
			return cp, nil
		}
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", errors.New("no Maven (mvn) installed; it fetches HBase from Maven Central: " +
			"on Debian: apt-get install -y maven")
	}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return "", err
	}
	tmp := cacheFile + ".tmp"
	args := []string{"-B", "-q", "-f", c.pomFile(),
		"dependency:build-classpath", "-Dmdep.outputFile=" + tmp, "-Dmdep.includeScope=runtime"}
	if c.m2 != "" {
		args = append(args, "-Dmaven.repo.local="+c.m2)
	}
	fmt.Fprintf(os.Stderr, "hbase: resolving %s from Maven Central (first run only)...\n", what)
	cmd := exec.Command(mvn, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("cannot resolve %s from Maven Central (is it reachable from here?): mvn %v\n%s",
			what, err, lastLines(out.String(), 15))
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		return "", fmt.Errorf("maven wrote no classpath: %w", err)
	}
	cp := strings.TrimSpace(string(b))
	if !strings.Contains(cp, "hbase-server-"+hbaseVersion) {
		return "", fmt.Errorf("resolved classpath lacks hbase-server-%s", hbaseVersion)
	}
	if c.phoenix && !strings.Contains(cp, "phoenix-core-server-"+phoenixVersion) {
		return "", fmt.Errorf("resolved classpath lacks phoenix-core-server-%s", phoenixVersion)
	}
	if err := os.Rename(tmp, cacheFile); err != nil {
		return "", err
	}
	return cp, nil
}

func jarsPresent(cp string) bool {
	for _, p := range filepath.SplitList(cp) {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
