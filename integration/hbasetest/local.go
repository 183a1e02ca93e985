package hbasetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const module = "github.com/hbkit/hbkit"

// repoRoot returns the hbkit repository root: o.repo, or the directory
// above the working directory whose go.mod declares the hbkit module.
func (o *options) repoRoot() (string, error) {
	if o.repo != "" {
		return o.repo, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isHbkitModule(b) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the hbkit repository (no go.mod of " + module + " above the working directory)")
		}
		dir = parent
	}
}

func isHbkitModule(gomod []byte) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1] == module
		}
	}
	return false
}

// localUsable reports nil when the local launcher can run here: the hbkit
// repository (tools/hbase) and a java binary.
func localUsable(o *options) error {
	root, err := o.repoRoot()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "tools", "hbase", "pom.xml")); err != nil {
		return fmt.Errorf("no local launcher: %w", err)
	}
	if _, err := exec.LookPath("java"); err != nil && os.Getenv("JAVA_HOME") == "" {
		return errors.New("no Java for the local launcher")
	}
	return nil
}

// startLocal uses the HBase the local launcher runs (its default state
// directory, or HBKIT_STATE), or starts a throwaway one on free ports in a
// temporary state directory and stops it again in Stop.
func startLocal(ctx context.Context, o *options) (*HBase, error) {
	root, err := o.repoRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "hbasetest-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	launcher := filepath.Join(tmp, "hbase-local")
	build := exec.CommandContext(ctx, "go", "build", "-o", launcher, "./tools/hbase")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return nil, fmt.Errorf("hbasetest: build the local launcher: %w\n%s", err, out)
	}
	run := func(ctx context.Context, env []string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, launcher, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	// An HBase the launcher already runs is used, and left running.
	if zk, err := run(ctx, nil, "zk"); err == nil {
		if _, err := run(ctx, nil, "status"); err == nil {
			cleanup()
			zk = strings.TrimSpace(zk)
			o.logf("using the local HBase that is already up")
			return &HBase{Mode: ModeLocal, ZK: zk}, nil
		}
	}
	if err := o.fillPorts(); err != nil {
		cleanup()
		return nil, err
	}
	env := []string{
		"HBKIT_STATE=" + filepath.Join(tmp, "state"),
		"HBKIT_ZK_PORT=" + strconv.Itoa(o.zkPort),
		"HBKIT_MASTER_PORT=" + strconv.Itoa(o.masterPort),
		"HBKIT_RS_PORT=" + strconv.Itoa(o.rsPort),
		"HBKIT_HBASE_HEAP=" + o.heap,
		"HBKIT_HBASE_TIMEOUT=" + strconv.Itoa(int(o.timeout.Seconds())),
		"RS=1",
	}
	o.logf("starting a throwaway local HBase (ZooKeeper %d, master %d, region server %d)", o.zkPort, o.masterPort, o.rsPort)
	stop := func(ctx context.Context) error {
		defer cleanup()
		if out, err := run(ctx, env, "down"); err != nil {
			return fmt.Errorf("hbasetest: stop the local HBase: %w\n%s", err, out)
		}
		return nil
	}
	logs := func(ctx context.Context) string {
		out, _ := run(ctx, env, "logs", "-n", "100")
		return out
	}
	if out, err := run(ctx, env, "up", "-fresh"); err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("hbasetest: start a local HBase: %w\n%s", err, lastLines(out, 40))
	}
	zk := "127.0.0.1:" + strconv.Itoa(o.zkPort)
	if err := probe(ctx, zk, o.timeout); err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("hbasetest: the local HBase: %w", err)
	}
	return &HBase{Mode: ModeLocal, ZK: zk, stop: stop, logs: logs}, nil
}
