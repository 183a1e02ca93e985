package index

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Op is the kind of write a Step belongs to.
type Op uint8

const (
	OpPut    Op = iota + 1 // a put (upsert), and rewrites by Check
	OpDelete               // a delete
	OpInsert               // a put that fails with ErrExists over a live record
)

func (o Op) String() string {
	switch o {
	case OpPut:
		return "put"
	case OpDelete:
		return "delete"
	case OpInsert:
		return "insert"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Phase is one write of the protocol, in order.
type Phase uint8

const (
	// PhaseUnverified writes the new index entries marked unverified and
	// marks the entries the write will remove unverified.
	PhaseUnverified Phase = iota + 1
	// PhaseData writes (or deletes) the data row, conditionally on its
	// version.
	PhaseData
	// PhaseVerify marks the new entries verified and deletes the old ones.
	PhaseVerify
)

func (p Phase) String() string {
	switch p {
	case PhaseUnverified:
		return "unverified-entries write"
	case PhaseData:
		return "data-row write"
	case PhaseVerify:
		return "verify-and-cleanup write"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Step identifies the point of a write at which the hook is called: just
// before the write of Phase, on the Attempt-th try (from 1).
type Step struct {
	Op      Op
	Phase   Phase
	Attempt int
	Records int // records in the write (1 for Put and Delete)
}

// Config configures a Table. The zero value is the default of every
// setting. Applications do not build one: package dao's options fill it
// when a store's schema declares indexes.
type Config struct {
	// DataTable is the data table's name on the cluster ("" : the
	// schema's).
	DataTable string
	// IndexTables maps an index's declared name to its name on the
	// cluster; an index not listed keeps its declared name.
	IndexTables map[string]string
	// Hook is called before each write of the protocol; an error stops the
	// write there, as if the client had died (a *StepError wrapping
	// ErrAborted). For fault-injection tests.
	Hook func(Step) error
	// Clock is where versions come from (nil: time.Now). Versions are
	// milliseconds and become cell timestamps, so the writers of a table
	// must keep their clocks in step (NTP) well within GracePeriod.
	Clock func() time.Time
	// GracePeriod is how old an unverified entry that fails the read check
	// must be before a reader or Check deletes it (0: one minute; a
	// negative value is refused). Younger ones may belong to a write in
	// flight.
	GracePeriod time.Duration
	// MaxAttempts bounds the tries of a write that loses its conditional
	// data-row write to a concurrent writer (0: 8).
	MaxAttempts int
	// Parallelism bounds the scans a read runs at once (0: 16).
	Parallelism int
	// BatchSize is the number of rows a read or a check handles per Batch
	// (0: 500).
	BatchSize int
	// NoReadRepair turns read repair off: readers then never write.
	NoReadRepair bool
	// NoBlindPuts makes every put read its row first (see Cost in the
	// package documentation); for tables whose puts mostly update.
	NoBlindPuts bool
	// SyncVerify makes each write send its last phase itself before it
	// returns, instead of the background sender (see Flush).
	SyncVerify bool
	// Writes, when set, overrides the schema's write mode
	// (schema.Table.WriteMode).
	Writes *schema.WriteMode
	// TracerProvider receives the spans of writes, reads and checks (nil:
	// the global provider).
	TracerProvider trace.TracerProvider
	// MeterProvider receives the metrics of checks (nil: the global
	// provider; docs/telemetry.md lists them).
	MeterProvider metric.MeterProvider
	// Tracer, when set, starts those spans instead of a tracer of this
	// package: package dao passes its own, so that a store has one tracer.
	Tracer trace.Tracer
	// ReadIncomplete lets readers answer from an index that is building
	// (ErrIndexBuilding otherwise): their answer may miss records written
	// before the index existed.
	ReadIncomplete bool
}

type options struct {
	hook           func(Step) error
	now            func() time.Time
	grace          time.Duration
	attempts       int
	parallelism    int
	readRepair     bool
	blindPuts      bool
	asyncVerify    bool
	names          map[string]string
	batchSize      int
	tracerProvider trace.TracerProvider
	readIncomplete bool
}

// options turns the config into the settings the engine runs with.
func (c *Config) options() (options, error) {
	o := options{
		hook: c.Hook, now: c.Clock, grace: c.GracePeriod, attempts: c.MaxAttempts, parallelism: c.Parallelism,
		readRepair: !c.NoReadRepair, blindPuts: !c.NoBlindPuts, asyncVerify: !c.SyncVerify,
		batchSize: c.BatchSize, tracerProvider: c.TracerProvider, readIncomplete: c.ReadIncomplete,
	}
	switch {
	case c.GracePeriod < 0:
		return o, fmt.Errorf("index: %w: negative grace period", ErrInvalidOption)
	case c.MaxAttempts < 0:
		return o, fmt.Errorf("index: %w: max attempts %d < 0", ErrInvalidOption, c.MaxAttempts)
	case c.Parallelism < 0:
		return o, fmt.Errorf("index: %w: parallelism %d < 0", ErrInvalidOption, c.Parallelism)
	case c.BatchSize < 0:
		return o, fmt.Errorf("index: %w: batch size %d < 0", ErrInvalidOption, c.BatchSize)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.grace == 0 {
		o.grace = time.Minute
	}
	if o.attempts == 0 {
		o.attempts = 8
	}
	if o.parallelism == 0 {
		o.parallelism = 16
	}
	if o.batchSize == 0 {
		o.batchSize = 500
	}
	o.names = make(map[string]string, len(c.IndexTables)+1)
	for from, to := range c.IndexTables {
		if _, err := hbapi.ParseTableName(to); err != nil {
			return o, fmt.Errorf("index: %w: table name for %q: %w", ErrInvalidOption, from, err)
		}
		o.names[from] = to
	}
	return o, nil
}
