package index_test

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// TestVersionsFollowTheClock: the versions of writes that read nothing
// first stay at the clock however many records a call writes (a counter
// per write would run ahead of it, and a writer in another process would
// lose to this one's older writes), and one record written twice in a
// millisecond gets two versions.
func TestVersionsFollowTheClock(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []schema.WriteMode{schema.Mutable, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) {
			b, _ := newFakeBackend(t)
			at := time.UnixMilli(day0.Add(time.Hour).UnixMilli())
			fixed := func() time.Time { return at }
			s := b.sms(t, dao.WithWriteMode(mode), dao.WithClock(fixed), dao.WithAsyncVerify(false))
			var recs []*seeds.SMS
			for n := range 500 {
				recs = append(recs, msg(n, "acme", time.Duration(n)*time.Second))
			}
			if _, err := s.PutBatch(ctx, recs); err != nil {
				t.Fatal(err)
			}
			version := func(m *seeds.SMS) int64 {
				t.Helper()
				st, err := seeds.SMSTable()
				if err != nil {
					t.Fatal(err)
				}
				var row schema.Row
				if err := st.EncodeRow(&row, m); err != nil {
					t.Fatal(err)
				}
				r, err := b.c.Get(ctx, &hbase.Get{Table: b.data, Row: row.Key})
				if err != nil {
					t.Fatal(err)
				}
				v := r.Value([]byte("cf"), []byte(index.VersionQualifier))
				if len(v) < 8 {
					t.Fatalf("no version cell in %v", r)
				}
				return int64(binary.BigEndian.Uint64(v))
			}
			for _, m := range []*seeds.SMS{recs[0], recs[499]} {
				if v := version(m); v != at.UnixMilli() {
					t.Errorf("a record of the call has version %d, want the clock's %d", v, at.UnixMilli())
				}
			}
			again := *recs[7]
			again.Content = "again"
			if err := s.Put(ctx, &again); err != nil {
				t.Fatal(err)
			}
			if v := version(recs[7]); v != at.UnixMilli()+1 {
				t.Errorf("a record written twice in one millisecond has version %d, want %d", v, at.UnixMilli()+1)
			}
			got, ok, err := s.Get(ctx, recs[7])
			if err != nil || !ok || got.Content != "again" {
				t.Errorf("the second write of the millisecond reads back %+v (%v, %v)", got, ok, err)
			}
		})
	}
}

// TestBlindWritesFollowReadWrites: a write that reads nothing first (a
// mutable or verify-on-read put or delete) after writes that read the row
// (inserts, Check's rebuild) in the same millisecond still lands above
// them: every path takes its version from the same per-row clock.
func TestBlindWritesFollowReadWrites(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []schema.WriteMode{schema.Mutable, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) {
			b, _ := newFakeBackend(t)
			at := time.UnixMilli(day0.Add(time.Hour).UnixMilli())
			s := b.sms(t, dao.WithWriteMode(mode), dao.WithClock(func() time.Time { return at }), dao.WithAsyncVerify(false))
			var recs []*seeds.SMS
			for n := range 50 {
				recs = append(recs, msg(n, "acme", time.Duration(n)*time.Second))
			}
			if _, err := s.InsertBatch(ctx, recs); err != nil {
				t.Fatal(err)
			}
			put := func(m *seeds.SMS, content string) {
				t.Helper()
				up := *m
				up.Content = content
				if err := s.Put(ctx, &up); err != nil {
					t.Fatal(err)
				}
				if got, ok, err := s.Get(ctx, m); err != nil || !ok || got.Content != content {
					t.Errorf("after a put of %q the record reads %+v (%v, %v)", content, got, ok, err)
				}
			}
			put(recs[49], "after the insert")
			if err := s.Delete(ctx, recs[48]); err != nil {
				t.Fatal(err)
			}
			if got, ok, err := s.Get(ctx, recs[48]); err != nil || ok {
				t.Errorf("after a delete the record reads %+v (%v, %v)", got, ok, err)
			}
			if _, err := s.Check(ctx, index.ModeRebuild); err != nil {
				t.Fatal(err)
			}
			put(recs[47], "after the rebuild")
			assertClean(t, s, 49)
		})
	}
}
