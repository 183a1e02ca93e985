package dao_test

// One test per failure of issue 14 ("one typed store per schema"), each
// named after it, on the in-memory fake. Each failed on main before the
// store was merged (abc5539): there the scenario either misbehaved as the
// issue describes or could not be written at all.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// U is a user of seed 001's TestTable.
type U struct {
	UID      string
	Province string
	Age      int64
}

var (
	uUID      = keys.String("uid", func(u *U) string { return u.UID }, func(u *U, v string) { u.UID = v })
	uProvince = keys.String("province", func(u *U) string { return u.Province }, func(u *U, v string) { u.Province = v })
	uAge      = keys.Decimal("age", 3, func(u *U) uint64 { return uint64(u.Age) }, func(u *U, v uint64) { u.Age = int64(v) })
)

// userSpec is seed 001's TestTable, keyed [md5(uid) 6 hex][uid] with the
// columns province and age, and one index keyed by ixKey whose entries
// carry the data row key under the qualifier "uid".
func userSpec(t testing.TB, ixKey ...keys.Field[U]) schema.Spec[U] {
	t.Helper()
	key, err := keys.NewLayout(keys.MD5Hex("uid_md5", 6, func(u *U) string { return u.UID }), uUID)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := keys.NewLayout(ixKey...)
	if err != nil {
		t.Fatal(err)
	}
	return schema.Spec[U]{
		Name:     seeds.TestTableName,
		Families: []schema.Family{{Name: "CF1", BloomFilter: schema.BloomRow}},
		Key:      key,
		Splits:   schema.Splits{Regions: seeds.TestTableRegions},
		Columns: []schema.Column[U]{
			schema.StringColumn("province", "CF1", "province", func(u *U) string { return u.Province }, func(u *U, v string) { u.Province = v }),
			schema.Int64Column("age", "CF1", "age", func(u *U) int64 { return u.Age }, func(u *U, v int64) { u.Age = v }),
		},
		Indexes: []schema.IndexSpec[U]{{
			Name: "user_by_province_age", Families: []schema.Family{{Name: "i"}}, Key: ix, RowKeyQualifier: "uid",
		}},
	}
}

// userStore returns the seed-001 user table indexed [province][age][uid],
// created on a new fake, and a store on it.
func userStore(t testing.TB, opts ...dao.Option) (*dao.Repo[U], *dao.Index[U], *fake.Client) {
	t.Helper()
	tbl, err := schema.New(userSpec(t, uProvince, uAge, uUID))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := r.Index("user_by_province_age")
	if err != nil {
		t.Fatal(err)
	}
	return r, ix, f
}

// uids lists the UIDs of an iterator's records, failing on an error.
func uids(t testing.TB, seq func(func(*U, error) bool)) []string {
	t.Helper()
	var out []string
	for u, err := range seq {
		if err != nil {
			t.Fatalf("iterator: %v", err)
		}
		out = append(out, u.UID)
	}
	return out
}

// smsKeys lists the data row keys of an iterator's messages.
func smsKeys(t testing.TB, r *dao.Repo[seeds.SMS], seq func(func(*seeds.SMS, error) bool)) [][]byte {
	t.Helper()
	var out [][]byte
	for m, err := range seq {
		if err != nil {
			t.Fatalf("iterator: %v", err)
		}
		out = append(out, keyOf(t, r, m))
	}
	return out
}

func sortedKeys(ks [][]byte) [][]byte {
	ks = slices.Clone(ks)
	slices.SortFunc(ks, bytes.Compare)
	return ks
}

// Issue 14, failure 1: a record deleted through an indexed store is gone
// for every reader: Get, single and merged scans, paging, the SMS queries,
// index reads and index counts. On abc5539 the tombstone row a delete
// through the index leaves was decoded as a record holding only its key.
func TestDeletedRecordsDoNotComeBack(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	r := newSMS(t, f, f)
	recs := smsData(t, r)
	gone := []*seeds.SMS{recs[0], recs[5], recs[17], recs[30]} // recs[0] and recs[5] are mobiles[0]'s
	if err := r.Delete(ctx, gone[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := r.DeleteBatch(ctx, gone[1:]); err != nil {
		t.Fatal(err)
	}
	deleted := map[string]bool{}
	for _, m := range gone {
		deleted[string(keyOf(t, r.Repo, m))] = true
	}
	var live []*seeds.SMS
	for _, m := range recs {
		if !deleted[string(keyOf(t, r.Repo, m))] {
			live = append(live, m)
		}
	}
	for i, m := range gone {
		if got, ok, err := r.Get(ctx, m); err != nil || ok {
			t.Errorf("Get of deleted record %d = %+v, %v, %v; want not found", i, got, ok, err)
		}
	}

	m0 := mobiles[0]
	of := func(mobile string) func(*seeds.SMS) bool {
		return func(m *seeds.SMS) bool { return m.Mobile == mobile }
	}
	all := func(*seeds.SMS) bool { return true }
	buckets, err := dao.BucketRanges(10, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := r.Index(seeds.SMSIndexTableName)
	if err != nil {
		t.Fatal(err)
	}
	account := gone[0].Account
	cases := []struct {
		name    string
		read    func(t *testing.T) [][]byte
		keep    func(*seeds.SMS) bool
		limit   int
		ordered bool // the reader returns row-key order
	}{
		{"scan of one range", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, r.Scan(ctx, dao.Prefix(&seeds.SMS{Mobile: m0}, 1)))
		}, of(m0), 0, true},
		{"scan with a limit", func(t *testing.T) [][]byte {
			q := dao.Prefix(&seeds.SMS{Mobile: m0}, 1)
			q.Limit = 3
			return smsKeys(t, r.Repo, r.Scan(ctx, q))
		}, of(m0), 3, true},
		{"scan of the whole table", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, r.Scan(ctx, dao.Query[seeds.SMS]{}))
		}, all, 0, true},
		{"merged scan of two ranges", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, r.Scan(ctx, dao.Query[seeds.SMS]{Ranges: []keys.KeyRange{
				{Start: []byte{}, Stop: []byte("5")}, {Start: []byte("5")}}}))
		}, all, 0, true},
		{"merged scan of ten buckets", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, r.Scan(ctx, dao.Query[seeds.SMS]{Ranges: buckets, MergeSkip: 1}))
		}, all, 0, false},
		{"pages", func(t *testing.T) [][]byte {
			return pageAll(t, r.Repo, dao.Query[seeds.SMS]{}, 4, func(m *seeds.SMS) []byte { return keyOf(t, r.Repo, m) })
		}, all, 0, true},
		{"Messages", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, r.Messages(ctx, m0, t0, t0.Add(3*time.Hour), 0))
		}, of(m0), 0, true},
		{"Latest", func(t *testing.T) [][]byte {
			ms, err := r.Latest(ctx, m0, 100)
			if err != nil {
				t.Fatal(err)
			}
			out := make([][]byte, len(ms))
			for i, m := range ms {
				out[i] = keyOf(t, r.Repo, m)
			}
			return out
		}, of(m0), 0, false},
		{"index Find", func(t *testing.T) [][]byte {
			return smsKeys(t, r.Repo, ix.Find(ctx, dao.Query[seeds.SMS]{}))
		}, all, 0, false},
		{"MessagesOfAccountOnDate", func(t *testing.T) [][]byte {
			ms, err := r.MessagesOfAccountOnDate(ctx, account, t0)
			if err != nil {
				t.Fatal(err)
			}
			out := make([][]byte, len(ms))
			for i := range ms {
				out[i] = keyOf(t, r.Repo, &ms[i])
			}
			return out
		}, func(m *seeds.SMS) bool { return m.Account == account }, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.read(t)
			want := expect(t, r.Repo, live, tc.keep, false, tc.limit)
			if !tc.ordered {
				got = sortedKeys(got)
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Errorf("got %d records, want %d:\n got %s\nwant %s", len(got), len(want), joinKeys(got), joinKeys(want))
			}
			for _, k := range got {
				if deleted[string(k)] {
					t.Errorf("deleted record %s came back", keyString(k))
				}
			}
		})
	}
	t.Run("index Count", func(t *testing.T) {
		got, err := ix.Count(ctx, dao.Query[seeds.SMS]{}, "")
		if want := map[string]int64{"": int64(len(live))}; err != nil || !maps.Equal(got, want) {
			t.Errorf("Count = %v, %v; want %v", got, err, want)
		}
	})
	t.Run("CountPerDay", func(t *testing.T) {
		var want int64
		for _, m := range live {
			if m.Account == account {
				want++
			}
		}
		got, err := r.CountPerDay(ctx, account, t0, t0)
		if err != nil || len(got) != 1 || got[0].Count != want {
			t.Errorf("CountPerDay = %+v, %v; want one day of %d", got, err, want)
		}
	})
}

// Issue 14, failure 2: an index whose key does not determine one record
// is refused when the schema is declared, naming the missing field. On
// abc5539 seed 001's index keyed [province][age] was accepted, and users
// of one province and age overwrote each other's entries.
func TestIndexKeyMustIdentifyOneRecord(t *testing.T) {
	cases := []struct {
		name    string
		key     []keys.Field[U]
		missing string // "" if the schema is valid
	}{
		{"seed 001's [province][age], uid only in a column", []keys.Field[U]{uProvince, uAge}, "uid"},
		{"[age] alone", []keys.Field[U]{uAge}, "uid"},
		{"[province][age][uid]", []keys.Field[U]{uProvince, uAge, uUID}, ""},
		{"[uid][province]", []keys.Field[U]{uUID, uProvince}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.New(userSpec(t, tc.key...))
			if tc.missing == "" {
				if err != nil {
					t.Fatalf("New = %v, want success", err)
				}
				return
			}
			if !errors.Is(err, schema.ErrIndexNotUnique) {
				t.Fatalf("New = %v, want ErrIndexNotUnique", err)
			}
			if !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("New = %q, want it to name %q", err, tc.missing)
			}
		})
	}
}

// Issue 14, failure 3: a store over a table that declares an index, made
// with no option at all, writes the index entries; only the explicit
// WithUnindexedWrites skips them. On abc5539 dao.New without WithWriter
// wrote data rows only, and the index found nothing.
func TestIndexCannotBeBypassedByAccident(t *testing.T) {
	ctx := context.Background()
	r, ix, f := userStore(t)
	users := []*U{{UID: "u1", Province: "辽宁省", Age: 20}, {UID: "u2", Province: "辽宁省", Age: 20}}
	if err := r.Put(ctx, users[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := r.InsertBatch(ctx, users[1:]); err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&U{Province: "辽宁省", Age: 20}, "province", "age")
	if got, want := uids(t, ix.Find(ctx, q)), []string{"u1", "u2"}; !slices.Equal(got, want) {
		t.Errorf("Find after writes through dao.New = %v, want %v", got, want)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rawKeys(t, f, "user_by_province_age")); n != 2 {
		t.Errorf("index table holds %d entries, want 2", n)
	}

	raw, err := dao.New(f, r.Table(), dao.WithUnindexedWrites())
	if err != nil {
		t.Fatal(err)
	}
	u3 := &U{UID: "u3", Province: "辽宁省", Age: 20}
	if err := raw.Put(ctx, u3); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, u3); err != nil || !ok {
		t.Errorf("Get of the unindexed write = %v, %v; want the record", ok, err)
	}
	if n := len(rawKeys(t, f, "user_by_province_age")); n != 2 {
		t.Errorf("index table holds %d entries after an unindexed write, want 2", n)
	}
	if got, want := uids(t, ix.Find(ctx, q)), []string{"u1", "u2"}; !slices.Equal(got, want) {
		t.Errorf("Find after an unindexed write = %v, want %v", got, want)
	}

	plain, err := seeds.LogDataBucketed()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dao.New(f, plain, dao.WithUnindexedWrites()); !errors.Is(err, dao.ErrInvalidOption) {
		t.Errorf("WithUnindexedWrites on a table without index = %v, want ErrInvalidOption", err)
	}
}

// Issue 14, failure 4: WithTableNames renames the data table and its
// index table together, for every write, read, index read and check. On
// abc5539 the store's WithTableName and the index's WithTableNames were
// separate, and a store read "other" while its index writer wrote "sms".
func TestTableNamesRenameDataAndIndexTogether(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	tbl, err := seeds.SMSTable()
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, f, tbl) // "sms" and "sms_index" exist: a write that went there would not fail
	// Strict: the delete below leaves its tombstone row, which the row
	// counts include. (The SMS schema itself is insert-only.)
	r, err := seedstore.NewSMS(f, dao.WithTableNames(map[string]string{"sms": "other", "sms_index": "other_ix"}), dao.WithWriteMode(schema.Strict))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Tables() {
		createTable(t, f, d)
	}
	if got, want := append([]string{r.Name()}, r.IndexTables()...), []string{"other", "other_ix"}; !slices.Equal(got, want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	recs := smsData(t, r) // PutBatch
	extra := msg(mobiles[1], t0.Add(5*time.Hour), 0)
	if err := r.Insert(ctx, extra); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(ctx, recs[1]); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, recs[0]); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	live := append(slices.Clone(recs[1:]), extra)

	counts := map[string]int{}
	for _, name := range []string{"sms", "sms_index", "other", "other_ix"} {
		counts[name] = len(rawKeys(t, f, name))
	}
	// "other" keeps the deleted record's tombstone.
	if want := map[string]int{"sms": 0, "sms_index": 0, "other": len(live) + 1, "other_ix": len(live)}; !maps.Equal(counts, want) {
		t.Errorf("rows per table %v, want %v", counts, want)
	}
	// A row in "sms" is not the store's: no read may see it.
	stray := msg(mobiles[0], t0.Add(-time.Hour), 0)
	if err := f.Put(ctx, &hbase.Put{Table: "sms", Row: keyOf(t, r.Repo, stray), Values: map[string]map[string][]byte{"cf": {"a": []byte("x")}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.Get(ctx, stray); err != nil || ok {
		t.Errorf("Get of a row of \"sms\" = %v, %v; want not found", ok, err)
	}
	got := smsKeys(t, r.Repo, r.Scan(ctx, dao.Query[seeds.SMS]{}))
	if want := expect(t, r.Repo, live, func(*seeds.SMS) bool { return true }, false, 0); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("Scan:\n got %s\nwant %s", joinKeys(got), joinKeys(want))
	}
	account := recs[2].Account
	byAccount, err := r.MessagesOfAccountOnDate(ctx, account, t0)
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, m := range live {
		if m.Account == account && m.SentAt.Before(t0.Add(24*time.Hour)) {
			want++
		}
	}
	if len(byAccount) != want || want == 0 {
		t.Errorf("MessagesOfAccountOnDate = %d messages, want %d", len(byAccount), want)
	}
	rep, err := r.Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.DataRows != int64(len(live)) {
		t.Errorf("Check = %+v, %v; want a clean report of %d rows", rep, err, len(live))
	}
}

// Issue 14, failure 5: two messages to one mobile in one millisecond,
// both with Seq 0. Insert refuses the second with ErrExists and leaves
// the first; Send stores both, the second under Seq 1; Put is an upsert.
// On abc5539 the second Put silently replaced the first and there was no
// Insert.
func TestSameMillisecondMessages(t *testing.T) {
	ctx := context.Background()
	pair := func() (*seeds.SMS, *seeds.SMS) {
		a := &seeds.SMS{Mobile: "13812345678", SentAt: t0, Account: "shop", Content: "first"}
		b := &seeds.SMS{Mobile: "13812345678", SentAt: t0, Account: "bank", Content: "second"}
		return a, b
	}
	stored := func(t *testing.T, r *seedstore.SMSRepo) []string {
		t.Helper()
		var out []string
		for m, err := range r.Messages(ctx, "13812345678", t0, t0.Add(time.Millisecond), 0) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s/%d", m.Content, m.Seq))
		}
		slices.Sort(out)
		return out
	}
	t.Run("Insert", func(t *testing.T) {
		f := newFake(t)
		r := newSMS(t, f, f)
		a, b := pair()
		if err := r.Insert(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := r.Insert(ctx, b); !errors.Is(err, dao.ErrExists) {
			t.Fatalf("second Insert = %v, want ErrExists", err)
		}
		got, ok, err := r.Get(ctx, a)
		if err != nil || !ok || got.Content != "first" || got.Account != "shop" {
			t.Errorf("Get = %+v, %v, %v; want the first message unchanged", got, ok, err)
		}
		results, err := r.InsertBatch(ctx, []*seeds.SMS{b})
		if !errors.Is(err, dao.ErrExists) || !errors.Is(results[0], dao.ErrExists) {
			t.Errorf("InsertBatch = %v, %v; want ErrExists", results, err)
		}
		if got, want := stored(t, r), []string{"first/0"}; !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v", got, want)
		}
		ix, err := r.Index(seeds.SMSIndexTableName)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ix.Count(ctx, dao.Query[seeds.SMS]{}, "account_md5"); err != nil || len(got) != 1 {
			t.Errorf("index Count by account = %v, %v; want the first message's account only", got, err)
		}
		if got, err := r.MessagesOfAccountOnDate(ctx, "bank", t0); err != nil || len(got) != 0 {
			t.Errorf("the refused message's account has %d messages (%v), want 0", len(got), err)
		}
		// The refused inserts withdrew the entries their blind attempts
		// wrote under the other account's key.
		if rep, err := r.Check(ctx, index.ModeVerify); err != nil || rep.Orphaned != 0 || rep.Entries != 1 {
			t.Errorf("Check after refused inserts = %+v, %v; want 1 entry, 0 orphaned", rep, err)
		}
	})
	t.Run("Send, one call each", func(t *testing.T) {
		f := newFake(t)
		r := newSMS(t, f, f)
		a, b := pair()
		for _, m := range []*seeds.SMS{a, b} {
			if _, err := r.Send(ctx, []*seeds.SMS{m}); err != nil {
				t.Fatalf("Send = %v", err)
			}
		}
		if a.Seq != 0 || b.Seq != 1 {
			t.Errorf("Seq %d and %d, want 0 and 1", a.Seq, b.Seq)
		}
		if got, want := stored(t, r), []string{"first/0", "second/1"}; !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v", got, want)
		}
	})
	t.Run("Send, one call for both", func(t *testing.T) {
		f := newFake(t)
		r := newSMS(t, f, f)
		a, b := pair()
		if _, err := r.Send(ctx, []*seeds.SMS{a, b}); err != nil {
			t.Fatalf("Send = %v", err)
		}
		if got, want := stored(t, r), []string{"first/0", "second/1"}; !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v", got, want)
		}
	})
	t.Run("Put is an upsert", func(t *testing.T) {
		f := newFake(t)
		// Rewriting a message with other values breaks the insert-only
		// contract the SMS schema declares; a mutable store keeps its
		// index right.
		r := newSMS(t, f, f, dao.WithWriteMode(schema.Mutable))
		a, b := pair()
		for _, m := range []*seeds.SMS{a, b} {
			if err := r.Put(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := stored(t, r), []string{"second/0"}; !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v", got, want)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// The replaced message's index entry (another account) is gone.
		if ks := rawKeys(t, f, seeds.SMSIndexTableName); len(ks) != 1 {
			t.Errorf("index holds %d entries, want 1", len(ks))
		}
	})
	t.Run("Insert on a table without index", func(t *testing.T) {
		f := newFake(t)
		r := newPlainSMS(t, f, f)
		a, b := pair()
		if err := r.Insert(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := r.Insert(ctx, b); !errors.Is(err, dao.ErrExists) {
			t.Fatalf("second Insert = %v, want ErrExists", err)
		}
		if got, ok, err := r.Get(ctx, a); err != nil || !ok || got.Content != "first" {
			t.Errorf("Get = %+v, %v, %v; want the first message unchanged", got, ok, err)
		}
	})
}

// Issue 14, failure 6: typed index reads. Seed 001's users are found by
// province and age given as a record, with a limit, pages and counts by
// age, through inserts, a province change and a delete; a LOG_DATA time
// range over [ts % 10][ts][host][event] takes two times. On abc5539 this
// needed byte ranges (PrefixRanges, Lookup) and a grouping function over
// raw keys, with no limit, paging or iterator.
func TestTypedIndexReads(t *testing.T) {
	ctx := context.Background()
	r, ix, _ := userStore(t)
	model := map[string]U{}
	var users []*U
	provinces := []string{"辽宁省", "辽宁省", "吉林省", "辽宁省", "黑龙江省"}
	for i := range 24 {
		users = append(users, &U{UID: fmt.Sprintf("u%02d", i), Province: provinces[i%5], Age: int64(20 + i%2*5)})
	}
	if _, err := r.InsertBatch(ctx, users); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		model[u.UID] = *u
	}
	moved := U{UID: "u06", Province: "吉林省", Age: 20} // was 辽宁省, 20
	if err := r.Put(ctx, &moved); err != nil {
		t.Fatal(err)
	}
	model[moved.UID] = moved
	if err := r.Delete(ctx, &U{UID: "u08"}); err != nil { // 辽宁省, 20
		t.Fatal(err)
	}
	delete(model, "u08")
	// want lists the UIDs of the users keep picks, in index-key order
	// ([province][age][uid]).
	want := func(keep func(U) bool) []string {
		var us []U
		for _, u := range model {
			if keep(u) {
				us = append(us, u)
			}
		}
		slices.SortFunc(us, func(a, b U) int {
			return cmpJoin(strings.Compare(a.Province, b.Province), int(a.Age-b.Age), strings.Compare(a.UID, b.UID))
		})
		out := []string{}
		for _, u := range us {
			out = append(out, u.UID)
		}
		return out
	}
	liaoning20 := func(u U) bool { return u.Province == "辽宁省" && u.Age == 20 }
	eq := dao.Eq(&U{Province: "辽宁省", Age: 20}, "province", "age")

	cases := []struct {
		name string
		q    dao.Query[U]
		keep func(U) bool
	}{
		{"province and age", eq, liaoning20},
		{"province", dao.Eq(&U{Province: "吉林省"}, "province"), func(u U) bool { return u.Province == "吉林省" }},
		{"age range in a province", dao.Range(&U{Province: "辽宁省", Age: 21}, &U{Province: "辽宁省", Age: 30}, "province", "age"),
			func(u U) bool { return u.Province == "辽宁省" && u.Age >= 21 && u.Age <= 30 }},
		{"province range", dao.Range(&U{Province: "吉林省"}, &U{Province: "辽宁省"}, "province"),
			func(u U) bool { return u.Province >= "吉林省" && u.Province <= "辽宁省" }},
		{"no such province", dao.Eq(&U{Province: "海南省"}, "province"), func(U) bool { return false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			all := want(tc.keep)
			if got := uids(t, ix.Find(ctx, tc.q)); !slices.Equal(got, all) {
				t.Errorf("Find = %v, want %v", got, all)
			}
			for _, limit := range []int{1, 2, 100} {
				q := tc.q
				q.Limit = limit
				w := all[:min(limit, len(all))]
				if got := uids(t, ix.Find(ctx, q)); !slices.Equal(got, w) {
					t.Errorf("Find with limit %d = %v, want %v", limit, got, w)
				}
			}
			for _, size := range []int{1, 2, 3} {
				got := []string{}
				q := tc.q
				for pages := 0; ; pages++ {
					if pages > 100 {
						t.Fatal("paging does not end")
					}
					page, next, err := ix.Page(ctx, q, size)
					if err != nil {
						t.Fatalf("Page: %v", err)
					}
					if len(page) > size || (next != "" && len(page) != size) {
						t.Fatalf("page of %d with next %q, size %d", len(page), next, size)
					}
					for _, u := range page {
						got = append(got, u.UID)
					}
					if next == "" {
						break
					}
					q.Resume = next
				}
				if !slices.Equal(got, all) {
					t.Errorf("pages of %d = %v, want %v", size, got, all)
				}
			}
		})
	}
	t.Run("records are the data rows", func(t *testing.T) {
		for u, err := range ix.Find(ctx, eq) {
			if err != nil {
				t.Fatal(err)
			}
			if m := model[u.UID]; *u != m {
				t.Errorf("Find returned %+v, want %+v", *u, m)
			}
		}
	})
	t.Run("Count by age", func(t *testing.T) {
		got, err := ix.Count(ctx, dao.Eq(&U{Province: "辽宁省"}, "province"), "age")
		if err != nil {
			t.Fatal(err)
		}
		w := map[string]int64{}
		for _, u := range model {
			if u.Province == "辽宁省" {
				w[fmt.Sprint(u.Age)]++
			}
		}
		if !maps.Equal(got, w) {
			t.Errorf("Count = %v, want %v", got, w)
		}
	})

	t.Run("LOG_DATA time range", func(t *testing.T) {
		lr, _ := newLog(t, nil)
		rng := rand.New(rand.NewPCG(14, 6))
		evs := logData(t, lr, rng, 400)
		key := logKey(t, lr)
		for trial := 0; trial < 8; trial++ {
			t1, t2 := evs[rng.IntN(len(evs))].At, evs[rng.IntN(len(evs))].At
			if t2.Before(t1) {
				t1, t2 = t2, t1
			}
			if trial == 0 {
				t1, t2 = t0.Add(-time.Hour), t0.Add(2*time.Hour) // everything
			}
			var got [][]byte
			for e, err := range lr.Scan(ctx, dao.Range(&seeds.LogEvent{At: t1}, &seeds.LogEvent{At: t2}, "ts")) {
				if err != nil {
					t.Fatal(err)
				}
				if e.At.Before(t1) || e.At.After(t2) {
					t.Errorf("event at %v outside [%v, %v]", e.At, t1, t2)
				}
				got = append(got, key(e))
			}
			var w [][]byte
			for _, e := range evs {
				if !e.At.Before(t1) && !e.At.After(t2) {
					w = append(w, key(e))
				}
			}
			slices.SortFunc(w, bytes.Compare)
			w = slices.CompactFunc(w, bytes.Equal)
			if !slices.EqualFunc(got, w, bytes.Equal) {
				t.Errorf("trial %d [%v, %v]: %d events, want %d", trial, t1, t2, len(got), len(w))
			}
		}
	})
}

func cmpJoin(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

// Issue 14, failure 7: one error vocabulary. The same invalid record gets
// the same *dao.ValidationError from every write path and every store
// that declares the check, naming the field and the reason, never the
// phone number; a nil option is an error, not a panic; a failed batch
// lists each failed record once. On abc5539 the index path said
// "negative timestamp … (value …)" and printed the number, and a nil
// option panicked in index.New.
func TestOneErrorVocabulary(t *testing.T) {
	ctx := context.Background()
	// The mobile's digits appear nowhere in the fixed text of the message
	// ("send time out of range [1970-01-01, 9999-12-31]", "record 0").
	const mobile = "45684568456"
	zero := func() *seeds.SMS { return &seeds.SMS{Mobile: mobile, Account: "shop", Content: "x"} }
	f := newFake(t)
	indexed := newSMS(t, f, f)
	f2 := newFake(t)
	plain := newPlainSMS(t, f2, f2)
	type store struct {
		name string
		r    *dao.Repo[seeds.SMS]
	}
	paths := []struct {
		name  string
		write func(r *dao.Repo[seeds.SMS]) error
	}{
		{"Put", func(r *dao.Repo[seeds.SMS]) error { return r.Put(ctx, zero()) }},
		{"Insert", func(r *dao.Repo[seeds.SMS]) error { return r.Insert(ctx, zero()) }},
		{"PutBatch", func(r *dao.Repo[seeds.SMS]) error { _, err := r.PutBatch(ctx, []*seeds.SMS{zero()}); return err }},
		{"InsertBatch", func(r *dao.Repo[seeds.SMS]) error { _, err := r.InsertBatch(ctx, []*seeds.SMS{zero()}); return err }},
		{"PutBatch result", func(r *dao.Repo[seeds.SMS]) error { res, _ := r.PutBatch(ctx, []*seeds.SMS{zero()}); return res[0] }},
	}
	want := dao.ValidationError{Table: "sms", Field: "sent", Reason: "send time out of range [1970-01-01, 9999-12-31]"}
	for _, s := range []store{{"indexed", indexed.Repo}, {"plain", plain}} {
		for _, p := range paths {
			t.Run(s.name+" "+p.name, func(t *testing.T) {
				err := p.write(s.r)
				var ve *dao.ValidationError
				if !errors.As(err, &ve) || !errors.Is(err, dao.ErrInvalidRecord) {
					t.Fatalf("error = %v, want a *ValidationError", err)
				}
				if ve.Table != want.Table || ve.Field != want.Field || ve.Reason != want.Reason {
					t.Errorf("got table %q field %q reason %q, want %q %q %q", ve.Table, ve.Field, ve.Reason, want.Table, want.Field, want.Reason)
				}
				if ve.Error() != want.Error() {
					t.Errorf("Error() = %q, want %q", ve.Error(), want.Error())
				}
				if msg := err.Error(); strings.ContainsAny(msg, mobile) {
					t.Errorf("message %q shows digits of the phone number", msg)
				}
			})
		}
	}
	t.Run("Send", func(t *testing.T) {
		_, err := indexed.Send(ctx, []*seeds.SMS{zero()})
		var ve *dao.ValidationError
		if !errors.As(err, &ve) || ve.Field != "sent" || ve.Reason != want.Reason {
			t.Errorf("Send = %v, want the *ValidationError of field sent", err)
		}
	})

	t.Run("nil option", func(t *testing.T) {
		sms, err := seeds.SMSTable()
		if err != nil {
			t.Fatal(err)
		}
		logTbl, err := seeds.LogDataBucketed()
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			open func() error
		}{
			{"New, indexed table", func() error { _, err := dao.New(f, sms, nil); return err }},
			{"New, after a valid option", func() error { _, err := dao.New(f, sms, dao.WithBatchSize(5), nil); return err }},
			{"New, table without index", func() error { _, err := dao.New(f, logTbl, nil); return err }},
			{"NewSMS", func() error { _, err := seedstore.NewSMS(f, nil); return err }},
			{"NewSMS, nil clock", func() error { _, err := seedstore.NewSMS(f, dao.WithClock(nil)); return err }},
			{"protocol option without index", func() error { _, err := dao.New(f, logTbl, dao.WithGracePeriod(time.Second)); return err }},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var err error
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("panic: %v", p)
						}
					}()
					err = tc.open()
				}()
				if !errors.Is(err, dao.ErrInvalidOption) {
					t.Errorf("error = %v, want ErrInvalidOption", err)
				}
			})
		}
	})

	t.Run("a failed batch lists each failed record once", func(t *testing.T) {
		fl := &flaky{Client: f}
		r := newSMSOn(t, fl)
		recs := batchOf(5)
		for _, m := range recs {
			m.Mobile = mobile
		}
		failed := map[string]bool{}
		for _, i := range []int{1, 3} {
			failed[string(keyOf(t, r, recs[i]))] = true
		}
		fl.mu.Lock()
		fl.failRow = func(row []byte) error {
			if failed[string(row)] {
				return errInjected
			}
			return nil
		}
		fl.mu.Unlock()
		results, err := r.PutBatch(ctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) || be.Rejected {
			t.Fatalf("PutBatch = %v, want a *BatchError", err)
		}
		if got, want := be.Indexes(), []int{1, 3}; !slices.Equal(got, want) {
			t.Errorf("failed records %v, want %v", got, want)
		}
		for _, it := range be.Failed {
			var inner *dao.BatchError
			if errors.As(it.Err, &inner) {
				t.Errorf("record %d: its error wraps another batch error: %v", it.Index, it.Err)
			}
			if n := strings.Count(it.Error(), errInjected.Error()); n != 1 {
				t.Errorf("record %d: %q repeats the cause %d times", it.Index, it.Error(), n)
			}
			if results[it.Index] != it.Err {
				t.Errorf("record %d: result %v and batch error %v differ", it.Index, results[it.Index], it.Err)
			}
		}
		if msg := err.Error(); strings.Contains(msg, mobile) || strings.Count(msg, errInjected.Error()) != 1 {
			t.Errorf("batch error %q: want the first cause once and no phone number", msg)
		}

		fl.reset()
		bad := batchOf(4)
		bad[0].Account, bad[2].SentAt = "", time.Time{}
		_, err = r.PutBatch(ctx, bad)
		if !errors.As(err, &be) || !be.Rejected || !slices.Equal(be.Indexes(), []int{0, 2}) {
			t.Errorf("PutBatch of invalid records = %v, want records 0 and 2 rejected once each", err)
		}
	})
}

// newSMSOn returns an SMS store writing through c to tables that already
// exist.
func newSMSOn(t testing.TB, c dao.Client) *dao.Repo[seeds.SMS] {
	t.Helper()
	r, err := seedstore.NewSMS(c)
	if err != nil {
		t.Fatal(err)
	}
	return r.Repo
}

// Issue 14, failure 8: a merged scan stops yielding when its context is
// cancelled, and ends with the context's error. On abc5539 a 10-bucket
// scan yielded 128 more rows after the cancel.
func TestCancelledMergedScanStops(t *testing.T) {
	lr, _ := newLog(t, nil, dao.WithScanConcurrency(10))
	logData(t, lr, rand.New(rand.NewPCG(8, 14)), 3000)
	buckets, err := dao.BucketRanges(seeds.LogBuckets, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		q    dao.Query[seeds.LogEvent]
	}{
		{"time range over ten buckets", dao.Range(&seeds.LogEvent{At: t0}, &seeds.LogEvent{At: t0.Add(time.Hour)}, "ts")},
		{"ten buckets in time order", dao.Query[seeds.LogEvent]{Ranges: buckets, MergeSkip: 1}},
		{"ten buckets, reversed", dao.Query[seeds.LogEvent]{Ranges: buckets, MergeSkip: 1, Reversed: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rows, after := 0, 0
			var last error
			for e, err := range lr.Scan(ctx, tc.q) {
				if err != nil {
					last = err
					continue
				}
				if e == nil {
					t.Fatal("nil record without an error")
				}
				rows++
				if ctx.Err() != nil {
					after++
				}
				if rows == 1 {
					cancel()
				}
			}
			if after != 0 {
				t.Errorf("%d rows yielded after cancel, want 0", after)
			}
			if !errors.Is(last, context.Canceled) {
				t.Errorf("iterator ended with %v, want context.Canceled", last)
			}
			noLeak(t, before)
		})
	}
	t.Run("index Find over ten buckets", func(t *testing.T) {
		f := newFake(t)
		r := newSMS(t, f, f)
		smsData(t, r)
		ix, err := r.Index(seeds.SMSIndexTableName)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rows, after := 0, 0
		var last error
		for m, err := range ix.Find(ctx, dao.Eq(&seeds.SMS{SentAt: t0, Account: "acct-78"}, "day", "account")) {
			if err != nil {
				last = err
				continue
			}
			if m == nil {
				t.Fatal("nil record without an error")
			}
			rows++
			if ctx.Err() != nil {
				after++
			}
			if rows == 1 {
				cancel()
			}
		}
		if rows == 0 || after != 0 {
			t.Errorf("%d rows, %d after cancel; want 1, 0", rows, after)
		}
		if !errors.Is(last, context.Canceled) {
			t.Errorf("iterator ended with %v, want context.Canceled", last)
		}
	})
}

// gatedClient holds the first batch of index verifications (the writes a
// store makes in the background after a write returned) until release is
// closed.
type gatedClient struct {
	dao.Client
	once    sync.Once
	held    chan struct{} // closed when the first verification batch is held
	release chan struct{}
}

func (g *gatedClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	verification := len(acts) > 0
	for _, a := range acts {
		p, ok := a.(*hbase.Put)
		if !ok || p.Durability != hbase.AsyncWAL {
			verification = false
		}
	}
	if verification {
		g.once.Do(func() {
			close(g.held)
			<-g.release
		})
	}
	return g.Client.Batch(ctx, acts)
}

// A bug found while writing the tests above: Put encodes into a pooled
// schema.Record and returned it to the pool as soon as the data row was
// written, while the entries' verification, sent in the background, still
// pointed into its buffers; the next Put overwrote them, and verified
// entries could carry another record's key and cells.
func TestPutKeepsBuffersOfPendingVerifications(t *testing.T) {
	ctx := context.Background()
	tbl, err := schema.New(userSpec(t, uProvince, uAge, uUID))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	createTables(t, f, tbl)
	g := &gatedClient{Client: f, held: make(chan struct{}), release: make(chan struct{})}
	r, err := dao.New(g, tbl)
	if err != nil {
		t.Fatal(err)
	}
	var users []*U
	for i := range 30 {
		users = append(users, &U{UID: strings.Repeat("u", 1+i%4) + fmt.Sprint(i), Province: []string{"辽宁省", "吉林省", "黑龙江省", "海南"}[i%4], Age: int64(20 + i)})
	}
	if err := r.Put(ctx, users[0]); err != nil {
		t.Fatal(err)
	}
	<-g.held
	for _, u := range users[1:] {
		if err := r.Put(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	close(g.release)
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, u := range users {
		k, err := tbl.Indexes()[0].AppendKey(nil, u)
		if err != nil {
			t.Fatal(err)
		}
		want[string(k)] = true
	}
	got := map[string]bool{}
	for _, k := range rawKeys(t, f, "user_by_province_age") {
		got[string(k)] = true
	}
	if !maps.Equal(got, want) {
		var extra, missing [][]byte
		for k := range got {
			if !want[k] {
				extra = append(extra, []byte(k))
			}
		}
		for k := range want {
			if !got[k] {
				missing = append(missing, []byte(k))
			}
		}
		t.Errorf("index entries: %d not of any record %s; %d missing %s", len(extra), joinKeys(extra), len(missing), joinKeys(missing))
	}
	ix, err := r.Index("user_by_province_age")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := ix.Count(ctx, dao.Query[U]{}, "")
	if err != nil || counts[""] != int64(len(users)) {
		t.Errorf("Count = %v, %v; want %d", counts, err, len(users))
	}
}

// keepingClient keeps the Puts it fails, as the real client's queue does
// with a Put whose caller's context ended while the Put was on its way
// in a Multi: the Put is still read after the call returned.
type keepingClient struct {
	*fake.Client
	fail bool
	kept []*hbase.Put
}

func (c *keepingClient) Put(ctx context.Context, p *hbase.Put) error {
	if c.fail {
		c.kept = append(c.kept, p)
		return context.DeadlineExceeded
	}
	return c.Client.Put(ctx, p)
}

func (c *keepingClient) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	if c.fail {
		for _, a := range acts {
			switch x := a.(type) {
			case *hbase.Put:
				c.kept = append(c.kept, x)
			case *hbase.CheckAndMutate: // an insert-only put's data row
				for _, m := range x.Mutations {
					if p, ok := m.(*hbase.Put); ok {
						c.kept = append(c.kept, p)
					}
				}
			}
		}
		return nil, context.DeadlineExceeded
	}
	return c.Client.Batch(ctx, acts)
}

// reusingStores opens the kinds of SMS store that reuse a successful
// write's encoding buffers: without index, and insert-only.
var reusingStores = []struct {
	name string
	open func(t *testing.T, c *keepingClient, f *fake.Client) *dao.Repo[seeds.SMS]
}{
	{"no index", func(t *testing.T, c *keepingClient, f *fake.Client) *dao.Repo[seeds.SMS] {
		return newPlainSMS(t, c, f)
	}},
	{"insert-only", func(t *testing.T, c *keepingClient, f *fake.Client) *dao.Repo[seeds.SMS] {
		return newSMS(t, c, f, dao.WithWriteMode(schema.InsertOnly)).Repo
	}},
}

// TestFailedPutKeepsItsBuffers: a single-record write that failed does
// not lend its encoding buffers to the next write, which the client may
// still be sending the failed one from; on a table without index and on
// an insert-only one, whose successful writes do reuse them.
func TestFailedPutKeepsItsBuffers(t *testing.T) {
	for _, tc := range reusingStores {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			c := &keepingClient{Client: f}
			r := tc.open(t, c, f)
			ctx := context.Background()
			first := msg("13800000001", t0, 1)
			want, err := r.Table().AppendKey(nil, first)
			if err != nil {
				t.Fatal(err)
			}
			c.fail = true
			if err := r.Put(ctx, first); err == nil {
				t.Fatal("Put on a failing client succeeded")
			}
			c.fail = false
			var later []*seeds.SMS
			for i := range 20 { // sync.Pool may drop an item: give it every chance to hand one back
				m := msg("13900000002", t0.Add(time.Duration(i)*time.Second), 2)
				if err := r.Put(ctx, m); err != nil {
					t.Fatal(err)
				}
				later = append(later, m)
				// Batches of one and of two, whose Records come from
				// slabs of their own.
				one := msg("13900000003", t0.Add(time.Duration(i)*time.Second), 3)
				two := []*seeds.SMS{msg("13900000004", t0.Add(time.Duration(i)*time.Second), 4), msg("13900000005", t0.Add(time.Duration(i)*time.Second), 5)}
				if _, err := r.PutBatch(ctx, []*seeds.SMS{one}); err != nil {
					t.Fatal(err)
				}
				if _, err := r.PutBatch(ctx, two); err != nil {
					t.Fatal(err)
				}
				later = append(later, one, two[0], two[1])
			}
			var data *hbase.Put
			for _, p := range c.kept {
				if p.Table == r.Name() {
					data = p
				}
			}
			if data == nil {
				t.Fatalf("the client kept no Put of the data table among %d", len(c.kept))
			}
			if !bytes.Equal(data.Row, want) {
				t.Fatalf("the failed Put's row is now %x, want %x: its buffer went to a later write", data.Row, want)
			}
			if got, _ := data.Value("cf", "c"); string(got) != first.Content {
				t.Fatalf("the failed Put's content is now %q, want %q", got, first.Content)
			}
			// The writes that reused one Record after another each wrote
			// their own record.
			for _, m := range later {
				got, ok, err := r.Get(ctx, m)
				if err != nil || !ok || *got != *m {
					t.Fatalf("Get = %+v, %v, %v; want %+v", got, ok, err, m)
				}
			}
		})
	}
}

// TestFailedPutBatchKeepsItsBuffers is TestFailedPutKeepsItsBuffers for
// batches, whose Records a store reuses from one successful batch to the
// next (tables without index, insert-only tables).
func TestFailedPutBatchKeepsItsBuffers(t *testing.T) {
	for _, tc := range reusingStores {
		for _, n := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d records", tc.name, n), func(t *testing.T) {
				f := newFake(t)
				c := &keepingClient{Client: f}
				r := tc.open(t, c, f)
				ctx := context.Background()
				batch := func(mobile string, i int) []*seeds.SMS {
					var out []*seeds.SMS
					for j := range n {
						out = append(out, msg(mobile, t0.Add(time.Duration(i)*time.Second), uint64(j)))
					}
					return out
				}
				// A successful batch first, so that the failing one may get
				// a slab that was given back.
				if _, err := r.PutBatch(ctx, batch("13700000001", 0)); err != nil {
					t.Fatal(err)
				}
				first := batch("13800000001", 0)
				want := map[string]string{} // row key -> content
				for _, m := range first {
					k, err := r.Table().AppendKey(nil, m)
					if err != nil {
						t.Fatal(err)
					}
					want[string(k)] = m.Content
				}
				c.fail = true
				if _, err := r.PutBatch(ctx, first); err == nil {
					t.Fatal("PutBatch on a failing client succeeded")
				}
				c.fail = false
				var later []*seeds.SMS
				for i := range 20 {
					b := batch("13900000002", i)
					if _, err := r.PutBatch(ctx, b); err != nil {
						t.Fatal(err)
					}
					later = append(later, b...)
				}
				kept := 0
				for _, p := range c.kept {
					if p.Table != r.Name() {
						continue
					}
					kept++
					content, ok := want[string(p.Row)]
					if !ok {
						t.Fatalf("a failed Put's row is now %x, none of the failed batch's: its buffer went to a later write", p.Row)
					}
					if got, _ := p.Value("cf", "c"); string(got) != content {
						t.Fatalf("a failed Put's content is now %q, want %q", got, content)
					}
				}
				if kept != n {
					t.Fatalf("the client kept %d Puts of the data table, want %d", kept, n)
				}
				for _, m := range later {
					got, ok, err := r.Get(ctx, m)
					if err != nil || !ok || *got != *m {
						t.Fatalf("Get = %+v, %v, %v; want %+v", got, ok, err, m)
					}
				}
			})
		}
	}
}
