package index_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// day0 is the day most test messages are sent on.
var day0 = time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)

// backend is a cluster (the fake, or a real HBase in the integration
// tests) holding a pair of SMS tables under its own names.
type backend struct {
	c     dao.Client
	data  string
	index string
}

func (b backend) names() map[string]string {
	return map[string]string{seeds.SMSTableName: b.data, seeds.SMSIndexTableName: b.index}
}

// sms returns an SMS store over the backend's tables; its writes run
// through the index protocol.
func (b backend) sms(t testing.TB, opts ...dao.Option) *seedstore.SMSRepo {
	t.Helper()
	return b.smsOver(t, b.c, opts...)
}

// smsOver is sms through another client (a mock in front of the backend).
func (b backend) smsOver(t testing.TB, c dao.Client, opts ...dao.Option) *seedstore.SMSRepo {
	t.Helper()
	// These tests update and move messages to exercise the strict
	// protocol; the SMS schema itself is insert-only (modes_test.go runs
	// every mode). A later WithWriteMode in opts wins.
	s, err := seedstore.NewSMS(c, append([]dao.Option{dao.WithTableNames(b.names()), dao.WithWriteMode(schema.Strict)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// createSMSTables creates the SMS data and index tables under the given
// names, with the schema's families and split keys.
func createSMSTables(ctx context.Context, a hbase.AdminClient, data, index string) error {
	st, err := seeds.SMSTable()
	if err != nil {
		return err
	}
	defs := []schema.Definition{st, st.Indexes()[0]}
	for i, name := range []string{data, index} {
		desc := hbase.TableDescriptor{Name: name}
		for _, f := range defs[i].Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := a.CreateTable(ctx, desc, defs[i].SplitKeys()); err != nil {
			return err
		}
	}
	return nil
}

// newFakeBackend is a fresh fake with the SMS tables under their own names.
func newFakeBackend(t testing.TB) (backend, *fake.Client) {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := createSMSTables(context.Background(), c, seeds.SMSTableName, seeds.SMSIndexTableName); err != nil {
		t.Fatal(err)
	}
	return backend{c: c, data: seeds.SMSTableName, index: seeds.SMSIndexTableName}, c
}

// clock is the wall clock plus a settable offset, for versions and grace
// periods.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// msg returns a valid message: mobile from n, sent on day0 + offset.
func msg(n int, account string, offset time.Duration) *seeds.SMS {
	return &seeds.SMS{
		Mobile:  fmt.Sprintf("138%08d", n),
		SentAt:  day0.Add(offset),
		Seq:     uint64(n % 0x10000),
		Account: account,
		Content: fmt.Sprintf("message %d", n),
	}
}

func mobiles(ms []seeds.SMS) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Mobile
	}
	return out
}

// assertMessages checks the messages of account on day0, newest first.
func assertMessages(t testing.TB, s *seedstore.SMSRepo, account string, want []string) {
	t.Helper()
	got, err := s.MessagesOfAccountOnDate(context.Background(), account, day0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got {
		if m.Account != account || !m.SentAt.Truncate(24*time.Hour).Equal(day0) {
			t.Fatalf("messages of %s on %v: returned a message of %s on %v", account, day0, m.Account, m.SentAt)
		}
	}
	if !slices.Equal(mobiles(got), want) {
		t.Fatalf("messages of %s: got %v, want %v", account, mobiles(got), want)
	}
}

// assertClean runs a verify and wants no divergence and rows data rows.
func assertClean(t testing.TB, s *seedstore.SMSRepo, rows int64) {
	t.Helper()
	rep, err := s.Check(context.Background(), index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.DataRows != rows || rep.Entries != rows {
		t.Fatalf("verify: got %+v, want clean with %d rows and entries", rep, rows)
	}
}

// assertEmpty checks that the backend's tables hold no row.
func assertEmpty(t testing.TB, b backend) {
	t.Helper()
	for _, table := range []string{b.data, b.index} {
		if n := countRows(t, b, table); n != 0 {
			t.Errorf("%s: %d rows, want none", table, n)
		}
	}
}

// smsTable returns the seed SMS schema (seeds.SMSTable) with validate as
// its check (Spec.Validate).
func smsTable(validate func(*seeds.SMS) error) (*schema.Table[seeds.SMS], error) {
	mobile := func(s *seeds.SMS) string { return s.Mobile }
	setMobile := func(s *seeds.SMS, v string) { s.Mobile = v }
	seq := func(s *seeds.SMS) uint64 { return s.Seq }
	setSeq := func(s *seeds.SMS, v uint64) { s.Seq = v }
	dataKey, err := keys.NewLayout(
		keys.ReversedDigits("mobile", seeds.SMSMobileWidth, mobile, setMobile),
		keys.ReversedTimestamp("sent",
			func(s *seeds.SMS) int64 { return s.SentAt.UnixMilli() },
			func(s *seeds.SMS, ms int64) { s.SentAt = time.UnixMilli(ms).UTC() }),
		keys.Unique("unique", seeds.SMSSeqWidth, seq, setSeq),
	)
	if err != nil {
		return nil, err
	}
	indexKey, err := keys.NewLayout(
		keys.HashBucket("bucket", seeds.SMSIndexBuckets, mobile, nil),
		keys.Date("day", func(s *seeds.SMS) time.Time { return s.SentAt.UTC() }, nil),
		keys.MD5Hex("account_md5", seeds.SMSAccountMD5Hex, func(s *seeds.SMS) string { return s.Account }),
		keys.Digits("mobile", seeds.SMSMobileWidth, mobile, setMobile),
		keys.ReversedTimeOfDay("time", func(s *seeds.SMS) time.Duration { return keys.TimeOfDay(s.SentAt.UTC()) }, nil),
		keys.Unique("unique", seeds.SMSSeqWidth, seq, setSeq),
	)
	if err != nil {
		return nil, err
	}
	fam := schema.Family{Name: "cf", BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy}
	ixFam := fam
	ixFam.DataBlockEncoding = schema.EncodingFastDiff
	return schema.New(schema.Spec[seeds.SMS]{
		Name:     seeds.SMSTableName,
		Validate: validate,
		Families: []schema.Family{fam},
		Key:      dataKey,
		Splits:   schema.Splits{Regions: seeds.SMSRegions},
		Columns: []schema.Column[seeds.SMS]{
			schema.StringColumn("account", "cf", "a",
				func(s *seeds.SMS) string { return s.Account }, func(s *seeds.SMS, v string) { s.Account = v }),
			schema.StringColumn("content", "cf", "c",
				func(s *seeds.SMS) string { return s.Content }, func(s *seeds.SMS, v string) { s.Content = v }),
			schema.BoolColumn("delivered", "cf", "d",
				func(s *seeds.SMS) bool { return s.Delivered }, func(s *seeds.SMS, v bool) { s.Delivered = v }),
		},
		Indexes: []schema.IndexSpec[seeds.SMS]{{
			Name:     seeds.SMSIndexTableName,
			Families: []schema.Family{ixFam},
			Key:      indexKey,
			From: map[string]string{
				"bucket": "mobile", "day": "sent", "account_md5": "account", "time": "sent",
			},
			Splits:          schema.Splits{Regions: seeds.SMSIndexBuckets},
			Columns:         []string{"delivered"},
			RowKeyQualifier: "row",
		}},
	})
}

// countRows counts the rows of one of the backend's tables as stored,
// whatever they hold.
func countRows(t testing.TB, b backend, table string) int {
	t.Helper()
	sc, err := b.c.Scan(context.Background(), &hbase.Scan{Table: table})
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
	return n
}

// assertDayCounts checks the index-only count of each account's messages
// on day0 (CountPerDay) against want.
func assertDayCounts(t testing.TB, s *seedstore.SMSRepo, want map[string]int64) {
	t.Helper()
	for a, n := range want {
		days, err := s.CountPerDay(context.Background(), a, day0, day0)
		if err != nil {
			t.Fatal(err)
		}
		if days[0].Count != n {
			t.Errorf("CountPerDay(%s) = %d, want %d", a, days[0].Count, n)
		}
	}
}
