package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Client is the part of hbase.AdminClient this package calls. The real
// client (package hbase) and the in-memory fake (package hbase/fake)
// implement it.
type Client interface {
	CreateNamespace(ctx context.Context, namespace string) error
	CreateTable(ctx context.Context, desc hbapi.TableDescriptor, splitKeys [][]byte) error
	DeleteTable(ctx context.Context, table string) error
	EnableTable(ctx context.Context, table string) error
	DisableTable(ctx context.Context, table string) error
	TruncateTable(ctx context.Context, table string, preserveSplits bool) error
	TableExists(ctx context.Context, table string) (bool, error)
	IsTableEnabled(ctx context.Context, table string) (bool, error)
	DescribeTable(ctx context.Context, table string) (hbapi.TableDescriptor, error)
	TableRegions(ctx context.Context, table string) ([]hbapi.RegionInfo, error)
}

var _ Client = hbapi.AdminClient(nil)

// RegionLoad is what a region server reports about one region in its
// load report: requests, store files and memstore size. HBase reports
// request counts and sizes, not row counts; Describe counts rows itself
// when asked (see CountRows).
type RegionLoad = hbapi.RegionLoad

// RegionLoader reports the load of a table's regions. It is optional:
// Describe uses the loader given with WithRegionLoader, or the Client
// itself when it implements RegionLoader, and leaves Region.Load nil
// otherwise. *hbase.Client is a RegionLoader: its RegionLoads reads the
// master's cluster status.
type RegionLoader interface {
	RegionLoads(ctx context.Context, table string) ([]RegionLoad, error)
}

// RowScanner is the scan call Describe uses to count rows per region when
// CountRows is set; hbase.DataClient has it. Describe uses the Client when
// it implements RowScanner.
type RowScanner interface {
	Scan(ctx context.Context, s *hbapi.Scan) (hbapi.Scanner, error)
}

// Option configures an Admin.
type Option func(*options)

type options struct {
	loader      RegionLoader
	nilLoader   bool
	enableWait  time.Duration
	pollEvery   time.Duration
	grownSplits bool
}

// DefaultEnableWait is how long EnsureTable waits for a table that another
// procedure is enabling before it gives up with ErrNotEnabled.
const DefaultEnableWait = 30 * time.Second

// WithRegionLoader sets where Describe reads per-region load from.
func WithRegionLoader(l RegionLoader) Option {
	return func(o *options) {
		o.loader = l
		o.nilLoader = l == nil
	}
}

// WithEnableWait bounds how long EnsureTable waits for a table that
// exists but is still being enabled (a create or enable procedure running
// on the master); 0 means do not wait. The context bounds it too.
func WithEnableWait(d time.Duration) Option {
	return func(o *options) { o.enableWait = d }
}

// WithGrownRegions makes the drift check accept region boundaries that
// were not declared, as long as every declared split key is a boundary:
// a table whose regions HBase split as they grew is then not drift. By
// default the boundaries must be exactly the declared split keys.
func WithGrownRegions() Option {
	return func(o *options) { o.grownSplits = true }
}

func (o *options) validate() error {
	switch {
	case o.nilLoader:
		return errors.New("admin: WithRegionLoader(nil)")
	case o.enableWait < 0:
		return fmt.Errorf("admin: WithEnableWait(%v): negative", o.enableWait)
	}
	return nil
}

// Admin creates, checks, describes and drops tables declared with package
// schema. It holds no state besides its client and options and is safe
// for concurrent use if the client is.
type Admin struct {
	c    Client
	opts options
}

// New returns an Admin that works through c.
func New(c Client, opts ...Option) (*Admin, error) {
	if c == nil {
		return nil, errors.New("admin: nil client")
	}
	o := options{enableWait: DefaultEnableWait, pollEvery: 200 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.loader == nil {
		if l, ok := c.(RegionLoader); ok {
			o.loader = l
		}
	}
	return &Admin{c: c, opts: o}, nil
}
