package index_test

import (
	"context"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// splitClient sends a Batch that writes both tables in two parts, the
// index table's actions first, and calls between() in between: a reader
// then sees a write whose entries landed and whose data rows did not, as
// when they go to different region servers.
type splitClient struct {
	dao.Client
	index   string
	between func()
}

func (c *splitClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	var first, rest []hbase.Action
	var at []int
	for i, a := range acts {
		if writeTable(a) == c.index {
			first = append(first, a)
			at = append(at, i)
		}
	}
	if c.between == nil || len(first) == 0 || len(first) == len(acts) {
		return c.Client.Batch(ctx, acts)
	}
	res := make([]hbase.BatchResult, len(acts))
	r1, err := c.Client.Batch(ctx, first)
	if err != nil {
		return nil, err
	}
	c.between()
	var restAt []int
	j := 0
	for i, a := range acts {
		if j < len(at) && at[j] == i {
			res[i] = r1[j]
			j++
			continue
		}
		rest = append(rest, a)
		restAt = append(restAt, i)
	}
	r2, err := c.Client.Batch(ctx, rest)
	if err != nil {
		return nil, err
	}
	for k, i := range restAt {
		res[i] = r2[k]
	}
	return res, nil
}

// TestReadersSpareWritesInFlight: in the modes that write entries and data
// rows in one Batch, a reader (with read repair) that meets the new entry
// of a move before its data row has landed must leave it: it is a write
// in flight, not an orphan. Before, the mutable mode's readers deleted any
// verified entry their row did not derive, and the moved record was then
// missing from the index.
func TestReadersSpareWritesInFlight(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []schema.WriteMode{schema.Mutable, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) {
			b, _ := newFakeBackend(t)
			clk := &clock{}
			reader := b.sms(t, dao.WithWriteMode(mode), dao.WithClock(clk.now))
			sc := &splitClient{Client: b.c, index: b.index}
			w := b.smsOver(t, sc, dao.WithWriteMode(mode), dao.WithClock(clk.now), dao.WithAsyncVerify(false))
			m := msg(1, "acme", time.Minute)
			if err := w.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
			clk.advance(time.Second)
			mv := *m
			mv.Account = "bank"
			read := 0
			sc.between = func() {
				sc.between = nil // the write's own Batch only, not its validation's
				read++
				got, err := reader.MessagesOfAccountOnDate(ctx, "bank", day0)
				if err != nil {
					t.Error(err)
				}
				if len(got) != 0 {
					t.Errorf("before the data row landed the reader returned %+v", got)
				}
			}
			if err := w.Put(ctx, &mv); err != nil {
				t.Fatal(err)
			}
			sc.between = nil
			if read == 0 {
				t.Fatal("the write sent no Batch with both tables")
			}
			assertIndexIsTheData(t, "after the move", reader, []*seeds.SMS{m}, []string{"acme", "bank"})
			rep, err := reader.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Missing != 0 || rep.Stale != 0 {
				t.Errorf("Check = %+v, want nothing missing", rep)
			}
		})
	}
}
