package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/examples/internal/text"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/seeds/seedstore"
	"github.com/hbkit/hbkit/sim"
)

// Client is what the demo needs of an HBase client: data calls and DDL.
// The native client (hbase.New) and the in-memory fake (hbase/fake) are
// both one.
type Client interface {
	hbase.DataClient
	hbase.AdminClient
}

// Config is the demo's workload and how it is loaded.
type Config struct {
	Messages    int64  // messages to generate and load
	Mobiles     int    // distinct mobiles they go to
	Accounts    int    // distinct sending accounts
	Days        int    // length of the time window
	Seed        uint64 // seed of the generator: the same seed gives the same messages
	Batch       int    // records per Send call
	Concurrency int    // Send calls in flight
	Latest      int    // N of the "latest N messages of a mobile" query
	// Rounds is how many turns the loads with and without the index take
	// (each a part of the messages); see demo.load.
	Rounds int
	Keep   bool // keep the tables at the end
	// Progress receives the load's progress (stderr); nil for none.
	Progress io.Writer
	// TTY redraws the progress on one line; otherwise a line per 10%.
	TTY bool
}

// DefaultConfig returns the workload of the README: 200,000 messages from
// 2,000 accounts to 20,000 mobiles over 30 days.
func DefaultConfig() Config {
	return Config{
		Messages: 200_000, Mobiles: 20_000, Accounts: 2_000, Days: 30, Seed: 1,
		Batch: 1000, Concurrency: 4, Latest: 5, Rounds: 10,
	}
}

// ErrConfig is wrapped by every invalid Config.
var ErrConfig = errors.New("sms demo: invalid configuration")

func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Messages < 1:
		return bad("--messages %d: need at least 1", c.Messages)
	case c.Mobiles < 1 || int64(c.Mobiles) > c.Messages*10:
		return bad("--mobiles %d: need 1 .. 10 × messages", c.Mobiles)
	case c.Accounts < 1:
		return bad("--accounts %d: need at least 1", c.Accounts)
	case c.Days < 1 || c.Days > 3650:
		return bad("--days %d: need 1 .. 3650", c.Days)
	case c.Batch < 1 || c.Batch > dao.MaxBatchSize:
		return bad("--batch %d: need 1 .. %d", c.Batch, dao.MaxBatchSize)
	case c.Concurrency < 1 || c.Concurrency > 256:
		return bad("--concurrency %d: need 1 .. 256", c.Concurrency)
	case c.Latest < 1:
		return bad("--latest %d: need at least 1", c.Latest)
	case c.Rounds < 1 || c.Rounds > 1000:
		return bad("--rounds %d: need 1 .. 1000", c.Rounds)
	}
	return nil
}

// Run is the whole demo: it (re)creates the pre-split SMS tables, loads the
// generated workload through the dao (with the index), runs the seed's
// queries and checks their answers against the workload, and prints the
// per-region distribution of the rows next to the distribution a naive
// timestamp-first key would have given. Everything it reports goes to out.
func Run(ctx context.Context, cfg Config, c Client, out io.Writer) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	d, err := newDemo(cfg, c, out)
	if err != nil {
		return err
	}
	return d.run(ctx)
}

// demo holds one run's state.
type demo struct {
	cfg   Config
	c     Client
	out   io.Writer
	table *schema.Table[seeds.SMS]
	index *schema.Index[seeds.SMS]
	adm   *admin.Admin
	work  *seedsim.SMSWorkload
}

func newDemo(cfg Config, c Client, out io.Writer) (*demo, error) {
	t, err := seeds.SMSTable()
	if err != nil {
		return nil, err
	}
	ix, ok := t.Index(seeds.SMSIndexTableName)
	if !ok {
		return nil, fmt.Errorf("sms demo: schema %s has no index %s", t.Name(), seeds.SMSIndexTableName)
	}
	adm, err := admin.New(c)
	if err != nil {
		return nil, err
	}
	w, err := seedsim.NewSMSWorkload(sim.Config{
		Records: cfg.Messages, Entities: cfg.Mobiles, Accounts: cfg.Accounts, Days: cfg.Days, Seed: cfg.Seed,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &demo{cfg: cfg, c: c, out: out, table: t, index: ix, adm: adm, work: w}, nil
}

func (d *demo) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

func (d *demo) run(ctx context.Context) error {
	from, to := d.work.Window()
	d.printf("hbkit SMS demo (seed 000): %s messages to %s mobiles from %s accounts, %s .. %s UTC\n\n",
		text.Grouped(d.cfg.Messages), text.Grouped(int64(d.cfg.Mobiles)), text.Grouped(int64(d.cfg.Accounts)),
		from.Format(time.DateOnly), to.Add(-time.Millisecond).Format(time.DateOnly))

	if err := d.createTables(ctx); err != nil {
		return err
	}
	truth := survey(d.work)
	ld, base, err := d.load(ctx, truth)
	if err != nil {
		return err
	}
	if err := d.queries(ctx, truth); err != nil {
		return err
	}
	dist, err := d.distribution(ctx)
	if err != nil {
		return err
	}
	d.printf("\nLoaded %s messages (data row + index entry each) in %s: %s messages/s with the index, %s without (%.2f×; batch %d, concurrency %d).\n",
		text.Grouped(ld.messages), ld.elapsed.Round(10*time.Millisecond), text.Grouped(int64(ld.rate())),
		text.Grouped(int64(base.rate())), ld.rate()/base.rate(), d.cfg.Batch, d.cfg.Concurrency)
	d.printf("Rows per region, max/mean: %s %.2f (limit %.1f), %s %.2f; naive timestamp-first key %.2f (%.0f%% in one region).\n",
		d.table.Name(), dist.skew.MaxOverMean, MaxOverMean, d.index.Name(), dist.indexSkew.MaxOverMean,
		dist.naive.Skew.MaxOverMean, dist.naive.Regions[dist.naive.Skew.Max].Share*100)
	if d.cfg.Keep {
		d.printf("Kept tables %s and %s (--keep).\n", d.table.Name(), d.index.Name())
		return nil
	}
	return d.dropTables(ctx)
}

// createTables drops the demo's tables if they exist, so that a rerun
// starts clean, and creates them pre-split as the schema declares.
func (d *demo) createTables(ctx context.Context) error {
	if err := d.dropTables(ctx); err != nil {
		return err
	}
	res, err := d.adm.EnsureTables(ctx, admin.WithIndexes(d.table)...)
	if err != nil {
		return fmt.Errorf("sms demo: create tables: %w", err)
	}
	for _, r := range res {
		regions, err := d.c.TableRegions(ctx, r.Table)
		if err != nil {
			return fmt.Errorf("sms demo: regions of %s: %w", r.Table, err)
		}
		d.printf("table %-10s %-8s pre-split into %d regions\n", r.Table, r.Outcome, len(regions))
	}
	d.printf("\n")
	return nil
}

// dropTables drops the data table and its index where they exist.
func (d *demo) dropTables(ctx context.Context) error {
	for _, name := range []string{d.table.Name().String(), d.index.Name().String()} {
		if err := d.dropTable(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// dropTable drops a table if it exists.
func (d *demo) dropTable(ctx context.Context, name string) error {
	ok, err := d.c.TableExists(ctx, name)
	if err != nil {
		return fmt.Errorf("sms demo: table %s: %w", name, err)
	}
	if !ok {
		return nil
	}
	if err := d.adm.Drop(ctx, name); err != nil {
		return fmt.Errorf("sms demo: drop %s: %w", name, err)
	}
	return nil
}

// loadStats is what the load measured.
type loadStats struct {
	messages int64
	elapsed  time.Duration
	rounds   []float64 // messages/s of each round, in order
}

func (s loadStats) rate() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.messages) / s.elapsed.Seconds()
}

// load writes the workload twice, the same way (Send's inserts, the same
// batches and workers): through the SMS store, each message a data row and
// its index entry, and into the SMS data table declared without its index
// (baselineTable, dropped at the end), the rate the index is measured
// against. The two loads take turns in Config.Rounds rounds, each a part of
// the messages: with the index then without in odd rounds, without then
// with in even ones. A server that has just started speeds up for a minute
// or more (its JIT compiles under load on the same cores); taking turns
// often gives each load the same share of the cold server and of the warm
// one, where halves gave the first load most of the cold one.
func (d *demo) load(ctx context.Context, truth *truth) (indexed, plain loadStats, err error) {
	repo, err := d.store()
	if err != nil {
		return indexed, plain, err
	}
	bt, err := seeds.SMSDataTable(baselineTable)
	if err != nil {
		return indexed, plain, err
	}
	if err := d.dropTable(ctx, baselineTable); err != nil {
		return indexed, plain, err
	}
	if _, err := d.adm.EnsureTables(ctx, bt); err != nil {
		return indexed, plain, fmt.Errorf("sms demo: create %s: %w", baselineTable, err)
	}
	defer func() { _ = d.dropTable(context.WithoutCancel(ctx), baselineTable) }()
	base, err := dao.New(d.c, bt, dao.WithBatchSize(d.cfg.Batch))
	if err != nil {
		return indexed, plain, err
	}
	sendBase := func(ctx context.Context, msgs []*seeds.SMS) ([]error, error) {
		return dao.InsertUnique(ctx, base, msgs, seedstore.NextSMSSeq)
	}

	// The messages, generated before the clock starts.
	msgs := make([]*seeds.SMS, 0, truth.messages)
	for m := range d.work.Records() {
		cp := *m
		msgs = append(msgs, &cp)
	}
	rounds := min(d.cfg.Rounds, max(len(msgs), 1))
	type side struct {
		send  func(context.Context, []*seeds.SMS) ([]error, error)
		flush func(context.Context) error
		into  *loadStats
		pr    *progress
	}
	with := &side{repo.Send, repo.Flush, &indexed, nil}
	without := &side{sendBase, base.Flush, &plain, nil}
	if d.cfg.Progress != nil {
		with.pr = newProgress(d.cfg.Progress, d.cfg.TTY, "loading", int64(len(msgs)), nil)
		without.pr = newProgress(d.cfg.Progress, d.cfg.TTY, "loading without the index", int64(len(msgs)), nil)
	}
	for i := range rounds {
		part := msgs[i*len(msgs)/rounds : (i+1)*len(msgs)/rounds]
		order := []*side{with, without}
		if i%2 == 1 {
			order[0], order[1] = without, with
		}
		for _, sd := range order {
			if len(part) == 0 {
				continue
			}
			st, err := d.loadWith(ctx, part, sd.send, sd.flush, sd.pr)
			if err != nil {
				return indexed, plain, err
			}
			sd.into.messages += st.messages
			sd.into.elapsed += st.elapsed
			sd.into.rounds = append(sd.into.rounds, st.rate())
		}
	}
	for _, sd := range []*side{with, without} {
		if sd.pr != nil {
			sd.pr.end()
		}
	}
	for _, st := range []loadStats{indexed, plain} {
		if st.messages != truth.messages {
			return indexed, plain, fmt.Errorf("sms demo: wrote %d messages, the workload has %d", st.messages, truth.messages)
		}
	}
	d.printf("loaded %s messages in %s (%s messages/s, each a data row and an index entry; %s)\n",
		text.Grouped(indexed.messages), indexed.elapsed.Round(10*time.Millisecond), text.Grouped(int64(indexed.rate())),
		roundRates(indexed))
	d.printf("loaded the same messages without the index (table %s, the same inserts, taking turns with the load above) in %s (%s messages/s; %s): with the index, %.2f× that rate\n",
		baselineTable, plain.elapsed.Round(10*time.Millisecond), text.Grouped(int64(plain.rate())),
		roundRates(plain), indexed.rate()/plain.rate())
	if len(indexed.rounds) > 1 {
		ratios := make([]string, len(indexed.rounds))
		for i := range ratios {
			ratios[i] = fmt.Sprintf("%.2f", indexed.rounds[i]/plain.rounds[i])
		}
		d.printf("with / without the index, round by round: %s\n", strings.Join(ratios, " "))
	}
	d.printf("\n")
	return indexed, plain, nil
}

// roundRates says how many rounds a load took and the rates of its first
// and last.
func roundRates(s loadStats) string {
	switch n := len(s.rounds); n {
	case 0:
		return "no rounds"
	case 1:
		return "1 round"
	default:
		return fmt.Sprintf("%d rounds, the first at %s/s, the last at %s/s", n,
			text.Grouped(int64(s.rounds[0])), text.Grouped(int64(s.rounds[n-1])))
	}
}

// baselineTable is the table the load without the index writes, and drops.
const baselineTable = "sms_noindex"

// loadWith sends msgs through send in batches from Concurrency workers,
// reports progress on pr (nil: none; its clock runs during the call only),
// and flushes at the end.
func (d *demo) loadWith(ctx context.Context, msgs []*seeds.SMS,
	sendBatch func(context.Context, []*seeds.SMS) ([]error, error), flush func(context.Context) error, pr *progress) (loadStats, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	batches := make(chan []*seeds.SMS, d.cfg.Concurrency)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		written int64
	)
	for range d.cfg.Concurrency {
		wg.Go(func() {
			for b := range batches {
				if results, err := sendBatch(ctx, b); err != nil {
					cancel(fmt.Errorf("sms demo: load: %w", firstFailure(results, err)))
					continue // drain
				}
				mu.Lock()
				written += int64(len(b))
				mu.Unlock()
				if pr != nil {
					pr.add(int64(len(b)))
				}
			}
		})
	}

	// Send may change a record (the next free Seq of a message whose key
	// is taken), and each load starts from the generated messages: it
	// sends copies, made before the clock starts.
	var chunks [][]*seeds.SMS
	for lo := 0; lo < len(msgs); lo += d.cfg.Batch {
		chunk := make([]*seeds.SMS, 0, min(d.cfg.Batch, len(msgs)-lo))
		for _, m := range msgs[lo:min(lo+d.cfg.Batch, len(msgs))] {
			cp := *m
			chunk = append(chunk, &cp)
		}
		chunks = append(chunks, chunk)
	}
	start := time.Now()
	if pr != nil {
		pr.resume()
	}
	for _, chunk := range chunks {
		select {
		case batches <- chunk:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(batches)
	wg.Wait()
	if ctx.Err() == nil {
		// The index entries' verifications go out in the background:
		// wait for them, so that the load time includes them.
		if err := flush(ctx); err != nil {
			cancel(fmt.Errorf("sms demo: verify index entries: %w", err))
		}
	}
	elapsed := time.Since(start)
	if pr != nil {
		pr.pause()
	}
	if err := context.Cause(ctx); err != nil {
		return loadStats{}, err
	}
	if written != int64(len(msgs)) {
		return loadStats{}, fmt.Errorf("sms demo: wrote %d messages of %d", written, len(msgs))
	}
	return loadStats{messages: written, elapsed: elapsed}, nil
}

// firstFailure adds the first per-record error of a failed batch to err.
func firstFailure(results []error, err error) error {
	for _, e := range results {
		if e != nil && !errors.Is(e, dao.ErrNotAttempted) {
			return fmt.Errorf("%w (first failure: %w)", err, e)
		}
	}
	return err
}
