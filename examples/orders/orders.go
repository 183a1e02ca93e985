package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/examples/internal/text"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedsim"
	"github.com/hbkit/hbkit/sim"
)

// Client is what the example needs of an HBase client: data calls and
// DDL. The native client and the in-memory fake are both one.
type Client interface {
	hbase.DataClient
	hbase.AdminClient
}

// Config is the example's workload.
type Config struct {
	Rows        int64  // customer, order and line rows to generate
	Days        int    // days the sales are spread over
	Seed        uint64 // generator seed
	Batch       int    // records per batch write
	Concurrency int    // batch writes in flight
	Keep        bool   // keep the tables at the end
}

// DefaultConfig returns 20,000 rows over 30 days.
func DefaultConfig() Config {
	return Config{Rows: 20_000, Days: 30, Seed: 1, Batch: 500, Concurrency: 4}
}

// ErrConfig is wrapped by every invalid Config.
var ErrConfig = errors.New("orders example: invalid configuration")

func (c Config) validate() error {
	switch {
	case c.Rows < 1:
		return fmt.Errorf("%w: --rows %d: need at least 1", ErrConfig, c.Rows)
	case c.Days < 1 || c.Days > 3650:
		return fmt.Errorf("%w: --days %d: need 1 .. 3650", ErrConfig, c.Days)
	case c.Batch < 1 || c.Batch > 100_000:
		return fmt.Errorf("%w: --batch %d: need 1 .. 100000", ErrConfig, c.Batch)
	case c.Concurrency < 1 || c.Concurrency > 256:
		return fmt.Errorf("%w: --concurrency %d: need 1 .. 256", ErrConfig, c.Concurrency)
	}
	return nil
}

// MismatchError reports a query whose answer differs from what was
// written.
type MismatchError struct {
	Query  string
	Detail string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("orders example: %s: %s", e.Query, e.Detail)
}

// shipTo are the shipping locations lines are sent to (generated data).
func shipTo() []string {
	return []string{
		"上海市浦东新区世纪大道100号", "北京市朝阳区建国路88号", "广州市天河区体育西路1号",
		"深圳市南山区科技园南区", "杭州市西湖区文三路259号", "成都市武侯区天府大道北段",
	}
}

// records generates the workload: sim's CUSTOMER++ rows (customers, their
// orders, the orders' lines), each line given a shipping location so that
// an order ships to one or two places (lines 1-2 to one, line 3 to
// another), the book's denormalised shipping locations.
func records(cfg Config) ([]seeds.CustomerOrder, error) {
	w, err := seedsim.NewCustomerWorkload(sim.Config{Records: cfg.Rows, Days: cfg.Days, Seed: cfg.Seed})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	locs := shipTo()
	out := make([]seeds.CustomerOrder, 0, cfg.Rows)
	for r := range w.Records() {
		c := *r
		if c.Type == seeds.LineRecord {
			c.ShipTo = locs[int((c.OrderID*7+(c.Line-1)/2)%uint64(len(locs)))]
		}
		out = append(out, c)
	}
	return out, nil
}

// Run creates the customer_order table and its date index, loads the
// workload, runs seed 004's queries (a customer's whole history in one
// scan, an order with its shipping locations and lines, the orders of a
// day through the index), checks every answer against what was written,
// and reports to out.
func Run(ctx context.Context, cfg Config, c Client, out io.Writer) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	t, err := CustomerOrders()
	if err != nil {
		return err
	}
	recs, err := records(cfg)
	if err != nil {
		return err
	}
	adm, err := admin.New(c)
	if err != nil {
		return err
	}
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	ix := t.Indexes()[0]

	// Tables: recreated, so that reruns start clean.
	if err := drop(ctx, c, adm, t); err != nil {
		return err
	}
	res, err := adm.EnsureTables(ctx, admin.WithIndexes(t)...)
	if err != nil {
		return fmt.Errorf("orders example: create tables: %w", err)
	}
	p("hbkit orders example (seed 004): %s rows of customers, orders and order lines in one table\n\n", text.Grouped(cfg.Rows))
	for _, r := range res {
		regions, err := c.TableRegions(ctx, r.Table)
		if err != nil {
			return fmt.Errorf("orders example: regions of %s: %w", r.Table, err)
		}
		p("table %-22s %-8s pre-split into %d regions\n", r.Table, r.Outcome, len(regions))
	}

	// Load: data rows and index entries together (the store keeps the
	// index of a schema that declares one).
	repo, err := dao.New(c, t, dao.WithBatchSize(cfg.Batch))
	if err != nil {
		return err
	}
	took, err := load(ctx, repo, recs, cfg, repo.Flush)
	if err != nil {
		return err
	}
	p("\nloaded %s rows (each with its index entry) in %s: %s rows/s\n",
		text.Grouped(int64(len(recs))), took.Round(10*time.Millisecond), text.Grouped(int64(float64(len(recs))/max(took.Seconds(), 1e-9))))

	if err := history(ctx, repo, recs, p); err != nil {
		return err
	}
	if err := orderDetail(ctx, repo, recs, p); err != nil {
		return err
	}
	if err := ordersOfDay(ctx, repo, ix, recs, p); err != nil {
		return err
	}

	d, err := adm.Describe(ctx, t.Name().String(), admin.CountRows())
	if err != nil {
		return fmt.Errorf("orders example: count rows per region: %w", err)
	}
	regions := make([]sim.Region, len(d.Regions))
	for i, g := range d.Regions {
		regions[i] = sim.Region{Index: i, Start: sim.Key(g.StartKey), Rows: g.Rows}
	}
	sk := sim.FillShares(regions)
	p("\nrows per region of %s (measured, %d regions): fullest %.1f%%, emptiest %.1f%%, max/mean %.2f\n",
		t.Name(), len(regions), regions[sk.Max].Share*100, regions[sk.Min].Share*100, sk.MaxOverMean)

	if cfg.Keep {
		p("kept tables %s and %s (--keep)\n", t.Name(), ix.Name())
		return nil
	}
	return drop(ctx, c, adm, t)
}

// drop drops the table and its index where they exist.
func drop(ctx context.Context, c Client, adm *admin.Admin, t *schema.Table[seeds.CustomerOrder]) error {
	names := []string{t.Name().String()}
	for _, ix := range t.Indexes() {
		names = append(names, ix.Name().String())
	}
	for _, name := range names {
		ok, err := c.TableExists(ctx, name)
		if err != nil {
			return fmt.Errorf("orders example: table %s: %w", name, err)
		}
		if ok {
			if err := adm.Drop(ctx, name); err != nil {
				return fmt.Errorf("orders example: drop %s: %w", name, err)
			}
		}
	}
	return nil
}

// load writes recs through the repository in batches, Concurrency at a
// time, then waits for the index's background verifications (flush).
func load(ctx context.Context, repo *dao.Repo[seeds.CustomerOrder], recs []seeds.CustomerOrder, cfg Config, flush func(context.Context) error) (time.Duration, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ptrs := make([]*seeds.CustomerOrder, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	batches := make(chan []*seeds.CustomerOrder)
	var wg sync.WaitGroup
	start := time.Now()
	for range cfg.Concurrency {
		wg.Go(func() {
			for b := range batches {
				if _, err := repo.PutBatch(ctx, b); err != nil {
					cancel(fmt.Errorf("orders example: load: %w", err))
				}
			}
		})
	}
feed:
	for lo := 0; lo < len(ptrs); lo += cfg.Batch {
		select {
		case batches <- ptrs[lo:min(lo+cfg.Batch, len(ptrs))]:
		case <-ctx.Done():
			break feed
		}
	}
	close(batches)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return 0, err
	}
	if err := flush(ctx); err != nil {
		return 0, fmt.Errorf("orders example: verify index entries: %w", err)
	}
	return time.Since(start), nil
}

// history reads the whole history of the customer with the most rows:
// one scan of the prefix [customer hash][customer id].
func history(ctx context.Context, repo *dao.Repo[seeds.CustomerOrder], recs []seeds.CustomerOrder, p func(string, ...any)) error {
	counts := make(map[string]int)
	for _, r := range recs {
		counts[r.CustomerID]++
	}
	id := busiest(counts)
	var want []seeds.CustomerOrder
	for _, r := range recs {
		if r.CustomerID == id {
			want = append(want, r)
		}
	}
	slices.SortFunc(want, keyOrder)

	name := "whole history of customer " + id
	start := time.Now()
	got, err := dao.Collect(repo.Scan(ctx, dao.Prefix(&seeds.CustomerOrder{CustomerID: id}, 2)))
	if err != nil {
		return fmt.Errorf("orders example: %s: %w", name, err)
	}
	took := time.Since(start)
	if err := same(name, got, want); err != nil {
		return err
	}
	orders, lines := 0, 0
	for _, r := range got {
		switch r.Type {
		case seeds.OrderRecord:
			orders++
		case seeds.LineRecord:
			lines++
		}
	}
	p("\n%s: one scan of the prefix [md5 %s][%s], %d rows in %s, as written\n", name, hashOf(repo, id), id, len(got), roundMs(took))
	p("  (the customer, then its %d orders, then their %d lines: the record type orders them)\n", orders, lines)
	for _, r := range got {
		p("  %s\n", describe(r))
	}
	return nil
}

// orderDetail reads the order with the most lines: a Get of the order row
// and one scan of its lines, [hash][customer][3][order].
func orderDetail(ctx context.Context, repo *dao.Repo[seeds.CustomerOrder], recs []seeds.CustomerOrder, p func(string, ...any)) error {
	type ref struct {
		customer string
		order    uint64
	}
	lineCount := make(map[ref]int)
	for _, r := range recs {
		if r.Type == seeds.LineRecord {
			lineCount[ref{r.CustomerID, r.OrderID}]++
		}
	}
	if len(lineCount) == 0 {
		p("\n(no order has lines in so small a workload: skipping the order query)\n")
		return nil
	}
	var best ref
	n := -1
	for k, c := range lineCount {
		if c > n || (c == n && k.order < best.order) {
			best, n = k, c
		}
	}
	var wantOrder seeds.CustomerOrder
	var wantLines []seeds.CustomerOrder
	for _, r := range recs {
		if r.CustomerID == best.customer && r.OrderID == best.order {
			switch r.Type {
			case seeds.OrderRecord:
				wantOrder = r
			case seeds.LineRecord:
				wantLines = append(wantLines, r)
			}
		}
	}
	slices.SortFunc(wantLines, keyOrder)

	name := fmt.Sprintf("order %010d of customer %s", best.order, best.customer)
	start := time.Now()
	o, ok, err := repo.Get(ctx, &seeds.CustomerOrder{CustomerID: best.customer, Type: seeds.OrderRecord, OrderID: best.order})
	if err != nil {
		return fmt.Errorf("orders example: %s: %w", name, err)
	}
	if !ok {
		return &MismatchError{Query: name, Detail: "order row not found"}
	}
	lines, err := dao.Collect(repo.Scan(ctx, dao.Prefix(&seeds.CustomerOrder{
		CustomerID: best.customer, Type: seeds.LineRecord, OrderID: best.order,
	}, 4)))
	if err != nil {
		return fmt.Errorf("orders example: %s: %w", name, err)
	}
	took := time.Since(start)
	if err := same(name, []seeds.CustomerOrder{*o}, []seeds.CustomerOrder{wantOrder}); err != nil {
		return err
	}
	if err := same(name+" lines", lines, wantLines); err != nil {
		return err
	}
	var places []string
	byPlace := make(map[string][]seeds.CustomerOrder)
	for _, l := range lines {
		if _, seen := byPlace[l.ShipTo]; !seen {
			places = append(places, l.ShipTo)
		}
		byPlace[l.ShipTo] = append(byPlace[l.ShipTo], l)
	}
	p("\n%s with its shipping locations and line items: a Get and one scan, %s, as written\n", name, roundMs(took))
	p("  order %010d  sold %s\n", o.OrderID, o.SalesDate.Format("2006-01-02 15:04"))
	for _, place := range places {
		p("    ship to %s\n", place)
		for _, l := range byPlace[place] {
			p("      line %d  %-6s × %d\n", l.Line, l.Item, l.Quantity)
		}
	}
	return nil
}

// ordersOfDay lists the orders of the day with the most orders through
// the index by date: one prefix scan [bucket][yyyyMMdd][2] per bucket,
// each entry checked against its data row.
func ordersOfDay(ctx context.Context, repo *dao.Repo[seeds.CustomerOrder], ix *schema.Index[seeds.CustomerOrder],
	recs []seeds.CustomerOrder, p func(string, ...any)) error {
	perDay := make(map[string]int)
	for _, r := range recs {
		if r.Type == seeds.OrderRecord {
			perDay[r.SalesDate.UTC().Format(time.DateOnly)]++
		}
	}
	if len(perDay) == 0 {
		p("\n(no orders in so small a workload: skipping the query by date)\n")
		return nil
	}
	dayStr := busiest(perDay)
	day, err := time.Parse(time.DateOnly, dayStr)
	if err != nil {
		return err
	}
	var want []seeds.CustomerOrder
	for _, r := range recs {
		if r.Type == seeds.OrderRecord && r.SalesDate.UTC().Format(time.DateOnly) == dayStr {
			want = append(want, r)
		}
	}
	slices.SortFunc(want, keyOrder)

	name := "orders sold on " + dayStr
	// The prefix [bucket][day][type] without its bucket, for every bucket.
	width := ix.KeySegments()[0].Width
	prefix, err := ix.Key().AppendPrefix(nil, &seeds.CustomerOrder{CustomerID: "x", SalesDate: day, Type: seeds.OrderRecord}, 3)
	if err != nil {
		return err
	}
	ranges, err := dao.BucketRanges(ByDateBuckets, width, prefix[width:], keys.PrefixEnd(prefix[width:]))
	if err != nil {
		return err
	}
	byDate, err := repo.Index(ix.Name().String())
	if err != nil {
		return err
	}
	start := time.Now()
	got, err := dao.Collect(byDate.Find(ctx, dao.Query[seeds.CustomerOrder]{Ranges: ranges}))
	if err != nil {
		return fmt.Errorf("orders example: %s: %w", name, err)
	}
	took := time.Since(start)
	sorted := slices.Clone(got)
	slices.SortFunc(sorted, keyOrder)
	if err := same(name, sorted, want); err != nil {
		return err
	}
	p("\n%s, through the index %s: %d scans of [bucket][yyyyMMdd][2], %d orders in %s, as written\n",
		name, ix.Name(), len(ranges), len(got), roundMs(took))
	for i, r := range sorted {
		if i == 5 {
			p("  … %d more\n", len(sorted)-i)
			break
		}
		p("  %s\n", describe(r))
	}
	return nil
}

// keyOrder orders records as the data table's key does within a
// customer, customers by id.
func keyOrder(a, b seeds.CustomerOrder) int {
	return cmp.Or(cmp.Compare(a.CustomerID, b.CustomerID), cmp.Compare(a.Type, b.Type),
		cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Line, b.Line))
}

// same compares two lists of records field by field, in order.
func same(query string, got, want []seeds.CustomerOrder) error {
	if len(got) != len(want) {
		return &MismatchError{Query: query, Detail: fmt.Sprintf("%d rows, want %d", len(got), len(want))}
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.CustomerID != w.CustomerID || g.Type != w.Type || g.OrderID != w.OrderID || g.Line != w.Line ||
			g.Name != w.Name || g.City != w.City || g.Phone != w.Phone || !g.SalesDate.Equal(w.SalesDate) ||
			g.Item != w.Item || g.Quantity != w.Quantity || g.ShipTo != w.ShipTo {
			return &MismatchError{Query: query, Detail: fmt.Sprintf("row %d is %s, want %s", i, describe(g), describe(w))}
		}
	}
	return nil
}

// describe shows one record on one line.
func describe(r seeds.CustomerOrder) string {
	switch r.Type {
	case seeds.CustomerRecord:
		return fmt.Sprintf("customer %s  %s, %s", r.CustomerID, r.Name, r.City)
	case seeds.OrderRecord:
		return fmt.Sprintf("  order %010d  customer %s  sold %s", r.OrderID, r.CustomerID, r.SalesDate.Format("2006-01-02 15:04"))
	case seeds.LineRecord:
		return fmt.Sprintf("    line %010d/%d  %-6s × %d  ship to %s", r.OrderID, r.Line, r.Item, r.Quantity, r.ShipTo)
	}
	return r.Type.String()
}

// busiest returns the key with the highest count, ties to the smallest.
func busiest(counts map[string]int) string {
	best, n := "", -1
	for k, c := range counts {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}

// hashOf returns the customer-hash segment of a customer's row keys.
func hashOf(repo *dao.Repo[seeds.CustomerOrder], id string) string {
	k, err := repo.Table().Key().AppendPrefix(nil, &seeds.CustomerOrder{CustomerID: id}, 1)
	if err != nil {
		return "?"
	}
	return string(k)
}

func roundMs(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Millisecond)
}
