package cli

import (
	"context"
	"io"
)

// ConnectNativeEnv is ConnectNative with the Kerberos and TLS settings of
// getenv, under the names that tools/secure-hbase.sh's secure.env exports
// (HBKIT_KEYTAB or HBKIT_CCACHE, HBKIT_PRINCIPAL, HBKIT_KRB5_CONF,
// HBKIT_SERVER_PRINCIPAL, HBKIT_RPC_PROTECTION, HBKIT_TLS_*; see
// SecurityOptions): the ConnectFunc of cmd/hbkit. With none of them set the
// client is SIMPLE over plain TCP.
func ConnectNativeEnv(getenv func(string) string) ConnectFunc {
	secure := ConnectNativeSecure(getenv)
	return func(ctx context.Context, zk string) (Client, io.Closer, error) {
		return secure(ctx, zk, Security{})
	}
}
