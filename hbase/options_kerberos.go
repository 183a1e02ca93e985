package hbase

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/hbkit/hbkit/internal/rpc"
)

// Protection is the quality of protection of a Kerberos connection:
// HBase's hbase.rpc.protection, which the servers must offer.
type Protection = rpc.Protection

// The values of hbase.rpc.protection.
const (
	// ProtectionAuthentication (SASL auth): the default.
	ProtectionAuthentication = rpc.ProtectionAuthentication
	// ProtectionIntegrity (SASL auth-int): every frame carries a keyed checksum.
	ProtectionIntegrity = rpc.ProtectionIntegrity
	// ProtectionPrivacy (SASL auth-conf): every frame is encrypted.
	ProtectionPrivacy = rpc.ProtectionPrivacy
)

// ParseProtection parses hbase.rpc.protection's values: authentication,
// integrity, privacy.
func ParseProtection(s string) (Protection, error) { return rpc.ParseProtection(s) }

// Errors of a failed Kerberos handshake; the error of the call wraps one
// of them (and an *AuthError), and is not retryable, except
// ErrKerberosKDCUnavailable (the KDC could not be reached or did not
// answer in time), which is.
var (
	ErrKerberosNoCredentials      = rpc.ErrNoCredentials
	ErrKerberosServiceTicket      = rpc.ErrServiceTicket
	ErrKerberosRefused            = rpc.ErrAuthRefused
	ErrKerberosServerNotSecured   = rpc.ErrServerNotSecured
	ErrKerberosProtectionMismatch = rpc.ErrProtectionMismatch
	ErrKerberosBadToken           = rpc.ErrBadToken
	ErrKerberosKDCUnavailable     = rpc.ErrKDCUnavailable
)

// AuthError is a failed Kerberos handshake with a server.
type AuthError = rpc.AuthError

// DefaultServerPrincipal is the servers' principal when Kerberos.ServerPrincipal
// is empty: HBase's usual hbase/_HOST, in the client's realm.
const DefaultServerPrincipal = "hbase/_HOST"

// Kerberos configures SASL GSSAPI authentication for WithKerberos. The
// names in brackets are the Java client's configuration keys.
type Kerberos struct {
	// Principal is the client's principal, user@REALM or user (the
	// krb5.conf's default realm) [hbase.client.keytab.principal]. With a
	// credentials cache it may be empty: the cache names it.
	Principal string
	// Keytab is the path of a keytab holding Principal's keys
	// [hbase.client.keytab.file].
	Keytab string
	// CCache is the path of a credentials cache (what kinit writes; its
	// ticket must still be valid), used when Keytab is empty. Default:
	// $KRB5CCNAME when it names a FILE: cache, else /tmp/krb5cc_UID.
	CCache string
	// Krb5Conf is the path of krb5.conf. Default: $KRB5_CONFIG, else
	// /etc/krb5.conf.
	Krb5Conf string
	// ServerPrincipal is the region servers' and master's principal
	// [hbase.regionserver.kerberos.principal]; _HOST stands for the host
	// each server advertises. Default DefaultServerPrincipal.
	ServerPrincipal string
	// Protection is the quality of protection [hbase.rpc.protection].
	Protection Protection
}

// WithKerberos authenticates to HBase with Kerberos (SASL GSSAPI) instead
// of SIMPLE, from a keytab or a credentials cache. The credentials are
// loaded once, by New; tickets are fetched from the KDC as connections
// are made. ZooKeeper is still read without authentication: HBase leaves
// the znodes a client reads world-readable.
func WithKerberos(k Kerberos) Option {
	return func(o *options) { o.kerberos = &k }
}

// rpcOption loads the credentials of k into the rpc option.
func (k *Kerberos) rpcOption() (rpc.Option, error) {
	if k.Protection < ProtectionAuthentication || k.Protection > ProtectionPrivacy {
		return nil, fmt.Errorf("hbase: WithKerberos: invalid protection %d", int(k.Protection))
	}
	confPath := cmp.Or(k.Krb5Conf, os.Getenv("KRB5_CONFIG"), "/etc/krb5.conf")
	cfg, err := config.Load(confPath)
	if err != nil {
		return nil, fmt.Errorf("hbase: WithKerberos: krb5.conf %s: %w", confPath, err)
	}
	var cl *client.Client
	settings := []func(*client.Settings){client.DisablePAFXFAST(true)}
	if k.Keytab != "" {
		if k.Principal == "" {
			return nil, errors.New("hbase: WithKerberos: a keytab needs a principal")
		}
		kt, err := keytab.Load(k.Keytab)
		if err != nil {
			return nil, fmt.Errorf("hbase: WithKerberos: keytab %s: %w", k.Keytab, err)
		}
		user, realm, _ := strings.Cut(k.Principal, "@")
		realm = cmp.Or(realm, cfg.LibDefaults.DefaultRealm)
		cl = client.NewWithKeytab(user, realm, kt, cfg, settings...)
	} else {
		path := k.CCache
		if path == "" {
			path = defaultCCache()
		}
		cc, err := credentials.LoadCCache(path)
		if err != nil {
			return nil, fmt.Errorf("hbase: WithKerberos: credentials cache %s: %w (%w)", path, err, rpc.ErrNoCredentials)
		}
		if cl, err = client.NewFromCCache(cc, cfg, settings...); err != nil {
			return nil, fmt.Errorf("hbase: WithKerberos: credentials cache %s: %w (%w)", path, err, rpc.ErrNoCredentials)
		}
		if k.Principal != "" {
			if got := cl.Credentials.CName().PrincipalNameString() + "@" + cl.Credentials.Domain(); got != k.Principal &&
				cl.Credentials.CName().PrincipalNameString() != k.Principal {
				return nil, fmt.Errorf("hbase: WithKerberos: credentials cache %s holds %s, not %s: %w", path, got, k.Principal, rpc.ErrNoCredentials)
			}
		}
	}
	spn := cmp.Or(k.ServerPrincipal, DefaultServerPrincipal)
	return rpc.WithKerberos(rpc.Kerberos{Client: cl, ServerPrincipal: spn, Protection: k.Protection}), nil
}

func defaultCCache() string {
	if v, ok := strings.CutPrefix(os.Getenv("KRB5CCNAME"), "FILE:"); ok {
		return v
	}
	if v := os.Getenv("KRB5CCNAME"); v != "" && !strings.Contains(v, ":") {
		return v
	}
	return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
}
