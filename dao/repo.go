package dao

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Client is the part of hbase.DataClient a Repo calls. hbase.DataClient,
// the native client and the in-memory fake (hbase/fake) all satisfy it.
type Client interface {
	Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error)
	Put(ctx context.Context, p *hbase.Put) error
	Delete(ctx context.Context, d *hbase.Delete) error
	Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error)
	Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error)
}

var _ Client = hbase.DataClient(nil)

// Repo reads and writes records of type T in the table a schema declares:
// the row key and cells come from the schema's mapping functions, in both
// directions. A Repo is safe for concurrent use; it holds no connection of
// its own and is cheap to create.
type Repo[T any] struct {
	c          Client
	t          *schema.Table[T]
	name       string
	salts      int // salt buckets of a salted layout, 0 otherwise
	batchSize  int
	conc       int
	caching    int
	validators []func(*T) error
	w          Writer[T] // nil: write with the client
	// cols maps family then qualifier to the strings the schema uses, so
	// decoding converts no bytes to strings.
	cols map[string]map[string]colName
	rows sync.Pool // *schema.Row for single-record writes
}

type colName struct{ family, qualifier string }

// New returns a repository for table on client c. Options are validated
// once here.
func New[T any](c Client, table *schema.Table[T], opts ...Option) (*Repo[T], error) {
	if c == nil || isNilPointer(c) {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidOption)
	}
	if table == nil {
		return nil, fmt.Errorf("%w: nil table", ErrInvalidOption)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("%w: nil Option", ErrInvalidOption)
		}
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	validators, w, err := typed[T](&o)
	if err != nil {
		return nil, err
	}
	r := &Repo[T]{
		c: c, t: table, name: table.Name().String(),
		batchSize: o.batchSize, conc: o.concurrency, caching: o.caching,
		validators: validators, w: w,
		cols: make(map[string]map[string]colName),
	}
	if o.renamed {
		tn, _ := hbase.ParseTableName(o.tableName) // checked by validate
		r.name = tn.String()
	}
	if segs := table.KeySegments(); len(segs) > 0 && segs[0].Kind == keys.KindSalt {
		r.salts = int(segs[0].Keyspace.Count)
	}
	for _, ci := range table.Columns() {
		fam := r.cols[ci.Family]
		if fam == nil {
			fam = make(map[string]colName)
			r.cols[ci.Family] = fam
		}
		fam[ci.Qualifier] = colName{ci.Family, ci.Qualifier}
	}
	r.rows.New = func() any { return new(schema.Row) }
	return r, nil
}

// Table returns the schema the repository uses.
func (r *Repo[T]) Table() *schema.Table[T] { return r.t }

// Name returns the table name, as HBase spells it.
func (r *Repo[T]) Name() string { return r.name }

// encode validates v and encodes it into row: validators, then the row key
// and cells. Every failure is a *ValidationError.
func (r *Repo[T]) encode(v *T, row *schema.Row) error {
	if v == nil {
		return &ValidationError{Table: r.name, Reason: "nil record"}
	}
	for _, check := range r.validators {
		if err := check(v); err != nil {
			return r.invalid(err)
		}
	}
	if err := r.t.EncodeRow(row, v); err != nil {
		return r.invalid(err)
	}
	if len(row.Key) > hbase.MaxRowLength {
		return &ValidationError{Table: r.name, Reason: "row key longer than " + strconv.Itoa(hbase.MaxRowLength) + " bytes"}
	}
	if len(row.Cells) == 0 {
		return &ValidationError{Table: r.name, Reason: "record has no column value; HBase keeps no row without a cell"}
	}
	return nil
}

// invalid wraps a cause as a *ValidationError naming the field.
func (r *Repo[T]) invalid(err error) *ValidationError {
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Err == nil {
		cp := *ve
		if cp.Table == "" {
			cp.Table = r.name
		}
		return &cp
	}
	field, reason := describe(err)
	return &ValidationError{Table: r.name, Field: field, Reason: reason, Err: err}
}

// putOf builds the Put of an encoded row. The values alias row.
func (r *Repo[T]) putOf(row *schema.Row) *hbase.Put {
	return &hbase.Put{Table: r.name, Row: row.Key, Values: row.Values()}
}

// Put validates and writes one record. An invalid record is rejected with
// a *ValidationError (errors.Is ErrInvalidRecord) before anything is
// written. With a Writer, the record is written through it.
func (r *Repo[T]) Put(ctx context.Context, v *T) error {
	row := r.rows.Get().(*schema.Row)
	defer r.rows.Put(row)
	if err := r.encode(v, row); err != nil {
		return err
	}
	if r.w != nil {
		results := []error{nil}
		writeVia(ctx, r.w.PutRecords, []*T{v}, results)
		if results[0] != nil {
			return fmt.Errorf("dao: put %q: %w", r.name, results[0])
		}
		return nil
	}
	if err := r.c.Put(ctx, r.putOf(row)); err != nil {
		return fmt.Errorf("dao: put %q: %w", r.name, err)
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

// Get reads the record whose key fields are those of key (its other
// fields are ignored) and reports whether it exists. For a salted layout
// it reads every salt value's row, in one batch.
func (r *Repo[T]) Get(ctx context.Context, key *T) (*T, bool, error) {
	if r.salts > 0 {
		return r.getSalted(ctx, key)
	}
	if key == nil {
		return nil, false, &ValidationError{Table: r.name, Reason: "nil key record"}
	}
	// The pooled row lends its key buffer to the request and its cell
	// slice to decoding; both are done with before it goes back.
	row := r.rows.Get().(*schema.Row)
	defer r.rows.Put(row)
	k, err := r.t.AppendKey(row.Key[:0], key)
	if err != nil {
		return nil, false, r.invalid(err)
	}
	row.Key = k
	res, err := r.c.Get(ctx, &hbase.Get{Table: r.name, Row: k})
	if err != nil {
		return nil, false, fmt.Errorf("dao: get %q: %w", r.name, err)
	}
	if res.Empty() {
		return nil, false, nil
	}
	v := new(T)
	cells, err := r.decode(res, row.Cells[:0], v)
	clear(cells)
	row.Cells = cells[:0]
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// getSalted reads the row under every salt value, in one batch, and
// decodes the first one found.
func (r *Repo[T]) getSalted(ctx context.Context, key *T) (*T, bool, error) {
	ks, err := r.rowKeys(key)
	if err != nil {
		return nil, false, err
	}
	actions := make([]hbase.Action, len(ks))
	for i, k := range ks {
		actions[i] = &hbase.Get{Table: r.name, Row: k}
	}
	results, err := r.c.Batch(ctx, actions)
	if err != nil {
		return nil, false, fmt.Errorf("dao: get %q: %w", r.name, err)
	}
	for _, br := range results {
		if br.Result.Empty() {
			continue
		}
		v := new(T)
		if _, err := r.decode(br.Result, nil, v); err != nil {
			return nil, false, err
		}
		return v, true, nil
	}
	return nil, false, nil
}

// decode decodes a result into v, reusing cells as scratch space.
func (r *Repo[T]) decode(res *hbase.Result, cells []schema.Cell, v *T) ([]schema.Cell, error) {
	cells = cells[:0]
	for _, c := range res.Cells {
		if fam, ok := r.cols[string(c.Family)]; ok {
			if n, ok := fam[string(c.Qualifier)]; ok {
				cells = append(cells, schema.Cell{Family: n.family, Qualifier: n.qualifier, Value: c.Value})
			}
		}
	}
	if err := r.t.DecodeRow(res.Row(), cells, v); err != nil {
		field, reason := describe(err)
		return cells, &DecodeError{Table: r.name, Field: field, Reason: reason, Err: err}
	}
	return cells, nil
}

// Delete removes the row of the record whose key fields are those of key.
// For a salted layout it deletes the row under every salt value. With a
// Writer, the delete goes through it (after the key is checked).
func (r *Repo[T]) Delete(ctx context.Context, key *T) error {
	ks, err := r.rowKeys(key)
	if err != nil {
		return err
	}
	if r.w != nil {
		results := []error{nil}
		writeVia(ctx, r.w.DeleteRecords, []*T{key}, results)
		if results[0] != nil {
			return fmt.Errorf("dao: delete %q: %w", r.name, results[0])
		}
		return nil
	}
	if len(ks) == 1 {
		err = r.c.Delete(ctx, &hbase.Delete{Table: r.name, Row: ks[0]})
	} else {
		actions := make([]hbase.Action, len(ks))
		for i, k := range ks {
			actions[i] = &hbase.Delete{Table: r.name, Row: k}
		}
		_, err = r.c.Batch(ctx, actions)
	}
	if err != nil {
		return fmt.Errorf("dao: delete %q: %w", r.name, err)
	}
	return nil
}
