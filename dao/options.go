package dao

import (
	"fmt"
	"reflect"

	"github.com/hbkit/hbkit/hbase"
)

// Defaults of the options.
const (
	// DefaultBatchSize is the number of records sent per hbase Batch call.
	DefaultBatchSize = 500
	// DefaultScanConcurrency bounds the scans of a merged scan that fetch
	// rows at the same time.
	DefaultScanConcurrency = 4
	// MaxBatchSize and MaxScanConcurrency bound the options.
	MaxBatchSize       = 100_000
	MaxScanConcurrency = 1024
)

// Option configures a Repo. Options are applied in order by New and
// validated once there; an invalid option makes New fail with an error
// wrapping ErrInvalidOption.
type Option func(*options)

type options struct {
	batchSize   int
	concurrency int
	caching     int
	validators  []any // func(*T) error, checked against T in New
	writer      any   // Writer[T], checked against T in New
	nilWriter   bool
	tableName   string
	renamed     bool
}

func defaultOptions() options {
	return options{batchSize: DefaultBatchSize, concurrency: DefaultScanConcurrency}
}

// WithBatchSize sets the number of records PutBatch and DeleteBatch send
// per hbase Batch call (default DefaultBatchSize, at most MaxBatchSize).
func WithBatchSize(n int) Option { return func(o *options) { o.batchSize = n } }

// WithScanConcurrency bounds how many of the scans of a merged scan (one
// per bucket, salt or range) fetch rows at the same time (default
// DefaultScanConcurrency). Every scan stays open until the merge is done;
// the bound is on concurrent fetching.
func WithScanConcurrency(n int) Option { return func(o *options) { o.concurrency = n } }

// WithScanCaching sets the rows fetched per RPC for scans (hbase.Scan
// Caching; 0, the default, leaves it to the client). Queries with a small
// limit ask for no more than they need whatever this says.
func WithScanCaching(n int) Option { return func(o *options) { o.caching = n } }

// WithTableName serves the schema's table under another name ("table" or
// "namespace:table"): a copy of the table per tenant or per test run.
// The schema's own name is the default.
func WithTableName(name string) Option {
	return func(o *options) { o.tableName, o.renamed = name, true }
}

// WithValidator adds a check run on every record before it is encoded and
// before anything is written (Put, PutBatch). Key encoding already rejects
// what the row key cannot hold (a mobile with a letter, a negative
// timestamp); a validator adds the rules the key does not know, such as a
// required column. Return Invalid(field, reason) to name the field; any
// other error is wrapped in a *ValidationError as is. Validators run in the
// order given; T must be the Repo's record type.
func WithValidator[T any](check func(*T) error) Option {
	return func(o *options) { o.validators = append(o.validators, check) }
}

// WithWriter routes the Repo's writes (Put, PutBatch, Delete,
// DeleteBatch) through w, after validation. T must be the Repo's record
// type. See Writer.
func WithWriter[T any](w Writer[T]) Option {
	return func(o *options) {
		o.writer = w
		o.nilWriter = w == nil || isNilPointer(w)
	}
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Interface, reflect.Slice, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func (o *options) validate() error {
	switch {
	case o.batchSize < 1 || o.batchSize > MaxBatchSize:
		return fmt.Errorf("%w: WithBatchSize(%d): want 1..%d", ErrInvalidOption, o.batchSize, MaxBatchSize)
	case o.concurrency < 1 || o.concurrency > MaxScanConcurrency:
		return fmt.Errorf("%w: WithScanConcurrency(%d): want 1..%d", ErrInvalidOption, o.concurrency, MaxScanConcurrency)
	case o.caching < 0:
		return fmt.Errorf("%w: WithScanCaching(%d): want >= 0", ErrInvalidOption, o.caching)
	case o.nilWriter:
		return fmt.Errorf("%w: WithWriter(nil)", ErrInvalidOption)
	}
	if o.renamed {
		if _, err := hbase.ParseTableName(o.tableName); err != nil {
			return fmt.Errorf("%w: WithTableName: %w", ErrInvalidOption, err)
		}
	}
	return nil
}

// typed checks the record-typed options against T.
func typed[T any](o *options) (validators []func(*T) error, w Writer[T], err error) {
	for i, v := range o.validators {
		f, ok := v.(func(*T) error)
		if !ok || f == nil {
			return nil, nil, fmt.Errorf("%w: validator %d is a %T, want a non-nil func(*%s) error",
				ErrInvalidOption, i, v, reflect.TypeFor[T]())
		}
		validators = append(validators, f)
	}
	if o.writer != nil {
		var ok bool
		if w, ok = o.writer.(Writer[T]); !ok {
			return nil, nil, fmt.Errorf("%w: writer is a %T, not a Writer[%s]",
				ErrInvalidOption, o.writer, reflect.TypeFor[T]())
		}
	}
	return validators, w, nil
}
