package index_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// lostAnswers stands in front of a client and, for the next n conditional
// writes sent in Batches, lets each reach the cluster and then answers it
// with what the real client reports when the answer was lost and a resend
// met the write's own row: an error wrapping hbase.ErrOutcomeUnknown.
type lostAnswers struct {
	dao.Client
	n atomic.Int32
}

func (l *lostAnswers) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	res, err := l.Client.Batch(ctx, acts)
	if len(res) != len(acts) {
		return res, err
	}
	var be hbase.BatchError
	for i, a := range acts {
		if _, ok := a.(*hbase.CheckAndMutate); ok && res[i].Err == nil && l.n.Add(-1) >= 0 {
			res[i] = hbase.BatchResult{Err: fmt.Errorf("lost answer: %w", hbase.ErrOutcomeUnknown)}
		}
		if res[i].Err != nil {
			be.Failed = append(be.Failed, hbase.ActionError{Index: i, Action: a, Err: res[i].Err})
		}
	}
	if len(be.Failed) > 0 {
		return res, &be
	}
	return res, nil
}

// Issue 34, item 2, on the fake: in every write mode, inserts whose
// conditional write's answer is lost after it applied (or after it found
// the key taken) are settled by reading their token back: every message is
// acknowledged and stored once, none is moved to another Seq for its own
// write, one whose key was taken moves on; Check is clean, and counts a
// record copied to another key with its token as a duplicate.
func TestInsertsWithLostAnswers(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []schema.WriteMode{schema.Strict, schema.InsertOnly, schema.Mutable, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) {
			b, fc := newFakeBackend(t)
			lost := &lostAnswers{Client: b.c}
			s := b.smsOver(t, lost, dao.WithWriteMode(mode))
			taken := msg(1, "other", 0)
			taken.Seq = 0
			if err := s.Insert(ctx, taken); err != nil {
				t.Fatal(err)
			}
			var msgs []*seeds.SMS
			for n := 1; n <= 4; n++ {
				m := msg(n, "acct", 0) // message 1 meets the taken key
				m.Seq = 0
				msgs = append(msgs, m)
			}
			lost.n.Store(100) // every conditional write's answer
			res, err := s.Send(ctx, msgs)
			if err != nil {
				t.Fatalf("Send = %v, %v; want every message acknowledged", res, err)
			}
			if lost.n.Load() >= 100 {
				t.Fatal("no answer was lost")
			}
			lost.n.Store(0)
			for i, m := range msgs {
				want := uint64(0)
				if i == 0 {
					want = 1
				}
				if m.Seq != want {
					t.Errorf("message %d stored at Seq %d, want %d", i+1, m.Seq, want)
				}
			}
			got, err := s.MessagesOfAccountOnDate(ctx, "acct", day0)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, m := range got {
				seen[m.Mobile]++
			}
			for _, m := range msgs {
				if seen[m.Mobile] != 1 {
					t.Errorf("message to %s found %d times through the index, want 1 (all: %v)", m.Mobile, seen[m.Mobile], mobiles(got))
				}
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			assertClean(t, s, 5)

			// A copy of message 2's row (its token with it) at Seq 1.
			src, err := s.Table().AppendKey(nil, msgs[1])
			if err != nil {
				t.Fatal(err)
			}
			row, err := fc.Get(ctx, &hbase.Get{Table: b.data, Row: src})
			if err != nil || row.Empty() {
				t.Fatalf("Get = %v, %v", row, err)
			}
			cp := *msgs[1]
			cp.Seq = 1
			dst, err := s.Table().AppendKey(nil, &cp)
			if err != nil {
				t.Fatal(err)
			}
			vals := map[string]map[string][]byte{}
			var ts int64
			for _, c := range row.Cells {
				ts = max(ts, c.Timestamp)
				if vals[string(c.Family)] == nil {
					vals[string(c.Family)] = map[string][]byte{}
				}
				vals[string(c.Family)][string(c.Qualifier)] = c.Value
			}
			if err := fc.Put(ctx, &hbase.Put{Table: b.data, Row: dst, Values: vals, Timestamp: ts}); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil || rep.Duplicates != 1 || rep.Clean() {
				t.Errorf("Check after the copy = %+v, %v; want Duplicates 1, not clean", rep, err)
			}
		})
	}
}

// An insert whose answer was lost and whose row cannot be read back keeps
// ErrOutcomeUnknown: never ErrExists, and InsertUnique does not move it on.
func TestInsertOutcomeStaysUnknownWhenUnread(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	lost := &unreadable{lostAnswers: lostAnswers{Client: b.c}}
	s := b.smsOver(t, lost, dao.WithWriteMode(schema.InsertOnly))
	m := msg(7, "acct", 0)
	m.Seq = 0
	lost.n.Store(1)
	res, err := s.Send(ctx, []*seeds.SMS{m})
	if !errors.Is(err, hbase.ErrOutcomeUnknown) || errors.Is(err, dao.ErrExists) || len(res) != 1 || !errors.Is(res[0], hbase.ErrOutcomeUnknown) {
		t.Fatalf("Send = %v, %v; want ErrOutcomeUnknown", res, err)
	}
	if m.Seq != 0 {
		t.Errorf("moved to Seq %d, want 0", m.Seq)
	}
}

// unreadable is lostAnswers whose Batches of Gets fail.
type unreadable struct{ lostAnswers }

func (u *unreadable) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	if _, ok := acts[0].(*hbase.Get); ok {
		return nil, errors.New("unreadable")
	}
	return u.lostAnswers.Batch(ctx, acts)
}
