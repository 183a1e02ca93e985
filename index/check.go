package index

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Mode is what Check does with what it finds.
type Mode uint8

const (
	// ModeVerify only reports.
	ModeVerify Mode = iota + 1
	// ModeRepair reports, then rewrites the records whose entries are
	// missing, unverified or stale and deletes dead orphans. Of a row
	// another client wrote it writes only the absent or stale entries,
	// never the row (see Check).
	ModeRepair
	// ModeRebuild rewrites every record with its entries through the
	// protocol, rows other clients wrote included, and deletes dead
	// orphans, whatever their state.
	ModeRebuild
)

func (m Mode) String() string {
	switch m {
	case ModeVerify:
		return "verify"
	case ModeRepair:
		return "repair"
	case ModeRebuild:
		return "rebuild"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode parses "verify", "repair" or "rebuild".
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{ModeVerify, ModeRepair, ModeRebuild} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("index: %w: unknown check mode %q (want verify, repair or rebuild)", ErrInvalidOption, s)
}

// Report counts what Check found and fixed. An entry without a status
// cell, as other clients write them, is judged by its cells alone: it is
// stale or orphaned when they disagree with the data row, and never
// counts as missing.
type Report struct {
	DataRows    int64 `json:"data_rows"`   // data rows of live records scanned
	Entries     int64 `json:"entries"`     // index entries scanned
	Missing     int64 `json:"missing"`     // data rows whose entry is absent or unverified
	Orphaned    int64 `json:"orphaned"`    // entries with no data row, or whose data row derives another key
	Stale       int64 `json:"stale"`       // entries whose carried cells disagree with the data row
	Undecodable int64 `json:"undecodable"` // data rows that do not decode into a valid record
	Tombstones  int64 `json:"tombstones"`  // rows of deleted records keeping their version (repair removes those past the grace period)
	Duplicates  int64 `json:"duplicates"`  // data rows holding the insert token of another row: one insert stored twice (reported, never removed)
	Repaired    int64 `json:"repaired"`    // fixes written
	Skipped     int64 `json:"skipped"`     // fixes not written: the row changed meanwhile, or the orphan may belong to a write in flight (Skips says which)
	Skips       Skips `json:"skips"`       // why fixes were skipped, one count per reason
}

// Skips counts the fixes Check left unwritten, by reason; they add up to
// Report.Skipped.
type Skips struct {
	// Changed: the data row, or the entry, changed after Check read it (a
	// writer got there first). The next run judges the new state.
	Changed int64 `json:"changed"`
	// InFlight: orphaned entries younger than the grace period, which may
	// belong to a write whose data row has not landed yet. A run after
	// the grace period has passed deletes those that are still orphans.
	InFlight int64 `json:"in_flight"`
	// Grace is the grace period InFlight was judged by
	// (Config.GracePeriod), set when InFlight is.
	Grace time.Duration `json:"grace_ns,omitempty"`
	// Foreign: cells of an inverted index with an empty qualifier, which
	// another client wrote and no Delete can remove alone (it would
	// remove the whole row).
	Foreign int64 `json:"foreign"`
}

// SkippedWhy says in words why the run's fixes were skipped, one clause
// per reason, "" when none was.
func (r Report) SkippedWhy() string {
	var out []string
	if n := r.Skips.InFlight; n > 0 {
		out = append(out, fmt.Sprintf("%d orphaned entries within the grace period of %s (they may belong to writes in flight: repair deletes them once it has passed)", n, r.Skips.Grace))
	}
	if n := r.Skips.Changed; n > 0 {
		out = append(out, fmt.Sprintf("%d rows or entries changed after they were read (a writer got there first: run again to judge them)", n))
	}
	if n := r.Skips.Foreign; n > 0 {
		out = append(out, fmt.Sprintf("%d inverted-index cells with an empty qualifier (another client's: no Delete removes one alone)", n))
	}
	return strings.Join(out, "; ")
}

// Clean reports whether nothing is missing, orphaned, stale or stored
// twice.
func (r Report) Clean() bool {
	return r.Missing == 0 && r.Orphaned == 0 && r.Stale == 0 && r.Duplicates == 0
}

// Progress is reported after each batch of a Check.
type Progress struct {
	Mode     Mode
	Pass     int     // 1: the data table; 2…: one per index table
	Passes   int     // 1 + number of indexes
	Table    string  // table being scanned
	Fraction float64 // estimate of the work done, in [0, 1], from the region the scan is in
	Report   Report  // totals so far
}

// Checkpoint is where a Check stopped: resume it with WithResume. It is
// plain data, meant to be stored as JSON between runs.
type Checkpoint struct {
	Table string `json:"table"` // data table on the cluster
	Mode  string `json:"mode"`  // "verify", "repair" or "rebuild"
	Pass  int    `json:"pass"`  // pass in progress
	After []byte `json:"after"` // last row key processed in that pass
	// AfterCell, in the pass of an inverted index, is the qualifier of the
	// last cell processed in row After: a batch may end inside a row.
	AfterCell []byte `json:"after_cell,omitempty"`
	Report    Report `json:"report"` // totals up to After
	// Digest, for a CheckRange with Span.Digest, is its digest up to
	// After.
	Digest Digest `json:"digest,omitempty"`
	Done   bool   `json:"done"` // the run completed
}

// CheckOption configures one Check.
type CheckOption func(*checkOptions)

type checkOptions struct {
	progress func(Progress)
	resume   *Checkpoint
	save     func(Checkpoint) error
}

// WithProgress calls fn after each batch.
func WithProgress(fn func(Progress)) CheckOption { return func(o *checkOptions) { o.progress = fn } }

// WithResume continues the run that saved cp. Its table and mode must be
// those of this run (ErrBadCheckpoint otherwise); a completed checkpoint
// starts a fresh run.
func WithResume(cp Checkpoint) CheckOption { return func(o *checkOptions) { o.resume = &cp } }

// WithCheckpoint calls save after each batch with the position reached;
// an error from save stops the run.
func WithCheckpoint(save func(Checkpoint) error) CheckOption {
	return func(o *checkOptions) { o.save = save }
}

// Check scans the data table, then each index table, and counts missing,
// orphaned and stale entries; in ModeRepair and ModeRebuild it fixes them
// as it goes. Fixes go through the write protocol, conditioned on the
// version of the data row that was read, so a Check running next to live
// writers never undoes their writes. Rows that other clients wrote with
// the same key design (no version cell, entries without status) are
// judged as readers judge them; ModeRepair writes their absent or stale
// entries, without a status, and never their data row or what agrees,
// while ModeRebuild takes them into the protocol. A run stopped by an error or a cancelled ctx resumes
// from its last checkpoint.
func (t *Table[T]) Check(ctx context.Context, mode Mode, opts ...CheckOption) (rep Report, err error) {
	if mode < ModeVerify || mode > ModeRebuild {
		return Report{}, fmt.Errorf("index: %w: Check mode %d is not a mode: pass index.ModeVerify (report only), "+
			"index.ModeRepair or index.ModeRebuild", ErrInvalidOption, mode)
	}
	ctx, span := t.span(ctx, "check", t.name, AttrMode.String(mode.String()))
	var base Report // counts of the run this one resumes, counted by that run
	defer func() {
		t.metrics.record(ctx, t.name, mode, rep, base)
		span.SetAttributes(attribute.Int64("hbkit.index.missing", rep.Missing), attribute.Int64("hbkit.index.orphaned", rep.Orphaned),
			attribute.Int64("hbkit.index.stale", rep.Stale), attribute.Int64("hbkit.index.repaired", rep.Repaired))
		end(span, err)
	}()
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := t.settleWrites(ctx); err != nil {
		return Report{}, err
	}
	cp, err := t.startAt(mode, &o)
	if err != nil {
		return Report{}, err
	}
	base = cp.Report
	passes := 1 + len(t.ixs)
	for ; cp.Pass <= passes; cp.Pass, cp.After, cp.AfterCell = cp.Pass+1, nil, nil {
		if err := t.checkPass(ctx, mode, &o, &cp); err != nil {
			return cp.Report, err
		}
	}
	cp.Done, cp.Pass, cp.After, cp.AfterCell = true, passes, nil, nil
	if o.progress != nil {
		last := t.name
		if len(t.ixs) > 0 {
			last = t.ixs[len(t.ixs)-1].name
		}
		o.progress(Progress{Mode: mode, Pass: passes, Passes: passes, Table: last, Fraction: 1, Report: cp.Report})
	}
	if o.save != nil {
		if err := o.save(cp); err != nil {
			return cp.Report, err
		}
	}
	return cp.Report, nil
}

// settleWrites waits for this Table's own writes to settle. A
// verification that failed leaves its entries unverified, which the check
// finds like any other divergence; Flush still reports the failure.
func (t *Table[T]) settleWrites(ctx context.Context) error {
	if t.val != nil {
		if err := t.val.wait(ctx); err != nil {
			return err
		}
	}
	if t.ver != nil {
		return t.ver.wait(ctx)
	}
	return nil
}

// startAt returns the checkpoint a run starts from: the resumed one, if
// it belongs to this run and is not done, else the first pass.
func (t *Table[T]) startAt(mode Mode, o *checkOptions) (Checkpoint, error) {
	cp := Checkpoint{Table: t.name, Mode: mode.String(), Pass: 1}
	if o.resume == nil || o.resume.Done {
		return cp, nil
	}
	r := *o.resume
	if r.Table != t.name || r.Mode != mode.String() || r.Pass < 1 || r.Pass > 1+len(t.ixs) {
		return cp, fmt.Errorf("%w: checkpoint of %s %s pass %d, run is %s %s", ErrBadCheckpoint, r.Mode, r.Table, r.Pass, mode, t.name)
	}
	return r, nil
}

// checkPass runs pass cp.Pass from cp's position, reporting progress and
// saving the checkpoint after each batch.
func (t *Table[T]) checkPass(ctx context.Context, mode Mode, o *checkOptions, cp *Checkpoint) error {
	passes := 1 + len(t.ixs)
	var start []byte
	if cp.After != nil {
		start = append(bytes.Clone(cp.After), 0)
		if cp.AfterCell != nil {
			start = bytes.Clone(cp.After) // the rest of the row (checkIndex skips what was done)
		}
	}
	step := func(last, lastCell []byte, table string, splits [][]byte) error {
		cp.After, cp.AfterCell = bytes.Clone(last), bytes.Clone(lastCell)
		if o.progress != nil {
			o.progress(Progress{Mode: mode, Pass: cp.Pass, Passes: passes, Table: table,
				Fraction: (float64(cp.Pass-1) + regionFraction(last, splits)) / float64(passes), Report: cp.Report})
		}
		if o.save != nil {
			return o.save(*cp)
		}
		return nil
	}
	if cp.Pass == 1 {
		return t.checkData(ctx, mode, start, &cp.Report, func(last []byte) error {
			return step(last, nil, t.name, t.t.SplitKeys())
		})
	}
	s := t.ixs[cp.Pass-2]
	return t.checkIndex(ctx, mode, cp.Pass-2, start, cp.AfterCell, &cp.Report, func(last, lastCell []byte) error {
		return step(last, lastCell, s.name, s.ix.SplitKeys())
	})
}

// regionFraction estimates how far key is through a table split at splits.
func regionFraction(key []byte, splits [][]byte) float64 {
	n := 0
	for _, s := range splits {
		if bytes.Compare(key, s) >= 0 {
			n++
		}
	}
	return float64(n) / float64(len(splits)+1)
}

// checkData is pass 1: every data row must have its entries, verified and
// carrying the data row's cells.
func (t *Table[T]) checkData(ctx context.Context, mode Mode, start []byte, rep *Report, done func(last []byte) error) error {
	sc, err := t.c.Scan(ctx, &hbapi.Scan{Table: t.name, StartRow: start, Caching: t.o.batchSize})
	if err != nil {
		return err
	}
	var rows []*hbapi.Result
	dups := newDupWindow()
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		for _, r := range rows {
			if tok := t.tokenOf(r); tok != nil && dups.saw(tok) && t.readData(r.Row(), r).exists {
				rep.Duplicates++
			}
		}
		if err := t.checkDataRows(ctx, mode, rows, nil, rep); err != nil {
			return err
		}
		last := rows[len(rows)-1].Row()
		rows = rows[:0]
		return done(last)
	}
	for r, err := range hbapi.All(ctx, sc) {
		if err != nil {
			return err
		}
		rows = append(rows, r)
		if len(rows) == t.o.batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// checkedRow is a live data row of pass 1, as read, and the record it
// encodes.
type checkedRow[T any] struct {
	row *hbapi.Result
	d   *dataState[T]
	enc *schema.Record
}

// checkDataRows checks a batch of pass 1 against the entries of the
// indexes at positions ix (nil: every index), fixing in ModeRepair and
// ModeRebuild.
func (t *Table[T]) checkDataRows(ctx context.Context, mode Mode, rows []*hbapi.Result, ix []int, rep *Report) error {
	live, purge := t.liveRows(mode, rows, rep)
	// A tombstone purge is skipped when the record was written again meanwhile.
	if err := t.sendConditional(ctx, purge, rep); err != nil {
		return err
	}
	if len(live) == 0 {
		return nil
	}
	if ix == nil {
		ix = t.allIndexes()
	}
	gets := make([]hbapi.Action, 0, len(live)*len(ix))
	for _, r := range live {
		for _, i := range ix {
			gets = append(gets, t.ixs[i].entryGet(&r.enc.Entries[i]))
		}
	}
	res, err := t.c.Batch(ctx, gets)
	if err != nil {
		return err
	}
	var fix []*item[T]
	var foreign []*hbapi.CheckAndMutate
	for j, r := range live {
		stray, ours := t.judgeEntries(r.d, ix, res[j*len(ix):(j+1)*len(ix)], rep)
		switch {
		case mode == ModeVerify || mode == ModeRepair && !ours && len(stray) == 0:
		case mode == ModeRepair && !ours && r.d.verBytes == nil:
			for _, i := range stray {
				foreign = append(foreign, t.foreignEntryFix(i, &r.enc.Entries[i]))
			}
		default:
			v := r.d.version
			quals, err := t.qualifiers(r.enc.Data.Key, r.enc)
			if err != nil {
				return err
			}
			fix = append(fix, &item[T]{op: OpPut, key: r.enc.Data.Key, enc: r.enc, expect: &v, quals: quals})
		}
	}
	if err := t.sendConditional(ctx, foreign, rep); err != nil {
		return err
	}
	return t.rewrite(ctx, fix, rep)
}

// liveRows counts the data rows of pass 1 and returns the live ones that
// decode, with their records, and the conditional deletes of the
// tombstones older than the grace period (outside ModeVerify).
func (t *Table[T]) liveRows(mode Mode, rows []*hbapi.Result, rep *Report) ([]checkedRow[T], []*hbapi.CheckAndMutate) {
	var live []checkedRow[T]
	var purge []*hbapi.CheckAndMutate
	for _, r := range rows {
		d := t.readData(r.Row(), r)
		if d.tombstone {
			rep.Tombstones++
			if mode != ModeVerify && t.o.now().Sub(time.UnixMilli(d.version)) > t.o.grace {
				purge = append(purge, &hbapi.CheckAndMutate{
					Table: t.name, Row: r.Row(), Family: []byte(t.fam), Qualifier: []byte(VersionQualifier),
					Compare: hbapi.CompareEqual, Value: d.verBytes,
					Mutations: []hbapi.Mutation{&hbapi.Delete{Table: t.name, Row: r.Row(), Timestamp: d.version}},
				})
			}
			continue
		}
		rep.DataRows++
		if !d.decoded {
			rep.Undecodable++
			continue
		}
		enc, err := t.encode(&d.rec)
		if err != nil {
			rep.Undecodable++
			continue
		}
		// A row rewritten by repair or rebuild keeps its insert's token,
		// so that the insert's read back and Duplicates still know it.
		enc.Token = t.tokenOf(r)
		live = append(live, checkedRow[T]{r, d, enc})
	}
	return live, purge
}

// entryGet reads entry e of index s as Check compares it.
func (s *ixState[T]) entryGet(e *schema.Row) *hbapi.Get {
	g := &hbapi.Get{Table: s.name, Row: e.Key, Families: [][]byte{[]byte(s.fam)}}
	if s.inv {
		// This record's cell only, not the row of every record sharing
		// its value.
		g.Families = nil
		g.Columns = []hbapi.Column{{Family: []byte(s.fam), Qualifier: []byte(e.Cells[0].Qualifier)}}
	}
	return g
}

// judgeEntries compares the entries read (res, one per index of ix) with
// those data row d derives and counts what is missing or stale: stray
// lists the indexes whose entry is absent, or stale without a status
// cell; ours reports an entry with a status that is missing or stale,
// which the protocol fixes.
func (t *Table[T]) judgeEntries(d *dataState[T], ix []int, res []hbapi.BatchResult, rep *Report) (stray []int, ours bool) {
	for j, i := range ix {
		s := t.ixs[i]
		got := res[j].Result
		var e *entry
		if es := s.parseEntries(got); len(es) > 0 {
			e = es[0]
		}
		switch {
		case got.Empty() || e == nil:
			rep.Missing++
			stray = append(stray, i)
		case e.rawState == nil && !t.judge(i, e, d).stale:
			// Another client's entry, and it agrees: not missing.
		case e.rawState == nil:
			rep.Stale++
			stray = append(stray, i)
		case e.status != statusVerified && t.verifies():
			// (Entries stay unverified in that mode: one that agrees is as
			// it should be.)
			rep.Missing++
			ours = true
		case t.judge(i, e, d).stale:
			rep.Stale++
			ours = true
		}
	}
	return stray, ours
}

// rewrite puts the records of fix again through the protocol, each only
// if its data row is still at the version read, and counts them.
func (t *Table[T]) rewrite(ctx context.Context, fix []*item[T], rep *Report) error {
	if len(fix) == 0 {
		return nil
	}
	t.run(ctx, OpPut, fix)
	for _, it := range fix {
		switch {
		case it.err != nil:
			return it.err
		case it.skipped:
			rep.Skipped++
			rep.Skips.Changed++
		default:
			rep.Repaired++
		}
	}
	return nil
}

// checkIndex is pass 2+i: every entry of index i must belong to a data
// row that derives exactly its key.
func (t *Table[T]) checkIndex(ctx context.Context, mode Mode, i int, start, skip []byte, rep *Report, done func(last, lastCell []byte) error) error {
	s := t.ixs[i]
	return t.scanEntries(ctx, s, []keys.KeyRange{{Start: start}}, nil, t.o.batchSize, func(es []*entry) error {
		if skip != nil {
			// A resumed pass of an inverted index: row start's cells up to
			// skip were checked before.
			es = slices.DeleteFunc(es, func(e *entry) bool { return bytes.Equal(e.key, start) && bytes.Compare(e.qual, skip) <= 0 })
			if len(es) == 0 {
				return nil
			}
		}
		if err := t.checkEntries(ctx, mode, i, es, false, rep); err != nil {
			return err
		}
		last := es[len(es)-1]
		return done(last.key, last.qual)
	})
}

// checkEntries checks a batch of entries of index i against their data
// rows, fixing in ModeRepair and ModeRebuild. With tally (a verify that
// reads no entry from the data rows: see CheckRange) it also counts the
// stale entries and takes those that spare their row from being missing
// off Missing.
func (t *Table[T]) checkEntries(ctx context.Context, mode Mode, i int, es []*entry, tally bool, rep *Report) error {
	s := t.ixs[i]
	ds, err := t.dataRows(ctx, es)
	if err != nil {
		return err
	}
	var orphans []*entry
	var orphanRows []*dataState[T]
	var fixes []hbapi.Action
	for j, e := range es {
		rep.Entries++
		v := t.judge(i, e, ds[j])
		if !v.valid {
			rep.Orphaned++
		}
		if tally && v.valid {
			t.tallyEntry(e, v, rep)
		}
		if mode == ModeVerify {
			continue
		}
		w, cam := t.repairAction(i, e, v)
		switch {
		case cam != nil:
			orphans, orphanRows = append(orphans, e), append(orphanRows, ds[j])
		case w != nil:
			fixes = append(fixes, w)
		case !v.valid && s.inv && len(e.qual) == 0:
			rep.Skipped++
			rep.Skips.Foreign++
		case !v.valid:
			rep.Skipped++
			rep.Skips.InFlight++ // not a dead orphan yet (deadOrphan)
			rep.Skips.Grace = t.o.grace
		}
	}
	cams := t.confirmOrphans(ctx, i, orphans, orphanRows)
	if n := int64(len(orphans) - len(cams)); n > 0 {
		rep.Skipped += n
		rep.Skips.Changed += n // read again, the entry or its data row differed
	}
	rep.Repaired += int64(t.applyRepairs(ctx, fixes, cams))
	return nil
}

// tallyEntry counts valid entry e (verdict v) as judgeEntries counts the
// entry it reads for a data row: stale, or not missing (Missing goes
// down by one) unless it is ours, unverified, in a mode that verifies.
func (t *Table[T]) tallyEntry(e *entry, v verdict[T], rep *Report) {
	if v.stale {
		rep.Stale++
	}
	if e.rawState == nil || e.status == statusVerified || !t.verifies() || v.stale {
		rep.Missing--
	}
}

// Rows written by other clients.
//
// A data row without a version cell was written by another client (an
// application on HBase's Java client following the same key design, a
// bulk load, WithUnindexedWrites) or by an insert-only table; an entry
// without a status cell only by another client. Check judges such an
// entry as readers do, against its data row: it is stale when its cells
// disagree, orphaned when no data row derives its key (and then deleted
// as an unverified orphan is: the other client may still be writing its
// data row), and never missing. For a data row without a version cell
// whose entries carry no status, ModeRepair writes only the entries that
// are absent or stale, without a status, and never the data row; what
// agrees stays as it is. A verified entry would be a promise that nothing
// keeps once the other client writes again, so readers and Count go on
// checking these entries against their data rows (Count pays a Get for
// each). ModeRebuild rewrites such rows through the protocol, which adopts
// them.

// foreignEntryFix returns the write that fixes entry i, absent or stale
// and without a status cell, of a data row without a version cell: the
// entry's cells as the row derives them (want), without a status,
// conditioned on the entry still having no status cell, so that a protocol
// write that got there first wins. Like the other client's cells, they
// are stamped by the server, whose clock has moved past the cells and
// delete markers already there (the stale entry's, or those of a delete
// that removed it).
func (t *Table[T]) foreignEntryFix(i int, want *schema.Row) *hbapi.CheckAndMutate {
	s := t.ixs[i]
	p := &hbapi.Put{Table: s.name, Row: want.Key, Cells: sorted(rowCells(want, 0))}
	muts := []hbapi.Mutation{p}
	for _, c := range s.carried {
		if _, ok := p.Value(c.Family, c.Qualifier); !ok {
			muts = append(muts, &hbapi.Delete{Table: s.name, Row: want.Key, Family: []byte(c.Family),
				Qualifier: []byte(c.Qualifier), AllVersions: true})
		}
	}
	q := []byte(StatusQualifier)
	if s.inv {
		q = []byte(want.Cells[0].Qualifier) // the cell itself, absent
	}
	return &hbapi.CheckAndMutate{
		Table: s.name, Row: want.Key, Family: []byte(s.fam), Qualifier: q,
		Compare: hbapi.CompareEqual, Mutations: muts,
	}
}

// sendConditional sends cams in one Batch and counts those applied as
// repaired, the others as skipped.
func (t *Table[T]) sendConditional(ctx context.Context, cams []*hbapi.CheckAndMutate, rep *Report) error {
	if len(cams) == 0 {
		return nil
	}
	acts := make([]hbapi.Action, len(cams))
	for i, cam := range cams {
		acts[i] = cam
	}
	res, err := t.c.Batch(ctx, acts)
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Processed {
			rep.Repaired++
		} else {
			rep.Skipped++
			rep.Skips.Changed++
		}
	}
	return nil
}
