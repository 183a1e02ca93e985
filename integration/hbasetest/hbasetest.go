package hbasetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Mode says where an HBase comes from.
type Mode string

const (
	// ModeContainer runs HBase in a container through testcontainers-go.
	ModeContainer Mode = "container"
	// ModeLocal uses the local launcher (tools/hbase): its running HBase, or
	// a throwaway one it starts.
	ModeLocal Mode = "local"
	// ModeZK uses the HBase whose ZooKeeper quorum HBKIT_ZK names.
	ModeZK Mode = "zk"
)

// Environment variables the harness reads.
const (
	EnvMode    = "HBKIT_HBASE" // container, local or zk: force a mode
	EnvZK      = "HBKIT_ZK"    // host:port[,host:port…] of an existing HBase
	EnvImage   = "HBKIT_IMAGE" // image to run in container mode
	EnvTimeout = "HBKIT_HBASE_TIMEOUT"
)

// ReadyLine is what the master logs once it has finished initialising.
const ReadyLine = "Master has completed initialization"

// ErrNoHBase is returned by [Choose] and [Start] when no mode is possible.
var ErrNoHBase = errors.New("hbasetest: no HBase: no container engine answers, HBKIT_ZK is unset, " +
	"and the local launcher cannot run here (needs the hbkit repository and Java 17)")

// HBase is a running HBase for tests.
type HBase struct {
	// Mode is where it came from.
	Mode Mode
	// ZK is its ZooKeeper quorum, the value for HBKIT_ZK.
	ZK string
	// Image is the image it runs in container mode.
	Image string
	// Ready is how long it took from Start until the master answered.
	Ready time.Duration

	stop func(ctx context.Context) error
	logs func(ctx context.Context) string
}

// Stop stops and removes what Start started; an HBase the harness found
// running is left alone. It is safe to call more than once.
func (h *HBase) Stop(ctx context.Context) error {
	if h == nil || h.stop == nil {
		return nil
	}
	stop := h.stop
	h.stop = nil
	return stop(ctx)
}

// Logs returns the tail of the server log, when the harness can reach it.
func (h *HBase) Logs(ctx context.Context) string {
	if h == nil || h.logs == nil {
		return ""
	}
	return h.logs(ctx)
}

// Option configures [Start] and [Choose].
type Option func(*options)

type options struct {
	mode                       Mode
	zk                         string
	image                      string
	zkPort, masterPort, rsPort int
	heap                       string
	timeout                    time.Duration
	log                        io.Writer
	repo                       string // hbkit repository root; "" finds it from the working directory
}

// WithMode forces a mode instead of choosing one.
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithImage sets the image for container mode instead of building it with
// tools/image/build.sh.
func WithImage(ref string) Option { return func(o *options) { o.image = ref } }

// WithPorts sets the ZooKeeper, master and region server ports of an HBase
// the harness starts; 0 picks a free loopback port.
func WithPorts(zk, master, rs int) Option {
	return func(o *options) { o.zkPort, o.masterPort, o.rsPort = zk, master, rs }
}

// WithHeap sets the JVM heap of an HBase the harness starts ("1g").
func WithHeap(heap string) Option { return func(o *options) { o.heap = heap } }

// WithTimeout bounds the wait for the master to finish initialising.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithLog sends progress messages to w (default: os.Stderr).
func WithLog(w io.Writer) Option { return func(o *options) { o.log = w } }

// WithRepo names the hbkit repository root, for the image build script and
// the local launcher (default: found above the working directory).
func WithRepo(dir string) Option { return func(o *options) { o.repo = dir } }

// newOptions reads the environment through getenv, then applies opts.
func newOptions(getenv func(string) string, opts []Option) (*options, error) {
	o := &options{
		mode:    Mode(strings.TrimSpace(getenv(EnvMode))),
		zk:      strings.TrimSpace(getenv(EnvZK)),
		image:   strings.TrimSpace(getenv(EnvImage)),
		heap:    "1g",
		timeout: 3 * time.Minute,
		log:     os.Stderr,
	}
	if v := strings.TrimSpace(getenv("HBKIT_HBASE_HEAP")); v != "" {
		o.heap = v
	}
	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		secs, err := strconv.Atoi(v)
		if err != nil || secs <= 0 {
			return nil, fmt.Errorf("hbasetest: %s=%q is not a positive number of seconds", EnvTimeout, v)
		}
		o.timeout = time.Duration(secs) * time.Second
	}
	for _, p := range []struct {
		dst  *int
		name string
	}{{&o.zkPort, "HBKIT_ZK_PORT"}, {&o.masterPort, "HBKIT_MASTER_PORT"}, {&o.rsPort, "HBKIT_RS_PORT"}} {
		v := strings.TrimSpace(getenv(p.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("hbasetest: %s=%q is not a port", p.name, v)
		}
		*p.dst = n
	}
	for _, opt := range opts {
		opt(o)
	}
	return o, o.validate()
}

func (o *options) validate() error {
	switch o.mode {
	case "", ModeContainer, ModeLocal, ModeZK:
	default:
		return fmt.Errorf("hbasetest: unknown mode %q (want %s, %s or %s)", o.mode, ModeContainer, ModeLocal, ModeZK)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"ZooKeeper", o.zkPort}, {"master", o.masterPort}, {"region server", o.rsPort}} {
		if p.v < 0 || p.v > 65535 {
			return fmt.Errorf("hbasetest: %s port %d is out of range", p.name, p.v)
		}
	}
	if o.timeout <= 0 {
		return errors.New("hbasetest: the timeout must be positive")
	}
	if o.heap == "" {
		return errors.New("hbasetest: empty heap size")
	}
	if o.log == nil {
		o.log = io.Discard
	}
	return nil
}

func (o *options) logf(format string, args ...any) {
	fmt.Fprintf(o.log, "hbasetest: "+format+"\n", args...)
}

// probes are the checks [Choose] makes; tests replace them.
type probes struct {
	engine func(ctx context.Context) error // nil when a container engine answers
	local  func(o *options) error          // nil when the local launcher can run
}

func defaultProbes() probes { return probes{engine: engineReachable, local: localUsable} }

// Choose says which mode [Start] would use, and why.
//
// HBKIT_HBASE (or [WithMode]) forces a mode. Otherwise: container when a
// container engine answers; else zk when HBKIT_ZK is set (an HBase the caller
// started for the whole run, as make test and tools/ci-containers.sh do);
// else local when the local launcher can run here.
func Choose(ctx context.Context, opts ...Option) (Mode, string, error) {
	o, err := newOptions(os.Getenv, opts)
	if err != nil {
		return "", "", err
	}
	return choose(ctx, o, defaultProbes())
}

func choose(ctx context.Context, o *options, p probes) (Mode, string, error) {
	if o.mode != "" {
		return o.mode, "forced by " + EnvMode + " or WithMode", nil
	}
	engineErr := p.engine(ctx)
	if engineErr == nil {
		return ModeContainer, "a container engine answers", nil
	}
	if o.zk != "" {
		return ModeZK, EnvZK + " is set and no container engine answers (" + engineErr.Error() + ")", nil
	}
	localErr := p.local(o)
	if localErr == nil {
		return ModeLocal, "no container engine answers (" + engineErr.Error() + ") and " + EnvZK + " is unset", nil
	}
	return "", "", fmt.Errorf("%w (engine: %v; local: %v)", ErrNoHBase, engineErr, localErr)
}

// Start gives an HBase, chosen as [Choose] says, and waits until it is ready.
// The caller stops it with [HBase.Stop].
func Start(ctx context.Context, opts ...Option) (*HBase, error) {
	o, err := newOptions(os.Getenv, opts)
	if err != nil {
		return nil, err
	}
	mode, why, err := choose(ctx, o, defaultProbes())
	if err != nil {
		return nil, err
	}
	o.logf("mode %s: %s", mode, why)
	begin := time.Now()
	var h *HBase
	switch mode {
	case ModeContainer:
		h, err = startContainer(ctx, o)
	case ModeLocal:
		h, err = startLocal(ctx, o)
	case ModeZK:
		h, err = useZK(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	h.Ready = time.Since(begin)
	o.logf("HBase ready in %.1fs: %s=%s", h.Ready.Seconds(), EnvZK, h.ZK)
	return h, nil
}

func useZK(ctx context.Context, o *options) (*HBase, error) {
	if o.zk == "" {
		return nil, fmt.Errorf("hbasetest: mode %s needs %s", ModeZK, EnvZK)
	}
	probeCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := waitReady(probeCtx, o.zk, nil); err != nil {
		return nil, fmt.Errorf("hbasetest: the HBase at %s=%s: %w", EnvZK, o.zk, err)
	}
	return &HBase{Mode: ModeZK, ZK: o.zk}, nil
}
