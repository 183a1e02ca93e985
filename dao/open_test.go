package dao_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
)

// Schemas declared as documents over structs (dao.Open), of the kinds a
// new user brings: a chat inbox keyed by a hash of the recipient, with a
// time in a non-UTC zone and an index by the sender's local day, and
// orders whose status index moves as the status changes.

// inboxMsg is one message of a chat inbox.
type inboxMsg struct {
	To   string
	Sent time.Time `hbkit:"sent_at"`
	From string
	Text string
	Read bool
	Note string `hbkit:"-"` // never stored
}

var inboxDoc = schema.Document{
	Name:     "inbox",
	Families: []schema.DocFamily{{Name: "m", BloomFilter: "ROW"}},
	Key: []schema.DocSegment{
		{Name: "bucket", Kind: "hash_bucket", Buckets: 8, From: "to"},
		{Name: "to", Kind: "string"},
		{Name: "sent_at", Kind: "reversed_timestamp"},
	},
	Splits: &schema.DocSplits{Regions: 8},
	Columns: []schema.DocColumn{
		{Name: "from", Family: "m", Qualifier: "f"},
		{Name: "text", Family: "m", Qualifier: "t"},
		{Name: "read", Family: "m", Qualifier: "r"},
	},
	Indexes: []schema.DocIndex{{
		Name: "inbox_by_sender_day", Families: []schema.DocFamily{{Name: "m"}},
		Key: []schema.DocSegment{
			{Name: "from", Kind: "string"},
			{Name: "day", Kind: "date", From: "sent_at", Zone: "Asia/Shanghai"},
			{Name: "to", Kind: "string"},
			{Name: "sent_at", Kind: "reversed_timestamp"},
		},
	}},
}

// inboxDemo writes messages around midnight in Shanghai (UTC+8) and reads
// them back by recipient and by the sender's Shanghai day.
func inboxDemo(ctx context.Context, c dao.Conn, w io.Writer, opts ...dao.Option) error {
	inbox, err := dao.Open[inboxMsg](ctx, c, inboxDoc, opts...)
	if err != nil {
		return err
	}
	defer inbox.Flush(ctx)
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		return err
	}
	at := func(day, hour int) time.Time { return time.Date(2026, 11, day, hour, 30, 0, 0, sh) }
	for _, m := range []inboxMsg{
		{To: "bo", From: "ann", Sent: at(27, 23), Text: "late"},   // 15:30 UTC on the 27th
		{To: "bo", From: "ann", Sent: at(28, 1), Text: "early"},   // 17:30 UTC on the 27th
		{To: "cy", From: "ann", Sent: at(28, 9), Text: "morning"}, // 01:30 UTC on the 28th
		{To: "bo", From: "di", Sent: at(28, 2), Text: "hi", Note: "dropped"},
	} {
		if err := inbox.Insert(ctx, &m); err != nil {
			return err
		}
	}
	if err := inbox.Put(ctx, &inboxMsg{To: "bo", From: "ann", Sent: at(28, 1), Text: "early", Read: true}); err != nil {
		return err
	}
	for m, err := range inbox.Scan(ctx, dao.Eq(&inboxMsg{To: "bo"}, "to")) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "bo: %s %s %q read=%v note=%q\n", m.Sent.In(sh).Format("02 15:04"), m.From, m.Text, m.Read, m.Note)
	}
	bySender, err := inbox.Index("inbox_by_sender_day")
	if err != nil {
		return err
	}
	for m, err := range bySender.Find(ctx, dao.Eq(&inboxMsg{From: "ann", Sent: at(28, 12)}, "from", "day")) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "ann on the 28th in Shanghai: to %s %q\n", m.To, m.Text)
	}
	return nil
}

const inboxWant = `bo: 28 02:30 di "hi" read=false note=""
bo: 28 01:30 ann "early" read=true note=""
bo: 27 23:30 ann "late" read=false note=""
ann on the 28th in Shanghai: to bo "early"
ann on the 28th in Shanghai: to cy "morning"
`

// statusOrder is an order whose status moves new -> paid -> shipped.
type statusOrder struct {
	ID       uint32
	Customer string
	Status   string
	Total    float64
	Updated  time.Time
	Notes    []string // not a field type Fields reads: left out of the document
}

var ordersDoc = schema.Document{
	Name:     "orders",
	Families: []schema.DocFamily{{Name: "o"}},
	Key: []schema.DocSegment{
		{Name: "customer_md5", Kind: "md5_hex", Width: 2, From: "customer"},
		{Name: "customer", Kind: "string"},
		{Name: "id", Kind: "uint64"},
	},
	Splits: &schema.DocSplits{Regions: 4},
	Columns: []schema.DocColumn{
		{Name: "status", Family: "o", Qualifier: "s"},
		{Name: "total", Family: "o", Qualifier: "t"},
		{Name: "updated", Family: "o", Qualifier: "u"},
	},
	Indexes: []schema.DocIndex{{
		Name: "orders_by_status", Families: []schema.DocFamily{{Name: "o"}},
		Key: []schema.DocSegment{
			{Name: "status", Kind: "string"},
			{Name: "customer", Kind: "string"},
			{Name: "id", Kind: "uint64"},
		},
		Columns: []string{"total"},
	}},
}

// ordersDemo moves orders through their statuses and counts and lists
// them by status after each step.
func ordersDemo(ctx context.Context, c dao.Conn, w io.Writer, opts ...dao.Option) error {
	orders, err := dao.Open[statusOrder](ctx, c, ordersDoc, opts...)
	if err != nil {
		return err
	}
	defer orders.Flush(ctx)
	byStatus, err := orders.Index("orders_by_status")
	if err != nil {
		return err
	}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	report := func(step string) error {
		counts, err := byStatus.Count(ctx, dao.Query[statusOrder]{}, "status")
		if err != nil {
			return err
		}
		var paid []string
		for o, err := range byStatus.Find(ctx, dao.Eq(&statusOrder{Status: "paid"}, "status")) {
			if err != nil {
				return err
			}
			paid = append(paid, fmt.Sprintf("%s/%d %.2f", o.Customer, o.ID, o.Total))
		}
		fmt.Fprintf(w, "%s: %v paid=[%s]\n", step, counts, strings.Join(paid, " "))
		return nil
	}
	for i, cust := range []string{"acme", "acme", "zeta"} {
		o := statusOrder{ID: uint32(100 + i), Customer: cust, Status: "new", Total: 10.5 * float64(i+1), Updated: t0}
		if err := orders.Insert(ctx, &o); err != nil {
			return err
		}
	}
	if err := report("placed"); err != nil {
		return err
	}
	for _, o := range []statusOrder{
		{ID: 100, Customer: "acme", Status: "paid", Total: 10.5, Updated: t0.Add(time.Hour)},
		{ID: 102, Customer: "zeta", Status: "paid", Total: 31.5, Updated: t0.Add(time.Hour)},
	} {
		if err := orders.Put(ctx, &o); err != nil {
			return err
		}
	}
	if err := report("paid"); err != nil {
		return err
	}
	if err := orders.Put(ctx, &statusOrder{ID: 100, Customer: "acme", Status: "shipped", Total: 10.5, Updated: t0.Add(2 * time.Hour)}); err != nil {
		return err
	}
	if err := orders.Delete(ctx, &statusOrder{ID: 101, Customer: "acme"}); err != nil {
		return err
	}
	if err := report("shipped"); err != nil {
		return err
	}
	got, ok, err := orders.Get(ctx, &statusOrder{ID: 100, Customer: "acme"})
	if err != nil || !ok {
		return fmt.Errorf("get acme/100: %v, found %v", err, ok)
	}
	fmt.Fprintf(w, "acme/100: %s at %s\n", got.Status, got.Updated.Format(time.RFC3339))
	return nil
}

const ordersWant = `placed: map[new:3] paid=[]
paid: map[new:1 paid:2] paid=[acme/100 10.50 zeta/102 31.50]
shipped: map[paid:1 shipped:1] paid=[zeta/102 31.50]
acme/100: shipped at 2026-11-27T14:00:00Z
`

func TestOpenOwnSchemas(t *testing.T) {
	for _, tc := range []struct {
		name string
		demo func(context.Context, dao.Conn, io.Writer, ...dao.Option) error
		want string
	}{
		{"inbox", inboxDemo, inboxWant},
		{"orders", ordersDemo, ordersWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fake.New()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var out strings.Builder
			if err := tc.demo(context.Background(), c, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
}

// TestOpenTwice: a second Open of the same document finds its tables
// and creates nothing; a record written through the first is read by the
// second; the data table holds its document, and admin sees no drift.
func TestOpenTwice(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first, err := dao.Open[statusOrder](ctx, c, ordersDoc)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Insert(ctx, &statusOrder{ID: 1, Customer: "acme", Status: "new"}); err != nil {
		t.Fatal(err)
	}
	second, err := dao.Open[statusOrder](ctx, c, ordersDoc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := second.Get(ctx, &statusOrder{ID: 1, Customer: "acme"}); err != nil || !ok {
		t.Fatalf("Get through the second store: found %v, %v", ok, err)
	}
	regions, err := c.TableRegions(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 4 {
		t.Errorf("orders has %d regions, want 4", len(regions))
	}
	// The table stores its document, as admin.EnsureTables does: admin
	// reads it back and finds no drift.
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := a.ReadDocument(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.Bind[statusOrder](ordersDoc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tbl.Document()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, want) {
		t.Errorf("stored document\n%+v\nwant\n%+v", stored, want)
	}
	if _, err := a.EnsureTables(ctx, first.Tables()...); err != nil {
		t.Errorf("EnsureTables over Open's tables: %v", err)
	}
}

// TestOpenNamesTheBadField: a document naming a field the struct lacks,
// or reading a field as a type it is not, fails at Open with a
// *schema.Error naming it, before any table is created.
func TestOpenNamesTheBadField(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	unknown := ordersDoc
	unknown.Columns = append([]schema.DocColumn{{Name: "colour", Family: "o", Qualifier: "c"}}, ordersDoc.Columns...)
	wrong := ordersDoc
	wrong.Key = []schema.DocSegment{{Name: "customer", Kind: "decimal", Width: 4}}
	for _, tc := range []struct {
		name  string
		doc   schema.Document
		field string
	}{
		{"unknown field", unknown, "colour"},
		{"wrong type", wrong, "customer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dao.Open[statusOrder](ctx, c, tc.doc)
			var se *schema.Error
			if !errors.As(err, &se) || !errors.Is(err, schema.ErrInvalidTable) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("got %v, want a *schema.Error naming %q", err, tc.field)
			}
			t.Log(err)
			if ok, err := c.TableExists(ctx, "orders"); err != nil || ok {
				t.Errorf("TableExists(orders) = %v, %v after a failed Open; want false", ok, err)
			}
		})
	}
}
