package hbase

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// Client is the native HBase 2.x client. It implements DataClient (and,
// with the methods of admin.go, AdminClient). It is safe for concurrent
// use; create one per cluster and Close it when done.
//
// A Client finds the active master and hbase:meta through ZooKeeper,
// caches region locations, keeps one multiplexed connection per server
// and service, and retries failed calls with jittered backoff, bounded by
// the caller's context, WithMaxRetries and WithOperationTimeout; each RPC
// is bounded by WithRPCTimeout, and a connection whose server stops
// answering is closed and replaced.
type Client struct {
	// scannerClosed, set by tests before the first scan, learns each
	// scanner whose close call (closeScanner) has returned.
	scannerClosed func(id uint64)

	opts    options
	zk      coordinator
	pool    *rpc.Pool
	tel     *telemetry
	regions *regionCache

	// nonceGroup identifies this client for Increment/Append nonces;
	// nonces are drawn from nonce.
	nonceGroup uint64
	nonce      atomic.Uint64

	mu         sync.Mutex
	masterAddr string // cached active master "host:port"; "" to re-read ZooKeeper
	metaAddr   string // cached hbase:meta server; "" to re-read ZooKeeper

	// onMasterFailed, if set (by tests, before use), sees every failed
	// attempt of a master call: the master called, the error, and
	// whether the cached address was dropped for it.
	onMasterFailed func(addr string, err error, forgot bool)

	// rowQueues holds a *rowQueue per region server address and kind
	// of call (coalesce.go).
	rowQueues sync.Map

	closed    atomic.Bool
	done      chan struct{} // closed by Close: stops background scanner renewals
	closeOnce sync.Once
}

// coordinator is what the client reads from ZooKeeper (*zk.Client); unit
// tests substitute it.
type coordinator interface {
	Master(ctx context.Context) (zk.Master, error)
	MetaRegionServer(ctx context.Context) (zk.MetaLocation, error)
	Close() error
}

// New connects to the ZooKeeper quorum zkQuorum ("host:port[,host:port...]";
// the port defaults to 2181) and returns a client. ctx and WithZKTimeout
// bound only the connection to ZooKeeper; region servers and the master
// are dialled lazily, on first use. When every ZooKeeper address refuses
// the connection, New fails at once with the dial error
// (errors.Is(err, syscall.ECONNREFUSED)); when WithZKTimeout passes
// first, with an error matching ErrTimeout; the end of ctx is reported as
// ctx's error.
func New(ctx context.Context, zkQuorum string, opts ...Option) (*Client, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	servers, err := parseQuorum(zkQuorum)
	if err != nil {
		return nil, err
	}
	return newClient(o, func(*rpc.Pool) (coordinator, error) {
		log := o.log()
		zc, err := zk.Dial(ctx, servers, zk.WithParent(o.znodeParent), zk.WithTimeout(o.zkTimeout),
			zk.WithSessionEvents(func(state string) {
				if state == "connected" {
					log.Info("hbase: ZooKeeper session back", "quorum", zkQuorum)
					return
				}
				log.Warn("hbase: ZooKeeper session "+state, "quorum", zkQuorum)
			}))
		if err != nil {
			if errors.Is(err, zk.ErrTimeout) && ctx.Err() == nil {
				// WithZKTimeout, not the caller's deadline.
				return nil, fmt.Errorf("hbase: %w: %s", ErrTimeout, err)
			}
			return nil, fmt.Errorf("hbase: %w", err)
		}
		return zc, nil
	})
}

// NewFromBootstrap connects through HBase's RPC connection registry
// instead of ZooKeeper, as the Java client does with
// hbase.client.bootstrap.servers (HBase 2.5 and later): servers is
// "host:port[,host:port…]" of masters or region servers (the port
// defaults to DefaultBootstrapPort), which tell the client the active
// master and where hbase:meta is. For clusters whose ZooKeeper clients
// cannot reach. Nothing is dialled before the first call; a registry call
// that no server answers fails with ErrNoBootstrapServer. The options are
// New's (WithZKTimeout and WithZNodeParent do not apply).
func NewFromBootstrap(ctx context.Context, servers string, opts ...Option) (*Client, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	addrs, err := parseServers(servers, "bootstrap server", "bootstrap server list", DefaultBootstrapPort)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return newClient(o, func(pool *rpc.Pool) (coordinator, error) {
		return &rpcRegistry{pool: pool, servers: addrs}, nil
	})
}

// newOptions applies opts over the defaults and validates them.
func newOptions(opts []Option) (options, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return o, errors.New("hbase: nil Option")
		}
		opt(&o)
	}
	return o, o.validate()
}

// newClient builds the client's telemetry and connection pool, and its
// coordinator with coord.
func newClient(o options, coord func(*rpc.Pool) (coordinator, error)) (*Client, error) {
	tel, err := newTelemetry(&o)
	if err != nil {
		return nil, fmt.Errorf("hbase: telemetry: %w", err)
	}
	rpcOpts := cellBlockOptions()
	if o.dial != nil {
		rpcOpts = append(rpcOpts, rpc.WithDialFunc(o.dial))
	}
	if o.user != "" {
		rpcOpts = append(rpcOpts, rpc.WithUser(o.user))
	}
	if o.rpcTimeout > 0 {
		// A server that stops reading stalls writes: bound them too.
		rpcOpts = append(rpcOpts, rpc.WithWriteTimeout(o.rpcTimeout))
	}
	if o.tls != nil {
		rpcOpts = append(rpcOpts, rpc.WithTLS(o.tls))
	}
	if o.kerberos != nil {
		ko, err := o.kerberos.rpcOption()
		if err != nil {
			return nil, err
		}
		rpcOpts = append(rpcOpts, ko)
	}
	pool, err := rpc.NewPool(rpcOpts...)
	if err != nil {
		return nil, fmt.Errorf("hbase: %w", err)
	}
	co, err := coord(pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	var seed [8]byte
	if _, err := rand.Read(seed[:]); err != nil {
		co.Close()
		pool.Close()
		return nil, fmt.Errorf("hbase: nonce group: %w", err)
	}
	c := &Client{
		opts:       o,
		zk:         co,
		pool:       pool,
		tel:        tel,
		regions:    newRegionCache(),
		nonceGroup: binary.BigEndian.Uint64(seed[:]),
		done:       make(chan struct{}),
	}
	c.nonce.Store(uint64(seed[3])<<32 | uint64(seed[5]))
	return c, nil
}

// parseQuorum splits "host:port,host:port" and checks each address.
func parseQuorum(q string) ([]string, error) {
	return parseServers(q, "ZooKeeper", "ZooKeeper quorum", 2181)
}

// Close closes the connections and the ZooKeeper session. Calls in
// flight fail; later calls return ErrClosed. It is safe to call more than
// once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		close(c.done)
		c.pool.Close()
		if c.zk != nil {
			c.zk.Close()
		}
	})
	return nil
}

// checkOpen returns ErrClosed once Close was called.
func (c *Client) checkOpen() error {
	if c.closed.Load() {
		return ErrClosed
	}
	return nil
}

// newNonce returns a fresh nonce for a non-idempotent mutation or master
// procedure (use c.nonceGroup as its group). Never 0, which means "none".
func (c *Client) newNonce() uint64 {
	for {
		if n := c.nonce.Add(1); n != 0 {
			return n
		}
	}
}

// masterAddress returns the active master's address, from ZooKeeper unless
// cached.
func (c *Client) masterAddress(ctx context.Context) (string, error) {
	c.mu.Lock()
	addr := c.masterAddr
	c.mu.Unlock()
	if addr != "" {
		return addr, nil
	}
	m, err := c.zk.Master(ctx)
	if err != nil {
		return "", err
	}
	addr = m.Server.Addr()
	c.mu.Lock()
	c.masterAddr = addr
	c.mu.Unlock()
	return addr, nil
}

func (c *Client) forgetMaster(addr string) {
	c.mu.Lock()
	if c.masterAddr == addr {
		c.masterAddr = ""
	}
	c.mu.Unlock()
}

// masterCall calls method on the active master's MasterService, for the
// AdminClient methods (admin*.go). It is the only way admin code should
// reach the master.
//
//   - method is the exact, case-sensitive name ("CreateTable",
//     "truncateTable", "getProcedureResult", ...); req and resp are the
//     pb request and response messages (resp may be nil).
//   - The master is found through ZooKeeper (<parent>/master) and cached;
//     a connection error drops the cache so the next attempt re-reads
//     ZooKeeper (the master may have failed over).
//   - Retried, with jittered backoff, on connection errors and on
//     PleaseHoldException, ServerNotRunningYetException,
//     MasterNotRunningException and other non-DoNotRetry IOExceptions;
//     bounded by ctx, WithMaxRetries, WithOperationTimeout and, per
//     attempt, WithRPCTimeout. Non-idempotent requests (CreateTable, ...)
//     should carry nonce_group = c.nonceGroup and nonce = c.newNonce(),
//     drawn once per logical operation and reused by the retries, so that
//     the master recognises a resend.
//   - Errors: server exceptions come back as *RemoteError, whose
//     errors.Is matches the sentinels (TableNotFoundException →
//     ErrTableNotFound, TableExistsException → ErrTableExists,
//     TableNotEnabledException → ErrTableDisabled, TableNotDisabledException
//     → ErrTableNotDisabled, NamespaceNotFoundException,
//     NamespaceExistException, ConstraintException "non empty namespace" →
//     ErrNamespaceNotEmpty); ErrClosed after Close; the context's error
//     (wrapping the last failure) when ctx ends first.
//   - It does not trace: wrap the whole admin operation with
//     ctx, sp := c.startOp(ctx, "create_table", table) and
//     defer func() { sp.end(ctx, err) }() (telemetry.go).
//
// For the regions of a table use c.tableRegions (meta.go); for the region
// holding a row, c.locate (locate.go), whose result carries the RegionInfo
// as read from hbase:meta (what SplitRegion needs).
func (c *Client) masterCall(ctx context.Context, method string, req, resp proto.Message) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	ctx, cancelOp := c.operationContext(ctx)
	defer cancelOp()
	sp := spanFromContext(ctx)
	r := c.newRetrier(func(reason string) { sp.retried(ctx, reason) })
	for {
		addr, err := c.masterAddress(ctx)
		if err == nil {
			sp.setServer(addr)
			actx, cancel := c.attemptContext(ctx)
			err = c.pool.Call(actx, addr, rpc.MasterService, method, req, resp)
			err = r.attempted(attemptError(ctx, actx, err))
			cancel()
		} else if ctx.Err() == nil && !errors.Is(err, zk.ErrMalformed) {
			// ZooKeeper trouble or no master znode yet: retry.
			err = &zkError{err: err}
		}
		if err == nil {
			return nil
		}
		if c.closed.Load() {
			return ErrClosed
		}
		kind := classify(err)
		c.masterFailed(addr, err, kind) // master.go
		if werr := r.wait(ctx, err, kind); werr != nil {
			return werr
		}
	}
}

// zkError is a failed ZooKeeper read: retryable.
type zkError struct{ err error }

func (e *zkError) Error() string   { return "hbase: " + e.err.Error() }
func (e *zkError) Unwrap() error   { return e.err }
func (e *zkError) Retryable() bool { return true }

// metaAddress returns the location of hbase:meta, from ZooKeeper unless
// cached. A meta region that is not OPEN is reported as retryable.
func (c *Client) metaAddress(ctx context.Context) (string, error) {
	c.mu.Lock()
	addr := c.metaAddr
	c.mu.Unlock()
	if addr != "" {
		return addr, nil
	}
	loc, err := c.zk.MetaRegionServer(ctx)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, zk.ErrMalformed) {
			return "", &zkError{err: err}
		}
		return "", err
	}
	if loc.State != zk.StateOpen {
		return "", errRegionNotReady
	}
	addr = loc.Server.Addr()
	c.mu.Lock()
	c.metaAddr = addr
	c.mu.Unlock()
	return addr, nil
}

func (c *Client) forgetMeta(addr string) {
	c.mu.Lock()
	if c.metaAddr == addr || addr == "" {
		c.metaAddr = ""
	}
	c.mu.Unlock()
}

func splitHostPort(addr string) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(port)
	return host, n
}
