package bench

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// layerNames are the cluster names of the layer workloads' tables.
type layerNames struct {
	plain     string // plainWrite and daoWrite: the SMS data table
	indexed   string // indexedWrite: the SMS data table with its index
	index     string // indexedWrite: the index table
	dual      string // dualWrite: the SMS data table
	dualIndex string // dualWrite: the index table
	copy      string // copyJob: the target of the copy of indexed
}

func (r *Runner) layerNames() layerNames {
	return layerNames{
		plain:     r.o.table + "_sms",
		indexed:   r.o.table + "_smsix",
		index:     r.o.table + "_smsix_index",
		dual:      r.o.table + "_smsdual",
		dualIndex: r.o.table + "_smsdual_index",
		copy:      r.o.table + "_smscopy",
	}
}

func (n layerNames) all() []string {
	return []string{n.plain, n.indexed, n.index, n.dual, n.dualIndex, n.copy}
}

// layers holds what the layer workloads share in one run.
type layers struct {
	r                    *Runner
	names                layerNames
	st                   *schema.Table[seeds.SMS]
	ixDef                *schema.Index[seeds.SMS] // the SMS index, for dualBatch
	repo                 *dao.Repo[seeds.SMS]     // daoWrite: the SMS data table alone, no index declared
	ix                   *dao.Repo[seeds.SMS]     // indexedWrite: the SMS schema with its index
	strict, mutable, vor *dao.Repo[seeds.SMS]     // strictWrite, mutableWrite, verifyOnReadWrite (modes.go)
	base                 time.Time
}

// smsDataOnly is the SMS data table without its index, under the SMS
// table's name: the store daoWrite measures, dao's own cost with no index
// protocol (seeds.SMSDataTable; TestSMSDataOnlyRows holds it to
// seeds.SMSTable, row for row).
func smsDataOnly(st *schema.Table[seeds.SMS]) (*schema.Table[seeds.SMS], error) {
	return seeds.SMSDataTable(st.Name().String())
}

// newLayers creates the SMS tables when missing and opens the stores on
// them. The tables get the schema's families but one region each (not
// the schema's 20 and 10): the workloads measure the client layers, and a
// shared test cluster is spared thirty regions.
func (r *Runner) newLayers(ctx context.Context) (*layers, error) {
	st, err := seeds.SMSTable()
	if err != nil {
		return nil, err
	}
	n := r.layerNames()
	ixDef := st.Indexes()[0]
	for _, t := range []struct {
		name string
		def  schema.Definition
	}{{n.plain, st}, {n.indexed, st}, {n.index, ixDef}, {n.dual, st}, {n.dualIndex, ixDef}} {
		exists, err := r.admin.TableExists(ctx, t.name)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", t.name, err)
		}
		if exists {
			continue
		}
		desc := hbase.TableDescriptor{Name: t.name}
		for _, f := range t.def.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := r.admin.CreateTable(ctx, desc, nil); err != nil {
			return nil, fmt.Errorf("bench: create %s: %w", t.name, err)
		}
	}
	plain, err := smsDataOnly(st)
	if err != nil {
		return nil, err
	}
	repo, err := dao.New(r.data, plain, dao.WithTableNames(map[string]string{plain.Name().String(): n.plain}))
	if err != nil {
		return nil, err
	}
	ix, err := dao.New(r.data, st, append(r.o.modeOptions(), dao.WithTableNames(map[string]string{
		st.Name().String():    n.indexed,
		ixDef.Name().String(): n.index,
	}), dao.WithClock(r.o.now))...)
	if err != nil {
		return nil, err
	}
	strict, mutable, vor, err := r.modeStores(ctx, st)
	if err != nil {
		return nil, err
	}
	return &layers{r: r, names: n, st: st, ixDef: ixDef, repo: repo, ix: ix, strict: strict, mutable: mutable, vor: vor, base: r.o.base()}, nil
}

// record returns the SMS record of row i: one mobile number per row, sent
// i milliseconds after the run's start, by one of 100 accounts, with 70
// letters of content.
func (l *layers) record(rng *mrand.Rand, i int64) *seeds.SMS {
	content := make([]byte, 70)
	fillValue(rng, content)
	return &seeds.SMS{
		Mobile:    fmt.Sprintf("139%08d", i%100_000_000),
		SentAt:    l.base.Add(time.Duration(i) * time.Millisecond),
		Seq:       uint64(i % (1 << 16)),
		Account:   fmt.Sprintf("acct%03d", i%100),
		Content:   string(content),
		Delivered: i%2 == 0,
	}
}

// client returns a layer workload's client: records collect until a batch
// is full, then go out in one call, whose latency is recorded.
func (l *layers) client(k kind, t int, rng *mrand.Rand) (client, error) {
	batch := make([]*seeds.SMS, 0, l.r.o.batchSize)
	var send func(ctx context.Context, recs []*seeds.SMS) error
	var floor *mutableFloor
	switch k {
	case kindPlainWrite:
		send = l.plainBatch
	case kindDAOWrite:
		send = func(ctx context.Context, recs []*seeds.SMS) error {
			_, err := l.repo.PutBatch(ctx, recs)
			return err
		}
	case kindDualWrite:
		send = l.dualBatch
	case kindMixedPlainWrite:
		send = l.mixedPlainBatch
	case kindMutableFloor:
		floor = &mutableFloor{l: l}
		send = floor.batch
	default: // kindIndexedWrite, kindStrictWrite, kindMutableWrite, kindVerifyOnReadWrite
		store := l.indexedStore(k)
		send = func(ctx context.Context, recs []*seeds.SMS) error {
			_, err := store.PutBatch(ctx, recs)
			return err
		}
	}
	next := l.record
	if k == kindMutableWrite || k == kindVerifyOnReadWrite || k == kindMixedPlainWrite || k == kindMutableFloor {
		lag, first := 2*int64(cap(batch)), int64(t)*int64(l.r.o.rows)
		next = func(rng *mrand.Rand, i int64) *seeds.SMS { return l.mixedRecord(rng, i, first, lag) }
	}
	flush := func(ctx context.Context) error {
		if len(batch) == 0 {
			return nil
		}
		err := send(ctx, batch)
		batch = batch[:0]
		return err
	}
	finish := flush
	if floor != nil {
		finish = func(ctx context.Context) error {
			if err := flush(ctx); err != nil {
				return err
			}
			return floor.finish(ctx)
		}
	}
	if store := l.indexedStore(k); store != nil {
		// The index's last writes go out in the background: wait for
		// them, so that the workload's time includes them.
		finish = func(ctx context.Context) error {
			if err := flush(ctx); err != nil {
				return err
			}
			return store.Flush(ctx)
		}
	}
	return client{
		op: func(ctx context.Context, i int64) (bool, error) {
			batch = append(batch, next(rng, i))
			if len(batch) < cap(batch) {
				return false, nil
			}
			return true, flush(ctx)
		},
		finish: finish,
	}, nil
}

// plainBatch writes the rows dao would write for recs, encoded with the
// schema, as plain puts in one Batch.
func (l *layers) plainBatch(ctx context.Context, recs []*seeds.SMS) error {
	actions := make([]hbase.Action, len(recs))
	for i, rec := range recs {
		var row schema.Row
		if err := l.st.EncodeRow(&row, rec); err != nil {
			return err
		}
		actions[i] = rowPut(l.names.plain, &row)
	}
	_, err := l.r.data.Batch(ctx, actions)
	return err
}

// dualBatch writes each record's data row and index entry as plain puts
// in one Batch, with no protocol: the least any indexed write costs.
func (l *layers) dualBatch(ctx context.Context, recs []*seeds.SMS) error {
	actions, err := l.dualActions(make([]hbase.Action, 0, 2*len(recs)), recs, l.names.dual, l.names.dualIndex, nil)
	if err != nil {
		return err
	}
	_, err = l.r.data.Batch(ctx, actions)
	return err
}

// dualActions appends to dst each record's index entry and data row as
// plain puts into the tables index and data, and calls row, if set, with
// each data row key.
func (l *layers) dualActions(dst []hbase.Action, recs []*seeds.SMS, data, index string, row func(key []byte)) ([]hbase.Action, error) {
	for _, rec := range recs {
		var r, entry schema.Row
		if err := l.st.EncodeRow(&r, rec); err != nil {
			return dst, err
		}
		if err := l.ixDef.EncodeEntry(&entry, rec); err != nil {
			return dst, err
		}
		dst = append(dst, rowPut(index, &entry), rowPut(data, &r))
		if row != nil {
			row(r.Key)
		}
	}
	return dst, nil
}

// rowPut is the plain Put of an encoded row.
func rowPut(table string, row *schema.Row) *hbase.Put {
	cells := make([]hbase.PutCell, len(row.Cells))
	for i, c := range row.Cells {
		cells[i] = hbase.PutCell(c)
	}
	slices.SortFunc(cells, hbase.ComparePutCells)
	return &hbase.Put{Table: table, Row: row.Key, Cells: cells}
}

// indexedStore is the store of an indexed write workload, nil for the
// others.
func (l *layers) indexedStore(k kind) *dao.Repo[seeds.SMS] {
	switch k {
	case kindIndexedWrite:
		return l.ix
	case kindStrictWrite:
		return l.strict
	case kindMutableWrite:
		return l.mutable
	case kindVerifyOnReadWrite:
		return l.vor
	}
	return nil
}
