package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Span is the part of one table a CheckRange covers: a key range of the
// data table or of one of its index tables, as a job's unit is.
type Span struct {
	Table string // the data table or one of its index tables, as on the cluster
	Start []byte // first row, inclusive; nil: the table's first
	Stop  []byte // exclusive; nil: past the table's last row
	After []byte // resume after this row (nil: from Start): the rows up to it were handled
	// Indexes limits a span of the data table to the entries of these
	// indexes (declared names); nil: every index.
	Indexes []string
	// Digest, in ModeVerify, is a number of buckets (1 to 4096): the
	// span reads nothing from the other table and judges nothing; it
	// adds the fingerprints of its entries (those its data rows derive,
	// or those its index table holds) to a Digest of that many buckets,
	// saved in each Checkpoint, and counts no missing, orphaned or stale
	// entry. Summed over every span of both tables, the buckets that are
	// not zero are those to check exactly. 0: judge as below.
	Digest int
	// Buckets, with Digest, judges exactly, as Digest 0 does, the entries
	// in these buckets (of Digest buckets) only, and digests none: run
	// over every span of both tables with the buckets a digest found not
	// zero, its Missing, Orphaned and Stale are those Digest 0 counts.
	// Its other counts are of the rows the span scanned, Entries of the
	// entries it judged.
	Buckets []int
}

// maxDigest is the most buckets a Span's Digest may have.
const maxDigest = 4096

// aheadDepth is how many batches of one CheckRange are in flight at once:
// the scan reads on while earlier batches wait for their Gets or Puts.
const aheadDepth = 4

// CheckRange is Check over one Span: on the data table, pass 1 over its
// rows in the span; on an index table, that index's pass over its entries
// in the span. Batches are read ahead: the scan goes on while up to
// aheadDepth batches wait for their round trips. The save function of
// WithCheckpoint is called after each batch, in key order, with After the
// last row handled (every row of the span up to it is done, none after)
// and Report the totals of this call; the other options do not apply.
//
// In ModeRebuild, the entries of a data row with a version are written
// as plain Puts at the row's version, as read repair writes them, instead
// of through the protocol (docs/index-jobs.md): a newer writer's cells
// and delete markers outrank them, so no concurrent write is undone. Rows
// without a version (another client's) and rows whose recorded entry
// keys disagree with their record go through the protocol. That pass
// reads no entry, so it counts no missing or stale ones: Repaired counts
// the records whose entries it wrote.
//
// In ModeVerify, neither pass reads what the other scans: a span of the
// data table counts the entries its rows need as Missing, and a span of
// an index table takes off Missing each entry it finds valid (verified,
// or another client's) and counts the stale ones. Missing is therefore
// exact summed over every span of both tables (a job's total), and
// negative for an index table's span alone.
func (t *Table[T]) CheckRange(ctx context.Context, mode Mode, sp Span, opts ...CheckOption) (Report, error) {
	if mode < ModeVerify || mode > ModeRebuild {
		return Report{}, fmt.Errorf("index: %w: CheckRange mode %d is not a mode", ErrInvalidOption, mode)
	}
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	ix, err := t.positions(sp.Indexes)
	if err != nil {
		return Report{}, err
	}
	start, stop := sp.Start, sp.Stop
	if len(stop) == 0 {
		stop = nil // a region's end key is empty, not nil, past the last row
	}
	if sp.After != nil && bytes.Compare(sp.After, sp.Start) >= 0 {
		start = append(bytes.Clone(sp.After), 0)
	}
	if stop != nil && bytes.Compare(start, stop) >= 0 {
		return Report{}, nil
	}
	if err := t.settleWrites(ctx); err != nil {
		return Report{}, err
	}
	if sp.Digest < 0 || sp.Digest > maxDigest || sp.Digest > 0 && mode != ModeVerify {
		return Report{}, fmt.Errorf("index: %w: CheckRange: a digest of %d buckets (want 0, or 1 to %d in ModeVerify)", ErrInvalidOption, sp.Digest, maxDigest)
	}
	var total Report
	var dig Digest
	var only []bool
	switch {
	case sp.Buckets != nil:
		only = make([]bool, sp.Digest)
		for _, b := range sp.Buckets {
			if b < 0 || b >= sp.Digest {
				return Report{}, fmt.Errorf("index: %w: CheckRange: bucket %d of %d", ErrInvalidOption, b, sp.Digest)
			}
			only[b] = true
		}
	case sp.Digest > 0:
		dig = make(Digest, 2*sp.Digest)
	}
	commit := func(last []byte, d Report, dd Digest) error {
		// The protocol's rewrites of the batch are verified in the
		// background: a position is saved once they are sent.
		if err := t.settleWrites(ctx); err != nil {
			return err
		}
		total.add(d)
		dig = dig.Add(dd)
		if o.save == nil {
			return nil
		}
		return o.save(Checkpoint{Table: t.name, Mode: mode.String(), After: bytes.Clone(last), Report: total, Digest: slices.Clone(dig)})
	}
	kr := keys.KeyRange{Start: start, Stop: stop}
	if sp.Table == t.name {
		err = t.rangeData(ctx, mode, kr, ix, sp.Digest, only, commit)
		return total, err
	}
	for i, s := range t.ixs {
		if s.name == sp.Table {
			err = t.rangeIndex(ctx, mode, i, kr, sp.Digest, only, commit)
			return total, err
		}
	}
	return Report{}, fmt.Errorf("index: %w: CheckRange: table %q is neither %s nor one of its index tables", ErrInvalidOption, sp.Table, t.name)
}

// positions returns the positions of the named indexes, nil for none
// named (every index).
func (t *Table[T]) positions(names []string) ([]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]int, 0, len(names))
	for _, n := range names {
		s, err := t.index(n)
		if err != nil {
			return nil, err
		}
		out = append(out, slices.Index(t.ixs, s))
	}
	return out, nil
}

// allIndexes returns the positions of every index.
func (t *Table[T]) allIndexes() []int {
	out := make([]int, len(t.ixs))
	for i := range out {
		out[i] = i
	}
	return out
}

// dataBatch is a batch of data rows of a span, and the duplicates the
// scan counted among them.
type dataBatch struct {
	rows []*hbapi.Result
	dups int64
}

// spanOut is what a batch of a span counted.
type spanOut struct {
	rep Report
	dig Digest // nil unless the span digests
}

// rangeData is pass 1 over the data rows in kr; buckets > 0: digest them,
// or with only, count as missing the entries they need in those buckets.
func (t *Table[T]) rangeData(ctx context.Context, mode Mode, kr keys.KeyRange, ix []int, buckets int, only []bool, commit func([]byte, Report, Digest) error) error {
	scan := func(ctx context.Context, emit func(dataBatch) error) error {
		sc, err := t.c.Scan(ctx, &hbapi.Scan{Table: t.name, StartRow: kr.Start, StopRow: kr.Stop, Caching: t.o.batchSize})
		if err != nil {
			return err
		}
		dups := newDupWindow()
		var b dataBatch
		for r, err := range hbapi.All(ctx, sc) {
			if err != nil {
				return err
			}
			if tok := t.tokenOf(r); tok != nil && dups.saw(tok) && t.readData(r.Row(), r).exists {
				b.dups++
			}
			if b.rows = append(b.rows, r); len(b.rows) == t.o.batchSize {
				if err := emit(b); err != nil {
					return err
				}
				b = dataBatch{}
			}
		}
		if len(b.rows) == 0 {
			return nil
		}
		return emit(b)
	}
	work := func(ctx context.Context, b dataBatch) (spanOut, error) {
		out := spanOut{rep: Report{Duplicates: b.dups}}
		switch {
		case mode == ModeRebuild:
			return out, t.bulkRows(ctx, b.rows, ix, &out.rep)
		case mode == ModeVerify && buckets > 0:
			live, _ := t.liveRows(mode, b.rows, &out.rep)
			if ix == nil {
				ix = t.allIndexes()
			}
			if only != nil {
				out.rep.Missing += t.neededIn(live, ix, only) // the index spans take off those they find
				return out, nil
			}
			out.dig = make(Digest, 2*buckets)
			t.digestRows(out.dig, live, ix)
			return out, nil
		case mode == ModeVerify:
			live, _ := t.liveRows(mode, b.rows, &out.rep)
			n := len(ix)
			if ix == nil {
				n = len(t.ixs)
			}
			out.rep.Missing += int64(len(live) * n) // the entries they need: the index spans take off those they find
			return out, nil
		}
		return out, t.checkDataRows(ctx, mode, b.rows, ix, &out.rep)
	}
	return readAhead(ctx, aheadDepth, scan, work, func(b dataBatch, out spanOut) error {
		return commit(b.rows[len(b.rows)-1].Row(), out.rep, out.dig)
	})
}

// rangeIndex is the pass of index i over its entries in kr. The entries
// of an inverted index are cells, and a row may hold more than a batch:
// batches end at row ends where they can (the cells of the row a chunk
// ends in go with the next one), and a position is committed only at the
// end of a row, the counts of the batches of a long row together.
//
// With buckets > 0 (ModeVerify) it reads no data row: it counts the
// entries and takes their fingerprints off a digest of that many buckets;
// with only, it judges the entries in those buckets alone.
func (t *Table[T]) rangeIndex(ctx context.Context, mode Mode, i int, kr keys.KeyRange, buckets int, only []bool, commit func([]byte, Report, Digest) error) error {
	s := t.ixs[i]
	scan := func(ctx context.Context, emit func([]*entry) error) error {
		var carry []*entry // inverted: the cells of the row a chunk ended in
		err := t.scanEntries(ctx, s, []keys.KeyRange{kr}, nil, t.o.batchSize, func(es []*entry) error {
			es = append(carry, es...) // a copy: the chunk is reused
			carry = nil
			if s.inv {
				cut := len(es)
				for cut > 0 && bytes.Equal(es[cut-1].key, es[len(es)-1].key) {
					cut--
				}
				if cut > 0 { // else the chunk is one row's: it goes as it is
					es, carry = es[:cut], slices.Clone(es[cut:])
				}
			}
			return emit(es)
		})
		if err != nil || len(carry) == 0 {
			return err
		}
		return emit(carry)
	}
	work := func(ctx context.Context, es []*entry) (spanOut, error) {
		var out spanOut
		if only != nil {
			es = slices.DeleteFunc(slices.Clone(es), func(e *entry) bool { return !only[digestBucket(i, e.key, e.qual, buckets)] })
			if len(es) == 0 {
				return out, nil
			}
		} else if buckets > 0 {
			out.rep.Entries += int64(len(es))
			out.dig = make(Digest, 2*buckets)
			t.digestEntries(out.dig, i, es)
			return out, nil
		}
		return out, t.checkEntries(ctx, mode, i, es, mode == ModeVerify, &out.rep)
	}
	var held spanOut // counts of cells of a row not known to be complete
	var heldRow []byte
	err := readAhead(ctx, aheadDepth, scan, work, func(es []*entry, out spanOut) error {
		last := es[len(es)-1].key
		if !s.inv {
			return commit(last, out.rep, out.dig)
		}
		if heldRow != nil && !bytes.Equal(es[0].key, heldRow) {
			// The held row ended with the previous batch.
			if err := commit(heldRow, held.rep, held.dig); err != nil {
				return err
			}
			held = spanOut{}
		}
		held.rep.add(out.rep)
		held.dig = held.dig.Add(out.dig)
		heldRow = last
		return nil
	})
	if err != nil || heldRow == nil {
		return err
	}
	return commit(heldRow, held.rep, held.dig)
}

// bulkRows is a batch of pass 1 in ModeRebuild: the entries of the
// indexes at ix (nil: every index) of each live row, written as plain
// Puts at the row's version where the row allows it (bulkable), through
// the protocol otherwise.
func (t *Table[T]) bulkRows(ctx context.Context, rows []*hbapi.Result, ix []int, rep *Report) error {
	live, purge := t.liveRows(ModeRebuild, rows, rep)
	if err := t.sendConditional(ctx, purge, rep); err != nil {
		return err
	}
	if ix == nil {
		ix = t.allIndexes()
	}
	status := statusVerified
	if !t.verifies() {
		status = statusUnverified
	}
	var acts []hbapi.Action
	var fix []*item[T]
	for _, r := range live {
		if !t.bulkable(r, ix) {
			v := r.d.version
			quals, err := t.qualifiers(r.enc.Data.Key, r.enc)
			if err != nil {
				return err
			}
			fix = append(fix, &item[T]{op: OpPut, key: r.enc.Data.Key, enc: r.enc, expect: &v, quals: quals})
			continue
		}
		for _, i := range ix {
			acts = append(acts, t.ixs[i].entryActions(&r.enc.Entries[i], status, r.d.version)...)
		}
		rep.Repaired++
	}
	if len(acts) > 0 {
		// Any failure fails the batch: the unit is run again from its
		// last position, and writing an entry again changes nothing.
		if _, err := t.c.Batch(ctx, acts); err != nil {
			return err
		}
	}
	return t.rewrite(ctx, fix, rep)
}

// bulkable reports whether the entries of indexes ix of live row r may be
// written as plain Puts at the row's version: the protocol's writers will
// withdraw them, whatever comes next, as they withdraw the entries they
// wrote themselves. An insert-only row never changes (a delete's markers,
// stamped by the server after the row's cells, hide them). Any other row
// needs its version cell (a blind put over a row without one would not
// withdraw them), the entry keys it records must be those its record
// derives (or absent: writers derive them) and, in the mutable mode, a
// history cell of its version must name them, which the next writer's
// validation reads to delete them.
func (t *Table[T]) bulkable(r checkedRow[T], ix []int) bool {
	if t.mode == schema.InsertOnly {
		return true
	}
	if len(r.d.verBytes) != 8 {
		return false
	}
	fam := []byte(t.fam)
	var nonce []byte
	if t.mode == schema.Mutable {
		if nonce = r.row.Value(fam, []byte(writerQualifier)); len(nonce) != 4 {
			return false
		}
	}
	for _, i := range ix {
		s, k := t.ixs[i], r.enc.Entries[i].Key
		if rec := r.row.Value(fam, []byte(s.keyQ)); len(rec) > 0 && !bytes.Equal(rec, k) {
			return false
		}
		if nonce != nil && !bytes.Equal(r.row.Value(fam, s.historyQualifier(r.d.version, binary.BigEndian.Uint32(nonce))), k) {
			return false
		}
	}
	return true
}

// add adds the counts of d to r.
func (r *Report) add(d Report) {
	r.DataRows += d.DataRows
	r.Entries += d.Entries
	r.Missing += d.Missing
	r.Orphaned += d.Orphaned
	r.Stale += d.Stale
	r.Undecodable += d.Undecodable
	r.Tombstones += d.Tombstones
	r.Duplicates += d.Duplicates
	r.Repaired += d.Repaired
	r.Skipped += d.Skipped
	r.Skips.Changed += d.Skips.Changed
	r.Skips.InFlight += d.Skips.InFlight
	r.Skips.Foreign += d.Skips.Foreign
	r.Skips.Grace = max(r.Skips.Grace, d.Skips.Grace)
}
