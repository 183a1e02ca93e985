package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jcmturner/gokrb5/v8/client"
	krbconfig "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/hbkit/hbkit/internal/rpc"
)

// kerberos holds what a Kerberized instance needs (tools/secure-hbase.sh
// sets it up: the KDC, the principals and the keytabs). The zero value is
// the plain, SIMPLE-authentication HBase.
type kerberos struct {
	krb5Conf   string // krb5.conf naming the realm and its KDC
	keytab     string // keytab holding principal's keys
	principal  string // the master's and region servers' principal, e.g. hbase/localhost@HBKIT.LOCAL
	protection string // hbase.rpc.protection: authentication, integrity or privacy
	// jaas, when set, is a JAAS file with a "Server" section (the
	// embedded ZooKeeper's principal) and a "Client" section (HBase's, to
	// ZooKeeper): ZooKeeper then authenticates HBase with SASL and HBase
	// puts ACLs on its znodes.
	jaas string
	// open (HBKIT_SECURE_OPEN=1) also lets in what a secured cluster
	// refuses, for measuring what security costs on one server: SIMPLE
	// clients (fallback to SIMPLE allowed) and every quality of protection
	// (hbase.rpc.protection lists all three, the client picks). protection
	// is then the launcher's own.
	open bool
}

func (k kerberos) enabled() bool { return k.keytab != "" }

// loadKerberos reads HBKIT_HBASE_KEYTAB, HBKIT_HBASE_PRINCIPAL,
// HBKIT_KRB5_CONF and HBKIT_RPC_PROTECTION. Without a keytab the instance
// is plain; with one, the principal and krb5.conf are required.
func loadKerberos() (kerberos, error) {
	k := kerberos{
		krb5Conf:   strings.TrimSpace(os.Getenv("HBKIT_KRB5_CONF")),
		keytab:     strings.TrimSpace(os.Getenv("HBKIT_HBASE_KEYTAB")),
		principal:  strings.TrimSpace(os.Getenv("HBKIT_HBASE_PRINCIPAL")),
		protection: envOr("HBKIT_RPC_PROTECTION", "authentication"),
		jaas:       strings.TrimSpace(os.Getenv("HBKIT_ZK_JAAS")),
		open:       os.Getenv("HBKIT_SECURE_OPEN") == "1",
	}
	if !k.enabled() {
		return kerberos{}, nil
	}
	if k.principal == "" || k.krb5Conf == "" {
		return kerberos{}, fmt.Errorf("HBKIT_HBASE_KEYTAB is set: HBKIT_HBASE_PRINCIPAL and HBKIT_KRB5_CONF are needed too")
	}
	switch k.protection {
	case "authentication", "integrity", "privacy":
	default:
		return kerberos{}, fmt.Errorf("HBKIT_RPC_PROTECTION=%q: want authentication, integrity or privacy", k.protection)
	}
	for _, p := range []*string{&k.krb5Conf, &k.keytab, &k.jaas} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return kerberos{}, err
		}
		if _, err := os.Stat(abs); err != nil {
			return kerberos{}, fmt.Errorf("kerberos: %w", err)
		}
		*p = abs
	}
	return k, nil
}

// site is what hbase-site.xml needs for Kerberos: the master and region
// servers log in from the keytab and accept only Kerberos (SASL GSSAPI)
// clients. ZooKeeper stays unauthenticated: without a JAAS "Client"
// section HBase does not put ACLs on its znodes.
func (k kerberos) site() [][2]string {
	if !k.enabled() {
		return nil
	}
	site := [][2]string{
		{"hbase.security.authentication", "kerberos"},
		{"hadoop.security.authentication", "kerberos"},
		{"hbase.master.keytab.file", k.keytab},
		{"hbase.master.kerberos.principal", k.principal},
		{"hbase.regionserver.keytab.file", k.keytab},
		{"hbase.regionserver.kerberos.principal", k.principal},
		{"hbase.rpc.protection", k.protection},
		// A SIMPLE client is refused, never let in as an unauthenticated user.
		{"hbase.ipc.server.fallback-to-simple-auth-allowed", "false"},
	}
	if k.open {
		site[len(site)-2][1] = "authentication,integrity,privacy"
		site[len(site)-1][1] = "true"
	}
	return site
}

// jvmFlags points the JVM's Kerberos at our krb5.conf.
func (k kerberos) jvmFlags() []string {
	if !k.enabled() {
		return nil
	}
	flags := []string{"-Djava.security.krb5.conf=" + k.krb5Conf}
	if k.jaas != "" {
		flags = append(flags,
			"-Djava.security.auth.login.config="+k.jaas,
			// The embedded ZooKeeper accepts SASL (it does not
			// require it: unauthenticated clients still connect and
			// read what the ACLs let everyone read).
			"-Dzookeeper.authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
			"-Dzookeeper.kerberos.removeHostFromPrincipal=true",
			"-Dzookeeper.kerberos.removeRealmFromPrincipal=true",
			// HBase's ZooKeeper client asks for zookeeper/localhost,
			// whatever 127.0.0.1 resolves to.
			"-Dzookeeper.server.principal=zookeeper/localhost@"+realmOf(k.principal),
		)
	}
	return flags
}

func realmOf(principal string) string {
	_, realm, _ := strings.Cut(principal, "@")
	return realm
}

// rpcOptions are the options of the launcher's own RPCs to the master
// (the readiness probe, the Shutdown request). A Kerberized instance is
// called as its own principal, from its keytab.
func (c *config) rpcOptions() ([]rpc.Option, error) {
	opts, err := c.tls.tlsOption()
	if err != nil {
		return nil, err
	}
	k := c.kerberos
	if !k.enabled() {
		return opts, nil
	}
	if c.krbClient == nil {
		cfg, err := krbconfig.Load(k.krb5Conf)
		if err != nil {
			return nil, fmt.Errorf("kerberos: %s: %w", k.krb5Conf, err)
		}
		kt, err := keytab.Load(k.keytab)
		if err != nil {
			return nil, fmt.Errorf("kerberos: %s: %w", k.keytab, err)
		}
		user, realm, _ := strings.Cut(k.principal, "@")
		c.krbClient = client.NewWithKeytab(user, realm, kt, cfg, client.DisablePAFXFAST(true))
	}
	prot, err := rpc.ParseProtection(k.protection)
	if err != nil {
		return nil, err
	}
	return append(opts, rpc.WithKerberos(rpc.Kerberos{Client: c.krbClient, ServerPrincipal: k.principal, Protection: prot})), nil
}

// writeCoreSite writes core-site.xml, or removes a stale one: Hadoop's
// UserGroupInformation reads hadoop.security.authentication from
// core-site.xml only, never from hbase-site.xml, and without it the master
// and region servers skip their keytab login and call each other as SIMPLE
// users.
func (c *config) writeCoreSite() error {
	p := filepath.Join(c.confDir(), "core-site.xml")
	if !c.kerberos.enabled() {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	s := "<?xml version=\"1.0\"?>\n<!-- written by tools/hbase; changes are overwritten on every start -->\n<configuration>\n" +
		"  <property><name>hadoop.security.authentication</name><value>kerberos</value></property>\n" +
		"</configuration>\n"
	return os.WriteFile(p, []byte(s), 0o644)
}
