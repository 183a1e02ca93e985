package bench

import (
	"context"
	"fmt"
	mrand "math/rand/v2"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// The write-mode workloads (issue 15). indexedWrite is the SMS schema's
// own mode, insert-only; strictWrite writes the same records with the
// strict protocol; mutableWrite, verifyOnReadWrite and mixedPlainWrite
// write a mixed stream (half inserts, a quarter updates in place, a
// quarter moves to another account), through a mutable store, through a
// verify-on-read store and as plain puts.

// modeTables are the cluster names of the write-mode workloads' tables.
type modeTables struct {
	strict, strictIndex   string
	mutable, mutableIndex string
	vor, vorIndex         string // verify-on-read
	mixedPlain            string
	floor, floorIndex     string
}

func (r *Runner) modeTables() modeTables {
	return modeTables{
		strict: r.o.table + "_smsstrict", strictIndex: r.o.table + "_smsstrict_index",
		mutable: r.o.table + "_smsmut", mutableIndex: r.o.table + "_smsmut_index",
		vor: r.o.table + "_smsvor", vorIndex: r.o.table + "_smsvor_index",
		mixedPlain: r.o.table + "_smsmixed",
		floor:      r.o.table + "_smsfloor", floorIndex: r.o.table + "_smsfloor_index",
	}
}

func (n modeTables) all() []string {
	return []string{n.strict, n.strictIndex, n.mutable, n.mutableIndex, n.vor, n.vorIndex, n.mixedPlain, n.floor, n.floorIndex}
}

// modeStores opens the stores of the write-mode workloads, creating their
// tables (one region each, like the layer workloads') when missing.
func (r *Runner) modeStores(ctx context.Context, st *schema.Table[seeds.SMS]) (strict, mutable, vor *dao.Repo[seeds.SMS], err error) {
	n := r.modeTables()
	ixDef := st.Indexes()[0]
	for _, t := range []struct {
		name string
		def  schema.Definition
	}{{n.strict, st}, {n.strictIndex, ixDef}, {n.mutable, st}, {n.mutableIndex, ixDef}, {n.vor, st}, {n.vorIndex, ixDef},
		{n.mixedPlain, st}, {n.floor, st}, {n.floorIndex, ixDef}} {
		if err := r.ensureTable(ctx, t.name, t.def); err != nil {
			return nil, nil, nil, err
		}
	}
	open := func(data, index string, mode schema.WriteMode) (*dao.Repo[seeds.SMS], error) {
		return dao.New(r.data, st, dao.WithWriteMode(mode), dao.WithClock(r.o.now), dao.WithTableNames(map[string]string{
			st.Name().String(): data, ixDef.Name().String(): index,
		}))
	}
	if strict, err = open(n.strict, n.strictIndex, schema.Strict); err != nil {
		return nil, nil, nil, err
	}
	if mutable, err = open(n.mutable, n.mutableIndex, schema.Mutable); err != nil {
		return nil, nil, nil, err
	}
	if vor, err = open(n.vor, n.vorIndex, schema.VerifyOnRead); err != nil {
		return nil, nil, nil, err
	}
	return strict, mutable, vor, nil
}

// ensureTable creates a table with the families of def and one region,
// unless it exists.
func (r *Runner) ensureTable(ctx context.Context, name string, def schema.Definition) error {
	exists, err := r.admin.TableExists(ctx, name)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", name, err)
	}
	if exists {
		return nil
	}
	desc := hbase.TableDescriptor{Name: name}
	for _, f := range def.Families() {
		desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
	}
	if err := r.admin.CreateTable(ctx, desc, nil); err != nil {
		return fmt.Errorf("bench: create %s: %w", name, err)
	}
	return nil
}

// mixedRecord returns record i of the mixed stream: rows i with i%4 of 0
// or 1 are new records; 2 rewrites the record of row i-lag in place (its
// delivered flag flips); 3 moves the record of row i-lag to another
// account (its index entry moves). lag is two batches, so a call never
// writes one row key twice. A thread's first rows (from first, where its
// range starts) have nothing of its own to rewrite yet and are new
// records.
func (l *layers) mixedRecord(rng *mrand.Rand, i, first, lag int64) *seeds.SMS {
	j := i - lag
	if i%4 < 2 || j < first { // rows below first are another thread's
		return l.record(rng, i)
	}
	rec := l.record(rng, j)
	if i%4 == 2 {
		rec.Delivered = !rec.Delivered
	} else {
		rec.Account = fmt.Sprintf("acct%03d", (j+37)%100)
	}
	return rec
}

// mixedPlainBatch writes recs as plain puts of their data rows, the
// mixed stream's floor.
func (l *layers) mixedPlainBatch(ctx context.Context, recs []*seeds.SMS) error {
	actions := make([]hbase.Action, len(recs))
	for i, rec := range recs {
		var row schema.Row
		if err := l.st.EncodeRow(&row, rec); err != nil {
			return err
		}
		actions[i] = rowPut(l.r.modeTables().mixedPlain, &row)
	}
	_, err := l.r.data.Batch(ctx, actions)
	return err
}

// mutableFloor sends mutableWrite's stream with the least work a mutable
// scheme that learns a row's earlier entry keys by reading can do: each
// record's data row and entry as plain puts, and a Get of its data row,
// sent with the next batch's puts (one round trip per batch, as a
// background validation overlapping the next write would be at best). It
// deletes nothing, so moved records leave their old entries behind.
type mutableFloor struct {
	l    *layers
	gets []hbase.Action // the previous batch's reads
}

func (f *mutableFloor) batch(ctx context.Context, recs []*seeds.SMS) error {
	n := f.l.r.modeTables()
	actions := make([]hbase.Action, 0, 2*len(recs)+len(f.gets))
	actions = append(actions, f.gets...)
	f.gets = f.gets[:0]
	actions, err := f.l.dualActions(actions, recs, n.floor, n.floorIndex, func(key []byte) {
		f.gets = append(f.gets, &hbase.Get{Table: n.floor, Row: key})
	})
	if err != nil {
		return err
	}
	_, err = f.l.r.data.Batch(ctx, actions)
	return err
}

// finish sends the last batch's reads.
func (f *mutableFloor) finish(ctx context.Context) error {
	if len(f.gets) == 0 {
		return nil
	}
	_, err := f.l.r.data.Batch(ctx, f.gets)
	f.gets = f.gets[:0]
	return err
}
