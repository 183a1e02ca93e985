package bench

import (
	"errors"
	"fmt"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
)

// PE's defaults (PerformanceEvaluation.TestOptions of HBase 2.6).
const (
	DefaultTable      = "TestTable"
	DefaultRows       = 20_000 // per client; PE's own default is 1 GB of rows
	DefaultThreads    = 1
	DefaultValueSize  = 1000
	DefaultBufferSize = 2 << 20 // BufferedMutator write buffer
	DefaultCaching    = 30      // scanner caching
	DefaultBatchSize  = 100     // records per call of the layer workloads
	// Family and Qualifier are PE's only column with one family: FAMILY_NAME_BASE
	// "info" plus the family number, and COLUMN_ZERO.
	Family    = "info0"
	Qualifier = "0"
)

// ErrInvalidOption is wrapped by the errors of New for invalid options.
var ErrInvalidOption = errors.New("bench: invalid option")

// ErrNoData is returned by a read workload when the table it reads is
// missing or holds fewer rows than it needs: run a write workload first,
// with at least as many rows and threads.
var ErrNoData = errors.New("bench: table holds no data for this workload; run a write workload first")

// ErrUnknownWorkload is returned for a workload name that is not in
// Workloads.
var ErrUnknownWorkload = errors.New("bench: unknown workload")

// Option configures a Runner.
type Option func(*options)

type options struct {
	table      string
	rows       int
	threads    int
	valueSize  int
	bufferSize int
	caching    int
	presplit   int
	batchSize  int
	seed       uint64
	seeded     bool
	durability hbase.Durability
	now        func() time.Time
	start      time.Time         // zero: the time a layer workload starts
	mode       *schema.WriteMode // indexedWrite's and accountDayQuery's store, if not the schema's
	serverPID  int               // a local HBase's region server process, whose CPU time is reported
	workers    int               // workers of the job workloads' jobs
	jobs       JobRunner         // runs the job workloads' jobs
}

func defaultOptions() options {
	return options{
		table:      DefaultTable,
		rows:       DefaultRows,
		threads:    DefaultThreads,
		valueSize:  DefaultValueSize,
		bufferSize: DefaultBufferSize,
		caching:    DefaultCaching,
		batchSize:  DefaultBatchSize,
		durability: hbase.SyncWAL,
		now:        time.Now,
		workers:    1,
	}
}

// WithTable sets the table of the PE workloads (default TestTable). The
// layer workloads use it as the prefix of their tables' names.
func WithTable(name string) Option { return func(o *options) { o.table = name } }

// WithRows sets the rows per client thread (PE's --rows; default 20,000).
func WithRows(n int) Option { return func(o *options) { o.rows = n } }

// WithThreads sets the number of client threads (PE's nclients; default 1).
func WithThreads(n int) Option { return func(o *options) { o.threads = n } }

// WithValueSize sets the value size in bytes (PE's --valueSize; default
// 1,000).
func WithValueSize(n int) Option { return func(o *options) { o.valueSize = n } }

// WithBufferSize sets the write buffer of the write workloads in bytes
// (PE's --bufferSize; default 2 MB).
func WithBufferSize(n int) Option { return func(o *options) { o.bufferSize = n } }

// WithCaching sets the rows per scanner RPC (PE's --caching; default 30).
func WithCaching(n int) Option { return func(o *options) { o.caching = n } }

// WithPresplit pre-splits a table the write workloads create into n
// regions at PE's split points (PE's --presplit; default 0: one region).
func WithPresplit(n int) Option { return func(o *options) { o.presplit = n } }

// WithBatchSize sets the records per call of the layer workloads (default
// 100).
func WithBatchSize(n int) Option { return func(o *options) { o.batchSize = n } }

// WithSeed makes the random keys and values reproducible (default: a
// random seed).
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed, o.seeded = seed, true }
}

// WithDurability sets the durability of the puts (default SyncWAL, as
// PE's --writeToWAL=true).
func WithDurability(d hbase.Durability) Option { return func(o *options) { o.durability = d } }

// WithClock replaces time.Now for the record timestamps of the layer
// workloads (tests).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithIndexedWriteMode makes indexedWrite write its records, and
// accountDayQuery read them, through a store in mode instead of the SMS
// schema's own (insert-only): the same records and tables, so that
// make bench-phoenix can set hbkit's mutable mode against Phoenix's
// mutable table.
func WithIndexedWriteMode(mode schema.WriteMode) Option {
	return func(o *options) { o.mode = &mode }
}

// WithStart sets the send time of the layer workloads' first record (row
// 0; row i is sent i milliseconds later). The default is the time the
// workload starts, to the second. With WithSeed it makes the records
// reproducible from one run to the next, and WriteRecords writes them.
func WithStart(t time.Time) Option { return func(o *options) { o.start = t } }

// WithServerPID names the process of a region server on this machine
// (the JVM of a standalone HBase): each Result then reports the CPU time
// it spent during the run, next to the client's own, so that a run says
// what each operation cost both sides. Where the process cannot be read
// (it ended, or there is no /proc) the run fails rather than report
// nothing.
func WithServerPID(pid int) Option { return func(o *options) { o.serverPID = pid } }

// base is the send time of row 0 of a layer workload started now.
func (o *options) base() time.Time {
	if !o.start.IsZero() {
		return o.start.UTC()
	}
	return o.now().UTC().Truncate(time.Second)
}

func (o *options) validate() error {
	if _, err := hbase.ParseTableName(o.table); err != nil {
		return fmt.Errorf("%w: table: %v", ErrInvalidOption, err)
	}
	checks := []struct {
		name string
		v    int
		min  int
	}{
		{"rows", o.rows, 1},
		{"threads", o.threads, 1},
		{"value size", o.valueSize, 0},
		{"buffer size", o.bufferSize, 1},
		{"caching", o.caching, 1},
		{"presplit", o.presplit, 0},
		{"batch size", o.batchSize, 1},
		{"server pid", o.serverPID, 0},
		{"workers", o.workers, 1},
	}
	for _, c := range checks {
		if c.v < c.min {
			return fmt.Errorf("%w: %s %d, want at least %d", ErrInvalidOption, c.name, c.v, c.min)
		}
	}
	if o.presplit == 1 {
		return fmt.Errorf("%w: presplit 1 (use 0 for one region, or at least 2)", ErrInvalidOption)
	}
	if int64(o.presplit) > int64(o.rows)*int64(o.threads) {
		return fmt.Errorf("%w: presplit %d regions for %d rows", ErrInvalidOption, o.presplit, o.rows*o.threads)
	}
	if o.durability > hbase.FsyncWAL {
		return fmt.Errorf("%w: durability %d", ErrInvalidOption, o.durability)
	}
	if o.now == nil {
		return fmt.Errorf("%w: nil clock", ErrInvalidOption)
	}
	return nil
}

// modeOptions are the store options WithIndexedWriteMode asks for.
func (o *options) modeOptions() []dao.Option {
	if o.mode == nil {
		return nil
	}
	return []dao.Option{dao.WithWriteMode(*o.mode)}
}
