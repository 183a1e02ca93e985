//go:build integration

package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/cli/clitest"
	"github.com/hbkit/hbkit/seeds/seedcli"
)

// hbkit's commands over gohbase, against a real HBase (make test-gohbase;
// HBKIT_ZK, default 127.0.0.1:2181): the scenarios cmd/hbkit's native
// client runs (cli's TestIntegrationNative), with what gohbase
// cannot do failing with a *cli.UnsupportedError.
func TestIntegrationCommands(t *testing.T) {
	h := clitest.Harness{
		Connect: connector(os.Getenv, os.Stderr),
		Prefix:  "cli_gohbase",
		Unsupported: map[string]bool{
			"DescribeTable": true, // gohbase's AdminClient cannot read table descriptors
			"TruncateTable": true, // nor truncate
		},
	}
	t.Run("Tables", func(t *testing.T) { clitest.Tables(t, h) })
	t.Run("Index", func(t *testing.T) { clitest.Index(t, h) })
	t.Run("Bench", func(t *testing.T) { clitest.Bench(t, h) })
	t.Run("View", func(t *testing.T) { clitest.View(t, h) })
	t.Run("Shell", func(t *testing.T) { clitest.Shell(t, h) })
}

// The gohbase options from the environment reach the client, and a wrong
// quorum fails within the connect timeout instead of waiting on gohbase's
// retries.
func TestIntegrationConnect(t *testing.T) {
	env := map[string]string{"HBKIT_GOHBASE_FLUSH_INTERVAL": "1ms", "HBKIT_GOHBASE_RPC_QUEUE_SIZE": "10",
		"HBKIT_GOHBASE_CONNECT_TIMEOUT": "3s"}
	var logs bytes.Buffer
	connect := connector(func(k string) string { return env[k] }, &logs)
	run := func(zk string, args ...string) (string, string, int) {
		var out, errw bytes.Buffer
		e := cli.Env{Stdout: &out, Stderr: &errw, Connect: connect, Name: "hbkit-gohbase", Over: gohbaseVersion()}
		if err := seedcli.Register(&e); err != nil {
			t.Fatal(err)
		}
		code := cli.Main(context.Background(), e, append(args, "--zk", zk))
		return out.String(), errw.String(), code
	}
	zk := os.Getenv("HBKIT_ZK")
	if zk == "" {
		zk = "127.0.0.1:2181"
	}
	if out, errOut, code := run(zk, "table", "create", "--schema", "sms", "--dry-run"); code != 0 || !strings.Contains(out, "would create table sms (20 regions)") {
		t.Errorf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	began := time.Now()
	_, errOut, code := run("127.0.0.1:1", "regions", "--table", "cli_gohbase_nowhere")
	if took := time.Since(began); code != 1 || !strings.Contains(errOut, "no answer from the HBase master within 3s") || took > 30*time.Second {
		t.Errorf("wrong quorum: exit %d after %v\n%s", code, took, errOut)
	}
}
