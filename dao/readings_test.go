package dao_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/index"
	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

// reading is a sensor reading: a schema of a user's own, with a time that
// is a column in the data table and a day and a clock in the index key.
type reading struct {
	Device  string
	ID      uint64
	At      time.Time
	Celsius float64
}

// readingsTable declares the readings of a device: data key device + id,
// the time a TimeColumn, and an index by day, reversed clock, device and
// id whose getters hand the keys the time as the caller stamped it, in
// whatever zone that is (no .UTC() anywhere).
func readingsTable(t testing.TB, mode schema.WriteMode) *schema.Table[reading] {
	t.Helper()
	return readingsTableIn(t, mode, nil)
}

// readingsTableIn is readingsTable with the day and the clock in the
// calendar of loc (keys.DateIn, keys.TimeOfDayIn); nil means UTC (keys.Date,
// keys.TimeOfDay).
func readingsTableIn(t testing.TB, mode schema.WriteMode, loc *time.Location) *schema.Table[reading] {
	t.Helper()
	day := keys.Date("day", func(r *reading) time.Time { return r.At }, nil)
	clock := func(r *reading) time.Duration { return keys.TimeOfDay(r.At) }
	if loc != nil {
		day = keys.DateIn("day", loc, func(r *reading) time.Time { return r.At }, nil)
		clock = func(r *reading) time.Duration { return keys.TimeOfDayIn(r.At, loc) }
	}
	device := func() keys.Field[reading] {
		return keys.String("device", func(r *reading) string { return r.Device }, func(r *reading, v string) { r.Device = v })
	}
	id := func() keys.Field[reading] {
		return keys.Uint64("id", func(r *reading) uint64 { return r.ID }, func(r *reading, v uint64) { r.ID = v })
	}
	key, err := keys.NewLayout(device(), id())
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(day, keys.ReversedTimeOfDay("clock", clock, nil), device(), id())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[reading]{
		Name:     "readings",
		Families: []schema.Family{{Name: "d"}},
		Key:      key,
		Columns: []schema.Column[reading]{
			schema.TimeColumn("at", "d", "at", func(r *reading) time.Time { return r.At }, func(r *reading, v time.Time) { r.At = v }),
			schema.Float64Column("celsius", "d", "c", func(r *reading) float64 { return r.Celsius }, func(r *reading, v float64) { r.Celsius = v }),
		},
		Indexes: []schema.IndexSpec[reading]{{
			Name:            "readings_by_day",
			Families:        []schema.Family{{Name: "i"}},
			Key:             ixKey,
			From:            map[string]string{"day": "at", "clock": "at"},
			RowKeyQualifier: "row",
		}},
		Writes: mode,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// zoneCase is a zone and readings stamped in it at hours when its date and
// the UTC date differ.
type zoneCase struct {
	zone  string
	local bool // the process's zone (time.Local) rather than a time built in the zone
	at    []time.Time
}

// zoneCases returns, for zones east (Asia/Shanghai, Pacific/Auckland) and
// west (America/Los_Angeles) of UTC, five readings at hours when the local
// date is not the UTC date, both as times built in the zone and as times of
// the process's zone.
func zoneCases(t testing.TB) []zoneCase {
	t.Helper()
	hours := map[string][]int{
		"Asia/Shanghai":       {0, 2, 4, 6, 7},      // UTC+8: still the previous day in UTC
		"Pacific/Auckland":    {0, 3, 6, 9, 11},     // UTC+13 in November
		"America/Los_Angeles": {16, 18, 20, 22, 23}, // UTC-8: already the next day in UTC
	}
	var out []zoneCase
	for _, zone := range []string{"Asia/Shanghai", "Pacific/Auckland", "America/Los_Angeles"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		var at []time.Time
		for i, h := range hours[zone] {
			tm := time.Date(2026, 11, 27, h, 7*i, 11*i, 123456789, loc)
			if y, m, d := tm.Date(); tm.UTC().Day() == d && tm.UTC().Month() == m && tm.UTC().Year() == y {
				t.Fatalf("%v: local and UTC dates agree; the case tests nothing", tm)
			}
			at = append(at, tm)
		}
		out = append(out, zoneCase{zone: zone, at: at}, zoneCase{zone: zone, local: true, at: at})
	}
	return out
}

func (zc zoneCase) name() string {
	if zc.local {
		return zc.zone + "/time.Local"
	}
	return zc.zone + "/built in zone"
}

// tzChild names the one case a child process of inZone runs.
const tzChild = "HBKIT_TEST_TZ_CASE"

// inZone runs fn with the case's times. A case of the process's zone runs
// in a child process of the test binary started with TZ set to the zone,
// so that time.Local is that zone from the start: assigning time.Local in
// the test would race with every goroutine reading it (the race detector
// says so). The child runs the same test and skips every case but this
// one.
func (zc zoneCase) inZone(t *testing.T, fn func(at []time.Time)) {
	t.Helper()
	switch child := os.Getenv(tzChild); {
	case child != "" && child != t.Name():
		t.Skip("a child process for another case")
	case !zc.local:
		fn(zc.at)
	case child == "":
		runInZone(t, zc.zone)
	default:
		loc, err := time.LoadLocation(zc.zone)
		if err != nil {
			t.Fatal(err)
		}
		at := make([]time.Time, len(zc.at))
		for i, tm := range zc.at {
			at[i] = tm.Local()
			_, off := at[i].Zone()
			if _, want := tm.In(loc).Zone(); off != want {
				t.Fatalf("time.Local is not %s (TZ=%q): %v", zc.zone, os.Getenv("TZ"), at[i])
			}
		}
		fn(at)
	}
}

// runInZone runs the test t in a child process whose zone is zone.
func runInZone(t *testing.T, zone string) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(top)+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TZ="+zone, tzChild+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child process in TZ=%s: %v\n%s", zone, err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" ")) {
		t.Fatalf("the child process in TZ=%s did not run %s:\n%s", zone, t.Name(), out)
	}
}

// checkZoneRoundTrip writes readings stamped at in a store of
// readingsTable and reads each back through the data row and the index:
// Get, Find by its day, Count by device and Check all find every reading,
// as the same instant.
func checkZoneRoundTrip(t *testing.T, r *dao.Repo[reading], at []time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var recs []*reading
	for i, tm := range at {
		recs = append(recs, &reading{Device: fmt.Sprintf("dev-%05d", 350+i%2), ID: uint64(i + 1), At: tm, Celsius: 20 + float64(i)})
	}
	for _, rec := range recs {
		if err := r.Put(ctx, rec); err != nil {
			t.Fatalf("Put(%v): %v", rec.At, err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	x, err := r.Index("readings_by_day")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		got, ok, err := r.Get(ctx, &reading{Device: rec.Device, ID: rec.ID})
		if err != nil || !ok || !got.At.Equal(rec.At.Truncate(time.Millisecond)) {
			t.Errorf("Get(%s, %d) = %+v, %v, %v; want the reading at %v", rec.Device, rec.ID, got, ok, err, rec.At)
		}
		var found []uint64
		for f, err := range x.Find(ctx, dao.Eq(&reading{At: rec.At}, "day")) {
			if err != nil {
				t.Fatalf("Find(day of %v): %v", rec.At, err)
			}
			if f.At.Equal(rec.At.Truncate(time.Millisecond)) {
				found = append(found, f.ID)
			}
		}
		if !slices.Equal(found, []uint64{rec.ID}) {
			t.Errorf("Find(day of %v) found the reading %v times (ids %v), want once", rec.At, len(found), found)
		}
		counts, err := x.Count(ctx, dao.Eq(&reading{At: rec.At}, "day"), "")
		if err != nil || counts[""] < 1 {
			t.Errorf("Count(day of %v) = %v, %v; want at least 1", rec.At, counts, err)
		}
	}
	rep, err := r.Check(ctx, index.ModeVerify)
	if err != nil || !rep.Clean() || rep.DataRows != int64(len(recs)) || rep.Entries != int64(len(recs)) {
		t.Errorf("Check = %+v, %v; want %d rows and entries, clean", rep, err, len(recs))
	}
}

// writeModes are the schema's write modes, each a way the protocol
// derives the entry of a record and checks it against its data row.
var writeModes = []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly, schema.VerifyOnRead}

// TestDeclaredZoneRoundTrip: an index whose day and clock are in a zone
// the segments declare (Asia/Shanghai) finds readings stamped in any zone,
// the process's included, in every write mode; a day's query takes the
// Shanghai date.
func TestDeclaredZoneRoundTrip(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	for _, zc := range zoneCases(t) {
		for _, mode := range writeModes {
			t.Run(zc.name()+"/"+mode.String(), func(t *testing.T) {
				zc.inZone(t, func(at []time.Time) {
					f := newFake(t)
					tbl := readingsTableIn(t, mode, shanghai)
					createTables(t, f, tbl)
					r, err := dao.New(f, tbl)
					if err != nil {
						t.Fatal(err)
					}
					checkZoneRoundTrip(t, r, at)
					checkShanghaiDays(t, r, at, shanghai)
				})
			})
		}
	}
}

// checkShanghaiDays counts the readings at by the day of an index in the
// Shanghai calendar: the counts are keyed by Shanghai dates.
func checkShanghaiDays(t *testing.T, r *dao.Repo[reading], at []time.Time, shanghai *time.Location) {
	t.Helper()
	want := map[string]int64{}
	for _, tm := range at {
		want[tm.In(shanghai).Format(time.DateOnly)]++
	}
	x, err := r.Index("readings_by_day")
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.Count(context.Background(), dao.Query[reading]{}, "day")
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("Count by Shanghai day = %v, %v; want %v", got, err, want)
	}
}

// TestTimeZoneRoundTrip is issue 33 item 1 on the fake: readings stamped in
// a zone east or west of UTC, at hours when its date is not UTC's, are
// found by Get, Find, Count and Check in every write mode, whether the
// time was built in the zone or is the process's local time.
func TestTimeZoneRoundTrip(t *testing.T) {
	for _, zc := range zoneCases(t) {
		for _, mode := range writeModes {
			t.Run(zc.name()+"/"+mode.String(), func(t *testing.T) {
				zc.inZone(t, func(at []time.Time) {
					f := newFake(t)
					tbl := readingsTable(t, mode)
					createTables(t, f, tbl)
					r, err := dao.New(f, tbl)
					if err != nil {
						t.Fatal(err)
					}
					checkZoneRoundTrip(t, r, at)
				})
			})
		}
	}
}

// checkCountByValue writes readings of two devices over two days and counts
// them through the index by each key segment: the counts are keyed by the
// segment's value as text (issue 33 item 4), not by the key's bytes
// ("dev-00354\x00\x01", "20261127").
func checkCountByValue(t *testing.T, r *dao.Repo[reading]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	day := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	recs := []*reading{
		{Device: "dev-00354", ID: 1, At: day},
		{Device: "dev-00354", ID: 2, At: day.Add(time.Hour)},
		{Device: "dev-00354", ID: 3, At: day.AddDate(0, 0, 1)},
		{Device: "dev-00355", ID: 20, At: day.Add(2*time.Hour + 1500*time.Millisecond)},
		{Device: "dev-00355", ID: 21, At: day.AddDate(0, 0, 1)},
	}
	if _, err := r.PutBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	x, err := r.Index("readings_by_day")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		q    dao.Query[reading]
		by   string
		want map[string]int64
	}{
		{dao.Query[reading]{}, "device", map[string]int64{"dev-00354": 3, "dev-00355": 2}},
		{dao.Eq(&reading{At: day}, "day"), "device", map[string]int64{"dev-00354": 2, "dev-00355": 1}},
		{dao.Query[reading]{}, "day", map[string]int64{"2026-11-27": 3, "2026-11-28": 2}},
		{dao.Eq(&reading{At: day}, "day"), "clock", map[string]int64{"09:30:00.000": 1, "10:30:00.000": 1, "11:30:01.500": 1}},
		{dao.Eq(&reading{At: day.AddDate(0, 0, 1)}, "day"), "id", map[string]int64{"3": 1, "21": 1}},
		{dao.Query[reading]{}, "", map[string]int64{"": 5}},
	} {
		got, err := x.Count(ctx, tt.q, tt.by)
		if err != nil || !maps.Equal(got, tt.want) {
			t.Errorf("Count(by %q) = %v, %v; want %v", tt.by, got, err, tt.want)
		}
		if n := got["dev-00354"]; tt.by == "device" && n == 0 {
			t.Errorf(`Count(by "device")["dev-00354"] = 0`)
		}
	}
	days, err := x.CountRanges(ctx, []dao.Query[reading]{dao.Eq(&reading{At: day}, "day"), dao.Eq(&reading{At: day.AddDate(0, 0, 1)}, "day")}, "day")
	if want := map[string]int64{"2026-11-27": 3, "2026-11-28": 2}; err != nil || !maps.Equal(days, want) {
		t.Errorf("CountRanges(by day) = %v, %v; want %v", days, err, want)
	}
}

// TestIndexCountByValue is issue 33 item 4 on the fake, in every write mode.
func TestIndexCountByValue(t *testing.T) {
	for _, mode := range writeModes {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFake(t)
			tbl := readingsTable(t, mode)
			createTables(t, f, tbl)
			r, err := dao.New(f, tbl)
			if err != nil {
				t.Fatal(err)
			}
			checkCountByValue(t, r)
		})
	}
}
