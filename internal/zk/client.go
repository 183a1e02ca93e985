package zk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gozk "github.com/go-zookeeper/zk"
)

// DefaultParent is HBase's default zookeeper.znode.parent.
const DefaultParent = "/hbase"

// ErrNoNode means the znode does not exist: HBase is not (yet) running, or
// the parent znode is wrong.
var ErrNoNode = errors.New("zk: znode does not exist")

// Option configures a Client.
type Option func(*options)

type options struct {
	parent         string
	sessionTimeout time.Duration
	timeout        time.Duration
	logf           func(format string, args ...any)
	onSession      func(state string) // WithSessionEvents; may be nil
}

// sessionStates names the session states WithSessionEvents reports.
var sessionStates = map[gozk.State]string{
	gozk.StateDisconnected: "disconnected",
	gozk.StateExpired:      "expired",
	gozk.StateHasSession:   "connected",
	gozk.StateAuthFailed:   "auth failed",
}

// WithSessionEvents calls f, on the session's event goroutine, with the
// new state each time the session's state changes after it was first
// established: "disconnected", "expired", "connected" (again),
// "auth failed". f must not block.
func WithSessionEvents(f func(state string)) Option {
	return func(o *options) { o.onSession = f }
}

// WithParent sets the parent znode (zookeeper.znode.parent); default
// "/hbase".
func WithParent(parent string) Option { return func(o *options) { o.parent = parent } }

// WithSessionTimeout sets the ZooKeeper session timeout; default 10s.
func WithSessionTimeout(d time.Duration) Option { return func(o *options) { o.sessionTimeout = d } }

// WithTimeout bounds every call (connecting included) when the context
// allows longer; default 10s.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithLogf receives the ZooKeeper library's log lines. By default they are
// discarded (the library would otherwise print to the standard logger).
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.logf = logf }
}

func (o *options) validate() error {
	if o.parent == "" || !strings.HasPrefix(o.parent, "/") || (len(o.parent) > 1 && strings.HasSuffix(o.parent, "/")) {
		return fmt.Errorf("zk: invalid parent znode %q", o.parent)
	}
	if o.sessionTimeout <= 0 {
		return fmt.Errorf("zk: session timeout %v <= 0", o.sessionTimeout)
	}
	if o.timeout <= 0 {
		return fmt.Errorf("zk: timeout %v <= 0", o.timeout)
	}
	if o.logf == nil {
		return errors.New("zk: WithLogf(nil)")
	}
	return nil
}

type logger func(format string, args ...any)

func (l logger) Printf(format string, args ...any) { l(format, args...) }

// Client reads HBase's bootstrap znodes. It holds one ZooKeeper session;
// Close it when done. It is safe for concurrent use.
type Client struct {
	conn *gozk.Conn
	opts options
}

// ErrTimeout: no session within the timeout of WithTimeout (the caller's
// context, when it ends first, is reported as its own error).
var ErrTimeout = errors.New("zk: timeout")

// Dial connects to a ZooKeeper ensemble ("host:port" each; the port
// defaults to 2181) and waits for a session, within ctx and the
// configured timeout. When every address of the ensemble refused the
// connection (or failed otherwise than by timing out), it returns at once
// with the last dial error, so errors.Is(err, syscall.ECONNREFUSED)
// holds; when the timeout passes first, an error wrapping ErrTimeout and
// context.DeadlineExceeded.
func Dial(ctx context.Context, servers []string, opts ...Option) (*Client, error) {
	o := options{parent: DefaultParent, sessionTimeout: 10 * time.Second, timeout: 10 * time.Second,
		logf: func(string, ...any) {}}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, errors.New("zk: no servers")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.timeout, ErrTimeout)
	defer cancel()

	session := make(chan struct{}, 1)
	var established atomic.Bool
	watch := &dialWatch{down: make(chan error, 1)}
	conn, _, err := gozk.Connect(servers, o.sessionTimeout,
		gozk.WithHostProvider(watch), gozk.WithDialer(watch.dial),
		gozk.WithLogger(logger(o.logf)),
		gozk.WithLogInfo(false),
		gozk.WithEventCallback(func(ev gozk.Event) {
			if ev.Type != gozk.EventSession {
				return
			}
			if ev.State == gozk.StateHasSession && !established.Swap(true) {
				session <- struct{}{} // the first session: Dial may wait for it
				return
			}
			if name, ok := sessionStates[ev.State]; ok && o.onSession != nil {
				o.onSession(name)
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("zk: connect %v: %w", servers, err)
	}
	if conn.State() != gozk.StateHasSession {
		select {
		case <-session:
		case err := <-watch.down:
			go conn.Close()
			return nil, fmt.Errorf("zk: connect %v: %w", servers, err)
		case <-ctx.Done():
			// Close can block for seconds while no session exists; do
			// not make the caller wait for it.
			go conn.Close()
			if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
				err := fmt.Errorf("zk: connect %v: no session within %v: %w: %w", servers, o.timeout, cause, ctx.Err())
				if last := watch.lastError(); last != nil {
					err = fmt.Errorf("%w (last dial: %v)", err, last)
				}
				return nil, err
			}
			return nil, fmt.Errorf("zk: connect %v: %w", servers, ctx.Err())
		}
	}
	return &Client{conn: conn, opts: o}, nil
}

// dialWatch is the session's host provider and dialer: it tells Dial,
// on down, when every address failed to connect since the last
// connection, each with an error other than a timeout.
type dialWatch struct {
	gozk.DNSHostProvider
	down chan error // buffered; receives once

	mu     sync.Mutex
	failed map[string]bool
	last   error
}

func (w *dialWatch) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	nc, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		return nc, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = err
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return nil, err
	}
	if w.failed == nil {
		w.failed = make(map[string]bool)
	}
	w.failed[addr] = true
	if len(w.failed) >= w.Len() {
		select {
		case w.down <- err:
		default:
		}
	}
	return nil, err
}

// Connected implements gozk.HostProvider.
func (w *dialWatch) Connected() {
	w.mu.Lock()
	w.failed = nil
	w.mu.Unlock()
	w.DNSHostProvider.Connected()
}

func (w *dialWatch) lastError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// Close ends the session.
func (c *Client) Close() error {
	c.conn.Close()
	return nil
}

// get reads a znode under the parent, within ctx and the timeout. If ctx
// ends first, the read is abandoned (it finishes or fails when the
// session closes).
func (c *Client) get(ctx context.Context, name string) ([]byte, error) {
	p := path.Join(c.opts.parent, name)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("zk: get %s: %w", p, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.timeout)
	defer cancel()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, _, err := c.conn.Get(p)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		if errors.Is(r.err, gozk.ErrNoNode) {
			return nil, fmt.Errorf("zk: get %s: %w", p, ErrNoNode)
		}
		if r.err != nil {
			return nil, fmt.Errorf("zk: get %s: %w", p, r.err)
		}
		return r.data, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("zk: get %s: %w", p, ctx.Err())
	}
}

// Master returns the active master, from <parent>/master.
func (c *Client) Master(ctx context.Context) (Master, error) {
	data, err := c.get(ctx, "master")
	if err != nil {
		return Master{}, err
	}
	return DecodeMaster(data)
}

// MetaRegionServer returns the location of hbase:meta, from
// <parent>/meta-region-server. Check the returned State before using it.
func (c *Client) MetaRegionServer(ctx context.Context) (MetaLocation, error) {
	data, err := c.get(ctx, "meta-region-server")
	if err != nil {
		return MetaLocation{}, err
	}
	return DecodeMetaRegionServer(data)
}

// RegionServer reports whether the region server s (its start code
// included, unless zero) is registered under <parent>/rs, that is, alive as far as the master
// knows: its znode goes when the server stops or its session expires,
// which is when the master starts reassigning its regions. changed is
// closed when the children of <parent>/rs change next (a one-time watch),
// or when the session ends, so that a caller can wait for a server to go
// instead of polling.
func (c *Client) RegionServer(ctx context.Context, s ServerName) (registered bool, changed <-chan struct{}, err error) {
	p := path.Join(c.opts.parent, "rs")
	if err := ctx.Err(); err != nil {
		return false, nil, fmt.Errorf("zk: children %s: %w", p, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.timeout)
	defer cancel()
	type result struct {
		children []string
		ev       <-chan gozk.Event
		err      error
	}
	done := make(chan result, 1)
	go func() {
		children, _, ev, err := c.conn.ChildrenW(p)
		done <- result{children, ev, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return false, nil, fmt.Errorf("zk: children %s: %w", p, ctx.Err())
	}
	if errors.Is(r.err, gozk.ErrNoNode) {
		return false, nil, fmt.Errorf("zk: children %s: %w", p, ErrNoNode)
	}
	if r.err != nil {
		return false, nil, fmt.Errorf("zk: children %s: %w", p, r.err)
	}
	ch := make(chan struct{})
	go func() {
		<-r.ev // one event, then the library closes the channel
		close(ch)
	}()
	return registeredIn(r.children, s), ch, nil
}

// registeredIn reports whether the children of <parent>/rs name s: HBase
// names each "host,port,startcode". A zero StartCode matches any process
// at s's host and port.
func registeredIn(children []string, s ServerName) bool {
	if s.StartCode == 0 {
		prefix := s.Host + "," + strconv.Itoa(s.Port) + ","
		return slices.ContainsFunc(children, func(c string) bool { return strings.HasPrefix(c, prefix) })
	}
	return slices.Contains(children, s.String())
}

// Bootstrap is what a client needs to start: the active master and the
// location of hbase:meta.
type Bootstrap struct {
	Master Master
	Meta   MetaLocation
}

// Locate connects, reads both znodes and disconnects.
func Locate(ctx context.Context, servers []string, opts ...Option) (Bootstrap, error) {
	c, err := Dial(ctx, servers, opts...)
	if err != nil {
		return Bootstrap{}, err
	}
	defer c.Close()
	m, err := c.Master(ctx)
	if err != nil {
		return Bootstrap{}, err
	}
	meta, err := c.MetaRegionServer(ctx)
	if err != nil {
		return Bootstrap{}, err
	}
	return Bootstrap{Master: m, Meta: meta}, nil
}
