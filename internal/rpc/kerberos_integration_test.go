//go:build integration

package rpc

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/hbkit/hbkit/internal/pb"
)

// The Kerberos tests run against the secured HBase of
// tools/secure-hbase.sh, with the variables of the secure.env it writes
// (HBKIT_ZK, HBKIT_PRINCIPAL, HBKIT_KEYTAB, HBKIT_KRB5_CONF,
// HBKIT_SERVER_PRINCIPAL, HBKIT_RPC_PROTECTION); without HBKIT_KEYTAB they
// are skipped. When that HBase speaks TLS (HBKIT_TLS_CA) they run over TLS.

func secureEnv(t *testing.T) (cl *client.Client, spn string, prot Protection) {
	t.Helper()
	kt := os.Getenv("HBKIT_KEYTAB")
	if kt == "" {
		t.Skip("HBKIT_KEYTAB unset: source the secure.env of tools/secure-hbase.sh up")
	}
	cfg, err := config.Load(os.Getenv("HBKIT_KRB5_CONF"))
	if err != nil {
		t.Fatalf("krb5.conf: %v", err)
	}
	k, err := keytab.Load(kt)
	if err != nil {
		t.Fatalf("keytab: %v", err)
	}
	user, realm := splitPrincipal(os.Getenv("HBKIT_PRINCIPAL"))
	cl = client.NewWithKeytab(user, realm, k, cfg, client.DisablePAFXFAST(true))
	t.Cleanup(cl.Destroy)
	prot, err = ParseProtection(os.Getenv("HBKIT_RPC_PROTECTION"))
	if err != nil {
		t.Fatal(err)
	}
	return cl, os.Getenv("HBKIT_SERVER_PRINCIPAL"), prot
}

func splitPrincipal(p string) (user, realm string) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '@' {
			return p[:i], p[i+1:]
		}
	}
	return p, ""
}

func TestIntegrationKerberosMaster(t *testing.T) {
	cl, spn, prot := secureEnv(t)
	addr := masterFromZK()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("kerberos", func(t *testing.T) {
		c, err := Dial(ctx, addr, MasterService, envTLS(t, WithKerberos(Kerberos{Client: cl, ServerPrincipal: spn, Protection: prot}))...)
		if err != nil {
			t.Fatalf("Dial %s as %s: %v", addr, os.Getenv("HBKIT_PRINCIPAL"), err)
		}
		defer c.Close()
		for i := range 3 {
			var resp pb.IsMasterRunningResponse
			if err := c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
				t.Fatalf("IsMasterRunning #%d: %v", i, err)
			}
			if !resp.GetIsMasterRunning() {
				t.Fatalf("IsMasterRunning #%d: false", i)
			}
		}
		t.Logf("IsMasterRunning over Kerberos (%v) as %s: true", prot, os.Getenv("HBKIT_PRINCIPAL"))
	})
	t.Run("simple refused", func(t *testing.T) {
		c, err := Dial(ctx, addr, MasterService)
		if err == nil {
			defer c.Close()
			err = c.Call(ctx, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &pb.IsMasterRunningResponse{})
		}
		if err == nil {
			t.Fatal("a SIMPLE client was let in")
		}
		t.Logf("SIMPLE client: %v", err)
	})
	t.Run("wrong protection", func(t *testing.T) {
		other := ProtectionPrivacy
		if prot == ProtectionPrivacy {
			other = ProtectionAuthentication
		}
		_, err := Dial(ctx, addr, MasterService, envTLS(t, WithKerberos(Kerberos{Client: cl, ServerPrincipal: spn, Protection: other}))...)
		if !errors.Is(err, ErrProtectionMismatch) {
			t.Fatalf("Dial asking %v of a server offering %v: got %v, want ErrProtectionMismatch", other, prot, err)
		}
		t.Logf("asking %v: %v", other, err)
	})
	t.Run("unknown server principal", func(t *testing.T) {
		_, err := Dial(ctx, addr, MasterService, envTLS(t, WithKerberos(Kerberos{Client: cl, ServerPrincipal: "hbase/nosuchhost@HBKIT.LOCAL", Protection: prot}))...)
		if !errors.Is(err, ErrServiceTicket) {
			t.Fatalf("got %v, want ErrServiceTicket", err)
		}
		t.Logf("unknown server principal: %v", err)
	})
}
