package index_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// countingClient counts what a store sends: Batches, and the reads and
// conditional writes inside them or on their own.
type countingClient struct {
	dao.Client
	mu                        sync.Mutex
	batches, gets, cams, acts int
}

func (c *countingClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	c.mu.Lock()
	c.batches++
	c.acts += len(acts)
	for _, a := range acts {
		switch a.(type) {
		case *hbase.Get:
			c.gets++
		case *hbase.CheckAndMutate:
			c.cams++
		}
	}
	c.mu.Unlock()
	return c.Client.Batch(ctx, acts)
}

func (c *countingClient) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.Client.Get(ctx, g)
}

func (c *countingClient) CheckAndMutate(ctx context.Context, cam *hbase.CheckAndMutate) (bool, error) {
	c.mu.Lock()
	c.cams++
	c.mu.Unlock()
	return c.Client.CheckAndMutate(ctx, cam)
}

func (c *countingClient) reset() {
	c.mu.Lock()
	c.batches, c.gets, c.cams, c.acts = 0, 0, 0, 0
	c.mu.Unlock()
}

// TestVerifyOnReadWritesOnce: a verify-on-read put, move or delete is one
// Batch of a data row and (for a put) an entry per record, with no read
// and no conditional write; the entries moved and deleted records leave
// behind are never counted nor returned, readers remove those they meet,
// and Check reports the others as orphaned until ModeRepair removes them.
func TestVerifyOnReadWritesOnce(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	cc := &countingClient{Client: b.c}
	clk := &clock{}
	opts := []dao.Option{dao.WithWriteMode(schema.VerifyOnRead), dao.WithClock(clk.now)}
	quiet := b.smsOver(t, cc, append(opts, dao.WithReadRepair(false))...)
	var recs []*seeds.SMS
	for n := range 20 {
		recs = append(recs, msg(n, "acme", time.Duration(n)*time.Minute))
	}
	if _, err := quiet.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if cc.batches != 1 || cc.acts != 40 || cc.gets != 0 || cc.cams != 0 {
		t.Errorf("20 puts sent %d batches of %d actions, %d reads, %d conditional writes; want 1 batch of 40, no read, no conditional write",
			cc.batches, cc.acts, cc.gets, cc.cams)
	}

	// Move 5 records to another account, delete 5 others.
	var moved, gone []*seeds.SMS
	for i := range 5 {
		m := *recs[i]
		m.Account = "bank"
		moved = append(moved, &m)
		gone = append(gone, recs[5+i])
	}
	cc.reset()
	if _, err := quiet.PutBatch(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := quiet.DeleteBatch(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if cc.batches != 2 || cc.acts != 15 || cc.gets != 0 || cc.cams != 0 {
		t.Errorf("5 moves and 5 deletes sent %d batches of %d actions, %d reads, %d conditional writes; want 2 batches of 15, no read, no conditional write",
			cc.batches, cc.acts, cc.gets, cc.cams)
	}
	if n := countRows(t, b, b.index); n != 25 {
		t.Fatalf("the index holds %d rows, want 25: 20 entries, 5 of them old, and the moves' 5", n)
	}

	// Index-only counts check every entry: the old ones do not count.
	want := map[string]int64{"acme": 10, "bank": 5}
	assertDayCounts(t, quiet, want)
	for a, n := range want {
		msgs, err := quiet.MessagesOfAccountOnDate(ctx, a, day0)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(msgs)) != n {
			t.Errorf("MessagesOfAccountOnDate(%s) returned %d messages, want %d", a, len(msgs), n)
		}
	}
	rep, err := quiet.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 0 || rep.Stale != 0 || rep.Orphaned != 10 {
		t.Errorf("Check = %+v, want 10 orphaned (the moved and deleted records' old entries), nothing missing or stale", rep)
	}

	// A reader with read repair removes the old entries it meets.
	reader := b.sms(t, opts...)
	if _, err := reader.MessagesOfAccountOnDate(ctx, "acme", day0); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, b, b.index); n != 15 {
		t.Errorf("after a read the index holds %d rows, want 15", n)
	}
	assertClean(t, reader, 15)
}

// TestVerifyOnReadRepairAndUpdates: Check in ModeRepair removes the old
// entries no reader met, and an update in place that changes a carried
// column leaves one entry that agrees.
func TestVerifyOnReadRepairAndUpdates(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	clk := &clock{}
	s := b.sms(t, dao.WithWriteMode(schema.VerifyOnRead), dao.WithClock(clk.now), dao.WithReadRepair(false))
	m := msg(1, "acme", time.Minute)
	if err := s.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	up := *m
	up.Delivered = true // carried by the index: the entry is rewritten in place
	if err := s.Put(ctx, &up); err != nil {
		t.Fatal(err)
	}
	mv := up
	mv.Account = "bank"
	if err := s.Put(ctx, &mv); err != nil {
		t.Fatal(err)
	}
	clk.advance(2 * time.Minute) // past the grace period
	rep, err := s.Check(ctx, index.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Orphaned != 1 || rep.Missing != 0 || rep.Stale != 0 {
		t.Errorf("ModeRepair found %+v, want the one old entry orphaned", rep)
	}
	assertClean(t, s, 1)
	got, err := s.MessagesOfAccountOnDate(ctx, "bank", day0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != mv {
		t.Errorf("bank's messages = %+v, want %+v", got, mv)
	}
}

// TestVerifyOnReadTableChangesMode: every entry a verify-on-read table
// writes stays unverified, its inserts' and Check's repairs' too, so the
// table can move to the mutable mode, whose index-only counts trust
// verified entries, without counting an entry its puts left behind.
func TestVerifyOnReadTableChangesMode(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	clk := &clock{}
	vor := b.sms(t, dao.WithWriteMode(schema.VerifyOnRead), dao.WithAsyncVerify(false), dao.WithClock(clk.now))
	var recs []*seeds.SMS
	for n := range 5 {
		recs = append(recs, msg(n, "acme", time.Duration(n)*time.Minute))
	}
	if _, err := vor.InsertBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	mv := *recs[1]
	mv.Account = "bank"
	if err := vor.Put(ctx, &mv); err != nil { // leaves acme's entry of record 1 behind
		t.Fatal(err)
	}
	if _, err := vor.Check(ctx, index.ModeRebuild); err != nil {
		t.Fatal(err)
	}
	// The stores are two Tables, as two processes would be: one record's
	// writes from both are ordered by their clock.
	clk.advance(time.Second)
	mut := b.sms(t, dao.WithWriteMode(schema.Mutable), dao.WithReadRepair(false), dao.WithClock(clk.now))
	mv0 := *recs[0]
	mv0.Account = "bank"
	if err := mut.Put(ctx, &mv0); err != nil {
		t.Fatal(err)
	}
	if err := mut.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	assertDayCounts(t, mut, map[string]int64{"acme": 3, "bank": 2})
}
