package jobs

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// markerTask is the Task of the tests: for each row of its source table
// it writes one marker cell (m:seen = the row's "p:amount" value) to the
// marker table, row for row, and counts rows and amounts. Redoing a row
// writes the same marker again, so it is idempotent from any position.
type markerTask struct {
	c      hbapi.DataClient
	src    string
	marker string
	batch  int
	// hook, when set, runs after each commit with the unit and the
	// number of batches committed in this Run; an error stops the Run.
	hook func(u Unit, batches int) error

	finished chan Counts // Finish sends the total here, if set
}

func (t *markerTask) Sources() []string { return []string{t.src} }

func (t *markerTask) Run(ctx context.Context, u Unit, after []byte, commit func([]byte, Counts) error) error {
	start := u.Start
	if after != nil {
		start = append(bytes.Clone(after), 0)
	}
	scan := &hbapi.Scan{Table: u.Table, StartRow: start, StopRow: u.Stop, Caching: t.batch}
	var puts []hbapi.Action
	var amount int64
	batches := 0
	flush := func(last []byte) error {
		if len(puts) == 0 {
			return nil
		}
		if _, err := t.c.Batch(ctx, puts); err != nil {
			return err
		}
		if err := commit(last, Counts{"rows": int64(len(puts)), "amount": amount}); err != nil {
			return err
		}
		puts, amount = puts[:0], 0
		batches++
		if t.hook != nil {
			return t.hook(u, batches)
		}
		return nil
	}
	for r, err := range hbapi.ScanAll(ctx, t.c, scan) {
		if err != nil {
			return err
		}
		v := r.Value([]byte("p"), []byte("amount"))
		var n int64
		fmt.Sscan(string(v), &n)
		amount += n
		puts = append(puts, &hbapi.Put{Table: t.marker, Row: bytes.Clone(r.Row()),
			Cells: []hbapi.PutCell{{Family: "m", Qualifier: "seen", Value: bytes.Clone(v)}}})
		if len(puts) == t.batch {
			if err := flush(bytes.Clone(r.Row())); err != nil {
				return err
			}
		}
	}
	if len(puts) > 0 {
		last := puts[len(puts)-1].(*hbapi.Put).Row
		return flush(last)
	}
	return nil
}

func (t *markerTask) Finish(ctx context.Context, total Counts) error {
	if t.finished != nil {
		t.finished <- total
	}
	return nil
}

// parcelKey is the row key of parcel i of the tests' own schema: a
// one-byte salt (i mod 16) then the parcel number, so rows spread over
// pre-split regions the way hbkit's salted designs do.
func parcelKey(i int) []byte {
	return fmt.Appendf([]byte{byte(i % 16)}, "parcel-%07d", i)
}

// parcelSplits are split keys at salts 4, 8 and 12: four regions.
func parcelSplits() [][]byte { return [][]byte{{4}, {8}, {12}} }

// loadParcels writes n parcels to table (family p, amount = i).
func loadParcels(t testing.TB, ctx context.Context, c hbapi.DataClient, table string, n int) (sum int64) {
	t.Helper()
	var actions []hbapi.Action
	for i := range n {
		actions = append(actions, &hbapi.Put{Table: table, Row: parcelKey(i),
			Cells: []hbapi.PutCell{{Family: "p", Qualifier: "amount", Value: fmt.Append(nil, i)}}})
		sum += int64(i)
		if len(actions) == 1000 || i == n-1 {
			if _, err := c.Batch(ctx, actions); err != nil {
				t.Fatal(err)
			}
			actions = actions[:0]
		}
	}
	return sum
}

// countMarkers checks that the marker table holds one marker per parcel
// with its amount, and returns how many it holds.
func countMarkers(t testing.TB, ctx context.Context, c hbapi.DataClient, marker string, n int) int {
	t.Helper()
	seen := 0
	for r, err := range hbapi.ScanAll(ctx, c, &hbapi.Scan{Table: marker}) {
		if err != nil {
			t.Fatal(err)
		}
		seen++
		var i int
		fmt.Sscanf(string(r.Row()[1:]), "parcel-%d", &i)
		if got, want := string(r.Value([]byte("m"), []byte("seen"))), fmt.Sprint(i); got != want || !bytes.Equal(r.Row(), parcelKey(i)) {
			t.Errorf("marker of %q: got %q, want %q", r.Row(), got, want)
		}
	}
	if seen != n {
		t.Errorf("markers: got %d, want %d", seen, n)
	}
	return seen
}
