//go:build integration

package dao_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/internal/faultnet"
	"github.com/hbkit/hbkit/internal/ittest"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// The store's side of issue 34 (items 1 and 2): the answer to an insert's
// conditional data-row write is dropped after HBase applied it and the
// connection reset (faultnet), so the client resends it and the resend
// meets the first attempt's row. Every acknowledged record must be stored
// exactly once (data table and index), an insert must never be reported
// ErrExists for its own write, and Check must report a record stored
// twice.

// ChatMsg is one message of a chat inbox: conversation Conv's message
// number Seq, the unique suffix InsertUnique moves on.
type ChatMsg struct {
	Conv string
	Seq  uint64
	From string
	Body string
}

// chatTable keys messages [conv][seq 6 digits], with an index by sender
// [from][conv][seq].
func chatTable(t testing.TB) *schema.Table[ChatMsg] {
	t.Helper()
	conv := keys.String("conv", func(m *ChatMsg) string { return m.Conv }, func(m *ChatMsg, v string) { m.Conv = v })
	seq := keys.Decimal("seq", 6, func(m *ChatMsg) uint64 { return m.Seq }, func(m *ChatMsg, v uint64) { m.Seq = v })
	key, err := keys.NewLayout(conv, seq)
	if err != nil {
		t.Fatal(err)
	}
	bySender, err := keys.NewLayout(keys.String("from", func(m *ChatMsg) string { return m.From }, func(m *ChatMsg, v string) { m.From = v }), conv, seq)
	if err != nil {
		t.Fatal(err)
	}
	fams := []schema.Family{{Name: "m"}}
	tbl, err := schema.New(schema.Spec[ChatMsg]{
		Name: "chat", Families: fams, Key: key,
		Columns: []schema.Column[ChatMsg]{
			schema.StringColumn("from", "m", "f", func(m *ChatMsg) string { return m.From }, func(m *ChatMsg, v string) { m.From = v }),
			schema.StringColumn("body", "m", "b", func(m *ChatMsg) string { return m.Body }, func(m *ChatMsg, v string) { m.Body = v }),
		},
		Indexes: []schema.IndexSpec[ChatMsg]{{Name: "chat_by_sender", Families: fams, Key: bySender, RowKeyQualifier: "row"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func nextChatSeq(m *ChatMsg) bool { m.Seq++; return m.Seq < 1_000_000 }

// resetter arms one answer reset at the next conditional data-row write of
// the index protocol (its PhaseData step), when asked to.
type resetter struct {
	d    *faultnet.Dialer
	next atomic.Bool
}

func (r *resetter) hook(s index.Step) error {
	if s.Phase == index.PhaseData && r.next.CompareAndSwap(true, false) {
		r.d.ResetNextAnswer()
	}
	return nil
}

// fired fails t unless the reset armed in round i fired, once.
func (r *resetter) fired(t *testing.T, i, before int) {
	t.Helper()
	if r.next.Load() || r.d.Armed() != 0 || r.d.Stats().Resets != before+1 {
		t.Fatalf("round %d: the reset did not fire (resets %d, want %d)", i, r.d.Stats().Resets, before+1)
	}
}

// outcomeClient is a client of the HBase under test through a faultnet
// dialer.
func outcomeClient(t *testing.T) (*hbase.Client, *resetter) {
	t.Helper()
	d := faultnet.New(nil, nil)
	c := ittest.Connect(t, hbase.WithDialer(d.Dial), hbase.WithOperationTimeout(30*time.Second),
		hbase.WithBackoff(5*time.Millisecond, 100*time.Millisecond))
	return c, &resetter{d: d}
}

const outcomeRounds = 10

// chatModes are the write modes of index/modes.go.
var chatModes = []schema.WriteMode{schema.Strict, schema.InsertOnly, schema.Mutable, schema.VerifyOnRead}

func TestIntegrationOutcomeInsertUniqueReset(t *testing.T) {
	c, rs := outcomeClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	for _, mode := range chatModes {
		t.Run(mode.String(), func(t *testing.T) {
			tbl := chatTable(t)
			r, err := dao.New(c, tbl, itTables(t, c, tbl), dao.WithWriteMode(mode), dao.WithHook(rs.hook))
			if err != nil {
				t.Fatal(err)
			}
			bySender, err := r.Index("chat_by_sender")
			if err != nil {
				t.Fatal(err)
			}
			var acked, unknown int
			for i := range outcomeRounds {
				conv := fmt.Sprintf("c%02d", i)
				if i%2 == 1 {
					// Seq 0 is taken: the message lands at 1 (InsertUnique moves it on).
					if err := r.Insert(ctx, &ChatMsg{Conv: conv, From: "bob", Body: "first"}); err != nil {
						t.Fatal(err)
					}
				}
				if err := r.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				m := &ChatMsg{Conv: conv, From: "ann", Body: fmt.Sprintf("hello %d", i)}
				warmChat(t, ctx, r, bySender, m)
				before := rs.d.Stats().Resets
				rs.next.Store(true)
				res, err := dao.InsertUnique(ctx, r, []*ChatMsg{m}, nextChatSeq)
				rs.fired(t, i, before)
				switch {
				case err == nil:
					acked++
				case errors.Is(res[0], hbase.ErrOutcomeUnknown):
					unknown++
					continue
				default:
					t.Errorf("round %d: InsertUnique = %v (ErrExists %v)", i, err, errors.Is(err, dao.ErrExists))
					continue
				}
				if want := uint64(i % 2); m.Seq != want {
					t.Errorf("round %d: stored at Seq %d, want %d", i, m.Seq, want)
				}
				chatStoredOnce(t, ctx, r, bySender, m)
			}
			t.Logf("%s: %d rounds, %d acknowledged, %d ErrOutcomeUnknown", mode, outcomeRounds, acked, unknown)
			if err := r.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err := r.Check(ctx, index.ModeVerify)
			if err != nil || !rep.Clean() || rep.Duplicates != 0 {
				t.Errorf("Check = %+v, %v; want clean", rep, err)
			}
			// A record stored twice (planted: its row copied to the next
			// Seq, its token with it) is reported.
			plantCopy(t, ctx, c, r, &ChatMsg{Conv: "c00", Seq: 0}, &ChatMsg{Conv: "c00", Seq: 1})
			rep, err = r.Check(ctx, index.ModeVerify)
			if err != nil || rep.Duplicates != 1 || rep.Clean() {
				t.Errorf("Check after planting a copy = %+v, %v; want Duplicates 1, not clean", rep, err)
			}
		})
	}
}

// warmChat locates the regions a write of m goes to (one data region, one
// index region): the reset armed next is for the write's answer, not for a
// region lookup's.
func warmChat(t *testing.T, ctx context.Context, r *dao.Repo[ChatMsg], ix *dao.Index[ChatMsg], m *ChatMsg) {
	t.Helper()
	if _, _, err := r.Get(ctx, m); err != nil {
		t.Fatal(err)
	}
	for _, err := range ix.Find(ctx, dao.Eq(&ChatMsg{From: m.From, Conv: m.Conv}, "from", "conv")) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// chatStoredOnce checks that m is stored exactly once: one data row of its
// conversation holds its body, under its Seq, and the sender index finds it
// once.
func chatStoredOnce(t *testing.T, ctx context.Context, r *dao.Repo[ChatMsg], ix *dao.Index[ChatMsg], m *ChatMsg) {
	t.Helper()
	var rows, entries int
	for got, err := range r.Scan(ctx, dao.Prefix(&ChatMsg{Conv: m.Conv}, 1)) {
		if err != nil {
			t.Fatal(err)
		}
		if got.Body == m.Body {
			rows++
			if got.Seq != m.Seq {
				t.Errorf("%s: %q stored at Seq %d, acknowledged at %d", m.Conv, m.Body, got.Seq, m.Seq)
			}
		}
	}
	for got, err := range ix.Find(ctx, dao.Eq(&ChatMsg{From: m.From, Conv: m.Conv}, "from", "conv")) {
		if err != nil {
			t.Fatal(err)
		}
		if got.Body == m.Body {
			entries++
		}
	}
	if rows != 1 || entries != 1 {
		t.Errorf("%s: %q stored in %d data rows, found %d times through the index; want 1 and 1", m.Conv, m.Body, rows, entries)
	}
}

// plantCopy copies the data row of from, every cell at its own
// timestamp's newest, to the key of to: one insert stored twice.
func plantCopy[T any](t *testing.T, ctx context.Context, c *hbase.Client, r *dao.Repo[T], from, to *T) {
	t.Helper()
	src, err := r.Table().AppendKey(nil, from)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := r.Table().AppendKey(nil, to)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Get(ctx, &hbase.Get{Table: r.Name(), Row: src})
	if err != nil || res.Empty() {
		t.Fatalf("Get of the row to copy: %v (empty %v)", err, res.Empty())
	}
	var ts int64
	vals := map[string]map[string][]byte{}
	for _, cell := range res.Cells {
		ts = max(ts, cell.Timestamp)
		if vals[string(cell.Family)] == nil {
			vals[string(cell.Family)] = map[string][]byte{}
		}
		vals[string(cell.Family)][string(cell.Qualifier)] = cell.Value
	}
	if err := c.Put(ctx, &hbase.Put{Table: r.Name(), Row: dst, Values: vals, Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
}

// TestIntegrationOutcomeInsertBatchReset: InsertBatch with the answer of
// its conditional writes reset never reports ErrExists for its own insert.
func TestIntegrationOutcomeInsertBatchReset(t *testing.T) {
	c, rs := outcomeClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	for _, mode := range chatModes {
		t.Run(mode.String(), func(t *testing.T) {
			tbl := chatTable(t)
			r, err := dao.New(c, tbl, itTables(t, c, tbl), dao.WithWriteMode(mode), dao.WithHook(rs.hook))
			if err != nil {
				t.Fatal(err)
			}
			bySender, err := r.Index("chat_by_sender")
			if err != nil {
				t.Fatal(err)
			}
			for i := range outcomeRounds {
				if err := r.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				var msgs []*ChatMsg
				for j := range 3 {
					msgs = append(msgs, &ChatMsg{Conv: fmt.Sprintf("b%02d", i), Seq: uint64(j), From: "ann", Body: fmt.Sprintf("batch %d/%d", i, j)})
				}
				warmChat(t, ctx, r, bySender, msgs[0])
				before := rs.d.Stats().Resets
				rs.next.Store(true)
				res, err := r.InsertBatch(ctx, msgs)
				rs.fired(t, i, before)
				for j, e := range res {
					switch {
					case e == nil:
						chatStoredOnce(t, ctx, r, bySender, msgs[j])
					case errors.Is(e, dao.ErrExists):
						t.Errorf("round %d: record %d: ErrExists for its own insert: %v", i, j, e)
					case !errors.Is(e, hbase.ErrOutcomeUnknown):
						t.Errorf("round %d: record %d: %v", i, j, e)
					}
				}
				if err != nil && !errors.Is(err, hbase.ErrOutcomeUnknown) {
					t.Errorf("round %d: InsertBatch: %v", i, err)
				}
			}
		})
	}
}

// TestIntegrationOutcomeSMSSendReset: the seed's SMSRepo.Send, with the
// answer of its conditional writes reset, stores each acknowledged
// message exactly once.
func TestIntegrationOutcomeSMSSendReset(t *testing.T) {
	c, rs := outcomeClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []schema.WriteMode{schema.InsertOnly, schema.Strict} {
		t.Run(mode.String(), func(t *testing.T) {
			r, err := seedstore.NewSMS(c, itTables(t, c, tbl), dao.WithWriteMode(mode), dao.WithHook(rs.hook))
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			for i := range outcomeRounds {
				if err := r.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				m := &seeds.SMS{Mobile: fmt.Sprintf("138000000%02d", i), SentAt: at, Account: "acct", Content: fmt.Sprintf("code %d", i)}
				// Locate the message's data region and every index region
				// first: the reset is for the write's answer, not a lookup's.
				if _, _, err := r.Get(ctx, m); err != nil {
					t.Fatal(err)
				}
				if _, err := r.MessagesOfAccountOnDate(ctx, "acct", at); err != nil {
					t.Fatal(err)
				}
				before := rs.d.Stats().Resets
				rs.next.Store(true)
				res, err := r.Send(ctx, []*seeds.SMS{m})
				rs.fired(t, i, before)
				switch {
				case err == nil:
				case errors.Is(res[0], hbase.ErrOutcomeUnknown):
					continue
				default:
					t.Errorf("round %d: Send = %v", i, err)
					continue
				}
				if m.Seq != 0 {
					t.Errorf("round %d: stored at Seq %d, want 0 (nothing else was sent to %s)", i, m.Seq, m.Mobile)
				}
				var rows, entries int
				for got, err := range r.Messages(ctx, m.Mobile, at, at.Add(time.Millisecond), 0) {
					if err != nil {
						t.Fatal(err)
					}
					if got.Content == m.Content {
						rows++
					}
				}
				day, err := r.MessagesOfAccountOnDate(ctx, "acct", at)
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range day {
					if got.Content == m.Content {
						entries++
					}
				}
				if rows != 1 || entries != 1 {
					t.Errorf("round %d: message stored in %d data rows, %d through the index; want 1 and 1", i, rows, entries)
				}
			}
			if err := r.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err := r.Check(ctx, index.ModeVerify)
			if err != nil || !rep.Clean() {
				t.Errorf("Check = %+v, %v; want clean", rep, err)
			}
			m0 := &seeds.SMS{Mobile: "13800000000", SentAt: at}
			m1 := &seeds.SMS{Mobile: "13800000000", SentAt: at, Seq: 1}
			plantCopy(t, ctx, c, r.Repo, m0, m1)
			rep, err = r.Check(ctx, index.ModeVerify)
			if err != nil || rep.Duplicates != 1 || rep.Clean() {
				t.Errorf("Check after planting a copy = %+v, %v; want Duplicates 1, not clean", rep, err)
			}
		})
	}
}

// TestIntegrationOutcomeSMSSendRandomResets: SMSRepo.Send under random
// answer resets (a tenth of all answers, reads and lookups included): no
// message is stored twice, every acknowledged one is stored once, and
// Check finds no duplicate.
func TestIntegrationOutcomeSMSSendRandomResets(t *testing.T) {
	c, rs := outcomeClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []schema.WriteMode{schema.InsertOnly, schema.Strict} {
		t.Run(mode.String(), func(t *testing.T) {
			r, err := seedstore.NewSMS(c, itTables(t, c, tbl), dao.WithWriteMode(mode))
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)
			rs.d.Seed(34)
			before := rs.d.Stats().Resets
			rs.d.SetFaults(faultnet.Faults{ResetAnswer: 0.1})
			var sent []*seeds.SMS
			var errs []error
			for b := range 10 {
				var msgs []*seeds.SMS
				for j := range 10 {
					// Two messages per mobile and millisecond: the second needs Seq 1.
					msgs = append(msgs, &seeds.SMS{Mobile: fmt.Sprintf("1390000%02d%02d", b, j/2), SentAt: at, Account: "acct", Content: fmt.Sprintf("r %d/%d", b, j)})
				}
				res, _ := r.Send(ctx, msgs)
				sent, errs = append(sent, msgs...), append(errs, res...)
			}
			rs.d.SetFaults(faultnet.Faults{})
			t.Logf("%s: %d answers reset", mode, rs.d.Stats().Resets-before)
			var acked, failed int
			for i, m := range sent {
				if errs[i] != nil {
					failed++
					if errors.Is(errs[i], dao.ErrExists) {
						t.Errorf("message %d: ErrExists: %v", i, errs[i])
					}
				} else {
					acked++
				}
				n := 0
				for got, err := range r.Messages(ctx, m.Mobile, at, at.Add(time.Millisecond), 0) {
					if err != nil {
						t.Fatal(err)
					}
					if got.Content == m.Content {
						n++
					}
				}
				if n > 1 || errs[i] == nil && n != 1 {
					t.Errorf("message %d (error %v) stored %d times", i, errs[i], n)
				}
			}
			t.Logf("%s: %d acknowledged, %d failed", mode, acked, failed)
			if err := r.Flush(ctx); err != nil {
				t.Logf("Flush: %v", err)
			}
			rep, err := r.Check(ctx, index.ModeVerify)
			if err != nil || rep.Duplicates != 0 {
				t.Errorf("Check = %+v, %v; want no duplicate", rep, err)
			}
		})
	}
}
