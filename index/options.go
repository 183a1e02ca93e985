package index

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase"
)

// Op is the kind of write a Step belongs to.
type Op uint8

const (
	OpPut    Op = iota + 1 // Put, PutBatch, and rewrites by Check
	OpDelete               // Delete, DeleteBatch
)

func (o Op) String() string {
	switch o {
	case OpPut:
		return "put"
	case OpDelete:
		return "delete"
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

// Option configures a Table.
type Option func(*options)

type options struct {
	hook           func(Step) error
	now            func() time.Time
	grace          time.Duration
	attempts       int
	parallelism    int
	readRepair     bool
	blindPuts      bool
	asyncVerify    bool
	validators     []any // func(*T) error, checked by New
	names          map[string]string
	batchSize      int
	tracerProvider trace.TracerProvider
}

func defaults() options {
	return options{
		now: time.Now, grace: time.Minute, attempts: 8, parallelism: 16,
		readRepair: true, blindPuts: true, asyncVerify: true, batchSize: 500,
	}
}

// WithHook installs a function called before each write of the protocol.
// When it returns an error, the write stops there, as if the client had
// died, and the call returns a *StepError wrapping ErrAborted and the
// hook's error. It exists for fault-injection tests.
func WithHook(hook func(Step) error) Option { return func(o *options) { o.hook = hook } }

// WithClock sets the clock versions are taken from (default time.Now).
// Versions are milliseconds and become the cell timestamps of index
// entries, so the clocks of all writers of a table must agree to within
// the time between two writes of one record (the same assumption HBase's
// own server-side timestamps make).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithGracePeriod sets how old an unverified entry that fails the read
// check must be before a reader or Check deletes it (default one minute).
// Younger ones may belong to a write in flight; they are skipped, never
// returned. Entries whose data row has moved past their version are
// deleted at once.
func WithGracePeriod(d time.Duration) Option { return func(o *options) { o.grace = d } }

// WithMaxAttempts bounds the tries of a write whose conditional data-row
// write loses to a concurrent writer (default 8).
func WithMaxAttempts(n int) Option { return func(o *options) { o.attempts = n } }

// WithParallelism bounds the scans a query runs at once (default 16).
// (The conditional data-row writes of a batch go out as one Batch.)
func WithParallelism(n int) Option { return func(o *options) { o.parallelism = n } }

// WithReadRepair turns read repair on or off (default on): readers mark
// entries they confirmed verified and delete dead unverified ones.
func WithReadRepair(on bool) Option { return func(o *options) { o.readRepair = on } }

// WithBlindPuts turns blind first attempts of puts on or off (default
// on). A blind attempt does not read the rows first: it assumes them
// absent, as they are when records are written once (messages, events),
// and saves the reads; a row that turns out to exist fails the
// conditional data-row write, and the record starts over with a read.
// The blind attempt does not count against WithMaxAttempts. When more
// than a quarter of a blind attempt's rows existed, the next 16 batches
// read first before trying blind again. Turn it off for tables whose puts
// mostly update records. A row written outside the protocol (by a plain
// dao, a bulk load) has no version, so a blind put over it does not drop
// the entry of its old value: run Check after such writes, as always.
func WithBlindPuts(on bool) Option { return func(o *options) { o.blindPuts = on } }

// WithAsyncVerify turns background verification on or off (default on).
// On, Put, PutBatch, Delete and DeleteBatch return once the data rows are
// written, and their last writes (marking the new entries verified,
// deleting the dropped ones) go out in the background, in Batches shared
// between concurrent calls. Until they land the entries are unverified,
// which readers check against the data rows, so every read stays right;
// Count pays a Get for each. Flush waits for them; Check flushes the
// queue of its own Table first (a Check in another process counts them
// as missing, like the entries of any write in flight). A process that
// exits without Flush leaves entries unverified, as a writer dying before
// its last write does. Off, each call sends them itself before
// returning. Check's repairs always do.
func WithAsyncVerify(on bool) Option { return func(o *options) { o.asyncVerify = on } }

// WithTableNames maps declared table names (the data table's and its
// indexes', as written in the schema) to the names used on the cluster,
// so that one schema can be served under other names (tests, tenants).
func WithTableNames(names map[string]string) Option {
	return func(o *options) {
		o.names = make(map[string]string, len(names))
		for k, v := range names {
			o.names[k] = v
		}
	}
}

// WithValidator adds a check every record must pass before anything is
// written, on top of the schema's own (keys that encode, values that
// index keys are computed from present). Its error is wrapped in a
// *RecordError. T must be the table's record type; New rejects a
// validator of another type.
func WithValidator[T any](check func(*T) error) Option {
	return func(o *options) { o.validators = append(o.validators, check) }
}

// WithBatchSize sets how many rows a read or a check sends per batch
// (default 500).
func WithBatchSize(n int) Option { return func(o *options) { o.batchSize = n } }

func (o *options) validate() error {
	switch {
	case o.now == nil:
		return fmt.Errorf("%w: nil clock", ErrInvalidOption)
	case o.grace < 0:
		return fmt.Errorf("%w: negative grace period", ErrInvalidOption)
	case o.attempts < 1:
		return fmt.Errorf("%w: max attempts %d < 1", ErrInvalidOption, o.attempts)
	case o.parallelism < 1:
		return fmt.Errorf("%w: parallelism %d < 1", ErrInvalidOption, o.parallelism)
	case o.batchSize < 1:
		return fmt.Errorf("%w: batch size %d < 1", ErrInvalidOption, o.batchSize)
	}
	for from, to := range o.names {
		if _, err := hbase.ParseTableName(to); err != nil {
			return fmt.Errorf("%w: table name for %q: %w", ErrInvalidOption, from, err)
		}
	}
	return nil
}
