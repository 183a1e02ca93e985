//go:build integration

package index_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/internal/faultnet"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// armOnDataGets is a client that arms a mangler of the wire answer just
// before its first Batch of Gets of the data table is sent.
type armOnDataGets struct {
	dao.Client
	dataTable string
	arm       func()
}

func (c *armOnDataGets) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	if c.arm != nil && slices.ContainsFunc(acts, func(a hbase.Action) bool {
		g, ok := a.(*hbase.Get)
		return ok && g.Table == c.dataTable
	}) {
		c.arm()
		c.arm = nil
	}
	return c.Client.Batch(ctx, acts)
}

// kvSize is the size of cell x in a KeyValueCodec cell block: its
// length, key length and value length, the key, the value.
func kvSize(x hbase.Cell) int {
	return 4 + 4 + 4 + 2 + len(x.Row) + 1 + len(x.Family) + len(x.Qualifier) + 8 + 1 + len(x.Value)
}

// TestIntegrationCorruptDataRowNeverDropsAnEntry (issue 34) is
// TestCorruptReadNeverDropsAnEntry on the wire of the real HBase: the
// answer to a reader's Get of a data row, on its way through faultnet, has
// the lowest bit of the account's last byte flipped, which the client
// cannot tell. The reader's record then derives another entry key, so its
// entry looks like a dead orphan; read repair must not delete it. Before,
// strict and insert-only readers deleted the verified entry of an
// acknowledged record (make test-faults, corrupt).
func TestIntegrationCorruptDataRowNeverDropsAnEntry(t *testing.T) {
	d := faultnet.New(nil, nil)
	c := itConnect(t, hbase.WithDialer(d.Dial))
	for n, mode := range []schema.WriteMode{schema.Strict, schema.InsertOnly} {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			b := itTables(t, c)
			healthy := b.sms(t, dao.WithWriteMode(mode), dao.WithReadRepair(false), dao.WithAsyncVerify(false))
			m := msg(40+n, "acme", time.Hour)
			if errs, err := healthy.PutBatch(ctx, []*seeds.SMS{m}); err != nil || errs[0] != nil {
				t.Fatalf("PutBatch: %v %v", errs, err)
			}
			// Where the account's last byte sits in the answer to a Get of
			// the row: the cell block ends the frame, and the cells after
			// the account's follow it.
			sc, err := c.Scan(ctx, &hbase.Scan{Table: b.data})
			if err != nil {
				t.Fatal(err)
			}
			var rows []*hbase.Result
			for r, err := range hbase.All(ctx, sc) {
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, r)
			}
			if len(rows) != 1 {
				t.Fatalf("%d data rows, want 1", len(rows))
			}
			cells := rows[0].Cells
			at := slices.IndexFunc(cells, func(x hbase.Cell) bool { return string(x.Family) == "cf" && string(x.Qualifier) == "a" })
			if at < 0 {
				t.Fatal("no account cell")
			}
			tail := 0
			for _, x := range cells[at+1:] {
				tail += kvSize(x)
			}
			corrupted := d.Stats().Mangled
			faulty := b.smsOver(t, &armOnDataGets{Client: c, dataTable: b.data, arm: func() {
				d.MangleNextAnswer(faultnet.FlipBitInTail(8 * tail))
			}}, dao.WithWriteMode(mode))
			got, err := faulty.MessagesOfAccountOnDate(ctx, "acme", day0)
			t.Logf("the reader whose answer was corrupted returned %v, %v", mobiles(got), err)
			if d.Armed() != 0 || d.Stats().Mangled != corrupted+1 {
				t.Fatalf("the mangler did not fire (armed %d, mangled %d)", d.Armed(), d.Stats().Mangled-corrupted)
			}
			if len(got) != 0 {
				t.Fatalf("the reader returned %v: the flip did not change the account as planned", mobiles(got))
			}
			assertMessages(t, healthy, "acme", []string{m.Mobile})
			rep, err := healthy.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() || rep.DataRows != 1 || rep.Entries != 1 {
				t.Fatalf("verify: got %+v, want clean with 1 row and entry", rep)
			}
		})
	}
}
