package dao_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// Issue 33 item 9: each error names its cause and the fix.

// An index whose entries do not carry the data row key passes schema.New
// (a schema may be declared for reading alone) and is refused by dao.New
// with an error naming the index and the field that fixes it.
func TestIndexWithoutRowKeyNamesTheFix(t *testing.T) {
	key, err := keys.NewLayout(keys.String("device", func(r *reading) string { return r.Device }, func(r *reading, v string) { r.Device = v }))
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(
		keys.Date("day", func(r *reading) time.Time { return r.At }, nil),
		keys.String("device", func(r *reading) string { return r.Device }, nil))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[reading]{
		Name: "sensors", Families: []schema.Family{{Name: "d"}}, Key: key,
		Columns: []schema.Column[reading]{
			schema.TimeColumn("at", "d", "at", func(r *reading) time.Time { return r.At }, func(r *reading, v time.Time) { r.At = v }),
		},
		Indexes: []schema.IndexSpec[reading]{{Name: "sensors_by_day", Families: []schema.Family{{Name: "i"}}, Key: ixKey, From: map[string]string{"day": "at"}}},
	})
	if err != nil {
		t.Fatalf("schema.New: %v", err)
	}
	_, err = dao.New(newFake(t), tbl)
	if !errors.Is(err, index.ErrUnsupportedSchema) {
		t.Fatalf("dao.New = %v, want ErrUnsupportedSchema", err)
	}
	for _, want := range []string{"sensors_by_day", "IndexSpec.RowKeyQualifier", "IndexSpec.Qualifier"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("dao.New error %q does not name %q", err, want)
		}
	}
}

// Check with a mode that is not one names the modes there are.
func TestCheckModeZeroNamesTheModes(t *testing.T) {
	f := newFake(t)
	tbl := readingsTable(t, schema.Strict)
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []index.Mode{0, 4} {
		_, err := r.Check(context.Background(), mode)
		if !errors.Is(err, index.ErrInvalidOption) {
			t.Fatalf("Check(mode %d) = %v, want ErrInvalidOption", mode, err)
		}
		for _, want := range []string{"index.ModeVerify", "index.ModeRepair", "index.ModeRebuild"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Check(mode %d) error %q does not name %s", mode, err, want)
			}
		}
	}
}

// checkCancelledReads reads an index of many ranges (read by parallel
// scans) with a context already cancelled, and with one cancelled during
// the read: Find, Page and Count each fail once, saying the context
// stopped them, with context.Canceled once in the message.
func checkCancelledReads(t *testing.T, r *dao.Repo[reading]) {
	t.Helper()
	ctx := context.Background()
	var recs []*reading
	var qs []dao.Query[reading]
	day := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 12 {
		at := day.AddDate(0, 0, i)
		recs = append(recs, &reading{Device: "dev-1", ID: uint64(i + 1), At: at})
		qs = append(qs, dao.Eq(&reading{At: at}, "day"))
	}
	if _, err := r.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	x, err := r.Index("readings_by_day")
	if err != nil {
		t.Fatal(err)
	}
	var ranges []keys.KeyRange
	for _, q := range qs {
		lo, hi, err := x.Schema().Key().Range(q.Lo, q.Hi, 1)
		if err != nil {
			t.Fatal(err)
		}
		ranges = append(ranges, keys.KeyRange{Start: lo, Stop: hi})
	}
	many := dao.Query[reading]{Ranges: ranges}
	once := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s = %v, want context.Canceled", what, err)
		}
		msg := err.Error()
		if n := strings.Count(msg, context.Canceled.Error()); n != 1 {
			t.Errorf("%s: %q says %q %d times, want once", what, msg, context.Canceled, n)
		}
		if !strings.Contains(msg, "stopped by its context") {
			t.Errorf("%s: %q does not say the context stopped the read", what, msg)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	var errs []error
	for _, err := range x.Find(cancelled, many) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("cancelled Find yielded %d errors (%v), want 1", len(errs), errs)
	}
	once("cancelled Find", errs[0])
	_, _, err = x.Page(cancelled, many, 5)
	once("cancelled Page", err)
	_, err = x.Count(cancelled, many, "day")
	once("cancelled Count", err)
	_, err = x.CountRanges(cancelled, qs, "")
	once("cancelled CountRanges", err)
	errs = nil
	for _, err := range x.Keys(cancelled, many) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("cancelled Keys yielded %d errors (%v), want 1", len(errs), errs)
	}
	once("cancelled Keys", errs[0])

	during, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	errs = nil
	for v, err := range x.Find(during, many) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n++; n == 2 {
			cancel()
		}
		_ = v
	}
	if len(errs) != 1 {
		t.Fatalf("Find cancelled during the read yielded %d errors (%v), want 1", len(errs), errs)
	}
	once("Find cancelled during the read", errs[0])
}

func TestCancelledReadsSaySoOnce(t *testing.T) {
	f := newFake(t)
	tbl := readingsTable(t, schema.Strict)
	createTables(t, f, tbl)
	r, err := dao.New(f, tbl)
	if err != nil {
		t.Fatal(err)
	}
	checkCancelledReads(t, r)
}
