package hbasetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LabelHarness marks the containers the container mode starts (package
// hbasecontainer's label), so leftovers can be found:
// podman ps -a --filter label=org.hbkit.hbasecontainer.
const LabelHarness = "org.hbkit.hbasecontainer"

// engineAddr returns the network and address of the container engine's
// API: DOCKER_HOST (unix://PATH or tcp://HOST:PORT), or the default
// /var/run/docker.sock.
func engineAddr() (network, addr string, err error) {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		return "unix", "/var/run/docker.sock", nil
	}
	if path, ok := strings.CutPrefix(host, "unix://"); ok {
		return "unix", path, nil
	}
	if hp, ok := strings.CutPrefix(host, "tcp://"); ok {
		return "tcp", hp, nil
	}
	return "", "", fmt.Errorf("DOCKER_HOST=%s: want unix:// or tcp://", host)
}

// engineReachable reports nil when the Docker API (Docker, or podman's
// service) answers _ping. (TLS engines are not probed: force the mode with
// HBKIT_HBASE=container.)
func engineReachable(ctx context.Context) error {
	network, addr, err := engineAddr()
	if err != nil {
		return fmt.Errorf("no container engine: %w", err)
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://engine/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("no container engine at %s: %w", addr, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the container engine at %s answers %s", addr, resp.Status)
	}
	return nil
}

// imageFor returns o.image, or builds the image with tools/image/build.sh
// (a no-op apart from hashing its inputs when the image is current).
func imageFor(ctx context.Context, o *options) (string, error) {
	if o.image != "" {
		return o.image, nil
	}
	root, err := o.repoRoot()
	if err != nil {
		return "", fmt.Errorf("hbasetest: no image (set %s, or run from the hbkit repository): %w", EnvImage, err)
	}
	o.logf("building the HBase image (tools/image/build.sh; cached)")
	cmd := exec.CommandContext(ctx, "tools/image/build.sh")
	cmd.Dir = root
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, o.log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hbasetest: tools/image/build.sh: %w", err)
	}
	tag := strings.TrimSpace(lastLines(stdout.String(), 1))
	if tag == "" {
		return "", errors.New("hbasetest: tools/image/build.sh printed no image tag")
	}
	return tag, nil
}

// startContainer runs HBase in a container through the command of the
// hbasecontainer module (hbasecontainer/cmd/hbase-container, a module of
// its own, so testcontainers-go stays out of this one): published ports,
// the same numbers inside, advertised as 127.0.0.1.
func startContainer(ctx context.Context, o *options) (*HBase, error) {
	image, err := imageFor(ctx, o)
	if err != nil {
		return nil, err
	}
	root, err := o.repoRoot()
	if err != nil {
		return nil, err
	}
	if err := o.fillPorts(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "hbasetest-ctr-")
	if err != nil {
		return nil, err
	}
	bin, envFile := filepath.Join(tmp, "hbase-container"), filepath.Join(tmp, "hbase.env")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hbase-container")
	build.Dir = filepath.Join(root, "hbasecontainer")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("hbasetest: build hbasecontainer/cmd/hbase-container: %w\n%s", err, out)
	}
	o.logf("starting %s (ZooKeeper %d, master %d, region server %d)", image, o.zkPort, o.masterPort, o.rsPort)
	var out lockedBuffer
	cmd := exec.Command(bin, "-image", image, "-env", envFile)
	cmd.Env = append(os.Environ(), "HBKIT_ZK_PORT="+strconv.Itoa(o.zkPort),
		"HBKIT_MASTER_PORT="+strconv.Itoa(o.masterPort), "HBKIT_RS_PORT="+strconv.Itoa(o.rsPort))
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func(ctx context.Context) error {
		defer os.RemoveAll(tmp)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("hbasetest: hbase-container: %w\n%s", err, lastLines(out.String(), 20))
			}
			return nil
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return ctx.Err()
		}
	}
	zk, err := waitEnvFile(ctx, envFile, exited, o.timeout+time.Minute)
	if err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("hbasetest: HBase container from %s: %w\n%s", image, err, lastLines(out.String(), 40))
	}
	readyCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := waitReady(readyCtx, zk, nil); err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("hbasetest: HBase container from %s: %w", image, err)
	}
	return &HBase{Mode: ModeContainer, ZK: zk, Image: image, stop: stop,
		logs: func(context.Context) string { return out.String() }}, nil
}

// waitEnvFile waits for the HBKIT_ZK=… line hbase-container writes once
// HBase is ready, the command's exit, or d.
func waitEnvFile(ctx context.Context, path string, exited <-chan error, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			sc.Scan()
			f.Close()
			if zk, ok := strings.CutPrefix(sc.Text(), EnvZK+"="); ok {
				return zk, nil
			}
		}
		select {
		case err := <-exited:
			return "", fmt.Errorf("hbase-container exited: %v", err)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// lockedBuffer is the command's output, written by exec's copier and read
// by Logs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
