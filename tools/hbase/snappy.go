package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// snappyCheck runs HBase's own CompressionTest with the snappy codec that
// the server is configured with: it writes and reads back an HFile through
// the codec, so it proves the codec loads and works in this JVM setup.
func snappyCheck(c *config) error {
	java, err := javaBinary()
	if err != nil {
		return err
	}
	cp, err := classpath(c)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "hbkit-snappy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	site := "<?xml version=\"1.0\"?>\n<configuration>\n" +
		"  <property><name>hbase.io.compress.snappy.codec</name>" +
		"<value>org.apache.hadoop.hbase.io.compress.xerial.SnappyCodec</value></property>\n</configuration>\n"
	if err := os.WriteFile(filepath.Join(dir, "hbase-site.xml"), []byte(site), 0o644); err != nil {
		return err
	}
	args := append([]string{"-Dlog4j2.level=ERROR"}, jdk17Flags...)
	args = append(args, "-cp", dir+string(os.PathListSeparator)+cp,
		"org.apache.hadoop.hbase.util.CompressionTest", "file://"+filepath.Join(dir, "probe.hfile"), "snappy")
	out, err := exec.Command(java, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		return fmt.Errorf("snappy codec check failed (%v):\n%s", err, lastLines(string(out), 20))
	}
	fmt.Println("hbase: snappy codec (org.apache.hadoop.hbase.io.compress.xerial.SnappyCodec) loads: CompressionTest SUCCESS")
	return nil
}
