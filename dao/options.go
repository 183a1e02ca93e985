package dao

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// Defaults of the options.
const (
	// DefaultBatchSize is the number of records sent per hbase Batch call,
	// and of rows an index read or check handles at a time.
	DefaultBatchSize = 500
	// DefaultScanConcurrency bounds the scans of a merged scan, or of an
	// index read over several ranges, that fetch rows at the same time.
	DefaultScanConcurrency = 4
	// DefaultWriteConcurrency bounds the batches of one batch call
	// (PutBatch, InsertBatch, DeleteBatch) in flight at the same time.
	DefaultWriteConcurrency = 4
	// MaxBatchSize, MaxScanConcurrency and MaxWriteConcurrency bound the
	// options.
	MaxBatchSize        = 100_000
	MaxScanConcurrency  = 1024
	MaxWriteConcurrency = 1024
)

// Option configures a store (New). Options are applied in order and
// validated once there; an invalid, nil or conflicting option makes New
// fail with an error wrapping ErrInvalidOption. One set of options serves
// the data table and its index tables.
type Option func(*options)

type options struct {
	batchSize   int
	concurrency int
	writeConc   int
	caching     int
	names       map[string]string // declared table name -> name on the cluster
	namespace   string
	unindexed   bool
	protocol    []string // names of the index-protocol options given
	ix          index.Config
	uids        *UIDs
	mirror      *Copier // WithMirror
	err         error   // the first option that could not be applied
}

// resolve checks the client and applies opts over the defaults: the
// preamble of every store's constructor.
func resolve(c Client, nilTable bool, opts []Option) (options, error) {
	if c == nil || isNilPointer(c) {
		return options{}, fmt.Errorf("dao: %w: nil client", ErrInvalidOption)
	}
	if nilTable {
		return options{}, fmt.Errorf("dao: %w: nil table", ErrInvalidOption)
	}
	o := defaultOptions()
	for i, opt := range opts {
		if opt == nil {
			return options{}, fmt.Errorf("dao: %w: option %d is nil", ErrInvalidOption, i)
		}
		opt(&o)
	}
	return o, o.err
}

func defaultOptions() options {
	return options{batchSize: DefaultBatchSize, concurrency: DefaultScanConcurrency, writeConc: DefaultWriteConcurrency}
}

func (o *options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("dao: %w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// WithBatchSize sets the number of records a batch call (PutBatch,
// InsertBatch, DeleteBatch) sends per hbase Batch, and the rows an index
// read or check handles per Batch (default DefaultBatchSize, at most
// MaxBatchSize).
func WithBatchSize(n int) Option {
	return intOption("WithBatchSize", n, MaxBatchSize, func(o *options) *int { return &o.batchSize })
}

// WithWriteConcurrency bounds how many of the batches of one batch call
// (PutBatch, InsertBatch, DeleteBatch of more than WithBatchSize records)
// are in flight at the same time (default DefaultWriteConcurrency, at most
// MaxWriteConcurrency). A call whose records repeat a row key in two
// batches sends its batches one after another, so that the later record
// wins, as it does with 1.
func WithWriteConcurrency(n int) Option {
	return intOption("WithWriteConcurrency", n, MaxWriteConcurrency, func(o *options) *int { return &o.writeConc })
}

// WithScanConcurrency bounds how many scans of one read fetch rows at the
// same time: the scans of a merged scan (one per bucket, salt or range)
// and those of an index read over several ranges (default
// DefaultScanConcurrency, at most MaxScanConcurrency).
func WithScanConcurrency(n int) Option {
	return intOption("WithScanConcurrency", n, MaxScanConcurrency, func(o *options) *int { return &o.concurrency })
}

// intOption is the option named name that sets the field at returns to
// n, which must be in [1, most].
func intOption(name string, n, most int, at func(*options) *int) Option {
	return func(o *options) {
		if n < 1 || n > most {
			o.fail("%s(%d): want 1..%d", name, n, most)
		}
		*at(o) = n
	}
}

// WithScanCaching sets the rows fetched per RPC for scans of the data
// table (hbase.Scan Caching; 0, the default, leaves it to the client).
// Queries with a small limit ask for no more than they need.
func WithScanCaching(n int) Option {
	return func(o *options) {
		if n < 0 {
			o.fail("WithScanCaching(%d): want >= 0", n)
		}
		o.caching = n
	}
}

// WithTableNames serves tables of the schema under other names: names maps
// a declared name (the data table's or an index's, as written in the
// schema) to the name on the cluster ("table" or "namespace:table").
// Reads and writes of the store, its index protocol and its checks all
// use the mapped names. Combined with WithNamespace, mapped names are
// used as given.
func WithTableNames(names map[string]string) Option {
	return func(o *options) {
		if o.names == nil {
			o.names = make(map[string]string, len(names))
		}
		for from, to := range names {
			if _, err := hbapi.ParseTableName(to); err != nil {
				o.fail("WithTableNames: %q: %w", from, err)
			}
			o.names[from] = to
		}
	}
}

// WithNamespace serves every table of the schema that WithTableNames does
// not map, data and index tables alike, in namespace ns: a declared
// "orders" becomes "ns:orders". A declared name that already has a namespace
// is an error.
func WithNamespace(ns string) Option {
	return func(o *options) {
		if _, err := hbapi.ParseTableName(ns + ":t"); err != nil || ns == "" {
			o.fail("WithNamespace(%q): not a valid namespace", ns)
		}
		o.namespace = ns
	}
}

// WithUnindexedWrites is the explicit escape hatch from the index
// protocol: the store writes and deletes data rows only, with no entries
// (bulk loads, migrations). The indexes are then wrong until a Check in
// ModeRebuild (hbkit index rebuild) has run. Reads still check entries
// against the data rows, so they never return a wrong record.
func WithUnindexedWrites() Option { return func(o *options) { o.unindexed = true } }

// protocolOption sets one setting of the index protocol; New refuses it
// for a table without indexes.
func protocolOption(name string, set func(*index.Config)) Option {
	return func(o *options) {
		o.protocol = append(o.protocol, name)
		set(&o.ix)
	}
}

// WithHook installs a function called before each write of the index
// protocol. When it returns an error, the write stops there, as if the
// client had died, and the record's error is a *StepError
// wrapping ErrAborted. For fault-injection tests.
func WithHook(hook func(Step) error) Option {
	return protocolOption("WithHook", func(c *index.Config) { c.Hook = hook })
}

// WithClock sets the clock index-protocol versions come from (default
// time.Now). The clocks of all writers of a table must agree well within
// the grace period.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now == nil {
			o.fail("WithClock(nil)")
		}
		protocolOption("WithClock", func(c *index.Config) { c.Clock = now })(o)
	}
}

// WithGracePeriod sets how old an unverified index entry that fails the
// read check must be before a reader or Check deletes it (default one
// minute). Younger ones may belong to a write in flight.
func WithGracePeriod(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.fail("WithGracePeriod(%v): want > 0", d)
		}
		protocolOption("WithGracePeriod", func(c *index.Config) { c.GracePeriod = d })(o)
	}
}

// WithMaxAttempts bounds the tries of an indexed write that loses its
// data row to a concurrent writer (default 8).
func WithMaxAttempts(n int) Option {
	return func(o *options) {
		if n < 1 {
			o.fail("WithMaxAttempts(%d): want >= 1", n)
		}
		protocolOption("WithMaxAttempts", func(c *index.Config) { c.MaxAttempts = n })(o)
	}
}

// WithReadRepair turns read repair on or off (default on): index readers
// rewrite entries they confirmed verified and delete dead unverified ones.
func WithReadRepair(on bool) Option {
	return protocolOption("WithReadRepair", func(c *index.Config) { c.NoReadRepair = !on })
}

// WithBlindPuts turns blind first attempts of indexed puts on or off
// (default on): a blind attempt assumes the rows absent and saves their
// reads (see the index package's Cost). Turn it off for tables whose puts
// mostly update records.
func WithBlindPuts(on bool) Option {
	return protocolOption("WithBlindPuts", func(c *index.Config) { c.NoBlindPuts = !on })
}

// WithAsyncVerify turns background verification of index entries on or
// off (default on): on, a write returns once its data rows are written
// and its entries are marked verified in the background; Flush waits for
// them. Readers check unverified entries against the data rows, so reads
// stay right either way.
func WithAsyncVerify(on bool) Option {
	return protocolOption("WithAsyncVerify", func(c *index.Config) { c.SyncVerify = !on })
}

// WithWriteMode overrides the write mode the schema declares
// (schema.Spec.Writes: Strict, Mutable, InsertOnly or VerifyOnRead) for
// this store: to run a table's strict protocol on a schema declared insert-only, say, or
// to migrate (see Modes in package index for what a table moving to the
// mutable mode must run first). Every writer of a table should use one
// mode.
func WithWriteMode(m schema.WriteMode) Option {
	return func(o *options) {
		if !m.Valid() {
			o.fail("WithWriteMode(%v): unknown mode", m)
		}
		protocolOption("WithWriteMode", func(c *index.Config) { c.Writes = &m })(o)
	}
}

// WithTracerProvider sets where the spans of index writes, reads and
// checks go (default: the global provider). Spans carry table names and
// counts, never row keys or values.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) {
		if tp == nil {
			o.fail("WithTracerProvider(nil)")
		}
		o.ix.TracerProvider = tp
	}
}

// WithMeterProvider sets where the metrics of the store's index checks go
// (default: the global provider); docs/telemetry.md lists them. They carry
// table names and counts, never row keys or values.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) {
		if mp == nil {
			o.fail("WithMeterProvider(nil)")
		}
		o.ix.MeterProvider = mp
	}
}

// WithUIDs gives a store the UID table its schema's UID fields
// (schema.Spec.UIDs) take their ids from: writes set each id from its
// name, assigning new names an id (UIDs.ID); Get, Delete and queries set
// the ids of the names they are given, without assigning (an unknown name
// gets id 0, which no row holds); reads set each name from its id. A
// record's empty name leaves its id as it is for keys, and is an invalid
// record for writes. New requires it for a table that declares UID fields,
// refuses it for one that does not, and checks that the table has each
// kind at the declared width.
func WithUIDs(u *UIDs) Option {
	return func(o *options) {
		if u == nil {
			o.fail("WithUIDs(nil)")
		}
		o.uids = u
	}
}

// tableName returns the name on the cluster of a declared table.
func (o *options) tableName(declared string) (string, error) {
	if to, ok := o.names[declared]; ok {
		return to, nil
	}
	if o.namespace == "" {
		return declared, nil
	}
	if strings.Contains(declared, ":") {
		return "", fmt.Errorf("dao: %w: WithNamespace(%q): table %q already has a namespace", ErrInvalidOption, o.namespace, declared)
	}
	return o.namespace + ":" + declared, nil
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Interface, reflect.Slice, reflect.Chan:
		return rv.IsNil()
	}
	return false
}
