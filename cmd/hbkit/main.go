// Command hbkit is the command line of hbkit: tables from schemas, index
// verification and repair, region-distribution simulation and benchmarks.
//
// Usage:
//
//	hbkit <command> [flags]
//
// Run "hbkit help" for the list of commands (docs/cli.md has every
// command's help), and "hbkit completion bash|zsh|fish|powershell" for the
// shell completion script. Commands that talk to HBase
// find it through --zk or the HBKIT_ZK environment variable
// (host:port[,host:port...]) and use hbkit's native client; their
// --principal, --keytab, --ccache, --krb5-conf, --server-principal,
// --rpc-protection, --tls-ca, --tls-cert, --tls-key and --tls-server-name
// flags (over the HBKIT_* variables of the same names) reach a cluster
// secured with Kerberos and TLS (docs/security.md). The commands
// themselves live in package cli, so a team can build its own hbkit (its
// own schemas, its own name); contrib/gohbase's hbkit-gohbase runs them
// over a gohbase client. The seeds' schemas are registered like a team's
// own (package seeds/seedcli).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/seeds/seedcli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := cli.NativeEnv(os.Stdout, os.Stderr, os.Getenv)
	if err := seedcli.Register(&e); err != nil {
		fmt.Fprintln(os.Stderr, "hbkit:", err)
		os.Exit(1)
	}
	os.Exit(cli.Main(ctx, e, os.Args[1:]))
}
