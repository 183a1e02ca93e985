package hbase

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidConfig reports an hbase-site.xml that cannot be read or whose
// values NewFromConfig cannot use; the error names the file and the key.
var ErrInvalidConfig = errors.New("hbase: invalid configuration")

// Config is a cluster's client configuration as its hbase-site.xml gives
// it (LoadConfig): the Java client's keys, in brackets, that NewFromConfig
// uses. Properties holds every property read, ${name} references
// expanded.
type Config struct {
	// Quorum is the ZooKeeper quorum, host:port[,host:port…]
	// [hbase.zookeeper.quorum; hbase.zookeeper.property.clientPort for
	// hosts given without a port].
	Quorum string
	// ZNodeParent is HBase's root znode [zookeeper.znode.parent].
	ZNodeParent string
	// BootstrapServers are masters or region servers serving the RPC
	// connection registry [hbase.client.bootstrap.servers]; see Registry.
	BootstrapServers string
	// Registry is "zk" or "rpc": how the client finds the master and
	// hbase:meta [hbase.client.registry.impl: ZKConnectionRegistry or
	// RpcConnectionRegistry]. When the key is absent: "zk" if Quorum is
	// set, else "rpc" if BootstrapServers is.
	Registry string
	// RPCTimeout and OperationTimeout [hbase.rpc.timeout,
	// hbase.client.operation.timeout, in milliseconds]; zero: not set.
	RPCTimeout, OperationTimeout time.Duration
	// Kerberos is set when hbase.security.authentication is kerberos
	// [hbase.client.keytab.principal, hbase.client.keytab.file,
	// hbase.regionserver.kerberos.principal, hbase.rpc.protection].
	Kerberos *Kerberos
	// TLS is set when hbase.client.netty.tls.enabled is true: the
	// servers' certificates are checked against the PEM truststore
	// [hbase.rpc.tls.truststore.location, hbase.rpc.tls.truststore.type
	// PEM]; a JKS or PKCS12 truststore is refused with a clear error.
	TLS *tls.Config
	// Properties are all the properties read.
	Properties map[string]string
}

// LoadConfig reads hbase-site.xml files (Hadoop's configuration XML); a
// property of a later file overrides an earlier one, as the Java
// client's Configuration.addResource does.
func LoadConfig(paths ...string) (*Config, error) {
	props := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		err = readProperties(f, props)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidConfig, p, err)
		}
	}
	return ConfigFromProperties(props)
}

// ParseConfig reads one hbase-site.xml from r.
func ParseConfig(r io.Reader) (*Config, error) {
	props := map[string]string{}
	if err := readProperties(r, props); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return ConfigFromProperties(props)
}

// readProperties adds the <property> elements of a configuration XML to
// props.
func readProperties(r io.Reader, props map[string]string) error {
	var doc struct {
		XMLName    xml.Name `xml:"configuration"`
		Properties []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&doc); err != nil {
		return err
	}
	for _, p := range doc.Properties {
		if name := strings.TrimSpace(p.Name); name != "" {
			props[name] = strings.TrimSpace(p.Value)
		}
	}
	return nil
}

// ConfigFromProperties builds a Config from properties named by the Java
// client's keys, expanding ${name} references among them.
func ConfigFromProperties(props map[string]string) (*Config, error) {
	p := expand(props)
	cfg := &Config{Properties: p, ZNodeParent: p["zookeeper.znode.parent"], BootstrapServers: p["hbase.client.bootstrap.servers"]}
	var err error
	if cfg.Quorum, err = quorumOf(p); err != nil {
		return nil, err
	}
	if cfg.Registry, err = registryOf(p, cfg); err != nil {
		return nil, err
	}
	if cfg.RPCTimeout, err = millis(p, "hbase.rpc.timeout"); err != nil {
		return nil, err
	}
	if cfg.OperationTimeout, err = millis(p, "hbase.client.operation.timeout"); err != nil {
		return nil, err
	}
	if strings.EqualFold(p["hbase.security.authentication"], "kerberos") {
		k := &Kerberos{Principal: p["hbase.client.keytab.principal"], Keytab: p["hbase.client.keytab.file"],
			ServerPrincipal: p["hbase.regionserver.kerberos.principal"]}
		if v := p["hbase.rpc.protection"]; v != "" {
			if k.Protection, err = ParseProtection(v); err != nil {
				return nil, fmt.Errorf("%w: hbase.rpc.protection: %w", ErrInvalidConfig, err)
			}
		}
		cfg.Kerberos = k
	}
	if strings.EqualFold(p["hbase.client.netty.tls.enabled"], "true") {
		if cfg.TLS, err = tlsOf(p); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// expand replaces ${name} with the property name's value (or the
// environment's env.NAME), as Hadoop's Configuration does; references it
// cannot resolve stay as they are.
func expand(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	var resolve func(v string, depth int) string
	resolve = func(v string, depth int) string {
		if depth > 20 {
			return v
		}
		var b strings.Builder
		for {
			i := strings.Index(v, "${")
			j := strings.Index(v[max(i, 0):], "}")
			if i < 0 || j < 0 {
				b.WriteString(v)
				return b.String()
			}
			name := v[i+2 : i+j]
			b.WriteString(v[:i])
			switch val, ok := props[name]; {
			case ok:
				b.WriteString(resolve(val, depth+1))
			case strings.HasPrefix(name, "env.") && os.Getenv(name[4:]) != "":
				b.WriteString(os.Getenv(name[4:]))
			default:
				b.WriteString(v[i : i+j+1])
			}
			v = v[i+j+1:]
		}
	}
	for k, v := range props {
		out[k] = resolve(v, 0)
	}
	return out
}

func quorumOf(p map[string]string) (string, error) {
	q := p["hbase.zookeeper.quorum"]
	if q == "" {
		return "", nil
	}
	port := 2181
	if v := p["hbase.zookeeper.property.clientPort"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("%w: hbase.zookeeper.property.clientPort %q", ErrInvalidConfig, v)
		}
		port = n
	}
	addrs, err := parseServers(q, "ZooKeeper", "ZooKeeper quorum", port)
	if err != nil {
		return "", fmt.Errorf("%w: hbase.zookeeper.quorum: %w", ErrInvalidConfig, err)
	}
	return strings.Join(addrs, ","), nil
}

func registryOf(p map[string]string, cfg *Config) (string, error) {
	switch impl := p["hbase.client.registry.impl"]; {
	case strings.HasSuffix(impl, "RpcConnectionRegistry"):
		if cfg.BootstrapServers == "" {
			return "", fmt.Errorf("%w: hbase.client.registry.impl is %s but hbase.client.bootstrap.servers is empty", ErrInvalidConfig, impl)
		}
		return "rpc", nil
	case strings.HasSuffix(impl, "ZKConnectionRegistry"), impl == "" && cfg.Quorum != "":
		if cfg.Quorum == "" {
			return "", fmt.Errorf("%w: hbase.client.registry.impl is %s but hbase.zookeeper.quorum is empty", ErrInvalidConfig, impl)
		}
		return "zk", nil
	case impl == "" && cfg.BootstrapServers != "":
		return "rpc", nil
	case impl == "":
		return "", fmt.Errorf("%w: neither hbase.zookeeper.quorum nor hbase.client.bootstrap.servers is set", ErrInvalidConfig)
	default:
		return "", fmt.Errorf("%w: hbase.client.registry.impl %s is not supported (ZKConnectionRegistry, RpcConnectionRegistry)", ErrInvalidConfig, impl)
	}
}

func millis(p map[string]string, key string) (time.Duration, error) {
	v := p[key]
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s %q: want milliseconds above 0", ErrInvalidConfig, key, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

func tlsOf(p map[string]string) (*tls.Config, error) {
	loc := p["hbase.rpc.tls.truststore.location"]
	if loc == "" {
		return &tls.Config{MinVersion: tls.VersionTLS12}, nil // the system's roots
	}
	typ := p["hbase.rpc.tls.truststore.type"]
	if typ == "" && !strings.HasSuffix(strings.ToLower(loc), ".pem") && !strings.HasSuffix(strings.ToLower(loc), ".crt") {
		typ = "JKS"
	}
	if typ != "" && !strings.EqualFold(typ, "PEM") {
		return nil, fmt.Errorf("%w: hbase.rpc.tls.truststore.type %s: only PEM truststores are read (keytool -exportcert -rfc makes one)", ErrInvalidConfig, typ)
	}
	pem, err := os.ReadFile(loc)
	if err != nil {
		return nil, fmt.Errorf("%w: hbase.rpc.tls.truststore.location: %w", ErrInvalidConfig, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: hbase.rpc.tls.truststore.location %s holds no PEM certificate", ErrInvalidConfig, loc)
	}
	return &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, nil
}

// Options returns the options cfg sets, for New or NewFromBootstrap.
func (cfg *Config) Options() []Option {
	var opts []Option
	if cfg.ZNodeParent != "" {
		opts = append(opts, WithZNodeParent(cfg.ZNodeParent))
	}
	if cfg.RPCTimeout > 0 {
		opts = append(opts, WithRPCTimeout(cfg.RPCTimeout))
	}
	if cfg.OperationTimeout > 0 {
		opts = append(opts, WithOperationTimeout(cfg.OperationTimeout))
	}
	if cfg.Kerberos != nil {
		opts = append(opts, WithKerberos(*cfg.Kerberos))
	}
	if cfg.TLS != nil {
		opts = append(opts, WithTLS(cfg.TLS))
	}
	return opts
}

// NewFromConfig connects as cfg says: through ZooKeeper (New) or through
// the RPC connection registry (NewFromBootstrap), with cfg's options
// first and opts after them, so that opts win.
func NewFromConfig(ctx context.Context, cfg *Config, opts ...Option) (*Client, error) {
	all := append(cfg.Options(), opts...)
	switch cfg.Registry {
	case "rpc":
		return NewFromBootstrap(ctx, cfg.BootstrapServers, all...)
	case "zk":
		return New(ctx, cfg.Quorum, all...)
	}
	return nil, fmt.Errorf("%w: registry %q: want zk or rpc", ErrInvalidConfig, cfg.Registry)
}
