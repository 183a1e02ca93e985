package index_test

import (
	"context"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
)

// shipment is a schema of this test's own: keyed by a hash of the
// customer, indexed by a status that moves and by the day in Shanghai.
type shipment struct {
	Customer string
	ID       int64
	Status   string
	At       time.Time
}

func shipmentsDoc(mode string) schema.Document {
	return schema.Document{
		Name:     "shipments_" + mode,
		Families: []schema.DocFamily{{Name: "cf"}},
		Writes:   mode,
		Key: []schema.DocSegment{
			{Name: "customer_md5", Kind: "md5_hex", Width: 2, From: "customer"},
			{Name: "customer", Kind: "string"},
			{Name: "id", Kind: "decimal", Width: 8},
		},
		Columns: []schema.DocColumn{
			{Name: "status", Family: "cf", Qualifier: "s"},
			{Name: "at", Family: "cf", Qualifier: "t"},
		},
		Indexes: []schema.DocIndex{{
			Name: "shipments_" + mode + "_by_status", Families: []schema.DocFamily{{Name: "cf"}},
			Key: []schema.DocSegment{
				{Name: "status", Kind: "string"},
				{Name: "day", Kind: "date", From: "at", Zone: "Asia/Shanghai"},
				{Name: "customer", Kind: "string"},
				{Name: "id", Kind: "decimal", Width: 8},
			},
		}},
	}
}

// TestCorruptReadNeverDropsAnEntryOwnSchema is TestCorruptReadNeverDropsAnEntry
// on a schema the project does not ship: a hash-led key, a status that
// moves (strict), a date in Shanghai from a time stamped in UTC at the
// hour the two calendars differ. A bit flipped in the status the reader's
// Get returns makes the entry look like a dead orphan; read repair must
// not delete it.
func TestCorruptReadNeverDropsAnEntryOwnSchema(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 17, 30, 0, 0, time.UTC) // 01:30 on the 28th in Shanghai
	for _, mode := range []schema.WriteMode{schema.Strict, schema.InsertOnly} {
		t.Run(mode.String(), func(t *testing.T) {
			c, err := fake.New()
			if err != nil {
				t.Fatal(err)
			}
			doc := shipmentsDoc(mode.String())
			healthy, err := dao.Open[shipment](ctx, c, doc, dao.WithReadRepair(false), dao.WithAsyncVerify(false))
			if err != nil {
				t.Fatal(err)
			}
			s := &shipment{Customer: "alice", ID: 7, Status: "paid", At: at}
			if err := healthy.Put(ctx, s); err != nil {
				t.Fatal(err)
			}
			if mode == schema.Strict { // the indexed field moves
				s.Status = "shipped"
				if err := healthy.Put(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			tbl, err := schema.Bind[shipment](doc)
			if err != nil {
				t.Fatal(err)
			}
			bc := &corrupting{Client: c, dataTable: doc.Name, indexTable: doc.Indexes[0].Name, data: flipIn("s", false)}
			faulty, err := dao.New(bc, tbl)
			if err != nil {
				t.Fatal(err)
			}
			find := func(r *dao.Repo[shipment]) (n int, err error) {
				ix, err := r.Index(doc.Indexes[0].Name)
				if err != nil {
					return 0, err
				}
				for got, err := range ix.Find(ctx, dao.Eq(&shipment{Status: s.Status}, "status")) {
					if err != nil {
						return n, err
					}
					if got.Customer == "alice" && got.ID == 7 {
						n++
					}
				}
				return n, nil
			}
			n, err := find(faulty)
			t.Logf("the corrupted read found %d, %v", n, err)
			if !bc.corrupted.Load() {
				t.Fatal("the test corrupted no answer")
			}
			if n, err := find(healthy); n != 1 || err != nil {
				t.Errorf("after the corrupted read, Find(status=%s) = %d, %v; want the record once", s.Status, n, err)
			}
			if rep, err := healthy.Check(ctx, dao.ModeVerify); err != nil || !rep.Clean() || rep.DataRows != 1 {
				t.Errorf("Check = %+v, %v; want clean, one record", rep, err)
			}
		})
	}
}
