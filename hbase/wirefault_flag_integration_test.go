//go:build integration

package hbase_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// flipFlag returns a mangler that flips bit of the value of the last
// varint field tag (0x10: MutateResponse.processed; 0x18:
// RegionActionResult.processed) in a frame, when its value is 0.
func flipFlag(tag byte, bit int, fired *bool) func([]byte) []byte {
	return func(f []byte) []byte {
		out := append([]byte(nil), f...)
		for i := len(out) - 2; i >= 4; i-- {
			if out[i] == tag && out[i+1] == 0 {
				out[i+1] ^= 1 << bit
				*fired = true
				break
			}
		}
		return out
	}
}

// TestIntegrationCorruptFlagNeverApplies (issue 34): a CheckAndMutate
// whose condition fails, alone (a Mutate) and in a Batch (a Multi),
// answered "condition failed" with one bit of the processed flag flipped
// on the way (bits 1 to 6: the flip to 1 looks like HBase's own true),
// is never reported applied: the client sees a flag HBase never encodes
// and sends the call again, which reports the condition failed or, as it
// may have applied, ErrOutcomeUnknown. Before, it reported the write
// applied (true, Processed), which make test-faults' corrupt scenario
// turned into an acknowledged strict update that the data table did not
// hold.
func TestIntegrationCorruptFlagNeverApplies(t *testing.T) {
	c, d, table := faultClient(t, 10, hbase.WithOperationTimeout(10*time.Second))
	cam := func() *hbase.CheckAndMutate {
		return &hbase.CheckAndMutate{Table: table, Row: rowKey(1), Family: []byte("cf"), Qualifier: []byte("q"),
			Compare: hbase.CompareEqual, Value: []byte("not the value"),
			Mutations: []hbase.Mutation{&hbase.Put{Table: table, Row: rowKey(1), Values: map[string]map[string][]byte{"cf": {"q": []byte("changed")}}}}}
	}
	for bit := 1; bit < 7; bit++ {
		var fired bool
		d.MangleNextAnswer(flipFlag(0x10, bit, &fired))
		ok, err := c.CheckAndMutate(itCtx(t, 30*time.Second), cam())
		if !fired {
			t.Fatalf("bit %d: the mangler found no processed flag in the Mutate answer", bit)
		}
		if ok || err != nil && !errors.Is(err, hbase.ErrOutcomeUnknown) {
			t.Errorf("CheckAndMutate, bit %d of its flag flipped: (%v, %v), want (false, nil or ErrOutcomeUnknown)", bit, ok, err)
		}
		fired = false
		d.MangleNextAnswer(flipFlag(0x18, bit, &fired))
		res, err := c.Batch(itCtx(t, 30*time.Second), []hbase.Action{cam()})
		if !fired {
			t.Fatalf("bit %d: the mangler found no processed flag in the Multi answer", bit)
		}
		if err != nil && len(res) != 1 {
			t.Fatalf("Batch: %v", err)
		}
		if r := res[0]; r.Processed || r.Err != nil && !errors.Is(r.Err, hbase.ErrOutcomeUnknown) {
			t.Errorf("Batch, bit %d of its flag flipped: (processed %v, %v), want not processed (nil or ErrOutcomeUnknown)", bit, r.Processed, r.Err)
		}
	}
	getRow(t, c, table, 1) // the row still holds its value
}
