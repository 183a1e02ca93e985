package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hbkit/hbkit/hbase"
)

// Security holds the Kerberos and TLS settings of the commands that talk
// to HBase: their flags, over the HBKIT_* environment variables that
// tools/secure-hbase.sh's secure.env exports. The names in brackets are
// the Java client's configuration keys where HBase has one.
type Security struct {
	Principal       string // --principal, $HBKIT_PRINCIPAL [hbase.client.keytab.principal]
	Keytab          string // --keytab, $HBKIT_KEYTAB [hbase.client.keytab.file]
	CCache          string // --ccache, $HBKIT_CCACHE (kinit's cache; Java: the JAAS ticket cache)
	Krb5Conf        string // --krb5-conf, $HBKIT_KRB5_CONF (Java: -Djava.security.krb5.conf)
	ServerPrincipal string // --server-principal, $HBKIT_SERVER_PRINCIPAL [hbase.regionserver.kerberos.principal]
	RPCProtection   string // --rpc-protection, $HBKIT_RPC_PROTECTION [hbase.rpc.protection]
	TLSCA           string // --tls-ca, $HBKIT_TLS_CA [hbase.rpc.tls.truststore.location, PEM]
	TLSCert         string // --tls-cert, $HBKIT_TLS_CERT [hbase.rpc.tls.keystore.location, PEM: HBase wants key and certificate in one file]
	TLSKey          string // --tls-key, $HBKIT_TLS_KEY (see TLSCert)
	TLSServerName   string // --tls-server-name, $HBKIT_TLS_SERVER_NAME (HBase checks each server's own host name)
}

// securityFields pairs each field with its flag, its variable and its help.
func (s *Security) fields() []struct {
	p          *string
	flag, env  string
	usage      string
	isKerberos bool
} {
	type f = struct {
		p          *string
		flag, env  string
		usage      string
		isKerberos bool
	}
	return []f{
		{&s.Principal, "principal", "HBKIT_PRINCIPAL", "Kerberos: the client's `principal` (user@REALM) [hbase.client.keytab.principal]; alone: from the credentials cache", true},
		{&s.Keytab, "keytab", "HBKIT_KEYTAB", "Kerberos: keytab `file` holding the principal's keys [hbase.client.keytab.file]", true},
		{&s.CCache, "ccache", "HBKIT_CCACHE", "Kerberos: credentials cache `file` written by kinit (default $KRB5CCNAME, /tmp/krb5cc_UID)", true},
		{&s.Krb5Conf, "krb5-conf", "HBKIT_KRB5_CONF", "Kerberos: krb5.conf `file` (default $KRB5_CONFIG, /etc/krb5.conf)", true},
		{&s.ServerPrincipal, "server-principal", "HBKIT_SERVER_PRINCIPAL", "Kerberos: the servers' `principal` [hbase.regionserver.kerberos.principal] (default hbase/_HOST)", true},
		{&s.RPCProtection, "rpc-protection", "HBKIT_RPC_PROTECTION", "Kerberos: `qop` authentication, integrity or privacy [hbase.rpc.protection]", true},
		{&s.TLSCA, "tls-ca", "HBKIT_TLS_CA", "TLS: PEM `file` of the CAs to trust [hbase.rpc.tls.truststore.location] (default: the system's)", false},
		{&s.TLSCert, "tls-cert", "HBKIT_TLS_CERT", "TLS: PEM client certificate `file` [hbase.rpc.tls.keystore.location], with --tls-key", false},
		{&s.TLSKey, "tls-key", "HBKIT_TLS_KEY", "TLS: PEM private key `file` of --tls-cert", false},
		{&s.TLSServerName, "tls-server-name", "HBKIT_TLS_SERVER_NAME", "TLS: `name` every server's certificate must carry (default: each server's host)", false},
	}
}

// ErrSecurityUnsupported is the error of a Kerberos or TLS flag given to a
// program whose HBase client has neither (hbkit-gohbase: gohbase).
var ErrSecurityUnsupported = errors.New("kerberos and tls are not supported by this client")

// SecurityError is a bad combination of Kerberos or TLS settings.
type SecurityError struct {
	Flag   string // the flag (or variable) at fault
	Reason string
}

func (e *SecurityError) Error() string { return "--" + e.Flag + ": " + e.Reason }

// SecureConnectFunc is a ConnectFunc that also takes the Kerberos and TLS
// flags (Security), merged over the environment by the callee.
type SecureConnectFunc func(ctx context.Context, zk string, flags Security) (Client, io.Closer, error)

// connectFlags registers --zk and the Kerberos and TLS flags: every
// command that talks to HBase takes them.
func (e *Env) connectFlags(fs *flag.FlagSet, zk *string) {
	zkFlag(fs, zk)
	e.security = &Security{}
	for _, f := range e.security.fields() {
		fs.StringVar(f.p, f.flag, "", withEnvDefault(f.usage, f.env))
	}
}

// withEnvDefault says in usage that the flag's default is the variable
// env, once: a usage naming its own default gets env in front of it.
func withEnvDefault(usage, env string) string {
	for _, d := range []string{"(default: ", "(default "} {
		if strings.Contains(usage, d) {
			return strings.Replace(usage, d, "(default $"+env+", else ", 1)
		}
	}
	return usage + " (default $" + env + ")"
}

// connectionFlag reports whether name is one of the flags of
// connectFlags: --zk, or a Kerberos or TLS flag.
func connectionFlag(name string) bool {
	if name == "zk" {
		return true
	}
	for _, f := range (&Security{}).fields() {
		if f.flag == name {
			return true
		}
	}
	return false
}

// printFlags prints the flags of fs on w, as printDefaults does, with the
// connection flags (connectFlags) apart: once, as a group, at the end.
func (e *Env) printFlags(w io.Writer, fs *flag.FlagSet) {
	own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	conn := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		to := own
		if connectionFlag(f.Name) {
			to, n = conn, n+1
		}
		to.Var(f.Value, f.Name, f.Usage)
		to.Lookup(f.Name).DefValue = f.DefValue
	})
	printDefaults(w, own)
	if n > 0 {
		fmt.Fprintf(w, "\nConnection flags (every command that talks to HBase):\n")
		printDefaults(w, conn)
	}
}

// given lists the flags set, as --name.
func (s *Security) given() []string {
	var out []string
	for _, f := range s.fields() {
		if *f.p != "" {
			out = append(out, "--"+f.flag)
		}
	}
	return out
}

// connect opens the client with the security flags: through
// e.ConnectSecure when the program has one; a program without it refuses
// any of them.
func (e *Env) connect(ctx context.Context, zk string) (Client, io.Closer, error) {
	var flags Security
	if e.security != nil {
		flags = *e.security
	}
	if e.ConnectSecure != nil {
		return e.ConnectSecure(ctx, zk, flags)
	}
	if given := flags.given(); len(given) > 0 {
		return nil, nil, fmt.Errorf("%s: %w: %s has neither", strings.Join(given, ", "), ErrSecurityUnsupported, e.clientName())
	}
	if e.Connect == nil {
		return nil, nil, errors.New("no HBase client in this program (cli.Env.Connect is nil)")
	}
	return e.Connect(ctx, zk)
}

// withEnv fills the settings not given as flags from getenv.
func (s Security) withEnv(getenv func(string) string) Security {
	for _, f := range s.fields() {
		if *f.p == "" && getenv != nil {
			*f.p = strings.TrimSpace(getenv(f.env))
		}
	}
	return s
}

// SecurityOptions are the native client's options for flags over the
// environment of getenv. Kerberos is on when a keytab or a credentials
// cache is named (flag or variable) or --principal is given; TLS when any
// --tls-* setting is. Without them the client is SIMPLE over plain TCP.
func SecurityOptions(flags Security, getenv func(string) string) ([]hbase.Option, error) {
	s := flags.withEnv(getenv)
	var opts []hbase.Option
	kerberos := s.Keytab != "" || s.CCache != "" || flags.Principal != ""
	if kerberos {
		k := hbase.Kerberos{
			Principal:       s.Principal,
			Keytab:          s.Keytab,
			CCache:          s.CCache,
			Krb5Conf:        s.Krb5Conf,
			ServerPrincipal: s.ServerPrincipal,
		}
		if s.Keytab != "" && s.Principal == "" {
			return nil, &SecurityError{"keytab", "a keytab needs --principal (or $HBKIT_PRINCIPAL)"}
		}
		if s.RPCProtection != "" {
			prot, err := hbase.ParseProtection(s.RPCProtection)
			if err != nil {
				return nil, &SecurityError{"rpc-protection", err.Error()}
			}
			k.Protection = prot
		}
		opts = append(opts, hbase.WithKerberos(k))
	} else {
		for _, f := range flags.fields() {
			if f.isKerberos && *f.p != "" {
				return nil, &SecurityError{f.flag, "Kerberos is off: name a --keytab, a --ccache or a --principal"}
			}
		}
	}
	if s.TLSCA != "" || s.TLSCert != "" || s.TLSKey != "" || s.TLSServerName != "" {
		if (s.TLSCert == "") != (s.TLSKey == "") {
			flag := "tls-cert"
			if s.TLSCert != "" {
				flag = "tls-key"
			}
			return nil, &SecurityError{flag, "--tls-cert and --tls-key go together"}
		}
		cfg, err := hbase.NewTLSConfig(hbase.TLSFiles{CA: s.TLSCA, Cert: s.TLSCert, Key: s.TLSKey, ServerName: s.TLSServerName})
		if err != nil {
			return nil, err
		}
		opts = append(opts, hbase.WithTLS(cfg))
	}
	return opts, nil
}

// ConnectNativeSecure opens hbkit's native client with the Kerberos and
// TLS settings of the flags over getenv's (see SecurityOptions): the
// SecureConnectFunc of cmd/hbkit.
func ConnectNativeSecure(getenv func(string) string) SecureConnectFunc {
	if getenv == nil {
		getenv = os.Getenv
	}
	return func(ctx context.Context, zk string, flags Security) (Client, io.Closer, error) {
		opts, err := SecurityOptions(flags, getenv)
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
