package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/cli"
)

// TestSecurityFlagsRefused: gohbase has neither Kerberos nor TLS, so
// hbkit-gohbase refuses their flags before connecting, naming them.
func TestSecurityFlagsRefused(t *testing.T) {
	for _, flags := range [][]string{
		{"--keytab", "/k", "--principal", "u@R"},
		{"--tls-ca", "/ca.pem"},
		{"--rpc-protection", "privacy"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			var out, errw bytes.Buffer
			e := cli.Env{Stdout: &out, Stderr: &errw, Connect: connector(func(string) string { return "" }, &errw),
				Name: "hbkit-gohbase", Over: gohbaseVersion()}
			// An unreachable quorum: reaching it would fail otherwise.
			args := append([]string{"regions", "--table", "t", "--zk", "127.0.0.1:1"}, flags...)
			err := cli.Run(context.Background(), e, args)
			if !errors.Is(err, cli.ErrSecurityUnsupported) || !strings.Contains(err.Error(), flags[0]) {
				t.Fatalf("got %v, want ErrSecurityUnsupported naming %s", err, flags[0])
			}
			t.Logf("hbkit-gohbase %s: %v", strings.Join(args, " "), err)
		})
	}
}
