package dao

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Client is the part of hbase.DataClient a store calls. hbase.DataClient,
// the native client and the in-memory fake (hbase/fake) all satisfy it.
type Client interface {
	Get(ctx context.Context, g *hbapi.Get) (*hbapi.Result, error)
	Put(ctx context.Context, p *hbapi.Put) error
	Delete(ctx context.Context, d *hbapi.Delete) error
	CheckAndMutate(ctx context.Context, cam *hbapi.CheckAndMutate) (bool, error)
	Scan(ctx context.Context, s *hbapi.Scan) (hbapi.Scanner, error)
	Batch(ctx context.Context, actions []hbapi.Action) ([]hbapi.BatchResult, error)
}

var _ Client = hbapi.DataClient(nil)

// Repo is the store of one schema: it reads and writes records of type T
// in the data table the schema declares and, when the schema declares
// indexes, keeps every index entry in step through package index's
// protocol. Row keys and cells come from the schema's mapping functions,
// in both directions. A Repo is safe for concurrent use; it holds no
// connection of its own.
type Repo[T any] struct {
	c         Client
	t         *schema.Table[T]
	name      string
	salts     int // salt buckets of a salted layout, 0 otherwise
	batchSize int
	limits    hbapi.WriteLimits // the client's (writeLimits)
	conc      int
	writeConc int
	caching   int
	ix        *index.Table[T] // the index protocol; nil when the schema declares no index
	unindexed bool            // WithUnindexedWrites: data rows only
	indexes   map[string]*Index[T]
	nix       int // indexes the schema declares: entries per encoded record
	dec       *index.RowDecoder[T]
	recs      sync.Pool // *schema.Record for single-record writes
	slabs     sync.Pool // *recordSlab for batches, when no write keeps its records (reuses)
	tracer    trace.Tracer
	traceAll  bool    // WithTracerProvider given: every write gets a span
	settle    settler // puts after deletes, on a table without index
	uids      *UIDs   // WithUIDs; nil when the schema declares no UID field
	uidDecls  []schema.UID[T]
	closed    atomic.Bool         // Close was called
	mirror    *Copier             // WithMirror; nil otherwise
	clock     index.RowClock      // versions of a mirrored store without index
	columns   []schema.ColumnInfo // the table's columns (versioned copies)
}

// New returns the store of table on client c. When the table declares
// indexes, every write goes through the index protocol (see package
// index) and Index gives the typed index reads. Options are validated
// once here.
func New[T any](c Client, table *schema.Table[T], opts ...Option) (*Repo[T], error) {
	o, err := resolve(c, table == nil, opts)
	if err != nil {
		return nil, err
	}
	ixs := table.Indexes()
	if len(ixs) == 0 {
		switch {
		case len(o.protocol) > 0:
			return nil, fmt.Errorf("dao: %w: %s: table %s declares no index", ErrInvalidOption, o.protocol[0], table.Name())
		case o.unindexed:
			return nil, fmt.Errorf("dao: %w: WithUnindexedWrites: table %s declares no index", ErrInvalidOption, table.Name())
		}
	}
	declared := map[string]bool{table.Name().String(): true}
	for _, ix := range ixs {
		declared[ix.Name().String()] = true
	}
	for from := range o.names {
		if !declared[from] {
			return nil, fmt.Errorf("dao: %w: WithTableNames: %q is not a table of the schema", ErrInvalidOption, from)
		}
	}
	name, err := o.tableName(table.Name().String())
	if err != nil {
		return nil, err
	}
	uidDecls := table.UIDs()
	if err := checkUIDOption(o.uids, uidDecls, table.Name()); err != nil {
		return nil, err
	}
	tn, _ := hbapi.ParseTableName(name) // checked by the option
	r := &Repo[T]{
		c: c, t: table, name: tn.String(),
		batchSize: o.batchSize, limits: writeLimits(c), conc: o.concurrency, writeConc: o.writeConc, caching: o.caching, unindexed: o.unindexed,
		nix:  len(ixs),
		dec:  index.NewRowDecoder(table),
		uids: o.uids, uidDecls: uidDecls,
		tracer:   newTracer(o.ix.TracerProvider),
		traceAll: o.ix.TracerProvider != nil,
	}
	if len(ixs) > 0 {
		if err := r.openIndexes(&o); err != nil {
			return nil, err
		}
	}
	if segs := table.KeySegments(); len(segs) > 0 && segs[0].Kind == keys.KindSalt {
		r.salts = int(segs[0].Keyspace.Count)
	}
	if o.mirror != nil {
		if err := r.checkMirror(o.mirror); err != nil {
			return nil, err
		}
		r.mirror = o.mirror
	}
	r.recs.New = func() any { return new(schema.Record) }
	r.columns = table.Columns()
	return r, nil
}

// openIndexes starts the index protocol of r's table, on the index
// tables the options name, and r's index readers.
func (r *Repo[T]) openIndexes(o *options) error {
	ixs := r.t.Indexes()
	cfg := o.ix
	cfg.DataTable = r.name
	cfg.IndexTables = make(map[string]string, len(ixs))
	cfg.Parallelism = o.concurrency
	cfg.BatchSize = o.batchSize
	onCluster := map[string]string{r.name: r.t.Name().String()}
	for _, ix := range ixs {
		d := ix.Name().String()
		to, err := o.tableName(d)
		if err != nil {
			return err
		}
		itn, _ := hbapi.ParseTableName(to)
		if other, dup := onCluster[itn.String()]; dup {
			return fmt.Errorf("dao: %w: tables %q and %q both map to %q", ErrInvalidOption, other, d, itn.String())
		}
		onCluster[itn.String()] = d
		cfg.IndexTables[d] = itn.String()
	}
	cfg.Tracer = r.tracer // one tracer for the store's spans and the protocol's
	var err error
	if r.ix, err = index.New(r.c, r.t, cfg); err != nil {
		return fmt.Errorf("dao: table %q: %w", r.name, err)
	}
	r.indexes = make(map[string]*Index[T], len(ixs))
	for _, ix := range ixs {
		x := &Index[T]{r: r, ix: ix, declared: ix.Name().String(), name: cfg.IndexTables[ix.Name().String()]}
		r.indexes[x.declared] = x
		r.indexes[ix.Name().FullName()] = x
	}
	return nil
}

// Table returns the schema the store uses.
func (r *Repo[T]) Table() *schema.Table[T] { return r.t }

// Name returns the data table's name on the cluster, as HBase spells it.
func (r *Repo[T]) Name() string { return r.name }

// IndexTables returns the index tables' names on the cluster, in
// declaration order.
func (r *Repo[T]) IndexTables() []string {
	if r.ix == nil {
		return nil
	}
	return r.ix.IndexTables()
}

// indexed reports whether writes go through the index protocol.
func (r *Repo[T]) indexed() bool { return r.ix != nil && !r.unindexed }

// encode checks v and encodes its data row and index entries into rec.
// Every failure is a *ValidationError.
func (r *Repo[T]) encode(v *T, rec *schema.Record) error {
	if v == nil {
		return &ValidationError{Table: r.name, Reason: "nil record"}
	}
	if err := r.t.EncodeRecord(rec, v); err != nil {
		return r.invalid(err)
	}
	if len(rec.Data.Key) > hbapi.MaxRowLength {
		return &ValidationError{Table: r.name, Reason: "row key longer than " + strconv.Itoa(hbapi.MaxRowLength) + " bytes"}
	}
	if len(rec.Data.Cells) == 0 {
		return &ValidationError{Table: r.name, Reason: "record has no column value; HBase keeps no row without a cell"}
	}
	return r.checkCellSizes(rec)
}

// encodeKey encodes only the row key of key into rec (deletes).
func (r *Repo[T]) encodeKey(key *T, rec *schema.Record) error {
	if key == nil {
		return &ValidationError{Table: r.name, Reason: "nil key record"}
	}
	k, err := r.t.AppendKey(rec.Data.Key[:0], key)
	if err != nil {
		return r.invalid(err)
	}
	rec.Data.Key = k
	return nil
}

// invalid wraps a cause as a *ValidationError naming the field.
func (r *Repo[T]) invalid(err error) *ValidationError {
	field, reason := describe(err)
	return &ValidationError{Table: r.name, Field: field, Reason: reason, Err: err}
}

// Put validates and writes one record, replacing the record with the same
// row key if there is one (an upsert): columns it has no value for are
// removed when the table is indexed, and its index entries follow it. An
// invalid record is rejected with a *ValidationError (errors.Is
// ErrInvalidRecord) before anything is written. On an insert-only table
// (schema.InsertOnly) a Put over a live record with other values fails
// with ErrInsertOnly; the same record again succeeds.
func (r *Repo[T]) Put(ctx context.Context, v *T) error {
	return r.one(ctx, OpPut, v)
}

// Insert validates and writes one record that must be new: when a live
// record holds its row key, nothing is written and the error wraps
// ErrExists. HBase decides, with a conditional write, so two inserts of
// one key never both succeed. On an indexed table the condition is on the
// protocol's version cell; on a plain table, on the record's first cell
// (its first column with a value, in declaration order) being absent.
func (r *Repo[T]) Insert(ctx context.Context, v *T) error {
	return r.one(ctx, OpInsert, v)
}

// Delete removes the record whose key fields are those of key (its other
// fields are ignored) and its index entries. Deleting a missing record is
// not an error. For a salted layout without indexes it deletes the row
// under every salt value.
func (r *Repo[T]) Delete(ctx context.Context, key *T) error {
	if err := r.usable(); err != nil {
		return err
	}
	if r.salts > 0 && !r.indexed() {
		if err := r.setIDs(ctx, key, false); err != nil {
			return err
		}
		return r.deleteSalted(ctx, key)
	}
	return r.one(ctx, OpDelete, key)
}

// one runs a single-record write.
func (r *Repo[T]) one(ctx context.Context, op Op, v *T) (err error) {
	if err := r.usable(); err != nil {
		return err
	}
	ctx, span := r.span(ctx, op, 1)
	defer func() { end(span, err) }()
	ctx, endOp := hbapi.StartOperation(ctx, r.c)
	defer func() { err = endOp(err) }()
	rec := r.recs.Get().(*schema.Record)
	if r.reuses() {
		// Not where the index protocol's background verification still
		// points into rec after the write returns (see reuses), nor
		// after a failed write: a call whose context ended while its
		// Put waited in the client's queue returns at once, though the
		// Put may be on its way in a Multi that still reads rec's key and
		// values.
		defer func() {
			if err == nil {
				r.recs.Put(rec)
			}
		}()
	}
	if err = r.setIDs(ctx, v, op != OpDelete); err != nil {
		return err
	}
	if op == OpDelete {
		err = r.encodeKey(v, rec)
	} else {
		err = r.encode(v, rec)
	}
	if err != nil {
		return err
	}
	rec.Token = nil // a pooled record's is another insert's
	results := []error{nil}
	r.sendVia(ctx, op, []*schema.Record{rec}, results, true)
	if results[0] != nil {
		return fmt.Errorf("dao: %s %q: %w", op, r.name, results[0])
	}
	return nil
}

// rowKeys returns the row keys a record may live under: one, or one per
// salt value for a salted layout (whose salt a reader cannot recompute).
func (r *Repo[T]) rowKeys(key *T) ([][]byte, error) {
	if key == nil {
		return nil, &ValidationError{Table: r.name, Reason: "nil key record"}
	}
	if r.salts == 0 {
		k, err := r.t.AppendKey(nil, key)
		if err != nil {
			return nil, r.invalid(err)
		}
		return [][]byte{k}, nil
	}
	rs, err := r.t.Key().PrefixRanges(key, r.t.Key().Len())
	if err != nil {
		return nil, r.invalid(err)
	}
	out := make([][]byte, len(rs))
	for i, kr := range rs {
		out[i] = kr.Start
	}
	return out, nil
}

func (r *Repo[T]) deleteSalted(ctx context.Context, key *T) error {
	ks, err := r.rowKeys(key)
	if err != nil {
		return err
	}
	actions := make([]hbapi.Action, len(ks))
	for i, k := range ks {
		actions[i] = &hbapi.Delete{Table: r.name, Row: k}
	}
	if _, err = r.c.Batch(ctx, actions); err != nil {
		return fmt.Errorf("dao: delete %q: %w", r.name, err)
	}
	r.settle.doneKeys(ks)
	return nil
}

// live reports whether a data row read back holds a record: not empty,
// and not the tombstone an indexed delete leaves.
func (r *Repo[T]) live(res *hbapi.Result) bool {
	if r.ix != nil {
		return r.ix.Live(res)
	}
	return !res.Empty()
}

// Get reads the record whose key fields are those of key (its other
// fields are ignored) and reports whether it exists. For a salted layout
// it reads every salt value's row, in one batch.
func (r *Repo[T]) Get(ctx context.Context, key *T) (_ *T, _ bool, err error) {
	if err := r.usable(); err != nil {
		return nil, false, err
	}
	ctx, endOp := hbapi.StartOperation(ctx, r.c)
	defer func() { err = endOp(err) }()
	if err := r.setIDs(ctx, key, false); err != nil {
		return nil, false, err
	}
	if r.salts == 0 {
		v, ok, err := r.getOne(ctx, key)
		if ok {
			err = r.setNames(ctx, v)
		}
		if err != nil {
			return nil, false, err
		}
		return v, ok, nil
	}
	ks, err := r.rowKeys(key)
	if err != nil {
		return nil, false, err
	}
	var results []*hbapi.Result
	if len(ks) == 1 {
		res, err := r.c.Get(ctx, &hbapi.Get{Table: r.name, Row: ks[0]})
		if err != nil {
			return nil, false, fmt.Errorf("dao: get %q: %w", r.name, err)
		}
		results = []*hbapi.Result{res}
	} else {
		actions := make([]hbapi.Action, len(ks))
		for i, k := range ks {
			actions[i] = &hbapi.Get{Table: r.name, Row: k}
		}
		brs, err := r.c.Batch(ctx, actions)
		if err != nil {
			return nil, false, fmt.Errorf("dao: get %q: %w", r.name, err)
		}
		for _, br := range brs {
			results = append(results, br.Result)
		}
	}
	for _, res := range results {
		if !r.live(res) {
			continue
		}
		v := new(T)
		if _, err := r.decode(res, nil, v); err != nil {
			return nil, false, err
		}
		if err := r.setNames(ctx, v); err != nil {
			return nil, false, err
		}
		return v, true, nil
	}
	return nil, false, nil
}

// getOne reads the one row of key. A pooled record lends its key buffer
// to the request and its cell slice to decoding; both are done with
// before it goes back.
func (r *Repo[T]) getOne(ctx context.Context, key *T) (*T, bool, error) {
	if key == nil {
		return nil, false, &ValidationError{Table: r.name, Reason: "nil key record"}
	}
	rec := r.recs.Get().(*schema.Record)
	defer r.recs.Put(rec)
	k, err := r.t.AppendKey(rec.Data.Key[:0], key)
	if err != nil {
		return nil, false, r.invalid(err)
	}
	rec.Data.Key = k
	res, err := r.c.Get(ctx, &hbapi.Get{Table: r.name, Row: k})
	if err != nil {
		return nil, false, fmt.Errorf("dao: get %q: %w", r.name, err)
	}
	if !r.live(res) {
		return nil, false, nil
	}
	v := new(T)
	cells, err := r.decode(res, rec.Data.Cells[:0], v)
	clear(cells)
	rec.Data.Cells = cells[:0]
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// decode decodes a result into v, reusing cells as scratch space (the
// one decoder of a data row, index.RowDecoder).
func (r *Repo[T]) decode(res *hbapi.Result, cells []schema.Cell, v *T) ([]schema.Cell, error) {
	var since int64 // cells older than the record's version belong to an older value
	if r.ix != nil {
		since = r.ix.Since(res)
	}
	cells, err := r.dec.Decode(res, since, cells, v)
	if err != nil {
		field, reason := describe(err)
		return cells, &DecodeError{Table: r.name, Field: field, Reason: reason, Err: err}
	}
	return cells, nil
}

// Flush waits until the index entries of the writes that returned before
// the call are marked verified (see WithAsyncVerify), and returns the
// first error a background verification met since the last Flush. Such an
// error loses nothing: readers check unverified entries and Check repairs
// them. Call it before the process exits. Without indexes it does
// nothing.
func (r *Repo[T]) Flush(ctx context.Context) error {
	if err := r.usable(); err != nil {
		return err
	}
	if r.ix == nil {
		return nil
	}
	return r.ix.Flush(ctx)
}

// Close stops the store's background work: the verification of index
// entries (WithAsyncVerify). It waits until the entries of the writes
// that returned before the call are marked verified, as Flush does, or
// until ctx ends; then it cancels the verifications still in flight and
// waits for them to return (the client's honouring of its context bounds
// that wait). Entries left unverified lose nothing: readers check them and
// Check repairs them. It returns Flush's error, or ctx's when the queue
// could not be sent in time.
//
// Every later call of the store, and of its Index, returns an error
// wrapping ErrClosed; a write still running when Close is called finishes
// but leaves its entries unverified. Close is idempotent: calls after the
// first return nil at once. It does not close the client, which the
// caller owns and may share between stores.
func (r *Repo[T]) Close(ctx context.Context) error {
	if !r.closed.CompareAndSwap(false, true) {
		return nil
	}
	if r.ix == nil {
		return nil
	}
	if err := r.ix.Close(ctx); err != nil {
		return fmt.Errorf("dao: close %q: %w", r.name, err)
	}
	return nil
}

// usable returns an error wrapping ErrClosed once Close was called.
func (r *Repo[T]) usable() error {
	if r.closed.Load() {
		return fmt.Errorf("dao: %q: %w", r.name, ErrClosed)
	}
	return nil
}

// Check verifies, repairs or rebuilds the table's indexes (ModeVerify,
// ModeRepair, ModeRebuild): missing, orphaned and stale entries, with
// progress and a resumable checkpoint (WithProgress, WithCheckpoint,
// WithResume). A table without indexes is an error wrapping ErrNoIndex.
func (r *Repo[T]) Check(ctx context.Context, mode Mode, opts ...CheckOption) (Report, error) {
	if err := r.usable(); err != nil {
		return Report{}, err
	}
	if r.ix == nil {
		return Report{}, fmt.Errorf("dao: check %q: %w", r.name, ErrNoIndex)
	}
	return r.ix.Check(ctx, mode, opts...)
}

// settler orders a store's writes of a row after its deletes where the
// server stamps them (tables without index, insert-only tables). HBase
// stamps both with the region server's clock in
// milliseconds, and a delete's marker hides every cell of its millisecond,
// so a record written again right after its delete could vanish. A put of
// a row this store deleted less than settleTime ago waits until that time
// has passed since the delete was acknowledged: the server's clock has
// then moved past the delete's millisecond, whatever the client's clock
// says.
type settler struct {
	mu      sync.Mutex
	n       atomic.Int32         // len(deleted), read without the lock
	deleted map[string]time.Time // row -> when its delete was acknowledged
	swept   time.Time
}

// settleTime is how long after a delete's acknowledgement a put of the
// same row waits.
const settleTime = 2 * time.Millisecond

// done records that the rows of recs were deleted (acknowledged now).
func (s *settler) done(recs []*schema.Record) {
	keys := make([][]byte, len(recs))
	for i, rec := range recs {
		keys[i] = rec.Data.Key
	}
	s.doneKeys(keys)
}

// doneKeys records that the rows of keys were deleted (acknowledged now).
func (s *settler) doneKeys(keys [][]byte) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deleted == nil {
		s.deleted = make(map[string]time.Time)
	}
	if now.Sub(s.swept) > time.Second {
		for k, t := range s.deleted {
			if now.Sub(t) > settleTime {
				delete(s.deleted, k)
			}
		}
		s.swept = now
	}
	for _, k := range keys {
		s.deleted[string(k)] = now
	}
	s.n.Store(int32(len(s.deleted)))
}

// wait returns once settleTime has passed since the last acknowledged
// delete of any of the rows of recs, or when ctx ends. With no recent
// delete it costs one atomic load.
func (s *settler) wait(ctx context.Context, recs []*schema.Record) {
	if s.n.Load() == 0 {
		return
	}
	keys := make([][]byte, len(recs))
	for i, rec := range recs {
		keys[i] = rec.Data.Key
	}
	s.waitKeys(ctx, keys)
}

// Tables returns the store's tables as they are on the cluster, under the
// names the options gave them: the data table, then its index tables. Hand
// them to admin.EnsureTables to create them pre-split.
func (r *Repo[T]) Tables() []schema.Definition {
	out := []schema.Definition{r.renamed(r.t, r.name)}
	for _, ix := range r.t.Indexes() {
		d := r.renamed(ix, r.indexes[ix.Name().String()].name)
		if d != schema.Definition(ix) || out[0] != schema.Definition(r.t) {
			d = schema.RenamedIndex(ix, d.Name(), out[0].Name())
		}
		out = append(out, d)
	}
	return out
}

func (r *Repo[T]) renamed(d schema.Definition, name string) schema.Definition {
	tn, err := schema.ParseTableName(name)
	if err != nil {
		return d // names were checked by New
	}
	return schema.Renamed(d, tn)
}
