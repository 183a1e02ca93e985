package dao

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Wide is the store of a wide table (schema.WideTable, "rows as columns"):
// each record is one cell, whose row key and qualifier the schema builds
// from the record's key fields. Writes add or replace cells, deletes
// remove them, reads return records in key order: by row key, then by
// qualifier, which for a time-series layout (keys.TimeBase in the row key,
// keys.TimeOffset in the qualifier) is time order within a series. A Wide
// is safe for concurrent use; it holds no connection of its own.
//
// A wide table has no index: the one path to write its records is this
// store.
type Wide[T any] struct {
	c         Client
	t         *schema.WideTable[T]
	name      string
	family    []byte
	batchSize int
	writeConc int
	caching   int
	uids      *UIDs
	uidDecls  []schema.UID[T]
	settle    settler
	tracer    trace.Tracer
	traceAll  bool // WithTracerProvider given: every write gets a span
}

// NewWide returns the store of the wide table t on client c. It takes the
// options of New that apply to a table without index: WithTableNames (for
// t's name), WithNamespace, WithBatchSize (rows per Batch call, and cells
// per Result of a scan), WithWriteConcurrency (Batch calls of one batch in
// flight), WithScanCaching, WithTracerProvider (spans of
// writes, as for New) and WithUIDs (required when t declares UID fields). Index-protocol options are refused with
// ErrInvalidOption.
func NewWide[T any](c Client, t *schema.WideTable[T], opts ...Option) (*Wide[T], error) {
	o, err := resolve(c, t == nil, opts)
	switch {
	case err != nil:
		return nil, err
	case len(o.protocol) > 0:
		return nil, fmt.Errorf("dao: %w: %s: wide table %s has no index", ErrInvalidOption, o.protocol[0], t.Name())
	case o.unindexed:
		return nil, fmt.Errorf("dao: %w: WithUnindexedWrites: wide table %s has no index", ErrInvalidOption, t.Name())
	}
	for from := range o.names {
		if from != t.Name().String() {
			return nil, fmt.Errorf("dao: %w: WithTableNames: %q is not the wide table", ErrInvalidOption, from)
		}
	}
	name, err := o.tableName(t.Name().String())
	if err != nil {
		return nil, err
	}
	decls := t.UIDs()
	if err := checkUIDOption(o.uids, decls, t.Name()); err != nil {
		return nil, err
	}
	tn, _ := hbapi.ParseTableName(name) // checked by the option
	return &Wide[T]{
		c: c, t: t, name: tn.String(), family: []byte(t.Family()),
		batchSize: o.batchSize, writeConc: o.writeConc, caching: o.caching, uids: o.uids, uidDecls: decls,
		tracer: newTracer(o.ix.TracerProvider), traceAll: o.ix.TracerProvider != nil,
	}, nil
}

// Table returns the schema the store uses.
func (w *Wide[T]) Table() *schema.WideTable[T] { return w.t }

// Name returns the table's name on the cluster.
func (w *Wide[T]) Name() string { return w.name }

// Tables returns the table as it is on the cluster, for admin.EnsureTables.
func (w *Wide[T]) Tables() []schema.Definition {
	tn, err := schema.ParseTableName(w.name)
	if err != nil {
		return []schema.Definition{w.t}
	}
	return []schema.Definition{schema.Renamed(w.t, tn)}
}

// encode sets v's ids (assigning new names one when assign) and encodes its
// cell (value too when value is set). Bad records are *ValidationError.
func (w *Wide[T]) encode(ctx context.Context, v *T, c *schema.WideCell, value bool) error {
	if v == nil {
		return &ValidationError{Table: w.name, Reason: "nil record"}
	}
	if err := setUIDs(ctx, w.uids, w.uidDecls, w.name, v, value); err != nil {
		return err
	}
	var err error
	if value {
		err = w.t.EncodeCell(c, v)
	} else {
		err = w.t.EncodeKey(c, v)
	}
	if err != nil {
		field, reason := describe(err)
		return &ValidationError{Table: w.name, Field: field, Reason: reason, Err: err}
	}
	if len(c.Row) > hbapi.MaxRowLength {
		return &ValidationError{Table: w.name, Reason: "row key longer than " + strconv.Itoa(hbapi.MaxRowLength) + " bytes"}
	}
	return nil
}

// Put writes the cell of v, replacing the cell of a record with the same
// key fields: one hbase Put of one cell. An invalid record is a
// *ValidationError and nothing is written.
func (w *Wide[T]) Put(ctx context.Context, v *T) (err error) {
	ctx, span := writeSpan(ctx, w.tracer, w.traceAll, OpPut, w.name, 1)
	defer func() { end(span, err) }()
	var c schema.WideCell
	if err := w.encode(ctx, v, &c, true); err != nil {
		return err
	}
	w.settle.waitKeys(ctx, [][]byte{c.Row})
	p := &hbapi.Put{Table: w.name, Row: c.Row, Values: map[string]map[string][]byte{
		string(w.family): {string(c.Qualifier): c.Value},
	}}
	if err := w.c.Put(ctx, p); err != nil {
		return fmt.Errorf("dao: put %q: %w", w.name, err)
	}
	return nil
}

// Delete removes the cell of the record whose key fields are those of key
// (its value is ignored): one hbase Delete of the column, every version.
// Deleting a missing record is not an error.
func (w *Wide[T]) Delete(ctx context.Context, key *T) (err error) {
	ctx, span := writeSpan(ctx, w.tracer, w.traceAll, OpDelete, w.name, 1)
	defer func() { end(span, err) }()
	var c schema.WideCell
	if err := w.encode(ctx, key, &c, false); err != nil {
		return err
	}
	d := &hbapi.Delete{Table: w.name, Row: c.Row, Family: w.family, Qualifier: c.Qualifier, AllVersions: true}
	if err := w.c.Delete(ctx, d); err != nil {
		return fmt.Errorf("dao: delete %q: %w", w.name, err)
	}
	w.settle.doneKeys([][]byte{c.Row})
	return nil
}

// Get reads the record whose key fields are those of key and reports
// whether it exists: one hbase Get of one column.
func (w *Wide[T]) Get(ctx context.Context, key *T) (*T, bool, error) {
	var c schema.WideCell
	if err := w.encode(ctx, key, &c, false); err != nil {
		return nil, false, err
	}
	res, err := w.c.Get(ctx, &hbapi.Get{Table: w.name, Row: c.Row, Columns: []hbapi.Column{{Family: w.family, Qualifier: c.Qualifier}}})
	if err != nil {
		return nil, false, fmt.Errorf("dao: get %q: %w", w.name, err)
	}
	if res.Empty() {
		return nil, false, nil
	}
	v := new(T)
	if err := w.decode(ctx, res.Cells[0], v); err != nil {
		return nil, false, err
	}
	return v, true, nil
}

func (w *Wide[T]) decode(ctx context.Context, cell hbapi.Cell, v *T) error {
	if err := w.t.DecodeCell(cell.Row, cell.Qualifier, cell.Value, v); err != nil {
		field, reason := describe(err)
		return &DecodeError{Table: w.name, Field: field, Reason: reason, Err: err}
	}
	return setUIDNames(ctx, w.uids, w.uidDecls, w.name, v)
}

// PutBatch writes the cells of recs (adding or replacing, like Put) and
// returns one result per record, in order. Every record is checked and
// encoded first; if one is invalid nothing is written (a *BatchError with
// Rejected set, the others' results ErrNotAttempted). The cells are then
// grouped by row, one hbase Put per row holding all its cells (a later
// record of the batch with the same key fields wins), and the Puts go in
// one hbase Batch per WithBatchSize rows, WithWriteConcurrency of them in
// flight. If ctx ends between Batch calls, the records not sent have
// results wrapping ErrNotAttempted. A row's Put is atomic in HBase;
// the batch is not: a failed row fails each of its records, listed once
// in the *BatchError, and the other rows are written.
func (w *Wide[T]) PutBatch(ctx context.Context, recs []*T) ([]error, error) {
	return w.batch(ctx, OpPut, recs)
}

// DeleteBatch removes the cells of the records whose key fields are those
// of keys, with one result per record like PutBatch: one hbase Delete per
// cell, WithBatchSize of them per hbase Batch.
func (w *Wide[T]) DeleteBatch(ctx context.Context, keys []*T) ([]error, error) {
	return w.batch(ctx, OpDelete, keys)
}

// send sends the actions of chunk in one Batch call and sets the results
// of their records. Each record belongs to one row, so concurrent sends
// write disjoint results.
func (w *Wide[T]) send(ctx context.Context, op Op, chunk []*wideRow, results []error) {
	actions := make([]hbapi.Action, len(chunk))
	keys := make([][]byte, len(chunk))
	for j, r := range chunk {
		actions[j], keys[j] = r.action, r.row
	}
	if op == OpPut {
		w.settle.waitKeys(ctx, keys)
	}
	brs, err := w.c.Batch(ctx, actions)
	var be *hbapi.BatchError
	if errors.As(err, &be) && len(brs) == len(chunk) {
		// Some rows failed; each result says which (hbase.DataClient).
		err = nil
	}
	var done [][]byte
	for j, r := range chunk {
		rerr := err
		if rerr == nil && j < len(brs) {
			rerr = brs[j].Err
		} else if rerr == nil {
			rerr = errors.New("no result for the row")
		}
		if rerr != nil {
			rerr = fmt.Errorf("dao: %s %q: %w", op, w.name, rerr)
		} else {
			done = append(done, r.row)
		}
		for _, i := range r.records {
			results[i] = rerr
		}
	}
	if op == OpDelete && len(done) > 0 {
		w.settle.doneKeys(done)
	}
}

// wideRow is the action of one row of a batch and the records it carries.
type wideRow struct {
	action  hbapi.Action
	row     []byte
	records []int
}

func (w *Wide[T]) batch(ctx context.Context, op Op, recs []*T) (_ []error, err error) {
	ctx, span := writeSpan(ctx, w.tracer, w.traceAll, op, w.name, len(recs))
	defer func() { end(span, err) }()
	results := make([]error, len(recs))
	cells := make([]schema.WideCell, len(recs))
	var rejected []ItemError
	for i, v := range recs {
		err := w.encode(ctx, v, &cells[i], op == OpPut)
		var ve *ValidationError
		if err != nil && !errors.As(err, &ve) {
			// The UID table failed, not the record: nothing is written.
			fill(results, ErrNotAttempted)
			results[i] = err
			return results, &BatchError{Table: w.name, Op: op.String(), Failed: []ItemError{{Index: i, Err: err}}}
		}
		if err != nil {
			results[i] = err
			rejected = append(rejected, ItemError{Index: i, Err: err})
		}
	}
	if len(rejected) > 0 {
		for i := range results {
			if results[i] == nil {
				results[i] = ErrNotAttempted
			}
		}
		return results, &BatchError{Table: w.name, Op: op.String(), Rejected: true, Failed: rejected}
	}
	w.sendRows(ctx, op, w.rows(op, cells), results)
	var failed []ItemError
	for i, err := range results {
		if err != nil {
			failed = append(failed, ItemError{Index: i, Err: err})
		}
	}
	if len(failed) > 0 {
		return results, &BatchError{Table: w.name, Op: op.String(), Failed: failed}
	}
	return results, nil
}

// rows returns the writes of cells: one Put per row holding every cell
// of it, or one Delete per cell.
func (w *Wide[T]) rows(op Op, cells []schema.WideCell) []*wideRow {
	var rows []*wideRow
	if op != OpPut {
		for i := range cells {
			c := &cells[i]
			rows = append(rows, &wideRow{row: c.Row, records: []int{i},
				action: &hbapi.Delete{Table: w.name, Row: c.Row, Family: w.family, Qualifier: c.Qualifier, AllVersions: true}})
		}
		return rows
	}
	byRow := make(map[string]*wideRow)
	for i := range cells {
		c := &cells[i]
		r, ok := byRow[string(c.Row)]
		if !ok {
			r = &wideRow{row: c.Row, action: &hbapi.Put{Table: w.name, Row: c.Row,
				Values: map[string]map[string][]byte{string(w.family): {}}}}
			byRow[string(c.Row)] = r
			rows = append(rows, r)
		}
		r.action.(*hbapi.Put).Values[string(w.family)][string(c.Qualifier)] = c.Value
		r.records = append(r.records, i)
	}
	return rows
}

// sendRows sends rows in chunks of the batch size, recording each
// record's error in results. Rows are distinct within a put batch and
// deletes are idempotent, so chunks may go in any order: up to
// WithWriteConcurrency at a time.
func (w *Wide[T]) sendRows(ctx context.Context, op Op, rows []*wideRow, results []error) {
	var wg sync.WaitGroup
	defer wg.Wait()
	var sem chan struct{}
	if w.writeConc > 1 && len(rows) > w.batchSize {
		sem = make(chan struct{}, w.writeConc)
	}
	for start := 0; start < len(rows); start += w.batchSize {
		chunk := rows[start:min(start+w.batchSize, len(rows))]
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
		}
		if err := ctx.Err(); err != nil {
			for _, r := range rows[start:] {
				for _, i := range r.records {
					results[i] = errors.Join(ErrNotAttempted, err)
				}
			}
			return
		}
		if sem == nil {
			w.send(ctx, op, chunk, results)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			w.send(ctx, op, chunk, results)
		}()
	}
}

// WideQuery selects the records of a wide table whose key, row key then
// qualifier, lies between the keys of From and To, both included (their
// order does not matter). Both are whole records' key fields: for a time
// series, the series (host, event) and an instant each, so the query is
// "this series from this instant to that one". The first and last rows
// are trimmed to the bounds; the rows between are read whole.
type WideQuery[T any] struct {
	From, To *T
	// Limit bounds the records (Scan) or rows (Counts) returned; 0 means
	// no limit.
	Limit int
}

// wideBounds is a query encoded: the key range as (row, qualifier) pairs.
type wideBounds struct {
	loRow, loQual, hiRow, hiQual []byte
}

// inside reports whether the cell (row, qual) lies within the bounds.
func (b *wideBounds) inside(row, qual []byte) bool {
	if c := bytes.Compare(row, b.loRow); c < 0 || c == 0 && bytes.Compare(qual, b.loQual) < 0 {
		return false
	}
	if c := bytes.Compare(row, b.hiRow); c > 0 || c == 0 && bytes.Compare(qual, b.hiQual) > 0 {
		return false
	}
	return true
}

// after reports whether row lies beyond the last row of the bounds.
func (b *wideBounds) after(row []byte) bool { return bytes.Compare(row, b.hiRow) > 0 }

func (w *Wide[T]) bounds(ctx context.Context, q WideQuery[T]) (*wideBounds, error) {
	invalid := func(field, reason string, err error) error {
		return &QueryError{Table: w.name, Field: field, Reason: reason, Err: err}
	}
	switch {
	case q.From == nil || q.To == nil:
		return nil, invalid("From", "a wide query needs both bounds", nil)
	case q.Limit < 0:
		return nil, invalid("Limit", "negative limit", nil)
	}
	var lo, hi schema.WideCell
	for _, b := range []struct {
		name string
		v    *T
		c    *schema.WideCell
	}{{"From", q.From, &lo}, {"To", q.To, &hi}} {
		if err := setUIDs(ctx, w.uids, w.uidDecls, w.name, b.v, false); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return nil, invalid(b.name, ve.Reason, err)
			}
			return nil, err
		}
		if err := w.t.EncodeKey(b.c, b.v); err != nil {
			field, reason := describe(err)
			return nil, invalid(b.name+"."+field, reason, err)
		}
	}
	if c := bytes.Compare(lo.Row, hi.Row); c > 0 || c == 0 && bytes.Compare(lo.Qualifier, hi.Qualifier) > 0 {
		lo, hi = hi, lo
	}
	return &wideBounds{loRow: lo.Row, loQual: lo.Qualifier, hiRow: hi.Row, hiQual: hi.Qualifier}, nil
}

// scan opens the scan of the bounds' rows: from the first row to just
// after the last, the table's family only, WithBatchSize cells per Result
// so that a row of many columns is never held whole.
func (w *Wide[T]) scan(ctx context.Context, b *wideBounds, keyOnly bool) (hbapi.Scanner, error) {
	s := &hbapi.Scan{
		Table: w.name, StartRow: b.loRow, StopRow: append(bytes.Clone(b.hiRow), 0),
		Families: [][]byte{w.family}, Caching: w.caching, Batch: w.batchSize,
	}
	if keyOnly {
		s.Filter = &hbapi.KeyOnlyFilter{}
	}
	sc, err := w.c.Scan(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("dao: scan %q: %w", w.name, err)
	}
	return sc, nil
}

// Scan returns the records of q in key order (time order within a
// series), decoding each cell. An error ends the iteration; breaking out
// of the loop closes the scan.
func (w *Wide[T]) Scan(ctx context.Context, q WideQuery[T]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		b, err := w.bounds(ctx, q)
		if err != nil {
			yield(nil, err)
			return
		}
		sc, err := w.scan(ctx, b, false)
		if err != nil {
			yield(nil, err)
			return
		}
		n := 0
		for res, err := range hbapi.All(ctx, sc) {
			if err != nil {
				yield(nil, fmt.Errorf("dao: scan %q: %w", w.name, err))
				return
			}
			for _, cell := range res.Cells {
				if b.after(cell.Row) {
					return
				}
				if !b.inside(cell.Row, cell.Qualifier) {
					continue
				}
				v := new(T)
				if err := w.decode(ctx, cell, v); err != nil {
					yield(nil, err)
					return
				}
				if !yield(v, nil) {
					return
				}
				if n++; q.Limit > 0 && n >= q.Limit {
					return
				}
			}
		}
	}
}

// RowCount is the number of columns of one row of a wide table within a
// query: per-row statistics (events per host and five minutes) read
// without the values.
type RowCount[T any] struct {
	// Row holds the row-key fields of the row; a split timestamp holds
	// the start of the row's range.
	Row *T
	// Columns is the number of the row's cells within the query.
	Columns int
}

// Counts returns, for each row of q in key order, its number of cells
// within q (the first and last rows trimmed as in Scan). It reads keys
// only (an hbase KeyOnlyFilter): no value is sent or decoded.
func (w *Wide[T]) Counts(ctx context.Context, q WideQuery[T]) iter.Seq2[RowCount[T], error] {
	return func(yield func(RowCount[T], error) bool) {
		b, err := w.bounds(ctx, q)
		if err != nil {
			yield(RowCount[T]{}, err)
			return
		}
		sc, err := w.scan(ctx, b, true)
		if err != nil {
			yield(RowCount[T]{}, err)
			return
		}
		var row []byte
		count, n := 0, 0
		// flush yields the row counted so far; it reports whether to go on.
		flush := func() bool {
			if row == nil || count == 0 {
				return true
			}
			v := new(T)
			if err := w.t.DecodeKey(row, v); err != nil {
				field, reason := describe(err)
				yield(RowCount[T]{}, &DecodeError{Table: w.name, Field: field, Reason: reason, Err: err})
				return false
			}
			if err := setUIDNames(ctx, w.uids, w.uidDecls, w.name, v); err != nil {
				yield(RowCount[T]{}, err)
				return false
			}
			if !yield(RowCount[T]{Row: v, Columns: count}, nil) {
				return false
			}
			n++
			return q.Limit == 0 || n < q.Limit
		}
		for res, err := range hbapi.All(ctx, sc) {
			if err != nil {
				yield(RowCount[T]{}, fmt.Errorf("dao: scan %q: %w", w.name, err))
				return
			}
			r := res.Row()
			if b.after(r) {
				break
			}
			if !bytes.Equal(r, row) {
				if !flush() {
					return
				}
				row, count = bytes.Clone(r), 0
			}
			for _, cell := range res.Cells {
				if b.inside(cell.Row, cell.Qualifier) {
					count++
				}
			}
		}
		flush()
	}
}

// CountRow returns the number of columns of the row that holds the record
// whose key fields are those of key (for a time series: the events of its
// series in its range), reading keys only.
func (w *Wide[T]) CountRow(ctx context.Context, key *T) (int, error) {
	var c schema.WideCell
	if err := w.encode(ctx, key, &c, false); err != nil {
		return 0, err
	}
	res, err := w.c.Get(ctx, &hbapi.Get{Table: w.name, Row: c.Row, Families: [][]byte{w.family}, Filter: &hbapi.KeyOnlyFilter{}})
	if err != nil {
		return 0, fmt.Errorf("dao: count %q: %w", w.name, err)
	}
	if res.Empty() {
		return 0, nil
	}
	return len(res.Cells), nil
}

// waitKeys is settler.wait for row keys: it returns once settleTime has
// passed since the last acknowledged delete in any of the rows, or when
// ctx ends.
func (s *settler) waitKeys(ctx context.Context, rows [][]byte) {
	if s.n.Load() == 0 {
		return
	}
	var last time.Time
	s.mu.Lock()
	for _, k := range rows {
		if t, ok := s.deleted[string(k)]; ok && t.After(last) {
			last = t
		}
	}
	s.mu.Unlock()
	if d := settleTime - time.Since(last); !last.IsZero() && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}
