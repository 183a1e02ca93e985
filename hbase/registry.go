package hbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// DefaultBootstrapPort is the port of a bootstrap server given without
// one: the master's RPC port.
const DefaultBootstrapPort = 16000

// ErrNoBootstrapServer reports that no bootstrap server answered a
// registry call (see NewFromBootstrap): each address given was tried
// once, and the error wraps each one's failure.
var ErrNoBootstrapServer = errors.New("hbase: no bootstrap server answered")

// rpcRegistry finds the active master and hbase:meta through HBase's RPC
// connection registry (ClientMetaService, HBase 2.5 and later, served by
// masters and region servers alike): the way to a cluster whose
// ZooKeeper the client cannot reach (hbase.client.bootstrap.servers in
// the Java client). Each call asks the servers in turn, starting with
// the one that answered last, until one answers.
type rpcRegistry struct {
	pool    *rpc.Pool
	servers []string
	mu      sync.Mutex
	next    int // the server to ask first
}

// call sends one ClientMetaService call to the bootstrap servers in turn
// and returns at the first answer.
func (r *rpcRegistry) call(ctx context.Context, method string, req, resp proto.Message) error {
	r.mu.Lock()
	first := r.next
	r.mu.Unlock()
	var errs []error
	for i := range r.servers {
		n := (first + i) % len(r.servers)
		addr := r.servers[n]
		err := r.pool.Call(ctx, addr, rpc.ClientMetaService, method, req, resp)
		if err == nil {
			r.mu.Lock()
			r.next = n
			r.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	return fmt.Errorf("%w: %s: %w", ErrNoBootstrapServer, method, errors.Join(errs...))
}

// Master returns the active master.
func (r *rpcRegistry) Master(ctx context.Context) (zk.Master, error) {
	var resp pb.GetActiveMasterResponse
	if err := r.call(ctx, "GetActiveMaster", &pb.GetActiveMasterRequest{}, &resp); err != nil {
		return zk.Master{}, err
	}
	if resp.ServerName == nil {
		return zk.Master{}, registryNotReady("no active master")
	}
	return zk.Master{Server: zkServerName(resp.ServerName)}, nil
}

// MetaRegionServer returns the location of hbase:meta's primary replica.
func (r *rpcRegistry) MetaRegionServer(ctx context.Context) (zk.MetaLocation, error) {
	var resp pb.GetMetaRegionLocationsResponse
	if err := r.call(ctx, "GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, &resp); err != nil {
		return zk.MetaLocation{}, err
	}
	for _, loc := range resp.GetMetaLocations() {
		if loc.GetRegionInfo().GetReplicaId() == 0 && loc.ServerName != nil {
			return zk.MetaLocation{Server: zkServerName(loc.ServerName), State: zk.StateOpen}, nil
		}
	}
	// Meta is moving: the locate loop backs off and asks again.
	return zk.MetaLocation{State: zk.StateOpening}, nil
}

// registryNotReady: the registry answered, but without what was asked
// for (no active master yet); the caller retries.
type registryNotReady string

func (e registryNotReady) Error() string   { return "hbase: connection registry: " + string(e) }
func (e registryNotReady) Retryable() bool { return true }

// Close does nothing: the connections belong to the client's pool.
func (r *rpcRegistry) Close() error { return nil }

func zkServerName(s *pb.ServerName) zk.ServerName {
	return zk.ServerName{Host: s.GetHostName(), Port: int(s.GetPort()), StartCode: s.GetStartCode()}
}

// parseServers splits "host:port,host:port" and checks each address. what
// names an address and set the list in errors ("ZooKeeper", "ZooKeeper
// quorum"); a host without a port gets port.
func parseServers(list, what, set string, port int) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		host, p, err := net.SplitHostPort(s)
		if err != nil {
			if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
				return nil, fmt.Errorf("hbase: invalid %s address %q", what, s)
			}
			host, p = strings.Trim(s, "[]"), strconv.Itoa(port)
		}
		if host == "" {
			return nil, fmt.Errorf("hbase: invalid %s address %q: empty host", what, s)
		}
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("hbase: invalid %s address %q: bad port", what, s)
		}
		out = append(out, net.JoinHostPort(host, p))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hbase: empty %s %q", set, list)
	}
	return out, nil
}
