package index_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
)

// day0 is the day most test messages are sent on.
var day0 = time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)

// createTables creates the data and index tables of the SMS schema in c.
func createTables(t testing.TB, c *fake.Client) {
	t.Helper()
	st, err := schema.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	defs := []schema.Definition{st}
	for _, ix := range st.Indexes() {
		defs = append(defs, ix)
	}
	for _, d := range defs {
		desc := hbase.TableDescriptor{Name: d.Name().String()}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := c.CreateTable(context.Background(), desc, d.SplitKeys()); err != nil {
			t.Fatal(err)
		}
	}
}

func newFake(t testing.TB) *fake.Client {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	createTables(t, c)
	return c
}

func newSMS(t testing.TB, c index.Client, opts ...index.Option) *index.SMS {
	t.Helper()
	s, err := index.NewSMS(c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// msg returns a valid message: mobile from n, sent on day0 + offset.
func msg(n int, account string, offset time.Duration) *schema.SMS {
	return &schema.SMS{
		Mobile:  fmt.Sprintf("138%08d", n),
		SentAt:  day0.Add(offset),
		Seq:     uint64(n % 0x10000),
		Account: account,
		Content: fmt.Sprintf("message %d", n),
	}
}

func mobiles(ms []schema.SMS) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Mobile
	}
	return out
}

// assertMessages checks the messages of account on day0, newest first.
func assertMessages(t testing.TB, s *index.SMS, account string, want []string) {
	t.Helper()
	got, err := s.MessagesOfAccountOnDate(context.Background(), account, day0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mobiles(got), want) {
		t.Fatalf("messages of %s: got %v, want %v", account, mobiles(got), want)
	}
}

// assertClean runs a verify and wants no divergence and rows data rows.
func assertClean(t testing.TB, s *index.SMS, rows int64) {
	t.Helper()
	rep, err := s.Check(context.Background(), index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.DataRows != rows || rep.Entries != rows {
		t.Fatalf("verify: got %+v, want clean with %d rows and entries", rep, rows)
	}
}

// assertEmpty checks that the SMS tables hold no row.
func assertEmpty(t testing.TB, c index.Client) {
	t.Helper()
	for _, table := range []string{schema.SMSTableName, schema.SMSIndexTableName} {
		sc, err := c.Scan(context.Background(), &hbase.Scan{Table: table})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, err := range hbase.All(context.Background(), sc) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 0 {
			t.Errorf("%s: %d rows, want none", table, n)
		}
	}
}
