package dao_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// wideKey is the key of a LogDataWide record in the brute-force model.
type wideKey struct {
	host, event string
	ms          int64
}

// wideModel is what the table should hold: every record written and not
// deleted since, by key.
type wideModel map[wideKey]string

func (m wideModel) put(e *seeds.UIDLogEvent) {
	m[wideKey{e.Host, e.Event, e.At.UnixMilli()}] = e.Message
}

func (m wideModel) del(e *seeds.UIDLogEvent) { delete(m, wideKey{e.Host, e.Event, e.At.UnixMilli()}) }

// series returns the model's records of one host and event in [from, to],
// in time order: the brute-force answer of a time-range read.
func (m wideModel) series(host, event string, from, to int64) []wideKey {
	var out []wideKey
	for k := range m {
		if k.host == host && k.event == event && k.ms >= from && k.ms <= to {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b wideKey) int { return cmp.Compare(a.ms, b.ms) })
	return out
}

func wideEvent(host, event string, ms int64, msg string) *seeds.UIDLogEvent {
	return &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: host, Event: event, At: time.UnixMilli(ms).UTC(), Message: msg}}
}

var (
	wideHosts  = []string{"web01.example.com", "db02.example.com", "a"}
	wideEvents = []string{"login", "com.package1.ImportantService"}
	// wideStart lies inside a five-minute range, so that ranges are cut.
	wideStart = time.Date(2017, 8, 22, 6, 22, 34, 0, time.UTC).UnixMilli()
)

// runWideScenario writes, replaces and deletes records through w, in
// single calls and batches, and checks every read against the brute-force
// model: Get, time-range Scans of random series and bounds (across range
// boundaries and rows), Counts and CountRow. It runs on the fake and on
// HBase.
func runWideScenario(t *testing.T, w *dao.Wide[seeds.UIDLogEvent], n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := rand.New(rand.NewPCG(18, 4))
	model := wideModel{}
	span := seeds.LogWideSpan.Milliseconds()
	randomEvent := func(i int) *seeds.UIDLogEvent {
		// Three hours from wideStart: 36 ranges per series, a few events
		// in some, many in others.
		ms := wideStart + r.Int64N(36*span)
		if r.IntN(3) == 0 {
			ms = wideStart + r.Int64N(4)*span + []int64{0, 1, span - 1}[r.IntN(3)] // range edges
		}
		return wideEvent(wideHosts[r.IntN(len(wideHosts))], wideEvents[r.IntN(len(wideEvents))], ms, fmt.Sprint("message ", i))
	}

	// Batches, then single puts, some replacing cells of the batches.
	var all []*seeds.UIDLogEvent
	for i := range n {
		all = append(all, randomEvent(i))
	}
	for start := 0; start < len(all); start += 97 {
		chunk := all[start:min(start+97, len(all))]
		if _, err := w.PutBatch(ctx, chunk); err != nil {
			t.Fatal(err)
		}
		for _, e := range chunk {
			model.put(e)
		}
	}
	for i := range n / 10 {
		e := *all[r.IntN(len(all))]
		e.Message = fmt.Sprint("replaced ", i)
		if i%2 == 0 {
			e = *randomEvent(n + i)
		}
		if err := w.Put(ctx, &e); err != nil {
			t.Fatal(err)
		}
		model.put(&e)
	}
	// A batch that writes one key twice: the later record wins.
	twice := []*seeds.UIDLogEvent{wideEvent("a", "login", wideStart+7, "first"), wideEvent("a", "login", wideStart+7, "second")}
	if res, err := w.PutBatch(ctx, twice); err != nil || res[0] != nil || res[1] != nil {
		t.Fatalf("PutBatch of one key twice: %v %v", res, err)
	}
	model.put(twice[1])

	// Deletes: single, batched, of missing records too, then a record
	// written again after its delete.
	var dels []*seeds.UIDLogEvent
	for range n / 8 {
		e := all[r.IntN(len(all))]
		dels = append(dels, &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: e.Host, Event: e.Event, At: e.At}})
	}
	if err := w.Delete(ctx, dels[0]); err != nil {
		t.Fatal(err)
	}
	model.del(dels[0])
	if _, err := w.DeleteBatch(ctx, append(dels[1:], wideEvent("a", "login", wideStart-1, ""))); err != nil {
		t.Fatal(err)
	}
	for _, e := range dels {
		model.del(e)
	}
	again := wideEvent(dels[0].Host, dels[0].Event, dels[0].At.UnixMilli(), "written again")
	if err := w.Put(ctx, again); err != nil {
		t.Fatal(err)
	}
	model.put(again)

	// Get of every key the test touched.
	for _, e := range append(all, dels...) {
		got, ok, err := w.Get(ctx, &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: e.Host, Event: e.Event, At: e.At}})
		if err != nil {
			t.Fatal(err)
		}
		want, in := model[wideKey{e.Host, e.Event, e.At.UnixMilli()}]
		if ok != in || ok && (got.Message != want || !got.At.Equal(e.At) || got.Host != e.Host || got.Event != e.Event) {
			t.Fatalf("Get %s/%s/%d = %+v, %t; want %q, %t", e.Host, e.Event, e.At.UnixMilli(), got, ok, want, in)
		}
	}

	// Time-range reads equal the brute-force answer, in time order.
	seen := 0
	checkRange := func(host, event string, from, to int64, limit int) {
		t.Helper()
		want := model.series(host, event, from, to)
		if limit > 0 && len(want) > limit {
			want = want[:limit]
		}
		q := dao.WideQuery[seeds.UIDLogEvent]{
			From:  wideEvent(host, event, from, ""),
			To:    wideEvent(host, event, to, ""),
			Limit: limit,
		}
		if r.IntN(2) == 0 {
			q.From, q.To = q.To, q.From // the order of the bounds does not matter
		}
		var got []wideKey
		for e, err := range w.Scan(ctx, q) {
			if err != nil {
				t.Fatal(err)
			}
			k := wideKey{e.Host, e.Event, e.At.UnixMilli()}
			if e.Message != model[k] {
				t.Fatalf("%v: message %q, want %q", k, e.Message, model[k])
			}
			got = append(got, k)
		}
		seen += len(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Scan %s/%s [%d, %d] limit %d: got %d records, want %d\n got %v\nwant %v", host, event, from, to, limit, len(got), len(want), got, want)
		}
		// Per-row counts equal the brute-force counts of the same records
		// grouped by range.
		wantCounts := map[int64]int{}
		var bases []int64
		for _, k := range model.series(host, event, from, to) {
			b := k.ms - ((k.ms%span)+span)%span
			if wantCounts[b] == 0 {
				bases = append(bases, b)
			}
			wantCounts[b]++
		}
		var gotBases []int64
		for rc, err := range w.Counts(ctx, dao.WideQuery[seeds.UIDLogEvent]{From: q.From, To: q.To}) {
			if err != nil {
				t.Fatal(err)
			}
			b := rc.Row.At.UnixMilli()
			if rc.Row.Host != host || rc.Row.Event != event || rc.Columns != wantCounts[b] {
				t.Fatalf("Counts %s/%s [%d, %d]: row %s/%s/%d has %d columns, want %s/%s %d",
					host, event, from, to, rc.Row.Host, rc.Row.Event, b, rc.Columns, host, event, wantCounts[b])
			}
			gotBases = append(gotBases, b)
		}
		if !slices.Equal(gotBases, bases) {
			t.Fatalf("Counts %s/%s [%d, %d]: rows %v, want %v", host, event, from, to, gotBases, bases)
		}
	}
	for i := range 60 {
		host, event := wideHosts[i%len(wideHosts)], wideEvents[(i/3)%len(wideEvents)]
		from := wideStart - span + r.Int64N(40*span)
		to := from + r.Int64N(8*span)
		limit := 0
		if i%7 == 0 {
			limit = 1 + r.IntN(5)
		}
		checkRange(host, event, from, to, limit)
	}
	checkRange("a", "login", wideStart-span, wideStart+40*span, 0)             // the whole series
	checkRange("a", "login", wideStart+7, wideStart+7, 0)                      // one instant
	checkRange("nobody", "login", wideStart, wideStart+span, 0)                // a host without id
	checkRange(wideHosts[0], wideEvents[1], wideStart+span, wideStart+span, 0) // a range start

	if seen < n/4 {
		t.Fatalf("the range reads returned %d records in all: too few to tell", seen)
	}
	t.Logf("%d records written, %d left, %d returned by %d range reads", n, len(model), seen, 64)

	// CountRow equals the model's events of the record's series and range.
	for _, e := range all[:20] {
		b := e.At.UnixMilli() - ((e.At.UnixMilli()%span)+span)%span
		want := len(model.series(e.Host, e.Event, b, b+span-1))
		got, err := w.CountRow(ctx, &seeds.UIDLogEvent{LogEvent: seeds.LogEvent{Host: e.Host, Event: e.Event, At: e.At}})
		if err != nil || got != want {
			t.Fatalf("CountRow %s/%s/%d = %d, %v; want %d", e.Host, e.Event, b, got, err, want)
		}
	}
}

func newWideStore(t *testing.T, c dao.Client, u *dao.UIDs, opts ...dao.Option) *dao.Wide[seeds.UIDLogEvent] {
	t.Helper()
	tbl, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	w, err := dao.NewWide(c, tbl, append(opts, dao.WithUIDs(u))...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWide(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	w := newWideStore(t, f, u, dao.WithBatchSize(7)) // several Batch calls, several Results per row
	createTable(t, f, w.Table())
	runWideScenario(t, w, 600)

	// Every row key is 14 bytes and every qualifier 3.
	for _, k := range rawKeys(t, f, seeds.LogDataWideName) {
		if len(k) != 14 {
			t.Errorf("row key %x is %d bytes, want 14", k, len(k))
		}
	}
}

// A batch of puts sends one Put per row, all in one Batch call.
func TestWidePutBatchGroupsRows(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	c := &recordingClient{Client: f}
	w := newWideStore(t, c, u)
	createTable(t, f, w.Table())
	ctx := context.Background()
	recs := []*seeds.UIDLogEvent{
		wideEvent("a", "login", wideStart, "1"),
		wideEvent("a", "login", wideStart+1, "2"),
		wideEvent("a", "other", wideStart, "3"),
		wideEvent("a", "login", wideStart+2, "4"),
		wideEvent("a", "login", wideStart+seeds.LogWideSpan.Milliseconds(), "5"),
	}
	if _, err := w.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if len(c.batches) != 1 {
		t.Fatalf("%d Batch calls, want 1", len(c.batches))
	}
	var cells []int
	for _, a := range c.batches[0] {
		p := a.(*hbase.Put)
		cells = append(cells, len(p.Values["l"]))
	}
	if !slices.Equal(cells, []int{3, 1, 1}) {
		t.Errorf("cells per Put %v, want [3 1 1]", cells)
	}
}

type recordingClient struct {
	dao.Client
	batches [][]hbase.Action
}

func (c *recordingClient) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	c.batches = append(c.batches, actions)
	return c.Client.Batch(ctx, actions)
}

// failingRows fails the Batch actions of rows a test picks.
type failingRows struct {
	dao.Client
	fail func(row []byte) bool
}

var errRowDown = errors.New("region down")

func (c failingRows) Batch(ctx context.Context, actions []hbase.Action) ([]hbase.BatchResult, error) {
	var keep []hbase.Action
	var at []int
	var failed []hbase.ActionError
	out := make([]hbase.BatchResult, len(actions))
	for i, a := range actions {
		if c.fail(a.(*hbase.Put).Row) {
			out[i].Err = errRowDown
			failed = append(failed, hbase.ActionError{Index: i, Action: a, Err: errRowDown})
			continue
		}
		keep = append(keep, a)
		at = append(at, i)
	}
	res, err := c.Client.Batch(ctx, keep)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i] = res[j]
	}
	if len(failed) > 0 {
		// As hbase.DataClient.Batch does: the results are valid, and
		// the error lists the actions that failed.
		return out, &hbase.BatchError{Failed: failed}
	}
	return out, nil
}

func TestWideBatchErrors(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	tbl, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, tbl)
	first := wideEvent("a", "login", wideStart, "x")
	var firstRow schema.WideCell
	w := newWideStore(t, failingRows{Client: f, fail: func(row []byte) bool { return string(row) == string(firstRow.Row) }}, u)

	t.Run("invalid records reject the batch", func(t *testing.T) {
		res, err := w.PutBatch(ctx, []*seeds.UIDLogEvent{first, nil, wideEvent("", "login", wideStart, "no host")})
		var be *dao.BatchError
		if !errors.As(err, &be) || !be.Rejected || !slices.Equal(be.Indexes(), []int{1, 2}) {
			t.Fatalf("got %v, want a rejected *BatchError of records 1 and 2", err)
		}
		if !errors.Is(res[0], dao.ErrNotAttempted) || !errors.Is(res[1], dao.ErrInvalidRecord) || !errors.Is(res[2], dao.ErrInvalidRecord) {
			t.Errorf("results %v", res)
		}
		if _, ok, err := w.Get(ctx, first); ok || err != nil {
			t.Errorf("a rejected batch wrote a record: %t %v", ok, err)
		}
	})
	t.Run("a failed row fails each of its records once", func(t *testing.T) {
		if err := tbl.EncodeKey(&firstRow, first); err != nil {
			t.Fatal(err)
		}
		recs := []*seeds.UIDLogEvent{first, wideEvent("a", "other", wideStart, "y"), wideEvent("a", "login", wideStart+1, "z")}
		res, err := w.PutBatch(ctx, recs)
		var be *dao.BatchError
		if !errors.As(err, &be) || be.Rejected || !slices.Equal(be.Indexes(), []int{0, 2}) || !errors.Is(err, errRowDown) {
			t.Fatalf("got %v, want a *BatchError of records 0 and 2 wrapping the row's error", err)
		}
		if res[1] != nil {
			t.Errorf("record 1 of another row: %v", res[1])
		}
		if got, ok, err := w.Get(ctx, recs[1]); !ok || err != nil || got.Message != "y" {
			t.Errorf("record of the good row: %+v %t %v", got, ok, err)
		}
	})
}

func TestNewWideOptions(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.LogDataWide()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []dao.Option
	}{
		{"no UID table", nil},
		{"index protocol option", []dao.Option{dao.WithUIDs(u), dao.WithMaxAttempts(3)}},
		{"unindexed writes", []dao.Option{dao.WithUIDs(u), dao.WithUnindexedWrites()}},
		{"another table's name", []dao.Option{dao.WithUIDs(u), dao.WithTableNames(map[string]string{"sms": "x"})}},
		{"nil option", []dao.Option{dao.WithUIDs(u), nil}},
		{"bad batch size", []dao.Option{dao.WithUIDs(u), dao.WithBatchSize(0)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := dao.NewWide(f, tbl, tt.opts...); !errors.Is(err, dao.ErrInvalidOption) {
				t.Errorf("got %v, want ErrInvalidOption", err)
			}
		})
	}
	w, err := dao.NewWide(f, tbl, dao.WithUIDs(u), dao.WithNamespace("logs"))
	if err != nil || w.Name() != "logs:log_data_wide" || w.Tables()[0].Name().String() != "logs:log_data_wide" {
		t.Errorf("namespace: %v, %v", w, err)
	}
}

func TestWideQueryErrors(t *testing.T) {
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	w := newWideStore(t, f, u)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		q    dao.WideQuery[seeds.UIDLogEvent]
	}{
		{"no bounds", dao.WideQuery[seeds.UIDLogEvent]{}},
		{"no upper bound", dao.WideQuery[seeds.UIDLogEvent]{From: wideEvent("a", "b", 0, "")}},
		{"negative limit", dao.WideQuery[seeds.UIDLogEvent]{From: wideEvent("a", "b", 0, ""), To: wideEvent("a", "b", 1, ""), Limit: -1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range w.Scan(ctx, tt.q) {
				if !errors.Is(err, dao.ErrInvalidQuery) {
					t.Errorf("Scan: got %v, want ErrInvalidQuery", err)
				}
			}
			for _, err := range w.Counts(ctx, tt.q) {
				if !errors.Is(err, dao.ErrInvalidQuery) {
					t.Errorf("Counts: got %v, want ErrInvalidQuery", err)
				}
			}
		})
	}
}

// Writes of the wide store get spans named "{op} {table}", errors marked.
func TestWideSpans(t *testing.T) {
	ctx := context.Background()
	f := newFake(t)
	u, err := dao.NewUIDs(f, seeds.LogTypesName, logKinds)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, f, u.Table())
	rec := tracetest.NewSpanRecorder()
	w := newWideStore(t, f, u, dao.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))))
	createTable(t, f, w.Table())
	e := wideEvent("a", "login", wideStart, "m")
	if err := w.Put(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PutBatch(ctx, []*seeds.UIDLogEvent{e}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DeleteBatch(ctx, []*seeds.UIDLogEvent{e}); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := w.Put(ctx, wideEvent("", "login", 0, "")); !errors.Is(err, dao.ErrInvalidRecord) {
		t.Fatalf("a record without host: got %v, want ErrInvalidRecord", err)
	}
	var names []string
	for _, sp := range rec.Ended() {
		names = append(names, sp.Name()+" "+sp.Status().Code.String())
	}
	want := []string{"put log_data_wide Unset", "put log_data_wide Unset", "delete log_data_wide Unset", "delete log_data_wide Unset", "put log_data_wide Error"}
	if !slices.Equal(names, want) {
		t.Errorf("spans %v, want %v", names, want)
	}
}
