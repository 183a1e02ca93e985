package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/schema"
)

// Client is the part of hbase.DataClient this package calls. The real
// client, the fake (package hbase/fake) and the mock (package
// hbase/hbasemock) satisfy it.
type Client interface {
	Get(ctx context.Context, g *hbapi.Get) (*hbapi.Result, error)
	CheckAndMutate(ctx context.Context, cam *hbapi.CheckAndMutate) (bool, error)
	Scan(ctx context.Context, s *hbapi.Scan) (hbapi.Scanner, error)
	Batch(ctx context.Context, actions []hbapi.Action) ([]hbapi.BatchResult, error)
}

var _ Client = hbapi.DataClient(nil)

// Reserved qualifiers. The data row's version and recorded index keys live
// in the data table's first family; the entry status lives in the index
// entry's family. A schema whose columns use them is rejected.
const (
	// VersionQualifier holds the data row's version: 8 big-endian bytes,
	// the milliseconds of the write that produced it. A deleted record
	// leaves its row holding only this cell, followed by the byte 'd' (a
	// tombstone), so that whoever writes the record again picks a higher
	// version; Check in ModeRepair or ModeRebuild removes tombstones older
	// than the grace period.
	VersionQualifier = "_v"
	// keyQualifierPrefix + index name holds the key of the row's entry in
	// that index, as of the row's version.
	keyQualifierPrefix = "_ix:"
	// StatusQualifier holds an entry's status: one byte, 'u' (unverified)
	// or 'v' (verified), then the 8-byte version of the write that set it.
	StatusQualifier = "_s"
	// TokenQualifier holds the token of the insert that wrote the record
	// (schema.Record.Token): how a writer recognises its own insert after
	// the network hid the answer, and how Check recognises one insert
	// stored under two keys.
	TokenQualifier = "_t"
)

// Bookkeeping reports whether q is a qualifier the protocol keeps in a data
// row or an entry besides the record's columns (version, status, writer,
// recorded index keys and their history), the insert token aside.
func Bookkeeping(q string) bool {
	switch q {
	case VersionQualifier, StatusQualifier, writerQualifier:
		return true
	}
	return strings.HasPrefix(q, keyQualifierPrefix) || strings.HasPrefix(q, historyQualifierPrefix)
}

// Entry statuses, the first byte of the status cell.
const (
	statusUnverified byte = 'u'
	statusVerified   byte = 'v'
)

// Table writes and reads a data table of records T together with its
// index tables, keeping every entry in step with its data row. It is safe
// for concurrent use.
type Table[T any] struct {
	c         Client
	t         *schema.Table[T]
	dec       *RowDecoder[T]
	o         options
	name      string // data table on the cluster
	fam       string // family of the version and key cells
	dataCols  []schema.ColumnInfo
	ixs       []*ixState[T]
	noKeys    [][]byte     // one nil entry key per index: the old keys of a row assumed absent; read only
	rows      RowClock     // write versions (nextVersion)
	readFirst atomic.Int32 // batches of puts left that read before writing (see guessAbsent)
	ver       *verifier    // background phase 3 (nil with Config.SyncVerify)
	mode      schema.WriteMode
	val       *verifier // background validation of mutable writes (nil with Config.SyncVerify)
	pending   sync.Map  // *hbase.Get queued on val -> pendingWrite[T]
	tracer    trace.Tracer
	metrics   checkMetrics
	settledAt atomic.Int64 // when writers last read the indexes' states (see settled), UnixNano; -1 once all are active
}

// ixState is one index of the table, resolved for the protocol.
type ixState[T any] struct {
	ix       *schema.Index[T]
	declared string // name in the schema
	name     string // name on the cluster
	fam      string // entry family
	rowQ     string // entry cell holding the data row key
	keyQ     string // data-table qualifier recording the entry key
	carried  []schema.ColumnInfo
	inv      bool        // inverted: an entry is one cell, its value the status (see inverted.go)
	active   atomic.Bool // seen active: readers need not read its state again (see readable)
}

// New returns the engine serving t and all of its indexes through c.
// Every index must carry the data row key (IndexSpec.RowKeyQualifier) or
// be inverted (IndexSpec.Qualifier),
// and no column may use the reserved qualifiers. Applications open a
// dao store instead, which calls New when the schema declares indexes.
func New[T any](c Client, t *schema.Table[T], cfg Config) (*Table[T], error) {
	if c == nil || t == nil {
		return nil, fmt.Errorf("index: %w: nil client or table", ErrInvalidOption)
	}
	o, err := cfg.options()
	if err != nil {
		return nil, err
	}
	if cfg.DataTable != "" {
		if _, err := hbapi.ParseTableName(cfg.DataTable); err != nil {
			return nil, fmt.Errorf("index: %w: data table name: %w", ErrInvalidOption, err)
		}
	}
	tb := &Table[T]{c: c, t: t, dec: NewRowDecoder(t), o: o, dataCols: t.Columns(), tracer: cfg.Tracer}
	if tb.tracer == nil {
		tb.tracer = newTracer(o.tracerProvider)
	}
	tb.metrics = newCheckMetrics(cfg.MeterProvider)
	tb.mode = t.WriteMode()
	if cfg.Writes != nil {
		tb.mode = *cfg.Writes
	}
	if !tb.mode.Valid() {
		return nil, fmt.Errorf("index: %w: write mode %v", ErrInvalidOption, tb.mode)
	}
	if o.asyncVerify {
		tb.ver = newVerifier(tb.sendVerifications)
		if tb.mode == schema.Mutable {
			tb.val = newVerifier(tb.sendValidations)
			tb.val.linger = validationLinger
		}
	}
	tb.name = t.Name().String()
	if cfg.DataTable != "" {
		tb.name = cfg.DataTable
	}
	tb.fam = t.Families()[0].Name
	for _, c := range tb.dataCols {
		if c.Family == tb.fam && (c.Qualifier == VersionQualifier || c.Qualifier == TokenQualifier || len(c.Qualifier) >= len(keyQualifierPrefix) && c.Qualifier[:len(keyQualifierPrefix)] == keyQualifierPrefix) {
			return nil, fmt.Errorf("%w: column %q uses a reserved qualifier", ErrUnsupportedSchema, c.Name)
		}
	}
	if len(t.Indexes()) == 0 {
		return nil, fmt.Errorf("%w: table %s declares no index", ErrUnsupportedSchema, t.Name())
	}
	for _, ix := range t.Indexes() {
		fam, rowQ, ok := ix.RowKeyColumn()
		declared := ix.Name().String()
		if ix.Inverted() {
			tb.ixs = append(tb.ixs, &ixState[T]{ix: ix, declared: declared, name: o.rename(declared), fam: fam,
				keyQ: keyQualifierPrefix + declared, inv: true})
			continue
		}
		if !ok {
			return nil, fmt.Errorf("%w: index %s does not carry the data row key, which the protocol needs to find "+
				"an entry's record: set IndexSpec.RowKeyQualifier (a qualifier such as \"row\") or make the index "+
				"inverted with IndexSpec.Qualifier", ErrUnsupportedSchema, declared)
		}
		s := &ixState[T]{
			ix: ix, declared: declared, name: o.rename(declared), fam: fam, rowQ: rowQ,
			keyQ: keyQualifierPrefix + declared, carried: ix.Columns(),
		}
		if rowQ == StatusQualifier || slices.ContainsFunc(s.carried, func(c schema.ColumnInfo) bool { return c.Qualifier == StatusQualifier }) {
			return nil, fmt.Errorf("%w: index %s uses the reserved qualifier %q", ErrUnsupportedSchema, declared, StatusQualifier)
		}
		tb.ixs = append(tb.ixs, s)
	}
	tb.noKeys = make([][]byte, len(tb.ixs))
	return tb, nil
}

func (o *options) rename(declared string) string {
	if to, ok := o.names[declared]; ok {
		return to
	}
	return declared
}

// Schema returns the table declaration.
func (t *Table[T]) Schema() *schema.Table[T] { return t.t }

// KeepsRecords reports whether Write may still read the records it was
// given after it returned: it does in the strict and mutable modes (their
// background verification and validation). An insert-only table's Write
// does not, so a caller may reuse a record's buffers once a Write of it
// succeeded; after a failed Write the client may still be sending it.
func (t *Table[T]) KeepsRecords() bool { return t.mode != schema.InsertOnly }

// DataTable returns the data table's name on the cluster.
func (t *Table[T]) DataTable() string { return t.name }

// IndexTables returns the index tables' names on the cluster, in
// declaration order.
func (t *Table[T]) IndexTables() []string {
	out := make([]string, len(t.ixs))
	for i, s := range t.ixs {
		out[i] = s.name
	}
	return out
}

func (t *Table[T]) index(name string) (*ixState[T], error) {
	for _, s := range t.ixs {
		if s.declared == name || s.name == name || s.ix.Name().FullName() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownIndex, name)
}

// encode checks rec and builds its rows (schema.Table.EncodeRecord).
// Nothing is written.
func (t *Table[T]) encode(rec *T) (*schema.Record, error) {
	r := new(schema.Record)
	if err := t.t.EncodeRecord(r, rec); err != nil {
		return nil, err
	}
	return r, nil
}

// statusValue encodes an entry status.
func statusValue(status byte, version int64) []byte {
	b := make([]byte, 9)
	b[0] = status
	binary.BigEndian.PutUint64(b[1:], uint64(version))
	return b
}

// parseStatus decodes a status cell; ok is false for a missing or
// malformed one.
func parseStatus(b []byte) (status byte, version int64, ok bool) {
	if len(b) != 9 || (b[0] != statusUnverified && b[0] != statusVerified) {
		return 0, 0, false
	}
	return b[0], int64(binary.BigEndian.Uint64(b[1:])), true
}

func versionValue(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// RowClock hands out write versions, per row: the clock's millisecond,
// or one above the version the row was read at, or one above the version
// the clock last gave the row, whichever is highest. Every path of every
// mode of a Table takes its versions from one, so versions increase per
// row in the order a Table writes it, and run ahead of the clock only as
// far as one row's writes in one millisecond, or its stored version, push
// them: a Table-wide counter would run ahead by a millisecond per write,
// and a writer that does not read the row first (mutable, verify-on-read),
// or one in another process stamping by its own clock, would then lose to
// older writes. The zero RowClock is ready to use and safe for concurrent
// use.
type RowClock struct {
	mu   sync.Mutex
	now  int64            // the newest millisecond seen
	rows map[string]int64 // rows given a version at or above now
}

// nextVersion returns the version of a write of row, whose stored version
// is old (0: not read).
func (t *Table[T]) nextVersion(row []byte, old int64) int64 {
	return t.rows.Next(t.o.now().UnixMilli(), row, old)
}

// Next returns the version of a write of row at millisecond now, whose
// stored version is old (0: not read).
func (c *RowClock) Next(now int64, row []byte, old int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now > c.now {
		c.now = now
		if len(c.rows) > 0 {
			// Rows given a version below the clock need no memory: the
			// clock alone keeps their next write above it. The survivors
			// move to a fresh map, since a map keeps the buckets of its
			// largest size (a burst of writes, or a clock that stepped
			// back for a while and held every row since).
			keep := make(map[string]int64)
			for k, v := range c.rows {
				if v >= now {
					keep[k] = v
				}
			}
			c.rows = keep
		}
	}
	v := max(c.now, old+1) // never below a version the clock gave before, should it step back
	if last, ok := c.rows[string(row)]; ok && last >= v {
		v = last + 1
	}
	if c.rows == nil {
		c.rows = make(map[string]int64)
	}
	c.rows[string(row)] = v
	return v
}

// rowCells returns the cells of r as the Cells of a Put, with room for
// extra more (the protocol's own, added with addCell). The values alias r.
func rowCells(r *schema.Row, extra int) []hbapi.PutCell {
	return appendRowCells(make([]hbapi.PutCell, 0, len(r.Cells)+extra), r, extra)
}

// appendRowCells is rowCells into room, when it has room for them.
func appendRowCells(room []hbapi.PutCell, r *schema.Row, extra int) []hbapi.PutCell {
	if r == nil {
		return slices.Grow(room, extra)
	}
	if cap(room)-len(room) < len(r.Cells)+extra {
		room = slices.Grow(room, len(r.Cells)+extra)
	}
	return append(room, r.Cells...)
}

// entryBlock is an entry's Put with room for its cells and its status
// value: one allocation.
type entryBlock struct {
	put    hbapi.Put
	cells  [4]hbapi.PutCell
	status [9]byte
}

// condPut is a CheckAndMutate of a data row whose first mutation is a
// Put, with room for the Put's cells, the condition's column and a
// version value: one allocation for the writes of a record's data row.
type condPut struct {
	cam   hbapi.CheckAndMutate
	put   hbapi.Put
	muts  [1]hbapi.Mutation
	cells [8]hbapi.PutCell
	names [48]byte
	ver   [8]byte
	nonce [4]byte
}

// newCondPut returns the condPut of key in table, conditioned on the
// column fam:q, whose Put holds r's cells (none for a nil r) with room
// for extra more: add them to put.Cells, then finish.
func newCondPut(table string, key []byte, fam, q string, r *schema.Row, extra int) *condPut {
	b := new(condPut)
	names := append(b.names[:0:len(b.names)], fam...)
	b.cam = hbapi.CheckAndMutate{Table: table, Row: key, Family: names[:len(fam):len(fam)],
		Qualifier: append(names[len(fam):], q...), Compare: hbapi.CompareEqual, Mutations: b.muts[:]}
	b.put = hbapi.Put{Table: table, Row: key, Cells: b.cells[:0]}
	if r != nil || extra > len(b.cells) {
		b.put.Cells = appendRowCells(b.put.Cells, r, extra)
	}
	b.muts[0] = &b.put
	return b
}

// version returns version v encoded (versionValue) in b's memory.
func (b *condPut) version(v int64) []byte {
	return binary.BigEndian.AppendUint64(b.ver[:0], uint64(v))
}

// finish sorts the cells of b's Put, stamps them with ts, and returns the
// CheckAndMutate.
func (b *condPut) finish(ts int64) *hbapi.CheckAndMutate {
	b.put.Cells, b.put.Timestamp = sorted(b.put.Cells), ts
	return &b.cam
}

// addCell appends the cell fam:q holding v (nil: empty) to cells.
func addCell(cells []hbapi.PutCell, fam, q string, v []byte) []hbapi.PutCell {
	if v == nil {
		v = []byte{}
	}
	return append(cells, hbapi.PutCell{Family: fam, Qualifier: q, Value: v})
}

// sorted sorts cells as a Put's Cells are (family, then qualifier).
func sorted(cells []hbapi.PutCell) []hbapi.PutCell {
	slices.SortFunc(cells, hbapi.ComparePutCells)
	return cells
}

// entryPut is the Put of every cell of entry e at version v with the
// given status.
// The Put, its cells and the status value (statusValue) are one
// allocation.
func (s *ixState[T]) entryPut(e *schema.Row, status byte, v int64) *hbapi.Put {
	b := new(entryBlock)
	b.status[0] = status
	binary.BigEndian.PutUint64(b.status[1:], uint64(v))
	cells := b.cells[:0]
	if s.inv {
		cells = append(cells, hbapi.PutCell{Family: s.fam, Qualifier: e.Cells[0].Qualifier, Value: b.status[:]})
	} else {
		cells = addCell(appendRowCells(cells, e, 1), s.fam, StatusQualifier, b.status[:])
	}
	b.put = hbapi.Put{Table: s.name, Row: e.Key, Cells: sorted(cells), Timestamp: v}
	return &b.put
}

// entryActions returns the writes of a whole entry at version v with the
// given status: its Put (entryPut), and column deletes at v of carried
// columns the record has no value for.
func (s *ixState[T]) entryActions(e *schema.Row, status byte, v int64) []hbapi.Action {
	p := s.entryPut(e, status, v)
	acts := []hbapi.Action{p}
	for _, c := range s.carried {
		if _, ok := p.Value(c.Family, c.Qualifier); !ok {
			acts = append(acts, &hbapi.Delete{Table: s.name, Row: e.Key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), Timestamp: v, AllVersions: true})
		}
	}
	return acts
}

// toSchemaCells converts the newest version of each column of r, leaving
// out cells older than since (see Since).
func toSchemaCells(r *hbapi.Result, since int64) []schema.Cell {
	if r.Empty() {
		return nil
	}
	out := make([]schema.Cell, 0, len(r.Cells))
	for _, c := range r.Cells {
		if c.Type != 0 && c.Type != hbapi.CellTypePut || c.Timestamp < since {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Family == string(c.Family) && out[n-1].Qualifier == string(c.Qualifier) {
			continue // an older version; Cells are newest first per column
		}
		out = append(out, schema.Cell{Family: string(c.Family), Qualifier: string(c.Qualifier), Value: c.Value})
	}
	return out
}

// dataState is what a writer or reader learns from a data row.
type dataState[T any] struct {
	exists    bool   // the row holds a live record
	tombstone bool   // the row holds only the version of a deleted record
	version   int64  // without a version cell (another client's or an insert-only row): its newest cell's timestamp
	verBytes  []byte // the version cell as stored, nil when absent
	rec       T
	decoded   bool
	keys      [][]byte // per index: the recorded entry key, else the derived one, else nil
	derived   [][]byte // per index: the key derived from the decoded record, nil if it cannot be
}

// tombstoneFlag ends the version cell of a deleted record.
const tombstoneFlag = 'd'

// readData interprets a data row.
func (t *Table[T]) readData(key []byte, r *hbapi.Result) *dataState[T] {
	d := &dataState[T]{keys: make([][]byte, len(t.ixs)), derived: make([][]byte, len(t.ixs))}
	if r.Empty() {
		return d
	}
	fam := []byte(t.fam)
	v := r.Value(fam, []byte(VersionQualifier))
	switch {
	case len(v) == 9 && v[8] == tombstoneFlag:
		d.tombstone, d.verBytes = true, v
		d.version = int64(binary.BigEndian.Uint64(v))
		return d
	case len(v) == 8:
		d.verBytes = v
		d.version = int64(binary.BigEndian.Uint64(v))
	default:
		// Another client's row (or an insert-only one): its newest cell
		// stands for the version, so that writes and repairs go above it
		// and notice a rewrite.
		for _, c := range r.Cells {
			d.version = max(d.version, c.Timestamp)
		}
	}
	d.exists = true
	if _, err := t.dec.Decode(r, t.Since(r), nil, &d.rec); err == nil {
		d.decoded = true
	}
	for i, s := range t.ixs {
		if d.decoded {
			if k, err := s.ix.AppendKey(nil, &d.rec); err == nil {
				d.derived[i] = k
			}
		}
		if k := r.Value(fam, []byte(s.keyQ)); len(k) > 0 {
			d.keys[i] = bytes.Clone(k)
		} else {
			d.keys[i] = d.derived[i]
		}
	}
	return d
}

// Since returns the timestamp below which the cells of a data row belong
// to an older version of its record: the version cell's, since every
// write of the protocol stamps all the cells of a version with it (a
// mutable write leaves the columns its record lacks in place rather than
// deleting them). Rows without a version cell (insert-only tables, other
// clients) return 0: every cell counts.
func (t *Table[T]) Since(r *hbapi.Result) int64 {
	if c, ok := r.Latest([]byte(t.fam), []byte(VersionQualifier)); ok {
		return c.Timestamp
	}
	return 0
}
