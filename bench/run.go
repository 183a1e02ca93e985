package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/proccpu"
)

// WorkloadInfo describes one workload.
type WorkloadInfo struct {
	Name    string
	Summary string
	// PE is the PerformanceEvaluation command the workload mirrors; empty
	// for hbkit's own layer workloads.
	PE string
	// Write reports whether the workload writes (and so may create its
	// table).
	Write bool
}

type kind uint8

const (
	kindSequentialWrite kind = iota
	kindRandomWrite
	kindRandomRead
	kindScan
	kindScanRange100
	kindPlainWrite
	kindDAOWrite
	kindIndexedWrite
	kindDualWrite
	kindAccountDayQuery
	kindStrictWrite
	kindMutableWrite
	kindVerifyOnReadWrite
	kindMixedPlainWrite
	kindMutableFloor
	kindScanAll
	kindVerifyJob
	kindRebuildJob
	kindCopyJob
)

type workload struct {
	WorkloadInfo
	kind kind
}

func workloads() []workload {
	return []workload{
		{WorkloadInfo{"sequentialWrite", "buffered puts of each client's rows in key order", "sequentialWrite", true}, kindSequentialWrite},
		{WorkloadInfo{"randomWrite", "buffered puts of random rows", "randomWrite", true}, kindRandomWrite},
		{WorkloadInfo{"randomRead", "one Get of a random row per operation", "randomRead", false}, kindRandomRead},
		{WorkloadInfo{"scan", "one scanner per client over its rows, timing each row", "scan", false}, kindScan},
		{WorkloadInfo{"scanRange100", "scans of 100 rows from random keys", "scanRange100", false}, kindScanRange100},
		{WorkloadInfo{"plainWrite", "SMS rows as plain puts, one Batch per batch of records", "", true}, kindPlainWrite},
		{WorkloadInfo{"daoWrite", "SMS records through dao.Repo.PutBatch", "", true}, kindDAOWrite},
		{WorkloadInfo{"indexedWrite", "SMS records with their index entries through dao.Repo.PutBatch, in the schema's insert-only mode", "", true}, kindIndexedWrite},
		{WorkloadInfo{"strictWrite", "indexedWrite's records through the strict protocol (conditional data-row writes)", "", true}, kindStrictWrite},
		{WorkloadInfo{"mutableWrite", "a mixed stream (half inserts, a quarter updates in place, a quarter moves) through a mutable store", "", true}, kindMutableWrite},
		{WorkloadInfo{"verifyOnReadWrite", "mutableWrite's stream through a verify-on-read store", "", true}, kindVerifyOnReadWrite},
		{WorkloadInfo{"mixedPlainWrite", "mutableWrite's stream as plain puts of the data rows", "", true}, kindMixedPlainWrite},
		{WorkloadInfo{"mutableFloor", "mutableWrite's stream as the least a mutable scheme that reads back can do: data rows and entries as plain puts, and one Get per row sent with the next batch", "", true}, kindMutableFloor},
		{WorkloadInfo{"dualWrite", "SMS rows and their index entries as plain puts in one Batch, no protocol: the floor of indexedWrite", "", true}, kindDualWrite},
		{WorkloadInfo{"accountDayQuery", "an account's messages on a day through the index (seedstore.SMSRepo.MessagesOfAccountOnDate) over indexedWrite's tables", "", false}, kindAccountDayQuery},
		{WorkloadInfo{"scanAll", "a full scan of indexedWrite's data table, then of its index table, every cell", "", false}, kindScanAll},
		{WorkloadInfo{"verifyJob", "a verify job (package jobs) over indexedWrite's tables on --workers workers", "", false}, kindVerifyJob},
		{WorkloadInfo{"rebuildJob", "a rebuild job over indexedWrite's tables on --workers workers: every entry rewritten over the existing ones", "", true}, kindRebuildJob},
		{WorkloadInfo{"copyJob", "a copy job of indexedWrite's data table into a new table pre-split into 8 regions from a sample (jobs.PrepareTarget), on --workers workers; the target is dropped after", "", true}, kindCopyJob},
	}
}

// Workloads lists the workloads, PE's first, in the order a full run
// performs them (the writes fill the table the reads need).
func Workloads() []WorkloadInfo {
	ws := workloads()
	out := make([]WorkloadInfo, len(ws))
	for i, w := range ws {
		out[i] = w.WorkloadInfo
	}
	return out
}

func lookup(name string) (workload, error) {
	for _, w := range workloads() {
		if w.Name == name {
			return w, nil
		}
	}
	return workload{}, fmt.Errorf("%w %q", ErrUnknownWorkload, name)
}

// Runner runs workloads against one cluster. It is safe to call Run from
// one goroutine at a time.
type Runner struct {
	data  hbase.DataClient
	admin hbase.AdminClient
	o     options
	// peReady: this Runner created the PE table, or checked it, so a
	// later write needs no DescribeTable (which a client may refuse).
	peReady bool
}

// New returns a Runner on the clients (usually one *hbase.Client for
// both). Options are validated once here.
func New(data hbase.DataClient, admin hbase.AdminClient, opts ...Option) (*Runner, error) {
	if data == nil || admin == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidOption)
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
	if !o.seeded {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("bench: seed: %w", err)
		}
		o.seed = binary.LittleEndian.Uint64(b[:])
	}
	return &Runner{data: data, admin: admin, o: o}, nil
}

// totalRows is PE's totalRows: every client's rows.
func (r *Runner) totalRows() int64 { return int64(r.o.rows) * int64(r.o.threads) }

// client is one benchmark thread's operation: op handles row i and
// reports whether it sent a request (a buffered put or a record waiting
// for its batch did not); finish sends what is left and releases the
// thread's resources.
type client struct {
	op     func(ctx context.Context, i int64) (sent bool, err error)
	finish func(ctx context.Context) error
}

// Run prepares the workload's tables and runs it: Threads clients, each
// over its Rows rows, concurrently.
func (r *Runner) Run(ctx context.Context, name string) (Result, error) {
	w, err := lookup(name)
	if err != nil {
		return Result{}, err
	}
	if w.kind >= kindScanAll {
		return r.runJobWorkload(ctx, w)
	}
	var newClient func(t int, rng *mrand.Rand) (client, error)
	if w.kind == kindAccountDayQuery {
		if newClient, err = r.accountDayClients(ctx); err != nil {
			return Result{}, err
		}
	} else if w.PE != "" {
		if err := r.preparePE(ctx, w.Write); err != nil {
			return Result{}, err
		}
		newClient = func(t int, rng *mrand.Rand) (client, error) { return r.peClient(w.kind, t, rng), nil }
	} else {
		l, err := r.newLayers(ctx)
		if err != nil {
			return Result{}, err
		}
		newClient = func(t int, rng *mrand.Rand) (client, error) { return l.client(w.kind, t, rng) }
	}
	return r.runClients(ctx, w.Name, newClient)
}

type threadResult struct {
	hist    *hdrhistogram.Histogram
	elapsed time.Duration
	err     error
}

func (r *Runner) runClients(ctx context.Context, name string, newClient func(int, *mrand.Rand) (client, error)) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	clients := make([]client, r.o.threads)
	for t := range clients {
		rng := mrand.New(mrand.NewPCG(r.o.seed, uint64(t)))
		c, err := newClient(t, rng)
		if err != nil {
			return Result{}, err
		}
		clients[t] = c
	}
	res := make([]threadResult, r.o.threads)
	var wg sync.WaitGroup
	cpu, err := proccpu.Start(r.o.serverPID)
	if err != nil {
		return Result{}, fmt.Errorf("bench: server CPU time: %w", err)
	}
	start := time.Now()
	for t := range clients {
		wg.Go(func() {
			res[t] = r.runThread(ctx, t, clients[t])
			if res[t].err != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)

	out := Result{Workload: name, Threads: r.o.threads, Rows: r.totalRows(), ElapsedMS: ms(wall), ServerPID: r.o.serverPID}
	client, server, err := cpu.Stop()
	if err != nil {
		return Result{}, fmt.Errorf("bench: server CPU time: %w", err)
	}
	out.ClientCPUMS, out.ServerCPUMS = ms(client), ms(server)
	merged := newHistogram()
	var errs []error
	for t, tr := range res {
		if tr.err != nil {
			errs = append(errs, fmt.Errorf("client %d: %w", t, tr.err))
			continue
		}
		merged.Merge(tr.hist)
		out.PerThread = append(out.PerThread, summarize(tr.hist))
		if tr.elapsed > 0 {
			out.RowsPerSec += float64(r.o.rows) / tr.elapsed.Seconds()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", name, err)
	}
	out.Latency = summarize(merged)
	return out, nil
}

// runThread is PE's TestBase.test: the clock runs from the first row to
// the end of finish (a write's last flush), and each row that sent a
// request records its latency, except the first (PE measures only rows
// after measureAfter = 0).
func (r *Runner) runThread(ctx context.Context, t int, c client) (tr threadResult) {
	tr.hist = newHistogram()
	first := int64(t) * int64(r.o.rows)
	last := first + int64(r.o.rows)
	start := time.Now()
	defer func() {
		if err := c.finish(ctx); err != nil && tr.err == nil {
			tr.err = err
		}
		tr.elapsed = time.Since(start)
	}()
	for i := first; i < last; i++ {
		t0 := time.Now()
		sent, err := c.op(ctx, i)
		if err != nil {
			tr.err = err
			return tr
		}
		if sent && i > first {
			record(tr.hist, time.Since(t0).Microseconds())
		}
	}
	return tr
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// peClient builds the operation of one PE workload's client.
func (r *Runner) peClient(k kind, t int, rng *mrand.Rand) client {
	table := r.o.table
	total := r.totalRows()
	cols := []hbase.Column{{Family: []byte(Family), Qualifier: []byte(Qualifier)}}
	none := func(context.Context) error { return nil }
	switch k {
	case kindSequentialWrite, kindRandomWrite:
		m := newMutator(r.data, r.o.bufferSize)
		return client{
			op: func(ctx context.Context, i int64) (bool, error) {
				if k == kindRandomWrite {
					i = randomRow(rng, total)
				}
				v := make([]byte, r.o.valueSize)
				fillValue(rng, v)
				p := &hbase.Put{
					Table:      table,
					Row:        Key(i),
					Values:     map[string]map[string][]byte{Family: {Qualifier: v}},
					Durability: r.o.durability,
				}
				return true, m.Mutate(ctx, p)
			},
			finish: m.Flush,
		}
	case kindRandomRead:
		return client{
			op: func(ctx context.Context, _ int64) (bool, error) {
				_, err := r.data.Get(ctx, &hbase.Get{Table: table, Row: Key(randomRow(rng, total)), Columns: cols})
				return true, err
			},
			finish: none,
		}
	case kindScan:
		var sc hbase.Scanner
		first := int64(t) * int64(r.o.rows)
		return client{
			op: func(ctx context.Context, i int64) (bool, error) {
				if sc == nil {
					var err error
					sc, err = r.data.Scan(ctx, &hbase.Scan{Table: table, StartRow: Key(first), Columns: cols, Caching: r.o.caching})
					if err != nil {
						return true, err
					}
				}
				if !sc.Next() {
					if err := sc.Err(); err != nil {
						return true, err
					}
					return true, fmt.Errorf("%w: scan ended after %d of %d rows", ErrNoData, i-first, r.o.rows)
				}
				return true, nil
			},
			finish: func(context.Context) error {
				if sc == nil {
					return nil
				}
				return sc.Close()
			},
		}
	default: // kindScanRange100
		return client{
			op: func(ctx context.Context, _ int64) (bool, error) {
				lo := randomRow(rng, total)
				sc, err := r.data.Scan(ctx, &hbase.Scan{
					Table: table, StartRow: Key(lo), StopRow: Key(lo + 100), Columns: cols, Caching: r.o.caching,
				})
				if err != nil {
					return true, err
				}
				for sc.Next() {
				}
				err = sc.Err()
				if cerr := sc.Close(); err == nil {
					err = cerr
				}
				return true, err
			},
			finish: none,
		}
	}
}

// splitKeys are PE's getSplits: presplit-1 keys at multiples of
// totalRows/presplit.
func (r *Runner) splitKeys() [][]byte {
	if r.o.presplit == 0 {
		return nil
	}
	jump := r.totalRows() / int64(r.o.presplit)
	out := make([][]byte, r.o.presplit-1)
	for i := range out {
		out[i] = Key(jump * int64(i+1))
	}
	return out
}

// preparePE is PE's checkTable: a read needs the table; a write creates it
// when missing and recreates it when its families or (with a presplit)
// its region count differ from what was asked. A table this Runner
// created or checked is not checked again.
func (r *Runner) preparePE(ctx context.Context, write bool) error {
	table := r.o.table
	exists, err := r.admin.TableExists(ctx, table)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", table, err)
	}
	if !exists {
		if !write {
			return fmt.Errorf("%w (table %s does not exist)", ErrNoData, table)
		}
		return r.createPE(ctx)
	}
	if !write || r.peReady {
		return nil
	}
	desc, err := r.admin.DescribeTable(ctx, table)
	if err != nil {
		return fmt.Errorf("bench: describe %s: %w", table, err)
	}
	recreate := len(desc.Families) != 1 || desc.Families[0].Name != Family
	if !recreate && r.o.presplit > 0 {
		regions, err := r.admin.TableRegions(ctx, table)
		if err != nil {
			return fmt.Errorf("bench: regions of %s: %w", table, err)
		}
		recreate = len(regions) != r.o.presplit
	}
	if !recreate {
		r.peReady = true
		return nil
	}
	if err := dropTable(ctx, r.admin, table); err != nil {
		return err
	}
	return r.createPE(ctx)
}

func (r *Runner) createPE(ctx context.Context) error {
	desc := hbase.TableDescriptor{
		Name: r.o.table,
		// PE sets these on its family explicitly; they are also HBase's
		// defaults.
		Families: []hbase.FamilyDescriptor{{Name: Family, Attributes: map[string]string{
			"BLOOMFILTER": "ROW", "COMPRESSION": "NONE", "DATA_BLOCK_ENCODING": "NONE", "BLOCKSIZE": "65536",
		}}},
	}
	if err := r.admin.CreateTable(ctx, desc, r.splitKeys()); err != nil {
		return fmt.Errorf("bench: create %s: %w", r.o.table, err)
	}
	r.peReady = true
	return nil
}

// dropTable disables and deletes table if it exists.
func dropTable(ctx context.Context, a hbase.AdminClient, table string) error {
	exists, err := a.TableExists(ctx, table)
	if err != nil || !exists {
		return err
	}
	enabled, err := a.IsTableEnabled(ctx, table)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", table, err)
	}
	if enabled {
		if err := a.DisableTable(ctx, table); err != nil {
			return fmt.Errorf("bench: disable %s: %w", table, err)
		}
	}
	if err := a.DeleteTable(ctx, table); err != nil {
		return fmt.Errorf("bench: delete %s: %w", table, err)
	}
	return nil
}

// Tables returns the names of every table the workloads use: PE's table
// and the layer workloads' SMS tables.
func (r *Runner) Tables() []string {
	return append(append([]string{r.o.table}, r.layerNames().all()...), r.modeTables().all()...)
}

// DropTables drops every table the workloads use (see Tables), so that the
// next write workload starts from an empty table.
func (r *Runner) DropTables(ctx context.Context) error {
	r.peReady = false
	for _, t := range r.Tables() {
		if err := dropTable(ctx, r.admin, t); err != nil {
			return err
		}
	}
	return nil
}
