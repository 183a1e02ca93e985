package hbase

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	site := func(props ...string) string {
		var b strings.Builder
		b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
		for i := 0; i+1 < len(props); i += 2 {
			b.WriteString("  <property><name>" + props[i] + "</name><value>" + props[i+1] + "</value></property>\n")
		}
		b.WriteString("</configuration>\n")
		return b.String()
	}
	tests := []struct {
		name    string
		xml     string
		want    Config
		wantErr string
	}{
		{"zookeeper, port from clientPort, ${} expanded", site(
			"hbase.zookeeper.quorum", "zk1,zk2:2182,${extra}", "extra", "zk3",
			"hbase.zookeeper.property.clientPort", "2281", "zookeeper.znode.parent", "/hbase-unsecure",
			"hbase.rpc.timeout", "2000", "hbase.client.operation.timeout", "30000"),
			Config{Quorum: "zk1:2281,zk2:2182,zk3:2281", ZNodeParent: "/hbase-unsecure", Registry: "zk", RPCTimeout: 2 * time.Second, OperationTimeout: 30 * time.Second}, ""},
		{"rpc registry", site("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry",
			"hbase.client.bootstrap.servers", "m1:16000,m2", "hbase.zookeeper.quorum", "zk1"),
			Config{Quorum: "zk1:2181", BootstrapServers: "m1:16000,m2", Registry: "rpc"}, ""},
		{"bootstrap servers alone", site("hbase.client.bootstrap.servers", "rs1:16020"),
			Config{BootstrapServers: "rs1:16020", Registry: "rpc"}, ""},
		{"kerberos", site("hbase.zookeeper.quorum", "zk1", "hbase.security.authentication", "Kerberos",
			"hbase.client.keytab.principal", "app@EXAMPLE.COM", "hbase.client.keytab.file", "/etc/app.keytab",
			"hbase.regionserver.kerberos.principal", "hbase/_HOST@EXAMPLE.COM", "hbase.rpc.protection", "privacy"),
			Config{Quorum: "zk1:2181", Registry: "zk", Kerberos: &Kerberos{Principal: "app@EXAMPLE.COM", Keytab: "/etc/app.keytab",
				ServerPrincipal: "hbase/_HOST@EXAMPLE.COM", Protection: ProtectionPrivacy}}, ""},
		{"nothing to connect to", site("hbase.rpc.timeout", "1000"), Config{}, "neither hbase.zookeeper.quorum nor hbase.client.bootstrap.servers"},
		{"rpc registry without servers", site("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry", "hbase.zookeeper.quorum", "zk1"),
			Config{}, "hbase.client.bootstrap.servers is empty"},
		{"bad timeout", site("hbase.zookeeper.quorum", "zk1", "hbase.rpc.timeout", "2s"), Config{}, `hbase.rpc.timeout "2s"`},
		{"bad protection", site("hbase.zookeeper.quorum", "zk1", "hbase.security.authentication", "kerberos", "hbase.rpc.protection", "secret"), Config{}, "hbase.rpc.protection"},
		{"JKS truststore", site("hbase.zookeeper.quorum", "zk1", "hbase.client.netty.tls.enabled", "true", "hbase.rpc.tls.truststore.location", "/etc/trust.jks"), Config{}, "only PEM truststores"},
		{"not XML", "hbase.zookeeper.quorum=zk1", Config{}, "invalid configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig(strings.NewReader(tt.xml))
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseConfig = %v, want ErrInvalidConfig saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Quorum != tt.want.Quorum || got.ZNodeParent != tt.want.ZNodeParent || got.BootstrapServers != tt.want.BootstrapServers ||
				got.Registry != tt.want.Registry || got.RPCTimeout != tt.want.RPCTimeout || got.OperationTimeout != tt.want.OperationTimeout {
				t.Errorf("ParseConfig = %+v, want %+v", got, tt.want)
			}
			if (got.Kerberos == nil) != (tt.want.Kerberos == nil) || got.Kerberos != nil && *got.Kerberos != *tt.want.Kerberos {
				t.Errorf("Kerberos = %+v, want %+v", got.Kerberos, tt.want.Kerberos)
			}
		})
	}
}

// A later file overrides an earlier one, as Configuration.addResource.
func TestLoadConfigOverrides(t *testing.T) {
	dir := t.TempDir()
	write := func(name, quorum string) string {
		p := filepath.Join(dir, name)
		xml := "<configuration><property><name>hbase.zookeeper.quorum</name><value>" + quorum + "</value></property></configuration>"
		if err := os.WriteFile(p, []byte(xml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := LoadConfig(write("default.xml", "a"), write("site.xml", "b:2200"))
	if err != nil || cfg.Quorum != "b:2200" {
		t.Fatalf("LoadConfig = %+v, %v; want quorum b:2200", cfg, err)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.xml")); !errors.Is(err, ErrInvalidConfig) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadConfig(missing) = %v, want ErrInvalidConfig and ErrNotExist", err)
	}
}
