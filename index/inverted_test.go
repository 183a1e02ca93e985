package index_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
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
)

// Seed 001's user table with its inverted index (seeds.TestTable): the
// index row is province_age, one cell per uid.

// userBackend is a cluster holding a TestTable and its inverted index
// under names of its own.
type userBackend struct {
	c     dao.Client
	data  string
	index string
}

func (b userBackend) users(t testing.TB, mode schema.WriteMode, opts ...dao.Option) *dao.Repo[seeds.User] {
	t.Helper()
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{seeds.TestTableName: b.data, seeds.TestTableIndexName: b.index}
	r, err := dao.New(b.c, tbl, append([]dao.Option{dao.WithTableNames(names), dao.WithWriteMode(mode)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// createUserTables creates TestTable and its index under the given names.
func createUserTables(ctx context.Context, a hbase.AdminClient, data, idx string) error {
	tbl, err := seeds.TestTable()
	if err != nil {
		return err
	}
	defs := []schema.Definition{tbl, tbl.Indexes()[0]}
	for i, name := range []string{data, idx} {
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

func newFakeUsers(t testing.TB) userBackend {
	t.Helper()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := createUserTables(context.Background(), c, seeds.TestTableName, seeds.TestTableIndexName); err != nil {
		t.Fatal(err)
	}
	return userBackend{c: c, data: seeds.TestTableName, index: seeds.TestTableIndexName}
}

var provinces = []string{"辽宁省", "四川省", "广东省"}

// valueKey is an index row's value: province and age.
type valueKey struct {
	province string
	age      int64
}

// bruteForce counts the live users of the data table per province and
// age, and lists their uids, by scanning the whole data table.
func bruteForce(t testing.TB, r *dao.Repo[seeds.User]) map[valueKey][]string {
	t.Helper()
	out := map[valueKey][]string{}
	for u, err := range r.Scan(context.Background(), dao.Query[seeds.User]{}) {
		if err != nil {
			t.Fatal(err)
		}
		k := valueKey{u.Province, u.Age}
		out[k] = append(out[k], u.UID)
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// lookup reads one index row: the users Find returns (checked against
// their data rows) and the index-only Count.
func lookup(t testing.TB, r *dao.Repo[seeds.User], k valueKey) (uids []string, count int64) {
	t.Helper()
	ctx := context.Background()
	x, err := r.Index(seeds.TestTableIndexName)
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&seeds.User{Province: k.province, Age: k.age}, "province", "age")
	for u, err := range x.Find(ctx, q) {
		if err != nil {
			t.Fatal(err)
		}
		if u.Province != k.province || u.Age != k.age {
			t.Fatalf("lookup %v returned user %s of %s_%d", k, u.UID, u.Province, u.Age)
		}
		uids = append(uids, u.UID)
	}
	slices.Sort(uids)
	counts, err := x.Count(ctx, q, "")
	if err != nil {
		t.Fatal(err)
	}
	return uids, counts[""]
}

// assertIndexMatches checks every value of the test's universe: Find
// returns exactly the users the data table holds under it, and Count
// (index alone) equals the brute-force count, unless countLoose (a mode
// whose index-only counts may lag, for a state left by a dead writer).
func assertIndexMatches(t testing.TB, r *dao.Repo[seeds.User], ages []int64, countLoose bool) map[valueKey][]string {
	t.Helper()
	return matchIndex(t, r, ages, countLoose, true)
}

// assertIndexSound checks that every user Find returns is one the data
// table holds under that value: after a writer died, an entry may be
// missing until Check, never wrong.
func assertIndexSound(t testing.TB, r *dao.Repo[seeds.User], ages []int64) {
	t.Helper()
	matchIndex(t, r, ages, true, false)
}

func matchIndex(t testing.TB, r *dao.Repo[seeds.User], ages []int64, countLoose, complete bool) map[valueKey][]string {
	t.Helper()
	truth := bruteForce(t, r)
	for _, p := range provinces {
		for _, a := range ages {
			k := valueKey{p, a}
			uids, n := lookup(t, r, k)
			if complete && !slices.Equal(uids, truth[k]) {
				t.Fatalf("lookup %s_%d: got %v, want %v", p, a, uids, truth[k])
			}
			for _, u := range uids {
				if !slices.Contains(truth[k], u) {
					t.Fatalf("lookup %s_%d returned %s, which the data table does not hold there (%v)", p, a, u, truth[k])
				}
			}
			if !countLoose && n != int64(len(truth[k])) {
				t.Fatalf("count %s_%d: got %d, brute force %d", p, a, n, len(truth[k]))
			}
		}
	}
	return truth
}

// assertUsersClean runs a verify and wants no divergence, with one entry
// per live user.
func assertUsersClean(t testing.TB, r *dao.Repo[seeds.User]) index.Report {
	t.Helper()
	rep, err := r.Check(context.Background(), index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() || rep.DataRows != rep.Entries {
		t.Fatalf("verify: got %+v, want clean with one entry per row", rep)
	}
	return rep
}

func TestInvertedAgreesWithTheData(t *testing.T) {
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			testInvertedAgreesWithTheData(t, newFakeUsers(t), mc, "u")
		})
	}
}

// testInvertedAgreesWithTheData inserts users, moves them between rows (a
// changed province or age), updates them in place and deletes them, in
// batches and one at a time, and after each round compares every index
// row with a brute-force scan of the data table. Users are named
// prefix+n, so that tests sharing tables keep apart.
func testInvertedAgreesWithTheData(t *testing.T, b userBackend, mc modeCase, prefix string) {
	ctx := context.Background()
	r := b.users(t, mc.mode)
	rng := rand.New(rand.NewPCG(1, uint64(mc.mode)))
	ages := []int64{20, 21, 35}
	pick := func(u *seeds.User) {
		u.Province, u.Age = provinces[rng.IntN(len(provinces))], ages[rng.IntN(len(ages))]
	}
	live := map[string]*seeds.User{}
	for round := range 4 {
		var batch []*seeds.User
		for n := range 12 {
			uid := fmt.Sprintf("%s%d", prefix, 1000+round*12+n)
			u := &seeds.User{UID: uid, Gender: "f"}
			pick(u)
			batch = append(batch, u)
			live[uid] = u
		}
		if errs, err := r.PutBatch(ctx, batch); err != nil {
			t.Fatal(errs, err)
		}
		for _, uid := range slices.Sorted(maps.Keys(live)) {
			u := live[uid]
			switch x := rng.IntN(4); {
			case x == 0:
				if err := r.Delete(ctx, u); err != nil {
					t.Fatal(err)
				}
				delete(live, uid)
			case x == 1 && mc.rewrite:
				pick(u) // usually moves the cell to another row
				if err := r.Put(ctx, u); err != nil {
					t.Fatal(err)
				}
			case x == 2 && mc.rewrite:
				u.Gender = "m" // in place: the cell stays
				if err := r.Put(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		truth := assertIndexMatches(t, r, ages, false)
		n := 0
		for _, uids := range truth {
			n += len(uids)
		}
		if n < len(live) {
			t.Fatalf("round %d: data table holds %d users, want at least %d", round, n, len(live))
		}
	}
	assertUsersClean(t, r)
}

func TestInvertedEncodingIsTheSeeds(t *testing.T) {
	ctx := context.Background()
	b := newFakeUsers(t)
	r := b.users(t, schema.Strict)
	if err := r.Put(ctx, &seeds.User{UID: "10001", Province: "辽宁省", Age: 20, Gender: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := b.c.Get(ctx, &hbase.Get{Table: b.index, Row: []byte("辽宁省_20")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 {
		t.Fatalf("index row 辽宁省_20: %d cells, want 1", len(res.Cells))
	}
	c := res.Cells[0]
	if string(c.Family) != "user" || string(c.Qualifier) != "10001" || len(c.Value) != 9 || c.Value[0] != 'v' {
		t.Fatalf("index cell %s:%s = %x, want user:10001 holding a verified status", c.Family, c.Qualifier, c.Value)
	}
}

func TestInvertedKillBetweenWrites(t *testing.T) {
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			testInvertedKillBetweenWrites(t, newFakeUsers(t), mc, "k")
		})
	}
}

// testInvertedKillBetweenWrites kills the writer before each of its
// phases (each of its Batches in the cheaper modes), for an insert, an
// update in place, a move and a delete: readers must never return a
// wrong user, and repair must leave the index exactly the data.
func testInvertedKillBetweenWrites(t *testing.T, b userBackend, mc modeCase, prefix string) {
	ctx := context.Background()
	type scenario struct {
		name  string
		prior bool
		edit  func(u *seeds.User)
		del   bool
	}
	scenarios := []scenario{
		{"insert", false, func(*seeds.User) {}, false},
		{"update in place", true, func(u *seeds.User) { u.Gender = "m" }, false},
		{"move", true, func(u *seeds.User) { u.Province = provinces[1] }, false},
		{"delete", true, func(*seeds.User) {}, true},
	}
	clk := &clock{}
	healthy := b.users(t, mc.mode, dao.WithClock(clk.now), dao.WithReadRepair(false))
	ages := []int64{20, 21}
	n := 0
	for _, sc := range scenarios {
		if !mc.rewrite && sc.prior && !sc.del {
			continue
		}
		for _, phase := range []index.Phase{index.PhaseUnverified, index.PhaseData, index.PhaseVerify} {
			n++
			t.Run(fmt.Sprintf("%s/before %s", sc.name, phase), func(t *testing.T) {
				before := &seeds.User{UID: fmt.Sprintf("%s%d", prefix, n), Province: provinces[0], Age: 20, Gender: "f"}
				after := *before
				sc.edit(&after)
				hook, fired := killAt(phase)
				faulty := b.users(t, mc.mode, dao.WithClock(clk.now), dao.WithHook(hook))
				if sc.prior {
					if err := healthy.Put(ctx, before); err != nil {
						t.Fatal(err)
					}
					if err := healthy.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				if sc.del {
					err = faulty.Delete(ctx, &after)
				} else {
					err = faulty.Put(ctx, &after)
				}
				if fired.Load() && (!errors.Is(err, index.ErrAborted) || !errors.Is(err, errKilled)) {
					t.Fatalf("got %v, want the kill", err)
				}
				if !fired.Load() && err != nil {
					t.Fatal(err)
				}
				// Readers that fetch the data rows are right whatever the
				// state; index-only counts are exact in Strict mode.
				assertIndexMatches(t, healthy, ages, mc.mode != schema.Strict)
				clk.advance(2 * time.Minute) // past the grace period: the writer is dead
				if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
					t.Fatal(err)
				}
				assertIndexMatches(t, healthy, ages, false)
				assertUsersClean(t, healthy)
			})
		}
	}
}

func TestInvertedConcurrentWriters(t *testing.T) {
	for _, mc := range modeCases {
		if !mc.rewrite {
			continue
		}
		t.Run(mc.mode.String(), func(t *testing.T) {
			testInvertedConcurrentWriters(t, newFakeUsers(t), mc.mode, "race", 4, 25)
		})
	}
}

// testInvertedConcurrentWriters runs writers that keep moving one user
// between rows, one of them deleting it now and then (deletes racing
// updates), next to a reader that must never get the user under a value
// its data row does not hold. Then repair leaves the user in at most one
// row, and verify is clean.
func testInvertedConcurrentWriters(t *testing.T, b userBackend, mode schema.WriteMode, uid string, writers, rounds int) {
	ctx := context.Background()
	ages := []int64{20, 21}
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			r := b.users(t, mode, dao.WithMaxAttempts(1000))
			for n := range rounds {
				u := &seeds.User{UID: uid, Province: provinces[(w+n)%len(provinces)], Age: ages[n%2], Gender: "f"}
				var err error
				if w == 0 && n%3 == 2 {
					err = r.Delete(ctx, u)
				} else {
					err = r.Put(ctx, u)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- r.Flush(ctx)
		}()
	}
	var stop atomic.Bool
	done := make(chan error, 1)
	go func() {
		r := b.users(t, mode)
		x, err := r.Index(seeds.TestTableIndexName)
		if err != nil {
			done <- err
			return
		}
		for !stop.Load() {
			for _, p := range provinces {
				for _, a := range ages {
					for u, err := range x.Find(ctx, dao.Eq(&seeds.User{Province: p, Age: a}, "province", "age")) {
						if err != nil {
							done <- err
							return
						}
						if u.Province != p || u.Age != a {
							done <- fmt.Errorf("lookup %s_%d returned %s_%d", p, a, u.Province, u.Age)
							return
						}
					}
				}
			}
		}
		done <- nil
	}()
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	later := &clock{}
	later.advance(2 * time.Minute)
	if _, err := b.users(t, mode, dao.WithClock(later.now)).Check(ctx, index.ModeRepair); err != nil {
		t.Fatal(err)
	}
	r := b.users(t, mode)
	assertUsersClean(t, r)
	truth := assertIndexMatches(t, r, ages, false)
	rows := 0
	for _, uids := range truth {
		if slices.Contains(uids, uid) {
			rows++
		}
	}
	if rows > 1 {
		t.Fatalf("user %s under %d values", uid, rows)
	}
}

func TestInvertedRepairAndRebuild(t *testing.T) {
	testInvertedRepairAndRebuild(t, newFakeUsers(t))
}

// testInvertedRepairAndRebuild damages the index by hand (a lost cell, a
// cell of no user, a cell in the wrong row): verify counts each, repair
// fixes them, and verify is then clean.
func testInvertedRepairAndRebuild(t *testing.T, b userBackend) {
	ctx := context.Background()
	r := b.users(t, schema.Strict)
	users := []*seeds.User{
		{UID: "a1", Province: provinces[0], Age: 20},
		{UID: "a2", Province: provinces[0], Age: 20},
		{UID: "a3", Province: provinces[1], Age: 21},
	}
	if errs, err := r.PutBatch(ctx, users); err != nil {
		t.Fatal(errs, err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Damage the index by hand: a2's cell gone, a stray verified cell for
	// a user that does not exist, and a3's cell in the wrong row.
	row0 := []byte(provinces[0] + "_20")
	stale := []byte(provinces[2] + "_35")
	status := append([]byte{'v'}, make([]byte, 8)...)
	cell, err := b.c.Get(ctx, &hbase.Get{Table: b.index, Row: row0, Columns: []hbase.Column{{Family: []byte("user"), Qualifier: []byte("a2")}}})
	if err != nil || len(cell.Cells) != 1 {
		t.Fatalf("a2's cell: %v, %v", cell, err)
	}
	for _, a := range []hbase.Action{
		// The cell lost, as if its write never landed: a marker at its
		// own version, which a rewrite at a newer version outranks.
		&hbase.Delete{Table: b.index, Row: row0, Family: []byte("user"), Qualifier: []byte("a2"), AllVersions: true, Timestamp: cell.Cells[0].Timestamp},
		&hbase.Put{Table: b.index, Row: row0, Values: map[string]map[string][]byte{"user": {"ghost": status}}},
		&hbase.Put{Table: b.index, Row: stale, Values: map[string]map[string][]byte{"user": {"a3": status}}},
	} {
		if _, err := b.c.Batch(ctx, []hbase.Action{a}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := r.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 1 || rep.Orphaned != 2 || rep.DataRows != 3 || rep.Entries != 4 {
		t.Fatalf("verify of the damaged index: %+v, want 1 missing and 2 orphaned of 3 rows and 4 entries", rep)
	}
	if rep, err = r.Check(ctx, index.ModeRepair); err != nil {
		t.Fatal(err)
	}
	if rep.Repaired != 3 {
		t.Errorf("repair: %+v, want 3 fixes", rep)
	}
	assertUsersClean(t, r)
	assertIndexMatches(t, r, []int64{20, 21, 35}, false)
	if _, err := r.Check(ctx, index.ModeRebuild); err != nil {
		t.Fatal(err)
	}
	assertUsersClean(t, r)
}

// TestInvertedForeignCells reads an index row as seed 001's Java code
// writes it: value 1, no status. Lookups check each such cell against its
// data row, counts too, and repair leaves them alone when they agree.
func TestInvertedForeignCells(t *testing.T) {
	testInvertedForeignCells(t, newFakeUsers(t))
}

func testInvertedForeignCells(t *testing.T, b userBackend) {
	ctx := context.Background()
	r := b.users(t, schema.Strict, dao.WithUnindexedWrites())
	u := &seeds.User{UID: "j1", Province: provinces[0], Age: 20, Gender: "f"}
	if err := r.Put(ctx, u); err != nil { // the data row only, as another client writes it
		t.Fatal(err)
	}
	row := []byte(provinces[0] + "_20")
	for _, q := range []string{"j1", "j2"} { // j2 has no data row
		p := &hbase.Put{Table: b.index, Row: row, Values: map[string]map[string][]byte{"user": {q: []byte("1")}}}
		if _, err := b.c.Batch(ctx, []hbase.Action{p}); err != nil {
			t.Fatal(err)
		}
	}
	ir := b.users(t, schema.Strict)
	uids, n := lookup(t, ir, valueKey{provinces[0], 20})
	if !slices.Equal(uids, []string{"j1"}) || n != 1 {
		t.Fatalf("lookup: %v, count %d; want [j1], 1", uids, n)
	}
	rep, err := ir.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 0 || rep.Orphaned != 1 {
		t.Fatalf("verify: %+v, want j2 orphaned and nothing missing", rep)
	}
}

// pageUIDs reads q through x page by page, size records each, resuming
// from each page's token, and returns the records' UIDs in order and how
// many pages it took.
func pageUIDs(ctx context.Context, t *testing.T, x *dao.Index[seeds.User], q dao.Query[seeds.User], size int) ([]string, int) {
	t.Helper()
	var got []string
	pages := 0
	for {
		page, tok, err := x.Page(ctx, q, size)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, u := range page {
			got = append(got, u.UID)
		}
		if tok == "" {
			return got, pages
		}
		q.Resume = tok
	}
}

func TestInvertedPagesAndKeys(t *testing.T) {
	testInvertedPagesAndKeys(t, newFakeUsers(t))
}

// testInvertedPagesAndKeys pages through rows of many users two at a
// time: every user comes once, in (row, uid) order, though a page ends
// inside a row; Keys lists the same users from the index alone.
func testInvertedPagesAndKeys(t *testing.T, b userBackend) {
	ctx := context.Background()
	r := b.users(t, schema.Strict)
	var users []*seeds.User
	var want []string
	for _, age := range []int64{20, 21} {
		for n := range 5 {
			u := &seeds.User{UID: fmt.Sprintf("p%d-%d", age, n), Province: provinces[0], Age: age}
			users = append(users, u)
			want = append(want, u.UID)
		}
	}
	if _, err := r.PutBatch(ctx, users); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	x, err := r.Index(seeds.TestTableIndexName)
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&seeds.User{Province: provinces[0]}, "province")
	got, pages := pageUIDs(ctx, t, x, q, 3)
	if !slices.Equal(got, want) || pages != 4 {
		t.Fatalf("pages of 3: got %v in %d pages, want %v in 4", got, pages, want)
	}
	var keys []string
	for u, err := range x.Keys(ctx, dao.Eq(&seeds.User{Province: provinces[0]}, "province")) {
		if err != nil {
			t.Fatal(err)
		}
		if u.Province != provinces[0] || u.Gender != "" {
			t.Fatalf("Keys returned %+v: want the key fields only", u)
		}
		keys = append(keys, u.UID)
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("Keys: got %v, want %v", keys, want)
	}
}

// usersOver is users through another client (a dying one in front of the
// backend).
func (b userBackend) usersOver(t testing.TB, c dao.Client, mode schema.WriteMode, opts ...dao.Option) *dao.Repo[seeds.User] {
	t.Helper()
	return userBackend{c: c, data: b.data, index: b.index}.users(t, mode, opts...)
}

func TestInvertedSurvivePartialBatches(t *testing.T) {
	testInvertedSurvivePartialBatches(t, func(t testing.TB, _ schema.WriteMode) userBackend { return newFakeUsers(t) })
}

// testInvertedSurvivePartialBatches is testModesSurvivePartialBatches for
// the inverted index: a writer dies inside one of its Batches in every
// mode, losing only the data-row writes, only the cells, or every other
// write of that Batch. Acknowledged users are in the data table as
// written, the others as before or as written; readers never return a
// user under a value its data row does not hold; repair brings the index,
// counts included, back to exactly the data.
func testInvertedSurvivePartialBatches(t *testing.T, backends func(testing.TB, schema.WriteMode) userBackend) {
	ctx := context.Background()
	ages := []int64{20, 21}
	n := 0
	for _, mc := range modeCases {
		for _, op := range []string{"put", "insert", "delete"} {
			for _, subset := range []string{"data rows", "entries", "every other write"} {
				for nth := 1; nth <= 3; nth++ {
					n++
					t.Run(fmt.Sprintf("%v/%s/%s/batch %d", mc.mode, op, subset, nth), func(t *testing.T) {
						b := backends(t, mc.mode)
						clock := &fakeClock{t: time.Now()}
						healthy := b.users(t, mc.mode, dao.WithClock(clock.now), dao.WithAsyncVerify(false))
						reader := b.users(t, mc.mode, dao.WithClock(clock.now), dao.WithReadRepair(false))
						user := func(i int, age int64) *seeds.User {
							return &seeds.User{UID: fmt.Sprintf("pb%d-%d", n, i), Province: provinces[0], Age: age, Gender: "f"}
						}
						fresh := []*seeds.User{user(0, 20), user(1, 21)}
						old := []*seeds.User{user(2, 20), user(3, 20)}
						if _, err := healthy.PutBatch(ctx, old); err != nil {
							t.Fatal(err)
						}
						clock.advance(time.Second)
						var recs, before []*seeds.User
						switch op {
						case "put":
							recs, before = slices.Clone(fresh), []*seeds.User{nil, nil}
							if mc.rewrite {
								in, mv := *old[0], *old[1]
								in.Gender = "m" // in place
								mv.Age = 21     // moves the cell
								recs, before = append(recs, &in, &mv), append(before, old...)
							}
						case "insert":
							recs, before = fresh, []*seeds.User{nil, nil}
						case "delete":
							recs, before = old, old
						}
						var pick func([]hbase.Action) []bool
						switch subset {
						case "data rows":
							pick = writesTo(b.data)
						case "entries":
							pick = writesTo(b.index)
						default:
							pick = everyOtherWrite
						}
						dc := &dyingClient{Client: b.c, pick: pick, n: nth}
						faulty := b.usersOver(t, dc, mc.mode, dao.WithClock(clock.now), dao.WithAsyncVerify(false))
						var results []error
						var err error
						switch op {
						case "put":
							results, err = faulty.PutBatch(ctx, recs)
						case "insert":
							results, err = faulty.InsertBatch(ctx, recs)
						case "delete":
							results, err = faulty.DeleteBatch(ctx, recs)
						}
						if !dc.died() {
							if err != nil {
								t.Fatalf("the writer never died, yet the write failed: %v", err)
							}
							t.Skipf("the write sent fewer than %d Batches with %s", nth, subset)
						}
						if len(results) != len(recs) {
							t.Fatalf("%d results for %d records (%v)", len(results), len(recs), err)
						}
						for i, r := range recs {
							got, ok, err := healthy.Get(ctx, r)
							if err != nil {
								t.Fatal(err)
							}
							after := r
							if op == "delete" {
								after = nil
							}
							is := func(want *seeds.User) bool { return (want == nil) == !ok && (want == nil || *got == *want) }
							switch {
							case results[i] == nil && !is(after):
								t.Errorf("user %d was acknowledged; the data table holds %+v (%v), want %+v", i, got, ok, after)
							case results[i] != nil && !is(after) && !is(before[i]):
								t.Errorf("user %d failed (%v); the data table holds %+v (%v), want %+v or %+v", i, results[i], got, ok, before[i], after)
							}
						}
						// Readers are right through the data rows whatever
						// the state: an entry may be missing until repair,
						// never wrong.
						assertIndexSound(t, reader, ages)
						clock.advance(2 * time.Minute) // past the grace period: the writer is dead
						if _, err := healthy.Check(ctx, index.ModeRepair); err != nil {
							t.Fatal(err)
						}
						assertUsersClean(t, healthy)
						assertIndexMatches(t, healthy, ages, false)
					})
				}
			}
		}
	}
}

func TestInvertedConcurrentInserts(t *testing.T) {
	testInvertedConcurrentInserts(t, func(t testing.TB, _ schema.WriteMode) userBackend { return newFakeUsers(t) }, 8, 4)
}

// testInvertedConcurrentInserts has inserters race to insert one uid with
// different values (so different rows), in every mode: exactly one wins,
// the others get ErrExists, and after repair the index holds the winner's
// cell only. An insert that loses right away (insert-only mode, whose
// cells go out with the conditional write) withdraws its cell itself:
// then verify is clean before any repair.
func testInvertedConcurrentInserts(t *testing.T, backends func(testing.TB, schema.WriteMode) userBackend, inserters, uids int) {
	ctx := context.Background()
	ages := []int64{20, 21}
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			for k := range uids {
				repos := make([]*dao.Repo[seeds.User], inserters)
				recs := make([]*seeds.User, inserters)
				for i := range repos {
					repos[i] = b.users(t, mc.mode)
					recs[i] = &seeds.User{UID: fmt.Sprintf("ci-%d", k), Province: provinces[i%len(provinces)], Age: ages[i%2], Gender: "f"}
				}
				errs := make([]error, inserters)
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i := range inserters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = repos[i].Insert(ctx, recs[i])
					}()
				}
				close(start)
				wg.Wait()
				var won []int
				for i, err := range errs {
					switch {
					case err == nil:
						won = append(won, i)
					case !errors.Is(err, dao.ErrExists):
						t.Errorf("uid %d, inserter %d: %v, want nil or ErrExists", k, i, err)
					}
				}
				if len(won) != 1 {
					t.Fatalf("uid %d: inserters %v succeeded, want exactly one (errors %v)", k, won, errs)
				}
				for _, r := range repos {
					if err := r.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
				w := recs[won[0]]
				if got, ok, err := repos[0].Get(ctx, w); err != nil || !ok || *got != *w {
					t.Fatalf("uid %d: the data table holds %+v (%v, %v), want the winner %+v", k, got, ok, err, w)
				}
			}
			r := b.users(t, mc.mode)
			assertIndexSound(t, r, ages)
			if mc.mode == schema.InsertOnly {
				assertUsersClean(t, r)
			}
			later := &clock{}
			later.advance(2 * time.Minute) // past the grace period
			if _, err := b.users(t, mc.mode, dao.WithClock(later.now)).Check(ctx, index.ModeRepair); err != nil {
				t.Fatal(err)
			}
			assertUsersClean(t, r)
			assertIndexMatches(t, r, ages, false)
		})
	}
}

func TestInvertedRefusedInsertLeavesTheIndex(t *testing.T) {
	testInvertedRefusedInsertLeavesTheIndex(t, func(t testing.TB, _ schema.WriteMode) userBackend { return newFakeUsers(t) })
}

// testInvertedRefusedInsertLeavesTheIndex inserts a uid taken by a user
// of another value and of the same value: ErrExists, and the index still
// holds exactly the first user's cell, with no repair.
func testInvertedRefusedInsertLeavesTheIndex(t *testing.T, backends func(testing.TB, schema.WriteMode) userBackend) {
	ctx := context.Background()
	for i, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			b := backends(t, mc.mode)
			u := &seeds.User{UID: fmt.Sprintf("refused-%d", i), Province: provinces[0], Age: 20, Gender: "f"}
			first := b.users(t, mc.mode)
			if err := first.Insert(ctx, u); err != nil {
				t.Fatal(err)
			}
			if err := first.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			for _, again := range []seeds.User{{UID: u.UID, Province: provinces[1], Age: 21}, {UID: u.UID, Province: provinces[0], Age: 20, Gender: "m"}} {
				s := b.users(t, mc.mode)
				if err := s.Insert(ctx, &again); !errors.Is(err, dao.ErrExists) {
					t.Fatalf("second insert of %+v: %v, want ErrExists", again, err)
				}
				if err := s.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				assertUsersClean(t, s)
				assertIndexMatches(t, s, []int64{20, 21}, false)
			}
		})
	}
}

// TestInvertedCheckResumesInsideARow stops a Check whose batches end
// inside index rows, after each of its checkpoints in turn, and resumes
// it: each resumed run reports what an uninterrupted one does, every cell
// counted once.
func TestInvertedCheckResumesInsideARow(t *testing.T) {
	ctx := context.Background()
	b := newFakeUsers(t)
	r := b.users(t, schema.Strict, dao.WithBatchSize(2))
	var users []*seeds.User
	for n := range 7 {
		users = append(users, &seeds.User{UID: fmt.Sprintf("cp%d", n), Province: provinces[0], Age: 20 + int64(n%2)})
	}
	if _, err := r.PutBatch(ctx, users); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Two cells of no user, in the middle of a row: orphans, counted once.
	status := append([]byte{'v'}, make([]byte, 8)...)
	p := &hbase.Put{Table: b.index, Row: []byte(provinces[0] + "_20"), Values: map[string]map[string][]byte{"user": {"cp2x": status, "cp4x": status}}}
	if _, err := b.c.Batch(ctx, []hbase.Action{p}); err != nil {
		t.Fatal(err)
	}
	want, err := r.Check(ctx, index.ModeVerify)
	if err != nil {
		t.Fatal(err)
	}
	if want.Entries != 9 || want.Orphaned != 2 || want.DataRows != 7 {
		t.Fatalf("uninterrupted verify: %+v, want 7 rows, 9 entries, 2 orphaned", want)
	}
	errStopped := errors.New("stopped")
	for stopAt := 1; ; stopAt++ {
		var saved index.Checkpoint
		n := 0
		_, err := r.Check(ctx, index.ModeVerify, index.WithCheckpoint(func(cp index.Checkpoint) error {
			if n++; n == stopAt {
				saved = cp
				return errStopped
			}
			return nil
		}))
		if err == nil {
			break // no checkpoint left to stop at
		}
		if !errors.Is(err, errStopped) {
			t.Fatal(err)
		}
		got, err := r.Check(ctx, index.ModeVerify, index.WithResume(saved))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("stopped at checkpoint %d (pass %d, after %q cell %q), resumed: %+v, want %+v", stopAt, saved.Pass, saved.After, saved.AfterCell, got, want)
		}
	}
}

// TestInvertedEqReadsOneRow: the age is the key's last part, written
// without terminator, so the row of age 2 is a prefix of the rows of ages
// 20 to 29. A query fixing province and age reads its row alone.
func TestInvertedEqReadsOneRow(t *testing.T) {
	testInvertedEqReadsOneRow(t, newFakeUsers(t))
}

func testInvertedEqReadsOneRow(t *testing.T, b userBackend) {
	ctx := context.Background()
	r := b.users(t, schema.Strict)
	for _, u := range []*seeds.User{
		{UID: "a2", Province: provinces[0], Age: 2},
		{UID: "a20", Province: provinces[0], Age: 20},
		{UID: "a25", Province: provinces[0], Age: 25},
	} {
		if err := r.Put(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	uids, n := lookup(t, r, valueKey{provinces[0], 2})
	if !slices.Equal(uids, []string{"a2"}) || n != 1 {
		t.Fatalf("age 2: %v, count %d; want [a2], 1", uids, n)
	}
	x, err := r.Index(seeds.TestTableIndexName)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for u, err := range x.Keys(ctx, dao.Eq(&seeds.User{Province: provinces[0], Age: 2}, "province", "age")) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, u.UID)
	}
	if !slices.Equal(keys, []string{"a2"}) {
		t.Fatalf("Keys of age 2: %v, want [a2]", keys)
	}
	// Bounds of equal value are one value, whether one record or two.
	for _, q := range []dao.Query[seeds.User]{
		dao.Range(&seeds.User{Province: provinces[0], Age: 2}, &seeds.User{Province: provinces[0], Age: 2}, "province", "age"),
		dao.Between(&seeds.User{Province: provinces[0], Age: 2}, &seeds.User{Province: provinces[0], Age: 2}, 2),
	} {
		counts, err := x.Count(ctx, q, "age")
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) != 1 || counts["2"] != 1 {
			t.Fatalf("age 2 to 2 (two records): %v, want age 2 once", counts)
		}
	}
	// A range over the age keeps the byte-prefix meaning of keys.Joined's
	// last part (docs/keys.md): 2 to 3 is the rows 2, 20 … 29 and 3.
	counts, err := x.Count(ctx, dao.Range(&seeds.User{Province: provinces[0], Age: 2}, &seeds.User{Province: provinces[0], Age: 3}, "province", "age"), "age")
	if err != nil {
		t.Fatal(err)
	}
	if counts["2"] != 1 || counts["20"] != 1 || counts["25"] != 1 {
		t.Fatalf("Range 2..3 by age: %v, want 2, 20 and 25 once each", counts)
	}
}

// TestInvertedEmptyQualifier: seed 001's qualifier is the uid, so an
// empty uid would be an empty qualifier, and a Delete without a qualifier
// deletes the whole family: every user of the row. Writing or deleting
// such a user is refused before anything is sent, and a cell with an empty
// qualifier that another client wrote is left alone by repairs.
func TestInvertedEmptyQualifier(t *testing.T) {
	for _, mc := range modeCases {
		t.Run(mc.mode.String(), func(t *testing.T) {
			testInvertedEmptyQualifier(t, newFakeUsers(t), mc.mode, 30)
		})
	}
}

// testInvertedEmptyQualifier runs in the row of province 0 and age.
func testInvertedEmptyQualifier(t *testing.T, b userBackend, mode schema.WriteMode, age int64) {
	ctx := context.Background()
	r := b.users(t, mode)
	k := valueKey{provinces[0], age}
	pre := fmt.Sprintf("e%d-", age)
	for _, uid := range []string{pre + "1", pre + "2"} {
		if err := r.Put(ctx, &seeds.User{UID: uid, Province: k.province, Age: age}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{pre + "1", pre + "2"}
	empty := &seeds.User{UID: "", Province: k.province, Age: age}
	if err := r.Put(ctx, empty); !errors.Is(err, schema.ErrInvalidKey) {
		t.Fatalf("Put of an empty uid: got %v, want ErrInvalidKey", err)
	}
	if err := r.Delete(ctx, empty); !errors.Is(err, schema.ErrInvalidKey) {
		t.Fatalf("Delete of an empty uid: got %v, want ErrInvalidKey", err)
	}
	if uids, n := lookup(t, r, k); !slices.Equal(uids, want) || n != 2 {
		t.Fatalf("after the refused writes: %v, count %d; want %v, 2", uids, n, want)
	}
	// Another client's cell with an empty qualifier, long past the grace
	// period and pointing to no record: an orphan repairs cannot delete.
	row := []byte(fmt.Sprintf("%s_%d", k.province, age))
	p := &hbase.Put{Table: b.index, Row: row, Values: map[string]map[string][]byte{"user": {"": []byte("1")}}, Timestamp: 1000}
	if _, err := b.c.Batch(ctx, []hbase.Action{p}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Check(ctx, index.ModeRepair); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if uids, n := lookup(t, r, k); !slices.Equal(uids, want) || n < 2 {
		t.Fatalf("after repair: %v, count %d; want %v", uids, n, want)
	}
}

// TestInvertedUnaddressableRecordIsAStepError: a delete whose record has
// no inverted entry it could address (an empty uid) fails as Write
// documents, with a *StepError before the first write wrapping the
// schema's error, and the other records of the batch are deleted.
func TestInvertedUnaddressableRecordIsAStepError(t *testing.T) {
	ctx := context.Background()
	b := newFakeUsers(t)
	r := b.users(t, schema.Strict)
	if err := r.Put(ctx, &seeds.User{UID: "s1", Province: provinces[0], Age: 40}); err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.New(b.c, tbl, index.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*schema.Record
	for _, uid := range []string{"", "s1"} {
		k, err := tbl.AppendKey(nil, &seeds.User{UID: uid})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &schema.Record{Data: schema.Row{Key: k}})
	}
	errs := x.Write(ctx, index.OpDelete, recs)
	var se *index.StepError
	if len(errs) != 2 || !errors.As(errs[0], &se) || se.Step.Phase != index.PhaseUnverified || !errors.Is(errs[0], schema.ErrInvalidKey) {
		t.Fatalf("Write: got %v, want a *StepError before the unverified-entries write wrapping ErrInvalidKey for the empty uid", errs)
	}
	if errs[1] != nil {
		t.Fatalf("delete of s1: %v", errs[1])
	}
	if uids, n := lookup(t, r, valueKey{provinces[0], 40}); len(uids) != 0 || n != 0 {
		t.Fatalf("after the delete: %v, count %d; want none", uids, n)
	}
}

// dataGets counts the Gets of a table's rows that go through it.
type dataGets struct {
	dao.Client
	table string
	n     atomic.Int64
}

func (c *dataGets) Get(ctx context.Context, g *hbase.Get) (*hbase.Result, error) {
	if g.Table == c.table {
		c.n.Add(1)
	}
	return c.Client.Get(ctx, g)
}

func (c *dataGets) Batch(ctx context.Context, acts []hbase.Action) ([]hbase.BatchResult, error) {
	for _, a := range acts {
		if g, ok := a.(*hbase.Get); ok && g.Table == c.table {
			c.n.Add(1)
		}
	}
	return c.Client.Batch(ctx, acts)
}

func TestInvertedPageResumesInsideTheRow(t *testing.T) {
	testInvertedPageResumesInsideTheRow(t, newFakeUsers(t))
}

// testInvertedPageResumesInsideTheRow pages through one row of many users:
// a page resumed inside the row reads the cells after the token's, so the
// data rows of the users of earlier pages are not read again (a hot row
// costs its size, not its size squared).
func testInvertedPageResumesInsideTheRow(t *testing.T, b userBackend) {
	ctx := context.Background()
	const users, size, batch = 12, 3, 2
	var recs []*seeds.User
	var want []string
	for n := range users {
		u := &seeds.User{UID: fmt.Sprintf("h60-%02d", n), Province: provinces[1], Age: 60}
		recs = append(recs, u)
		want = append(want, u.UID)
	}
	if _, err := b.users(t, schema.Strict).PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	gets := &dataGets{Client: b.c, table: b.data}
	r := b.usersOver(t, gets, schema.Strict, dao.WithBatchSize(batch))
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	x, err := r.Index(seeds.TestTableIndexName)
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&seeds.User{Province: provinces[1], Age: 60}, "province", "age")
	got, pages := pageUIDs(ctx, t, x, q, size)
	if !slices.Equal(got, want) {
		t.Fatalf("pages of %d: got %v, want %v", size, got, want)
	}
	// Each page reads its records' data rows and at most one chunk more.
	if n := gets.n.Load(); n == 0 || n > users+int64(pages*batch) {
		t.Fatalf("%d pages read %d data rows, want at most %d", pages, n, users+pages*batch)
	}
}

// TestInvertedFindAfter: FindAfter skips the cells of its row up to the
// given one, whether the ranges start at that row (read from the next cell
// on) or before it (the earlier rows read too).
func TestInvertedFindAfter(t *testing.T) {
	ctx := context.Background()
	b := newFakeUsers(t)
	var recs []*seeds.User
	for _, u := range []struct {
		uid string
		age int64
	}{{"a", 61}, {"b", 62}, {"c", 62}, {"d", 62}, {"e", 63}} {
		recs = append(recs, &seeds.User{UID: u.uid, Province: provinces[2], Age: u.age})
	}
	if _, err := b.users(t, schema.Strict).PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.New(b.c, tbl, index.Config{})
	if err != nil {
		t.Fatal(err)
	}
	row := []byte(provinces[2] + "_62")
	for _, tc := range []struct {
		name  string
		start []byte
		want  []string
	}{
		{"from the row", row, []string{"d", "e"}},
		{"from before the row", []byte(provinces[2] + "_61"), []string{"a", "d", "e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			stop := []byte(provinces[2] + "_64")
			err := x.FindAfter(ctx, seeds.TestTableIndexName, []keys.KeyRange{{Start: tc.start, Stop: stop}}, row, []byte("c"), 0, func(_ []byte, u *seeds.User) bool {
				got = append(got, u.UID)
				return true
			})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("FindAfter: %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
