package hbase

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures a Client. Options are applied in order by New and
// validated once; an invalid option makes New fail.
type Option func(*options)

type options struct {
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	user        string
	znodeParent string
	zkTimeout   time.Duration

	retryBudget time.Duration // WithOperationTimeout (WithRetryBudget)
	rpcTimeout  time.Duration
	maxRetries  int
	backoffBase time.Duration
	backoffMax  time.Duration

	scanCaching       int
	scanMaxResultSize int64
	scannerLease      time.Duration
	noScanReadAhead   bool // WithScanReadAhead(false)

	maxCellSize int // WithMaxCellSize; 0: no limit
	writeBuffer int // WithWriteBufferSize

	kerberos *Kerberos   // WithKerberos; nil: SIMPLE
	tls      *tls.Config // WithTLS; nil: plain TCP

	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	logger         *slog.Logger // WithLogger; nil: silent (see log)

	// set records which options were given, to reject nil providers
	// and dialers given explicitly.
	nilDial, nilTracer, nilMeter, nilTLS bool
}

// Defaults. The backoff follows the Java client's hbase.client.pause
// (100 ms) multipliers, capped; see retry.go. With the default timeouts a
// call to a server that never answers returns within
// DefaultOperationTimeout, whatever the caller's context.
const (
	// DefaultOperationTimeout bounds one operation: see
	// WithOperationTimeout.
	DefaultOperationTimeout = 30 * time.Second
	// DefaultRPCTimeout bounds one RPC: see WithRPCTimeout.
	DefaultRPCTimeout = 10 * time.Second
	// DefaultRetryBudget is the former name of DefaultOperationTimeout.
	DefaultRetryBudget = DefaultOperationTimeout
	DefaultMaxRetries  = 15
	// DefaultScanCaching leaves the rows per scan RPC unbounded, so
	// DefaultScanMaxResultSize decides (the defaults of HBase's Java
	// client and of gohbase).
	DefaultScanCaching       = math.MaxInt32
	DefaultScanMaxResultSize = 2 << 20
	defaultBackoffBase       = 100 * time.Millisecond
	defaultBackoffMax        = 10 * time.Second
	defaultZKTimeout         = 10 * time.Second
	// defaultScannerLease is how long an idle scanner may wait before the
	// client renews its lease; HBase's default lease is 60 s.
	defaultScannerLease = 20 * time.Second
)

func defaultOptions() options {
	return options{
		znodeParent:       "/hbase",
		zkTimeout:         defaultZKTimeout,
		retryBudget:       DefaultOperationTimeout,
		rpcTimeout:        DefaultRPCTimeout,
		maxRetries:        DefaultMaxRetries,
		backoffBase:       defaultBackoffBase,
		backoffMax:        defaultBackoffMax,
		scanCaching:       DefaultScanCaching,
		scanMaxResultSize: DefaultScanMaxResultSize,
		scannerLease:      defaultScannerLease,
		maxCellSize:       DefaultMaxCellSize,
		writeBuffer:       DefaultWriteBufferSize,
	}
}

func (o *options) validate() error {
	switch {
	case o.nilDial:
		return errors.New("hbase: WithDialer(nil)")
	case o.nilTracer:
		return errors.New("hbase: WithTracerProvider(nil)")
	case o.nilMeter:
		return errors.New("hbase: WithMeterProvider(nil)")
	case o.nilTLS:
		return errors.New("hbase: WithTLS(nil)")
	case o.znodeParent == "" || !strings.HasPrefix(o.znodeParent, "/") ||
		(len(o.znodeParent) > 1 && strings.HasSuffix(o.znodeParent, "/")):
		return fmt.Errorf("hbase: invalid znode parent %q", o.znodeParent)
	case o.zkTimeout <= 0:
		return fmt.Errorf("hbase: ZooKeeper timeout %v <= 0", o.zkTimeout)
	case o.rpcTimeout < 0:
		return fmt.Errorf("hbase: RPC timeout %v < 0", o.rpcTimeout)
	case o.retryBudget <= 0:
		return fmt.Errorf("hbase: operation timeout %v <= 0", o.retryBudget)
	case o.maxRetries < 0:
		return fmt.Errorf("hbase: max retries %d < 0", o.maxRetries)
	case o.backoffBase <= 0 || o.backoffMax < o.backoffBase:
		return fmt.Errorf("hbase: invalid backoff (base %v, max %v)", o.backoffBase, o.backoffMax)
	case o.scanCaching <= 0:
		return fmt.Errorf("hbase: scan caching %d <= 0", o.scanCaching)
	case o.scanMaxResultSize <= 0:
		return fmt.Errorf("hbase: scan max result size %d <= 0", o.scanMaxResultSize)
	case o.scannerLease <= 0:
		return fmt.Errorf("hbase: scanner lease renewal %v <= 0", o.scannerLease)
	case o.maxCellSize < 0:
		return fmt.Errorf("hbase: max cell size %d < 0", o.maxCellSize)
	case o.writeBuffer <= 0:
		return fmt.Errorf("hbase: write buffer size %d <= 0", o.writeBuffer)
	case strings.ContainsAny(o.user, "\x00"):
		return fmt.Errorf("hbase: invalid user %q", o.user)
	}
	return nil
}

// WithDialer replaces the function that opens TCP connections to region
// servers and the master (default: a net.Dialer with keep-alive). The
// address passed is the one HBase advertises in ZooKeeper and hbase:meta;
// a dialer can map it to a reachable one, or tunnel. ZooKeeper itself is
// dialled directly at the quorum addresses given to New.
func WithDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(o *options) { o.dial, o.nilDial = dial, dial == nil }
}

// WithUser sets the user name sent to HBase (SIMPLE authentication);
// default: the OS user.
func WithUser(name string) Option { return func(o *options) { o.user = name } }

// WithZNodeParent sets zookeeper.znode.parent (default "/hbase").
func WithZNodeParent(parent string) Option { return func(o *options) { o.znodeParent = parent } }

// WithZKTimeout bounds connecting to ZooKeeper and each znode read
// (default 10s), within the caller's context.
func WithZKTimeout(d time.Duration) Option { return func(o *options) { o.zkTimeout = d } }

// WithOperationTimeout bounds each operation as a whole, like the Java
// client's hbase.client.operation.timeout: a Get, Put, Batch, admin call
// and so on, with its region lookups, attempts, backoffs and retries
// (default DefaultOperationTimeout, 30s; the Java client's is 20 minutes).
// For a scan it bounds each fetch of rows from the servers (the role of
// hbase.client.scanner.timeout.period), not the whole scan; see
// Client.Operation for several calls bounded as one. The caller's
// context bounds operations too; whichever ends first wins. An operation
// that runs out of it fails with an error matching ErrTimeout.
func WithOperationTimeout(d time.Duration) Option {
	return func(o *options) { o.retryBudget = d }
}

// WithRPCTimeout bounds each RPC (one attempt of an operation), like the
// Java client's hbase.rpc.timeout (default DefaultRPCTimeout, 10s; the
// Java client's is 60s; 0: only the operation timeout and the caller's
// context). The remaining time is sent to the server, which stops long
// scans early with a heartbeat. An attempt that times out is retried
// within the operation timeout; if the server sent nothing at all on the
// connection meanwhile, it is taken to have stopped answering: the
// connection is closed, the calls waiting on it fail at once, and the next
// attempt dials a fresh one. Writes to a server that stopped reading are
// bounded by it as well. Choose it above the slowest RPC you expect.
func WithRPCTimeout(d time.Duration) Option { return func(o *options) { o.rpcTimeout = d } }

// WithRetryBudget is the former name of WithOperationTimeout: the same
// setting. New code should use WithOperationTimeout.
func WithRetryBudget(d time.Duration) Option { return WithOperationTimeout(d) }

// WithMaxRetries bounds the number of retries of one call after its first
// attempt (default DefaultMaxRetries); 0 disables retries. Immediate
// resends of the failed part of a batch (RetryImmediatelyException) count
// too.
func WithMaxRetries(n int) Option { return func(o *options) { o.maxRetries = n } }

// WithBackoff sets the base and the cap of the exponential backoff between
// retries (default 100ms and 10s). Every wait is jittered.
func WithBackoff(base, max time.Duration) Option {
	return func(o *options) { o.backoffBase, o.backoffMax = base, max }
}

// WithScanDefaults sets the rows per scan RPC and the bytes per scan RPC
// used when a Scan leaves Caching or MaxResultSize at 0 (default
// DefaultScanCaching rows and DefaultScanMaxResultSize bytes).
func WithScanDefaults(caching int, maxResultSize int64) Option {
	return func(o *options) { o.scanCaching, o.scanMaxResultSize = caching, maxResultSize }
}

// WithScanReadAhead says whether a scanner asks for its next response
// while the caller reads the rows of the current one (default true).
// The server then fills the next response as the client decodes and the
// caller consumes this one, so a long scan waits on the slower of the two
// instead of their sum; a scanner holds at most two responses. Read-ahead
// starts only when a response leaves rows to read in its region and the
// scan's Limit is not reached, so scans that fit one response (a StopRow
// close to StartRow, a small Limit) never make the extra call; a scan
// the caller closes early may have made one call more than it used:
// Close gives that call up at once, and the scanner its answer leaves
// open is closed when the answer comes.
func WithScanReadAhead(on bool) Option {
	return func(o *options) { o.noScanReadAhead = !on }
}

// WithScannerLeaseRenewal sets how long a scanner may stay idle (the
// consumer not calling Next) before the client renews its server-side
// lease in the background (default 20s; HBase expires scanners after 60s).
func WithScannerLeaseRenewal(d time.Duration) Option {
	return func(o *options) { o.scannerLease = d }
}

// WithMaxCellSize sets the largest cell, as CellSize counts it, that the
// client sends, like the Java client's hbase.client.keyvalue.maxsize
// (default DefaultMaxCellSize, HBase's default; 0: no limit). A write
// with a larger cell fails before anything is sent, with an
// *InvalidRequestError wrapping ErrCellTooLarge that names the column.
// Raise it only with the servers' hbase.server.keyvalue.maxsize.
func WithMaxCellSize(n int) Option { return func(o *options) { o.maxCellSize = n } }

// WithWriteBufferSize bounds the bytes of the mutations (as CellSize
// counts them) of one Multi request a Batch or the coalesced writes
// send, like the Java client's hbase.client.write.buffer (default
// DefaultWriteBufferSize, 2 MiB); a larger mutation goes in a request of
// its own. With at most 8 requests of a Batch in flight, it bounds the
// memory a Batch asks of the servers at a time.
func WithWriteBufferSize(n int) Option { return func(o *options) { o.writeBuffer = n } }

// WithTracerProvider sets the provider of the client's tracer. Without
// it, the global provider (otel.GetTracerProvider) is used.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider, o.nilTracer = tp, tp == nil }
}

// WithLogger logs what the client does on its own, which no call's error
// reports: a region that moved or whose location was dropped, a
// ZooKeeper session lost, expired or back, a call that ran out of
// retries or time, a scanner's lease renewal that failed. Records carry
// table and server names and error texts, never row keys or values (keys
// hold phone numbers). Without it the client is silent; nil means
// silent too.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		o.logger = l
	}
}

// log returns the WithLogger logger, a silent one if none is set (a zero
// options, as some tests build).
func (o *options) log() *slog.Logger {
	if o.logger == nil {
		return silent
	}
	return o.logger
}

// silent discards every record.
var silent = slog.New(slog.DiscardHandler)

// WithMeterProvider sets the provider of the client's meter. Without it,
// the global provider (otel.GetMeterProvider) is used.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.meterProvider, o.nilMeter = mp, mp == nil }
}

// WriteLimits returns the limits c applies to writes (WithMaxCellSize,
// WithWriteBufferSize).
func (c *Client) WriteLimits() WriteLimits {
	return WriteLimits{MaxCellSize: c.opts.maxCellSize, WriteBufferSize: c.opts.writeBuffer}
}
