package hbasecontainer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// ReadyLine is what the master logs once it has finished initialising.
const ReadyLine = "Master has completed initialization"

// Label marks the containers Run starts, so leftovers (a test binary
// killed before Terminate, with the Ryuk reaper disabled) can be found:
// docker ps -a --filter label=org.hbkit.hbasecontainer.
const Label = "org.hbkit.hbasecontainer"

// Ports are the host ports of a running HBase; each is the same number
// inside the container.
type Ports struct {
	ZK, Master, RegionServer int
}

// Container is a running HBase. Terminate (from testcontainers.Container)
// stops and removes it.
type Container struct {
	testcontainers.Container
	host  string
	ports Ports
}

// ZK returns the ZooKeeper quorum of the HBase, host:port, for hbase.New.
func (c *Container) ZK(ctx context.Context) (string, error) {
	return net.JoinHostPort(c.host, strconv.Itoa(c.ports.ZK)), nil
}

// ConnectionString is ZK, under the name testcontainers modules use.
func (c *Container) ConnectionString(ctx context.Context) (string, error) { return c.ZK(ctx) }

// Ports returns the host ports of ZooKeeper, the master and the region
// server.
func (c *Container) Ports() Ports { return c.ports }

// Option configures Run; it is a testcontainers.ContainerCustomizer, so it
// goes in the same list as testcontainers' own options.
type Option func(*settings) error

// Customize does nothing: Run reads Options before it builds the request.
func (Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

type settings struct {
	ports       Ports
	advertise   string
	hostNetwork bool
	heap        string
	timeout     time.Duration
}

// WithPorts sets the host ports (the same inside the container); 0 picks
// a free one. The default is three free ports.
func WithPorts(p Ports) Option {
	return func(s *settings) error {
		for _, n := range []int{p.ZK, p.Master, p.RegionServer} {
			if n < 0 || n > 65535 {
				return fmt.Errorf("hbasecontainer: port %d out of range", n)
			}
		}
		s.ports = p
		return nil
	}
}

// WithAdvertiseHost sets the host HBase publishes to its clients and the
// host ZK returns (default 127.0.0.1): the container engine's address when
// it runs on another machine. Ports are then published on every host
// address instead of loopback only.
func WithAdvertiseHost(host string) Option {
	return func(s *settings) error {
		if host == "" {
			return errors.New("hbasecontainer: empty advertise host")
		}
		s.advertise = host
		return nil
	}
}

// WithHostNetwork runs the container on the host's network, for engines
// that cannot publish ports; the servers listen on the advertised host.
func WithHostNetwork() Option {
	return func(s *settings) error { s.hostNetwork = true; return nil }
}

// WithHeap sets the JVM heap ("1g", the default).
func WithHeap(heap string) Option {
	return func(s *settings) error {
		if heap == "" {
			return errors.New("hbasecontainer: empty heap size")
		}
		s.heap = heap
		return nil
	}
}

// WithStartupTimeout bounds the wait for HBase to be ready (default 3
// minutes).
func WithStartupTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return errors.New("hbasecontainer: the startup timeout must be positive")
		}
		s.timeout = d
		return nil
	}
}

// Run starts image (see the image contract in the package doc) and waits
// until HBase is ready. opts are this package's Options and any
// testcontainers.ContainerCustomizer. On error the container, if one was
// started, is returned too, for its logs; the caller terminates it.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	s, err := newSettings(opts)
	if err != nil {
		return nil, err
	}
	all := append([]testcontainers.ContainerCustomizer{
		testcontainers.WithEnv(s.env()),
		testcontainers.WithLabels(map[string]string{Label: "true"}),
		testcontainers.WithExposedPorts(s.exposed()...),
		testcontainers.WithHostConfigModifier(s.hostConfig),
		testcontainers.WithWaitStrategyAndDeadline(s.timeout, wait.ForLog(ReadyLine).WithPollInterval(500*time.Millisecond)),
	}, opts...)
	ctr, err := testcontainers.Run(ctx, image, all...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr, host: s.advertise, ports: s.ports}
	}
	if err != nil {
		return c, fmt.Errorf("hbasecontainer: run %s: %w", image, err)
	}
	zk, _ := c.ZK(ctx)
	if err := waitDial(ctx, zk, s.timeout); err != nil {
		return c, fmt.Errorf("hbasecontainer: %s: ZooKeeper at %s: %w", image, zk, err)
	}
	return c, nil
}

// newSettings applies the Options among opts over the defaults and picks
// free ports for those left at 0.
func newSettings(opts []testcontainers.ContainerCustomizer) (*settings, error) {
	s := &settings{advertise: "127.0.0.1", heap: "1g", timeout: 3 * time.Minute}
	for _, o := range opts {
		if opt, ok := o.(Option); ok {
			if err := opt(s); err != nil {
				return nil, err
			}
		}
	}
	return s, s.fillPorts()
}

func (s *settings) env() map[string]string {
	bind := "0.0.0.0"
	if s.hostNetwork {
		bind = s.advertise
	}
	return map[string]string{
		"HBASE_ZK_PORT":        strconv.Itoa(s.ports.ZK),
		"HBASE_MASTER_PORT":    strconv.Itoa(s.ports.Master),
		"HBASE_RS_PORT":        strconv.Itoa(s.ports.RegionServer),
		"HBASE_ADVERTISE_HOST": s.advertise,
		"HBASE_BIND_HOST":      bind,
		"HBASE_HEAP":           s.heap,
	}
}

// exposed lists the three ports for the request's ExposedPorts.
func (s *settings) exposed() []string {
	if s.hostNetwork {
		return nil
	}
	out := make([]string, 0, 3)
	for _, p := range []int{s.ports.ZK, s.ports.Master, s.ports.RegionServer} {
		out = append(out, strconv.Itoa(p)+"/tcp")
	}
	return out
}

// hostConfig publishes each port on the same host port (loopback only
// when HBase advertises 127.0.0.1), or selects host networking.
func (s *settings) hostConfig(hc *container.HostConfig) {
	if s.hostNetwork {
		hc.NetworkMode = "host"
		return
	}
	ip := netip.IPv4Unspecified()
	if s.advertise == "127.0.0.1" {
		ip = netip.MustParseAddr("127.0.0.1")
	}
	if hc.PortBindings == nil {
		hc.PortBindings = network.PortMap{}
	}
	for _, p := range []int{s.ports.ZK, s.ports.Master, s.ports.RegionServer} {
		port, _ := network.ParsePort(strconv.Itoa(p) + "/tcp")
		hc.PortBindings[port] = []network.PortBinding{{HostIP: ip, HostPort: strconv.Itoa(p)}}
	}
}

// fillPorts gives every port left at 0 a free loopback one.
func (s *settings) fillPorts() error {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for _, p := range []*int{&s.ports.ZK, &s.ports.Master, &s.ports.RegionServer} {
		if *p != 0 {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("hbasecontainer: no free port: %w", err)
		}
		ls = append(ls, l)
		*p = l.Addr().(*net.TCPAddr).Port
	}
	return nil
}

// waitDial waits until addr accepts a TCP connection, ctx ends or d
// passes.
func waitDial(ctx context.Context, addr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var dialer net.Dialer
	for {
		conn, err := dialer.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
