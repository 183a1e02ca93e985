package hbasecontainer

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
)

func TestSettings(t *testing.T) {
	s, err := newSettings([]testcontainers.ContainerCustomizer{
		WithPorts(Ports{ZK: 2281}), WithHeap("512m"), testcontainers.WithEnv(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.ports.ZK != 2281 || s.ports.Master == 0 || s.ports.RegionServer == 0 || s.ports.Master == s.ports.RegionServer {
		t.Errorf("ports = %+v, want ZK 2281 and two distinct free ports", s.ports)
	}
	env := s.env()
	if env["HBASE_BIND_HOST"] != "0.0.0.0" || env["HBASE_ADVERTISE_HOST"] != "127.0.0.1" || env["HBASE_HEAP"] != "512m" {
		t.Errorf("env = %v, want bind 0.0.0.0, advertise 127.0.0.1, heap 512m", env)
	}
	var hc container.HostConfig
	s.hostConfig(&hc)
	if hc.NetworkMode == "host" || len(hc.PortBindings) != 3 {
		t.Fatalf("host config = %+v, want 3 published ports and no host network", hc)
	}
	for port, b := range hc.PortBindings {
		if len(b) != 1 || b[0].HostPort != port.Port() || b[0].HostIP.String() != "127.0.0.1" {
			t.Errorf("port %s published as %+v, want 127.0.0.1:%s", port, b, port.Port())
		}
	}
	if got := s.exposed(); len(got) != 3 {
		t.Errorf("exposed = %v, want 3", got)
	}
}

func TestSettingsHostNetwork(t *testing.T) {
	s, err := newSettings([]testcontainers.ContainerCustomizer{WithHostNetwork()})
	if err != nil {
		t.Fatal(err)
	}
	var hc container.HostConfig
	s.hostConfig(&hc)
	if hc.NetworkMode != "host" || len(hc.PortBindings) != 0 || s.exposed() != nil {
		t.Errorf("host config = %+v, exposed %v: want host network and nothing published", hc, s.exposed())
	}
	if got := s.env()["HBASE_BIND_HOST"]; got != "127.0.0.1" {
		t.Errorf("bind host = %q on host networking, want the advertised 127.0.0.1", got)
	}
}

func TestSettingsRemoteEngine(t *testing.T) {
	s, err := newSettings([]testcontainers.ContainerCustomizer{WithAdvertiseHost("docker.internal")})
	if err != nil {
		t.Fatal(err)
	}
	var hc container.HostConfig
	s.hostConfig(&hc)
	for port, b := range hc.PortBindings {
		if b[0].HostIP.String() != "0.0.0.0" {
			t.Errorf("port %s published on %s, want every address for a remote advertise host", port, b[0].HostIP)
		}
	}
	c := &Container{host: s.advertise, ports: s.ports}
	zk, _ := c.ZK(context.Background())
	if !strings.HasPrefix(zk, "docker.internal:") {
		t.Errorf("ZK = %q, want docker.internal:port", zk)
	}
}

func TestSettingsErrors(t *testing.T) {
	for name, o := range map[string]Option{
		"port":      WithPorts(Ports{ZK: 70000}),
		"heap":      WithHeap(""),
		"timeout":   WithStartupTimeout(0),
		"advertise": WithAdvertiseHost(""),
	} {
		if _, err := newSettings([]testcontainers.ContainerCustomizer{o}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNamespaceName(t *testing.T) {
	valid := regexp.MustCompile(`^t_[A-Za-z0-9_]+_[0-9a-f]{6}$`)
	for _, name := range []string{"TestX", "TestOrders/sub case#1", strings.Repeat("TestLong", 20), "Test中文"} {
		ns := NamespaceName(name)
		if !valid.MatchString(ns) || len(ns) > 50 {
			t.Errorf("NamespaceName(%q) = %q, want t_<[A-Za-z0-9_]>_<6 hex>, at most 50 characters", name, ns)
		}
	}
	if a, b := NamespaceName("TestX"), NamespaceName("TestX"); a == b {
		t.Error("two namespaces of one test share a name")
	}
}

// fakeAdmin records the calls Namespace makes.
type fakeAdmin struct {
	calls  []string
	tables map[string][]string
	fail   error
}

func (f *fakeAdmin) CreateNamespace(_ context.Context, ns string) error {
	f.calls = append(f.calls, "create "+ns)
	return f.fail
}
func (f *fakeAdmin) DeleteNamespace(_ context.Context, ns string) error {
	f.calls = append(f.calls, "drop-ns "+ns)
	return nil
}
func (f *fakeAdmin) ListTables(_ context.Context, ns string) ([]string, error) {
	return f.tables[ns], nil
}
func (f *fakeAdmin) DisableTable(_ context.Context, t string) error {
	f.calls = append(f.calls, "disable "+t)
	return nil
}
func (f *fakeAdmin) DeleteTable(_ context.Context, t string) error {
	f.calls = append(f.calls, "drop "+t)
	return nil
}

func TestNamespace(t *testing.T) {
	f := &fakeAdmin{tables: map[string][]string{}}
	var ns string
	t.Run("sub", func(t *testing.T) {
		ns = Namespace(t, f)
		f.tables[ns] = []string{ns + ":a", ns + ":b"}
		if !strings.HasPrefix(ns, "t_TestNamespace_sub_") {
			t.Errorf("namespace %q, want it named after the test", ns)
		}
	})
	want := []string{"create " + ns, "disable " + ns + ":a", "drop " + ns + ":a", "disable " + ns + ":b", "drop " + ns + ":b", "drop-ns " + ns}
	if !slices.Equal(f.calls, want) {
		t.Errorf("calls = %q, want %q", f.calls, want)
	}
	if err := dropNamespace(context.Background(), &fakeAdmin{}, "x"); err != nil {
		t.Errorf("dropping an empty namespace: %v", err)
	}
}
