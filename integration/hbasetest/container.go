package hbasetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// LabelHarness marks the containers this package starts, so leftovers (a test
// binary killed before it could stop them, with the Ryuk reaper disabled) can
// be found: podman ps -a --filter label=org.hbkit.harness.
const LabelHarness = "org.hbkit.harness"

// engineReachable reports nil when testcontainers-go finds a container
// engine (DOCKER_HOST, its configuration, or a default socket) and it answers.
func engineReachable(ctx context.Context) (err error) {
	defer func() {
		// Engine discovery has panicked in some releases when nothing is found.
		if r := recover(); r != nil {
			err = fmt.Errorf("no container engine: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("no container engine: %w", err)
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("the container engine does not answer: %w", err)
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

// startContainer runs HBase in a container on host networking. The servers
// bind and advertise 127.0.0.1 on the chosen ports, so the addresses in
// ZooKeeper and hbase:meta are the ones the Go client dials.
func startContainer(ctx context.Context, o *options) (*HBase, error) {
	image, err := imageFor(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := o.fillPorts(); err != nil {
		return nil, err
	}
	for _, p := range []int{o.zkPort, o.masterPort, o.rsPort} {
		if err := portFree(p); err != nil {
			return nil, err
		}
	}
	o.logf("starting %s (ZooKeeper %d, master %d, region server %d)", image, o.zkPort, o.masterPort, o.rsPort)
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithEnv(map[string]string{
			"HBASE_ZK_PORT":        strconv.Itoa(o.zkPort),
			"HBASE_MASTER_PORT":    strconv.Itoa(o.masterPort),
			"HBASE_RS_PORT":        strconv.Itoa(o.rsPort),
			"HBASE_ADVERTISE_HOST": "127.0.0.1",
			"HBASE_HEAP":           o.heap,
		}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.NetworkMode = "host"
		}),
		testcontainers.WithLabels(map[string]string{LabelHarness: "hbasetest"}),
		testcontainers.WithWaitStrategyAndDeadline(o.timeout,
			wait.ForLog(ReadyLine).WithPollInterval(500*time.Millisecond)),
	)
	logs := func(ctx context.Context) string {
		if ctr == nil {
			return ""
		}
		return containerLogs(ctx, ctr)
	}
	stop := func(ctx context.Context) error {
		if ctr == nil {
			return nil
		}
		// HBase's own shutdown takes 20 s or more; the data is throwaway.
		if err := ctr.Terminate(ctx, testcontainers.StopTimeout(5*time.Second)); err != nil {
			return fmt.Errorf("hbasetest: terminate the HBase container: %w", err)
		}
		return nil
	}
	fail := func(err error) (*HBase, error) {
		tail := logs(context.WithoutCancel(ctx))
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("hbasetest: HBase container from %s: %w\n%s", image, err, lastLines(tail, 40))
	}
	if err != nil {
		return fail(err)
	}
	zkAddr := "127.0.0.1:" + strconv.Itoa(o.zkPort)
	readyCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	alive := func(ctx context.Context) error {
		st, err := ctr.State(ctx)
		if err != nil {
			return err
		}
		if !st.Running {
			return fmt.Errorf("the container exited (status %d)", st.ExitCode)
		}
		return nil
	}
	if err := waitReady(readyCtx, zkAddr, alive); err != nil {
		return fail(err)
	}
	return &HBase{Mode: ModeContainer, ZK: zkAddr, Image: image, stop: stop, logs: logs}, nil
}

func containerLogs(ctx context.Context, ctr *testcontainers.DockerContainer) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("(no container logs: %v)", err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}
