package index_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// Rows and entries written by another client following seed 000 with
// plain Puts, as tools/javaclient writes them: no version cell in the data
// rows, no status cell in the entries, server-assigned timestamps.

// seedKeys builds the row keys of m as a program following seed 000 and
// seeds.SMSTable would, without package keys: data key reversed mobile +
// 19-digit Long.MAX_VALUE - ms + 4 hex digits of Seq; index key FNV-1a
// 32(mobile) % 10 + yyyyMMdd + 16 hex digits of md5(account) + mobile +
// 9-digit 235959999 - HHmmssSSS + the same 4 hex digits (UTC).
func seedKeys(m *seeds.SMS) (data, entry []byte) {
	rev := []byte(m.Mobile)
	slices.Reverse(rev)
	t := m.SentAt.UTC()
	data = fmt.Appendf(nil, "%s%019d%04x", rev, math.MaxInt64-t.UnixMilli(), m.Seq)
	h := fnv.New32a()
	h.Write([]byte(m.Mobile))
	sum := md5.Sum([]byte(m.Account))
	clock := t.Hour()*10000000 + t.Minute()*100000 + t.Second()*1000 + t.Nanosecond()/1e6
	entry = fmt.Appendf(nil, "%d%s%s%s%09d%04x", h.Sum32()%10, t.Format("20060102"),
		hex.EncodeToString(sum[:])[:16], m.Mobile, 235959999-clock, m.Seq)
	return data, entry
}

// boolBytes is Java's Bytes.toBytes(boolean).
func boolBytes(v bool) []byte {
	if v {
		return []byte{0xff}
	}
	return []byte{0}
}

// foreignData is the plain Put of m's data row.
func foreignData(b backend, m *seeds.SMS) *hbase.Put {
	data, _ := seedKeys(m)
	return &hbase.Put{Table: b.data, Row: data, Values: map[string]map[string][]byte{"cf": {
		"a": []byte(m.Account), "c": []byte(m.Content), "d": boolBytes(m.Delivered),
	}}}
}

// foreignEntry is the plain Put of m's entry, carrying delivered.
func foreignEntry(b backend, m *seeds.SMS, delivered bool) *hbase.Put {
	data, entry := seedKeys(m)
	return &hbase.Put{Table: b.index, Row: entry, Values: map[string]map[string][]byte{"cf": {
		"row": data, "d": boolBytes(delivered),
	}}}
}

func writeRaw(t testing.TB, c dao.Client, acts []hbase.Action) {
	t.Helper()
	if _, err := c.Batch(context.Background(), acts); err != nil {
		t.Fatal(err)
	}
}

// rawDump lists every cell version of table: row, column, timestamp, type
// and value.
func rawDump(t testing.TB, c dao.Client, table string) []string {
	t.Helper()
	sc, err := c.Scan(context.Background(), &hbase.Scan{Table: table, MaxVersions: hbase.AllVersions})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for r, err := range hbase.All(context.Background(), sc) {
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range r.Cells {
			out = append(out, fmt.Sprintf("%q %s:%s @%d type %d = %x", cl.Row, cl.Family, cl.Qualifier, cl.Timestamp, cl.Type, cl.Value))
		}
	}
	return out
}

func assertSameDump(t testing.TB, what string, before, after []string) {
	t.Helper()
	if !slices.Equal(before, after) {
		t.Errorf("%s changed:\nbefore:\n%q\nafter:\n%q", what, before, after)
	}
}

// foreignMessages returns n messages over n/3 mobiles, two accounts and
// two days, half of them delivered.
func foreignMessages(n int) []*seeds.SMS {
	var out []*seeds.SMS
	for i := range n {
		m := msg(100+i%(n/3+1), []string{"acme", "globex"}[i%2], time.Duration(i)*97*time.Minute+time.Duration(i)*time.Millisecond)
		m.Seq = uint64(i)
		m.Delivered = i%2 == 0
		out = append(out, m)
	}
	return out
}

// bruteCounts counts msgs per account and UTC day ("20060102").
func bruteCounts(msgs []*seeds.SMS) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, m := range msgs {
		if out[m.Account] == nil {
			out[m.Account] = map[string]int64{}
		}
		out[m.Account][m.SentAt.UTC().Format("20060102")]++
	}
	return out
}

// assertReaders checks the store's readers against msgs: per mobile
// through the data table, per account and day through the index (want
// those of msgs with an entry), and the counts of the index.
func assertReaders(t testing.TB, s *seedstore.SMSRepo, msgs, indexed []*seeds.SMS) {
	t.Helper()
	ctx := context.Background()
	byMobile := map[string][]*seeds.SMS{}
	for _, m := range msgs {
		byMobile[m.Mobile] = append(byMobile[m.Mobile], m)
	}
	for mobile, want := range byMobile {
		got, err := dao.Collect(s.Messages(ctx, mobile, seeds.SMSMinTime, seeds.SMSMaxTime, 0))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Messages(%s): got %d, want %d", mobile, len(got), len(want))
		}
		for _, w := range want {
			if !slices.ContainsFunc(got, func(g seeds.SMS) bool { return sameSMS(&g, w) }) {
				t.Fatalf("Messages(%s): %+v not returned", mobile, *w)
			}
		}
	}
	counts := bruteCounts(indexed)
	first, last := day0, day0
	for _, m := range indexed {
		d := m.SentAt.UTC().Truncate(24 * time.Hour)
		if d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	for account, days := range counts {
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			var want []*seeds.SMS
			for _, m := range indexed {
				if m.Account == account && m.SentAt.UTC().Truncate(24*time.Hour).Equal(d) {
					want = append(want, m)
				}
			}
			got, err := s.MessagesOfAccountOnDate(ctx, account, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("MessagesOfAccountOnDate(%s, %s): got %d, want %d", account, d.Format("20060102"), len(got), len(want))
			}
			for _, w := range want {
				if !slices.ContainsFunc(got, func(g seeds.SMS) bool { return sameSMS(&g, w) }) {
					t.Fatalf("MessagesOfAccountOnDate(%s): %+v not returned", account, *w)
				}
			}
		}
		perDay, err := s.CountPerDay(ctx, account, first, last)
		if err != nil {
			t.Fatal(err)
		}
		for _, dc := range perDay {
			if want := days[dc.Date.Format("20060102")]; dc.Count != want {
				t.Fatalf("CountPerDay(%s) on %s: got %d, want %d", account, dc.Date.Format("20060102"), dc.Count, want)
			}
		}
	}
}

func sameSMS(a, b *seeds.SMS) bool {
	return a.Mobile == b.Mobile && a.SentAt.Equal(b.SentAt) && a.Seq == b.Seq && a.Account == b.Account &&
		a.Content == b.Content && a.Delivered == b.Delivered
}

// TestSeedKeysAreTheSchemas: the keys a program following seed 000 writes
// are those seeds.SMSTable derives.
func TestSeedKeysAreTheSchemas(t *testing.T) {
	st, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range foreignMessages(40) {
		var rec schema.Record
		if err := st.EncodeRecord(&rec, m); err != nil {
			t.Fatal(err)
		}
		data, entry := seedKeys(m)
		if !bytes.Equal(data, rec.Data.Key) {
			t.Errorf("data key of %+v: got %x (%q), want %x (%q)", *m, data, data, rec.Data.Key, rec.Data.Key)
		}
		if !bytes.Equal(entry, rec.Entries[0].Key) {
			t.Errorf("index key of %+v: got %x (%q), want %x (%q)", *m, entry, entry, rec.Entries[0].Key, rec.Entries[0].Key)
		}
	}
}

// TestForeignRowsAgree: rows and entries another client wrote read back
// through every reader; verify finds nothing; repair (and reads with read
// repair) write nothing; rebuild takes them into the protocol.
func TestForeignRowsAgree(t *testing.T) {
	for _, mode := range []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) { testForeignRowsAgree(t, mode) })
	}
}

func testForeignRowsAgree(t *testing.T, mode schema.WriteMode) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	msgs := foreignMessages(30)
	var acts []hbase.Action
	for _, m := range msgs {
		acts = append(acts, foreignData(b, m), foreignEntry(b, m, m.Delivered))
	}
	writeRaw(t, b.c, acts)
	dataBefore, indexBefore := rawDump(t, b.c, b.data), rawDump(t, b.c, b.index)

	s := b.sms(t, dao.WithWriteMode(mode))
	assertReaders(t, s, msgs, msgs)
	assertClean(t, s, int64(len(msgs)))
	rep, err := s.Check(ctx, index.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.Repaired != 0 || rep.Skipped != 0 || rep.DataRows != 30 || rep.Entries != 30 {
		t.Fatalf("repair: %+v, want clean and nothing written", rep)
	}
	assertSameDump(t, "data table", dataBefore, rawDump(t, b.c, b.data))
	assertSameDump(t, "index table", indexBefore, rawDump(t, b.c, b.index))

	rep, err = s.Check(ctx, index.ModeRebuild)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Repaired != 30 {
		t.Fatalf("rebuild: %+v, want every record rewritten", rep)
	}
	assertClean(t, s, 30)
	assertReaders(t, s, msgs, msgs)
	for _, m := range msgs {
		data, entry := seedKeys(m)
		r, err := b.c.Get(ctx, &hbase.Get{Table: b.data, Row: data})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Value([]byte("cf"), []byte(index.VersionQualifier))) != 8 {
			t.Fatalf("data row %q after rebuild: no version cell", data)
		}
		e, err := b.c.Get(ctx, &hbase.Get{Table: b.index, Row: entry})
		if err != nil {
			t.Fatal(err)
		}
		// Verify-on-read writes every entry unverified, its repairs too.
		want := byte('v')
		if mode == schema.VerifyOnRead {
			want = 'u'
		}
		if st := e.Value([]byte("cf"), []byte(index.StatusQualifier)); len(st) == 0 || st[0] != want {
			t.Fatalf("entry %q after rebuild: status %q, want %q", entry, st, want)
		}
	}
}

// TestForeignDivergence: among another client's rows, a stale entry, an
// orphaned entry and a data row without entry are found, each once; repair
// writes the two entries, without a status, and no data row; the orphan
// goes once past the grace period.
func TestForeignDivergence(t *testing.T) {
	for _, mode := range []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly, schema.VerifyOnRead} {
		t.Run(mode.String(), func(t *testing.T) { testForeignDivergence(t, dao.WithWriteMode(mode)) })
	}
}

func testForeignDivergence(t *testing.T, mode dao.Option) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	msgs := foreignMessages(13)
	good, stale, orphan, missing := msgs[:10], msgs[10], msgs[11], msgs[12]
	var acts []hbase.Action
	for _, m := range good {
		acts = append(acts, foreignData(b, m), foreignEntry(b, m, m.Delivered))
	}
	acts = append(acts, foreignData(b, stale), foreignEntry(b, stale, !stale.Delivered),
		foreignEntry(b, orphan, orphan.Delivered), foreignData(b, missing))
	writeRaw(t, b.c, acts)
	dataBefore := rawDump(t, b.c, b.data)

	clk := &clock{}
	s := b.sms(t, mode, dao.WithClock(clk.now), dao.WithReadRepair(false))
	withData := append(slices.Clone(good), stale, missing)
	indexed := append(slices.Clone(good), stale)
	assertReaders(t, s, withData, indexed)

	check := func(mode index.Mode, want index.Report) {
		t.Helper()
		rep, err := s.Check(ctx, mode)
		if err != nil {
			t.Fatal(err)
		}
		if rep != want {
			t.Fatalf("%v: got %+v, want %+v", mode, rep, want)
		}
	}
	found := index.Report{DataRows: 12, Entries: 12, Missing: 1, Stale: 1, Orphaned: 1}
	check(index.ModeVerify, found)
	fixed := found
	fixed.Entries++                      // pass 2 reads the entry pass 1 wrote
	fixed.Repaired, fixed.Skipped = 2, 1 // the orphan is younger than the grace period
	fixed.Skips = index.Skips{InFlight: 1, Grace: time.Minute}
	check(index.ModeRepair, fixed)
	check(index.ModeVerify, index.Report{DataRows: 12, Entries: 13, Orphaned: 1})
	clk.advance(2 * time.Minute)
	check(index.ModeRepair, index.Report{DataRows: 12, Entries: 13, Orphaned: 1, Repaired: 1})
	check(index.ModeVerify, index.Report{DataRows: 12, Entries: 12})

	assertSameDump(t, "data table", dataBefore, rawDump(t, b.c, b.data))
	for _, m := range []*seeds.SMS{stale, missing} {
		_, entry := seedKeys(m)
		e, err := b.c.Get(ctx, &hbase.Get{Table: b.index, Row: entry})
		if err != nil {
			t.Fatal(err)
		}
		if st := e.Value([]byte("cf"), []byte(index.StatusQualifier)); st != nil {
			t.Errorf("entry %q: status %q, want none", entry, st)
		}
		if d := e.Value([]byte("cf"), []byte("d")); !bytes.Equal(d, boolBytes(m.Delivered)) {
			t.Errorf("entry %q: delivered %x, want %x", entry, d, boolBytes(m.Delivered))
		}
	}
	assertReaders(t, s, withData, withData)
}

// TestForeignEntryCases: which entries of another client's rows verify
// reports, and how repair fixes them.
func TestForeignEntryCases(t *testing.T) {
	ctx := context.Background()
	m := msg(7, "acme", time.Hour)
	m.Delivered = true
	unverified := make([]byte, 9)
	unverified[0] = 'u'
	cases := []struct {
		name     string
		entry    func(p *hbase.Put)
		found    index.Report
		repaired int64
		rewrites bool // repair rewrites the data row through the protocol
	}{
		{"agrees", func(p *hbase.Put) {}, index.Report{}, 0, false},
		{"extra undeclared cell", func(p *hbase.Put) { p.Values["cf"]["x"] = []byte("java") }, index.Report{}, 0, false},
		{"carried cell absent", func(p *hbase.Put) { delete(p.Values["cf"], "d") }, index.Report{Stale: 1}, 1, false},
		// Pass 1 finds it stale, pass 2 an orphan (its pointer leads nowhere);
		// repair's pass 1 rewrites it, so its pass 2 finds it valid.
		{"row pointer wrong", func(p *hbase.Put) { p.Values["cf"]["row"] = []byte("nowhere") }, index.Report{Stale: 1, Orphaned: 1}, 1, false},
		{"marked unverified by an interrupted write", func(p *hbase.Put) { p.Values["cf"][index.StatusQualifier] = unverified }, index.Report{Missing: 1}, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newFakeBackend(t)
			e := foreignEntry(b, m, m.Delivered)
			tc.entry(e)
			writeRaw(t, b.c, []hbase.Action{foreignData(b, m), e})
			dataBefore, indexBefore := rawDump(t, b.c, b.data), rawDump(t, b.c, b.index)
			s := b.sms(t)
			// Readers, read repair on, leave another client's rows to Check.
			if _, err := s.MessagesOfAccountOnDate(ctx, "acme", day0); err != nil {
				t.Fatal(err)
			}
			assertSameDump(t, "index table after a read", indexBefore, rawDump(t, b.c, b.index))
			rep, err := s.Check(ctx, index.ModeVerify)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.found
			want.DataRows, want.Entries = 1, 1
			if rep != want {
				t.Fatalf("verify: got %+v, want %+v", rep, want)
			}
			if rep, err = s.Check(ctx, index.ModeRepair); err != nil {
				t.Fatal(err)
			}
			if rep.Repaired != tc.repaired || rep.Skipped != 0 {
				t.Fatalf("repair: %+v, want %d repaired", rep, tc.repaired)
			}
			assertClean(t, s, 1)
			if tc.rewrites {
				data, _ := seedKeys(m)
				r, err := b.c.Get(ctx, &hbase.Get{Table: b.data, Row: data})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Value([]byte("cf"), []byte(index.VersionQualifier))) != 8 {
					t.Fatal("the protocol's repair left no version cell")
				}
			} else {
				assertSameDump(t, "data table", dataBefore, rawDump(t, b.c, b.data))
			}
			assertMessages(t, s, "acme", []string{m.Mobile})
		})
	}
}

// TestForeignFixYieldsToTheProtocol: a store's write of the record that
// lands between repair's read and its fix of a foreign entry wins: the
// fix, conditioned on the entry having no status, is skipped.
func TestForeignFixYieldsToTheProtocol(t *testing.T) {
	ctx := context.Background()
	b, c := newFakeBackend(t)
	m := msg(8, "acme", time.Hour)
	writeRaw(t, b.c, []hbase.Action{foreignData(b, m)}) // no entry
	// Reading first, so that the put's version goes above the foreign
	// cells: a blind put takes it from the clock, which the fake's server
	// timestamps run ahead of.
	live := b.sms(t, dao.WithAsyncVerify(false), dao.WithBlindPuts(false))
	updated := *m
	updated.Delivered = true
	mock := scripted(t, c)
	once := false
	mock.EXPECT().Batch(gomock.Any(), gomock.Any()).DoAndReturn(
		func(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
			if cam, ok := acts[0].(*hbase.CheckAndMutate); ok && cam.Table == b.index && !once {
				once = true
				if err := live.Put(ctx, &updated); err != nil {
					return nil, err
				}
			}
			return c.Batch(ctx, acts)
		}).AnyTimes()
	rep, err := b.smsOver(t, mock).Check(ctx, index.ModeRepair)
	if err != nil {
		t.Fatal(err)
	}
	if !once || rep.Missing != 1 || rep.Repaired != 0 || rep.Skipped != 1 {
		t.Fatalf("repair: %+v, want the fix skipped", rep)
	}
	assertClean(t, live, 1)
	got, err := live.MessagesOfAccountOnDate(ctx, "acme", day0)
	if err != nil || len(got) != 1 || !got[0].Delivered {
		t.Fatalf("got %+v, %v; want the store's write", got, err)
	}
	days, err := live.CountPerDay(ctx, "acme", day0, day0)
	if err != nil || days[0].Count != 1 {
		t.Fatalf("count: %+v, %v", days, err)
	}
}

// TestStoreWritesAboveForeignCells: a store's put over another client's
// row goes above its cells, even when their timestamps run ahead of the
// store's clock (the row's newest cell stands for its version).
func TestStoreWritesAboveForeignCells(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	m := msg(9, "acme", time.Hour)
	ahead := time.Now().Add(time.Hour).UnixMilli()
	d, e := foreignData(b, m), foreignEntry(b, m, m.Delivered)
	d.Timestamp, e.Timestamp = ahead, ahead
	writeRaw(t, b.c, []hbase.Action{d, e})
	s := b.sms(t, dao.WithBlindPuts(false), dao.WithAsyncVerify(false))
	updated := *m
	updated.Content, updated.Delivered = "updated", true
	if err := s.Put(ctx, &updated); err != nil {
		t.Fatal(err)
	}
	got, err := s.MessagesOfAccountOnDate(ctx, "acme", day0)
	if err != nil || len(got) != 1 || !sameSMS(&got[0], &updated) {
		t.Fatalf("got %+v, %v; want %+v", got, err, updated)
	}
	assertClean(t, s, 1)
}

// TestForeignFixAfterDelete: an entry the other client deleted (a delete
// marker at the server's time) is written again by repair, visibly.
func TestForeignFixAfterDelete(t *testing.T) {
	ctx := context.Background()
	b, _ := newFakeBackend(t)
	m := msg(10, "acme", time.Hour)
	writeRaw(t, b.c, []hbase.Action{foreignData(b, m), foreignEntry(b, m, m.Delivered)})
	_, entry := seedKeys(m)
	writeRaw(t, b.c, []hbase.Action{&hbase.Delete{Table: b.index, Row: entry}})
	s := b.sms(t)
	rep, err := s.Check(ctx, index.ModeRepair)
	if err != nil || rep.Missing != 1 || rep.Repaired != 1 {
		t.Fatalf("repair: %+v, %v; want the entry written", rep, err)
	}
	assertClean(t, s, 1)
	assertMessages(t, s, "acme", []string{m.Mobile})
}
