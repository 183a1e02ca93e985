package dao_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Parcel is the record of the index-state tests: parcels of a colour.
type Parcel struct {
	ID    string
	Color string
	Qty   int64
}

// parcelsTable declares the parcels table, keyed [md5(id) 2 hex][id] and
// split into 4 regions, with (withIndex) an index keyed [color][id].
func parcelsTable(withIndex bool) (*schema.Table[Parcel], error) {
	id := keys.String("id", func(p *Parcel) string { return p.ID }, func(p *Parcel, v string) { p.ID = v })
	key, err := keys.NewLayout(keys.MD5Hex("id_md5", 2, func(p *Parcel) string { return p.ID }), id)
	if err != nil {
		return nil, err
	}
	byColor, err := keys.NewLayout(keys.String("color", func(p *Parcel) string { return p.Color }, func(p *Parcel, v string) { p.Color = v }), id)
	if err != nil {
		return nil, err
	}
	fams := []schema.Family{{Name: "f"}}
	spec := schema.Spec[Parcel]{
		Name: "parcels", Families: fams, Key: key, Splits: schema.Splits{Regions: 4},
		Columns: []schema.Column[Parcel]{
			schema.StringColumn("color", "f", "c", func(p *Parcel) string { return p.Color }, func(p *Parcel, v string) { p.Color = v }),
			schema.Int64Column("qty", "f", "q", func(p *Parcel) int64 { return p.Qty }, func(p *Parcel, v int64) { p.Qty = v }),
		},
	}
	if withIndex {
		spec.Indexes = []schema.IndexSpec[Parcel]{{Name: "parcels_by_color", Families: fams, Key: byColor, RowKeyQualifier: "row"}}
	}
	return schema.New(spec)
}

// stateClient is what the scenario needs: data calls and DDL.
type stateClient interface {
	dao.Client
	admin.Client
	admin.RowScanner
}

// buildScenario is item 2 of issue 33, end to end: a parcels table holding
// rows gains an index; EnsureTables says it needs building; reads refuse
// it with ErrIndexBuilding (in this store and in another one); BuildIndex
// runs while a writer keeps writing; then reads answer every record and
// Check is clean. names maps the declared tables to the cluster's.
func buildScenario(t *testing.T, c stateClient, names map[string]string) {
	ctx := context.Background()
	plain, err := parcelsTable(false)
	if err != nil {
		t.Fatal(err)
	}
	full, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	// The application before the index: rows without entries.
	old, err := dao.New(c, plain, dao.WithTableNames(map[string]string{"parcels": names["parcels"]}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.EnsureTables(ctx, old.Tables()...); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // id -> colour, as written
	colors := []string{"red", "green", "blue"}
	for i := range 30 {
		p := &Parcel{ID: fmt.Sprintf("p%02d", i), Color: colors[i%3], Qty: int64(i)}
		if err := old.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		want[p.ID] = p.Color
	}

	// The index is added: its table is created, building.
	repo, err := dao.New(c, full, dao.WithTableNames(names), dao.WithBatchSize(8)) // a build of several batches
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.EnsureTables(ctx, repo.Tables()...)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomesOf(res); !slices.Equal(got, []admin.Outcome{admin.Unchanged, admin.NeedsBuilding}) {
		t.Fatalf("EnsureTables over a table with rows = %v, want [unchanged needs building]", got)
	}
	if st, err := repo.IndexState(ctx, "parcels_by_color"); err != nil || st != schema.IndexBuilding {
		t.Fatalf("IndexState = %q, %v; want building", st, err)
	}
	other, err := dao.New(c, full, dao.WithTableNames(names)) // another process
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*dao.Repo[Parcel]{repo, other} {
		wantRefused(t, ctx, r, names["parcels_by_color"])
	}
	incomplete, err := dao.New(c, full, dao.WithTableNames(names), dao.WithIncompleteIndexReads())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := reds(ctx, incomplete); err != nil || len(got) != 0 {
		t.Errorf("incomplete read before the build = %v, %v; want no record and no error", got, err)
	}

	buildWhileWriting(t, ctx, repo, want)
	checkAfterBuild(t, ctx, a, repo, other, want)
}

// buildWhileWriting runs BuildIndex while a writer keeps writing to repo,
// new red parcels and recoloured old ones, recording them in want; the
// writer gets a few writes in between every batch of the build.
func buildWhileWriting(t *testing.T, ctx context.Context, repo *dao.Repo[Parcel], want map[string]string) {
	colors := []string{"red", "green", "blue"}
	var mu sync.Mutex
	writes, started, stop := atomic.Int64{}, make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var writerDone atomic.Bool
	go func() {
		defer wg.Done()
		defer writerDone.Store(true)
		for i := 0; ; i++ {
			p := &Parcel{ID: fmt.Sprintf("w%03d", i), Color: "red", Qty: int64(i)}
			if i%2 == 1 {
				p = &Parcel{ID: fmt.Sprintf("p%02d", i%30), Color: colors[(i/30+i)%3], Qty: int64(i)}
			}
			if err := repo.Put(ctx, p); err != nil {
				t.Errorf("writer: %v", err)
				return
			}
			mu.Lock()
			want[p.ID] = p.Color
			mu.Unlock()
			if writes.Add(1) == 1 {
				close(started)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	<-started
	progress := 0
	rep, err := repo.BuildIndex(ctx, "parcels_by_color", index.WithProgress(func(index.Progress) {
		progress++
		for at := writes.Load(); writes.Load() < at+3 && !writerDone.Load(); {
			runtime.Gosched()
		}
	}))
	during := writes.Load()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("BuildIndex: %v (report %+v)", err, rep)
	}
	t.Logf("build: %+v, %d progress reports, %d writes before it returned, %d in all", rep, progress, during, writes.Load())
	if progress == 0 || rep.Missing == 0 {
		t.Errorf("build reported %d progress calls and %d missing entries; want both > 0", progress, rep.Missing)
	}
	if err := repo.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkAfterBuild checks that the index is active and that both stores
// answer every red parcel of want, and Check finds nothing amiss.
func checkAfterBuild(t *testing.T, ctx context.Context, a *admin.Admin, repo, other *dao.Repo[Parcel], want map[string]string) {
	if st, err := other.IndexState(ctx, "parcels_by_color"); err != nil || st != schema.IndexActive {
		t.Fatalf("IndexState after the build = %q, %v; want active", st, err)
	}
	res, err := a.EnsureTables(ctx, repo.Tables()...)
	if err != nil || !slices.Equal(outcomesOf(res), []admin.Outcome{admin.Unchanged, admin.Unchanged}) {
		t.Errorf("EnsureTables after the build = %v, %v; want [unchanged unchanged]", outcomesOf(res), err)
	}
	var wantRed []string
	for id, color := range want {
		if color == "red" {
			wantRed = append(wantRed, id)
		}
	}
	slices.Sort(wantRed)
	for name, r := range map[string]*dao.Repo[Parcel]{"builder": repo, "other": other} {
		got, err := reds(ctx, r)
		if err != nil || !slices.Equal(got, wantRed) {
			t.Errorf("%s: Find(color=red) = %v, %v; want %v", name, got, err, wantRed)
		}
		x, _ := r.Index("parcels_by_color")
		n, err := x.Count(ctx, dao.Eq(&Parcel{Color: "red"}, "color"), "")
		if err != nil || n[""] != int64(len(wantRed)) {
			t.Errorf("%s: Count(color=red) = %v, %v; want %d", name, n, err, len(wantRed))
		}
	}
	chk, err := repo.Check(ctx, index.ModeVerify)
	if err != nil || !chk.Clean() || chk.DataRows != int64(len(want)) {
		t.Errorf("Check after the build = %+v, %v; want clean over %d rows", chk, err, len(want))
	}
}

// wantRefused checks that every read through the parcels index of r is
// refused with ErrIndexBuilding naming the index table.
func wantRefused(t *testing.T, ctx context.Context, r *dao.Repo[Parcel], table string) {
	t.Helper()
	x, err := r.Index("parcels_by_color")
	if err != nil {
		t.Fatal(err)
	}
	q := dao.Eq(&Parcel{Color: "red"}, "color")
	_, findErr := reds(ctx, r)
	_, _, pageErr := x.Page(ctx, q, 10)
	_, countErr := x.Count(ctx, q, "")
	for what, err := range map[string]error{"Find": findErr, "Page": pageErr, "Count": countErr} {
		var be *index.BuildingError
		if !errors.Is(err, dao.ErrIndexBuilding) || !errors.As(err, &be) || be.Index != table {
			t.Errorf("%s on a building index = %v, want ErrIndexBuilding naming %s", what, err, table)
		}
	}
}

// reds returns the ids of the red parcels, through the index, sorted.
func reds(ctx context.Context, r *dao.Repo[Parcel]) ([]string, error) {
	x, err := r.Index("parcels_by_color")
	if err != nil {
		return nil, err
	}
	var out []string
	for p, err := range x.Find(ctx, dao.Eq(&Parcel{Color: "red"}, "color")) {
		if err != nil {
			return out, err
		}
		out = append(out, p.ID)
	}
	slices.Sort(out)
	return out, nil
}

func outcomesOf(rs []admin.TableResult) []admin.Outcome {
	out := make([]admin.Outcome, len(rs))
	for i, r := range rs {
		out[i] = r.Outcome
	}
	return out
}

// TestIndexBuildOverRows runs the scenario on the fake.
func TestIndexBuildOverRows(t *testing.T) {
	buildScenario(t, newFake(t), map[string]string{"parcels": "parcels", "parcels_by_color": "parcels_by_color"})
}

// A new index of an empty data table starts active: reads answer at once.
func TestIndexOfEmptyTableStartsActive(t *testing.T) {
	ctx := context.Background()
	c := newFake(t)
	full, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := dao.New(c, full)
	if err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.EnsureTables(ctx, repo.Tables()...)
	if err != nil || !slices.Equal(outcomesOf(res), []admin.Outcome{admin.Created, admin.Created}) {
		t.Fatalf("EnsureTables = %v, %v; want [created created]", outcomesOf(res), err)
	}
	if err := repo.Put(ctx, &Parcel{ID: "a", Color: "red"}); err != nil {
		t.Fatal(err)
	}
	if got, err := reds(ctx, repo); err != nil || !slices.Equal(got, []string{"a"}) {
		t.Errorf("Find = %v, %v; want [a]", got, err)
	}
}

// refusingDescribe is a client that refuses DescribeTable, as the gohbase
// adapter does.
type refusingDescribe struct{ *fake.Client }

func (refusingDescribe) DescribeTable(context.Context, string) (hbase.TableDescriptor, error) {
	return hbase.TableDescriptor{}, fmt.Errorf("describe table: %w", errors.ErrUnsupported)
}

// Over a client that cannot read descriptors, readers cannot know the
// state and answer as before; BuildIndex says it cannot mark the index.
func TestIndexStateOverClientWithoutDescribe(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	full, err := parcelsTable(true)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, full)
	if err := f.Put(ctx, &hbase.Put{Table: "parcels", Row: []byte("xxp1"), Values: map[string]map[string][]byte{"f": {"c": []byte("red")}}}); err != nil {
		t.Fatal(err)
	}
	a, err := admin.New(f)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := a.EnsureTable(ctx, full.Indexes()[0]); err != nil || o != admin.NeedsBuilding {
		t.Fatalf("EnsureTable = %v, %v; want needs building", o, err)
	}
	repo, err := dao.New(refusingDescribe{f}, full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reds(ctx, repo); err != nil {
		t.Errorf("Find over a client without DescribeTable = %v, want an answer", err)
	}
	if _, err := repo.BuildIndex(ctx, ""); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("BuildIndex over a client without DescribeTable = %v, want ErrUnsupported", err)
	}
}
