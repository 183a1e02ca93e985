//go:build integration

package cli_test

import (
	"testing"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/cli/clitest"
)

// hbkit's commands over the native client, against the local HBase (make
// hbase-up; HBKIT_ZK, default 127.0.0.1:2181):
//
//	go test -tags integration -run TestIntegrationNative ./cli/
//
// contrib/gohbase's hbkit-gohbase runs the same scenarios over gohbase.
func TestIntegrationNative(t *testing.T) {
	h := clitest.Harness{Connect: cli.ConnectNative, Prefix: "cli_native"}
	t.Run("Tables", func(t *testing.T) { clitest.Tables(t, h) })
	t.Run("Index", func(t *testing.T) { clitest.Index(t, h) })
	t.Run("IndexTables", func(t *testing.T) { clitest.IndexTables(t, h) })
	t.Run("Bench", func(t *testing.T) { clitest.Bench(t, h) })
	t.Run("View", func(t *testing.T) { clitest.View(t, h) })
	t.Run("Shell", func(t *testing.T) { clitest.Shell(t, h) })
}
