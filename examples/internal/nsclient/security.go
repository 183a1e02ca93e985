package nsclient

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/hbase"
)

// SecurityOptions are the native client's Kerberos and TLS options from
// the environment, read as hbkit reads them (HBKIT_KEYTAB or HBKIT_CCACHE,
// HBKIT_PRINCIPAL, HBKIT_KRB5_CONF, HBKIT_SERVER_PRINCIPAL,
// HBKIT_RPC_PROTECTION, HBKIT_TLS_CA, HBKIT_TLS_CERT, HBKIT_TLS_KEY,
// HBKIT_TLS_SERVER_NAME: what tools/secure-hbase.sh's secure.env exports;
// docs/security.md). With none of them set the examples connect as before,
// SIMPLE over plain TCP. A program of one's own passes hbase.WithKerberos
// and hbase.WithTLS to hbase.New directly.
func SecurityOptions() ([]hbase.Option, error) {
	return cli.SecurityOptions(cli.Security{}, os.Getenv)
}

// Dial connects the examples to the HBase at zk with the Kerberos and TLS
// settings of the environment (SecurityOptions), within a minute.
func Dial(ctx context.Context, zk string) (*hbase.Client, error) {
	opts, err := SecurityOptions()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	hc, err := hbase.New(ctx, zk, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to HBase at %s: %w", zk, err)
	}
	return hc, nil
}
