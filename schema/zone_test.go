package schema_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
)

type meterReading struct {
	Meter string
	At    time.Time
}

// A record whose time is in any zone encodes to a data row that decodes
// (its time column in UTC) to a record deriving the same index entry: the
// check the index protocol makes of every entry (issue 33 item 1).
func TestTimeColumnRoundTripDerivesTheSameEntry(t *testing.T) {
	meter := keys.String("meter", func(r *meterReading) string { return r.Meter }, func(r *meterReading, v string) { r.Meter = v })
	key, err := keys.NewLayout(meter)
	if err != nil {
		t.Fatal(err)
	}
	ixKey, err := keys.NewLayout(
		keys.Date("day", func(r *meterReading) time.Time { return r.At }, nil),
		keys.ReversedTimeOfDay("clock", func(r *meterReading) time.Duration { return keys.TimeOfDay(r.At) }, nil),
		meter)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := schema.New(schema.Spec[meterReading]{
		Name: "meters", Families: []schema.Family{{Name: "d"}}, Key: key,
		Columns: []schema.Column[meterReading]{schema.TimeColumn("at", "d", "at",
			func(r *meterReading) time.Time { return r.At }, func(r *meterReading, v time.Time) { r.At = v })},
		Indexes: []schema.IndexSpec[meterReading]{{Name: "meters_by_day", Families: []schema.Family{{Name: "i"}},
			Key: ixKey, From: map[string]string{"day": "at", "clock": "at"}, RowKeyQualifier: "row"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := tbl.Indexes()[0]
	at := time.Date(2026, 11, 27, 23, 30, 15, 250e6, time.UTC)
	for _, zone := range []string{"UTC", "Asia/Shanghai", "Pacific/Auckland", "America/Los_Angeles"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []time.Duration{0, 6 * time.Hour, 12 * time.Hour, 18 * time.Hour} {
			rec := meterReading{Meter: "m-1", At: at.Add(h).In(loc)}
			var row, want, got schema.Row
			if err := tbl.EncodeRow(&row, &rec); err != nil {
				t.Fatal(err)
			}
			if err := ix.EncodeEntry(&want, &rec); err != nil {
				t.Fatal(err)
			}
			var back meterReading
			if err := tbl.DecodeRow(row.Key, row.Cells, &back); err != nil {
				t.Fatal(err)
			}
			if err := ix.EncodeEntry(&got, &back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Key, want.Key) {
				t.Errorf("%v: entry from the data row %q, want %q (the entry written)", rec.At, got.Key, want.Key)
			}
		}
	}
}
