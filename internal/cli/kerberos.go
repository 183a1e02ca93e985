package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/hbkit/hbkit/hbase"
)

// kerberosOptions reads the Kerberos settings of the native client from
// the environment, under the names that tools/secure-hbase.sh's
// secure.env exports: HBKIT_KEYTAB (or HBKIT_CCACHE), HBKIT_PRINCIPAL,
// HBKIT_KRB5_CONF, HBKIT_SERVER_PRINCIPAL, HBKIT_RPC_PROTECTION. With
// neither a keytab nor a cache named, the client stays SIMPLE.
func kerberosOptions(getenv func(string) string) ([]hbase.Option, error) {
	keytab, ccache := getenv("HBKIT_KEYTAB"), getenv("HBKIT_CCACHE")
	if keytab == "" && ccache == "" {
		return nil, nil
	}
	k := hbase.Kerberos{
		Principal:       getenv("HBKIT_PRINCIPAL"),
		Keytab:          keytab,
		CCache:          ccache,
		Krb5Conf:        getenv("HBKIT_KRB5_CONF"),
		ServerPrincipal: getenv("HBKIT_SERVER_PRINCIPAL"),
	}
	if p := getenv("HBKIT_RPC_PROTECTION"); p != "" {
		prot, err := hbase.ParseProtection(p)
		if err != nil {
			return nil, fmt.Errorf("HBKIT_RPC_PROTECTION: %w", err)
		}
		k.Protection = prot
	}
	return []hbase.Option{hbase.WithKerberos(k)}, nil
}

// ConnectNativeEnv is ConnectNative with the Kerberos settings of getenv
// (see kerberosOptions): the ConnectFunc of cmd/hbkit.
func ConnectNativeEnv(getenv func(string) string) ConnectFunc {
	if getenv == nil {
		getenv = os.Getenv
	}
	return func(ctx context.Context, zk string) (Client, io.Closer, error) {
		opts, err := kerberosOptions(getenv)
		if err != nil {
			return nil, nil, err
		}
		c, err := hbase.New(ctx, zk, opts...)
		if err != nil {
			return nil, nil, err
		}
		return c, c, nil
	}
}
