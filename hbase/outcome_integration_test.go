//go:build integration

package hbase_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/internal/faultnet"
)

// The outcome tests of issue 34, item 1: a write that is not idempotent,
// whose answer is lost after the server applied it (faultnet drops the
// answer and resets the connection), is resent by the client within the
// same call. The resend must never turn into a clean "no": a
// CheckAndMutate reports true (resolved) or ErrOutcomeUnknown, never
// (false, nil); an Increment or Append is applied once (the server's
// nonce check), or reported ErrOutcomeUnknown.

const outcomeRounds = 10

// outcomeClient is a client of the HBase under test whose connections go
// through a faultnet.Dialer, with a table of family "cf".
func outcomeClient(t *testing.T) (*hbase.Client, *faultnet.Dialer, string) {
	t.Helper()
	d := faultnet.New(nil, nil)
	c := itClient(t, hbase.WithDialer(d.Dial), hbase.WithOperationTimeout(20*time.Second), hbase.WithBackoff(5*time.Millisecond, 100*time.Millisecond))
	return c, d, itTable(t, c, "outcome", nil)
}

// armReset makes sure row's region is located and its connection open,
// then arms one reset: the next answer, that of the call under test, is
// dropped after the server acted on it.
func armReset(t *testing.T, ctx context.Context, c *hbase.Client, d *faultnet.Dialer, table string, row []byte) int {
	t.Helper()
	if _, err := c.Get(ctx, &hbase.Get{Table: table, Row: row}); err != nil {
		t.Fatalf("warm-up Get: %v", err)
	}
	before := d.Stats().Resets
	d.ResetNextAnswer()
	return before
}

func checkFired(t *testing.T, d *faultnet.Dialer, before int) {
	t.Helper()
	if d.Armed() != 0 || d.Stats().Resets != before+1 {
		t.Fatalf("the armed reset did not fire on the call (armed %d, resets %d, want %d)", d.Armed(), d.Stats().Resets, before+1)
	}
}

func readValue(t *testing.T, ctx context.Context, c *hbase.Client, table string, row []byte, q string) []byte {
	t.Helper()
	res, err := c.Get(ctx, &hbase.Get{Table: table, Row: row})
	if err != nil {
		t.Fatalf("Get %s: %v", row, err)
	}
	return res.Value([]byte("cf"), []byte(q))
}

func TestIntegrationOutcomeCheckAndMutateReset(t *testing.T) {
	c, d, table := outcomeClient(t)
	ctx := itCtx(t, 3*time.Minute)
	for _, muts := range []int{1, 2} {
		t.Run(fmt.Sprintf("mutations=%d", muts), func(t *testing.T) {
			var applied, unknown int
			for i := range outcomeRounds {
				row := fmt.Appendf(nil, "cam%d-%02d", muts, i)
				cam := &hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("q"),
					Compare: hbase.CompareEqual, Value: nil}
				for m := range muts {
					cam.Mutations = append(cam.Mutations, &hbase.Put{Values: map[string]map[string][]byte{"cf": {fmt.Sprintf("q%d", m): []byte("v")}}})
				}
				cam.Mutations[0].(*hbase.Put).Values["cf"]["q"] = []byte("mine")
				before := armReset(t, ctx, c, d, table, row)
				ok, err := c.CheckAndMutate(ctx, cam)
				checkFired(t, d, before)
				switch {
				case err == nil && !ok:
					t.Errorf("round %d: CheckAndMutate = (false, nil) for its own applied write", i)
				case err == nil:
					applied++
				case errors.Is(err, hbase.ErrOutcomeUnknown):
					unknown++
				default:
					t.Errorf("round %d: CheckAndMutate: %v, want true or ErrOutcomeUnknown", i, err)
				}
				if got := readValue(t, ctx, c, table, row, "q"); !bytes.Equal(got, []byte("mine")) {
					t.Errorf("round %d: cf:q = %q, want %q (the server applied the write)", i, got, "mine")
				}
			}
			t.Logf("%d rounds: %d resolved true, %d ErrOutcomeUnknown", outcomeRounds, applied, unknown)
		})
	}
}

func TestIntegrationOutcomeIncrementAppendReset(t *testing.T) {
	c, d, table := outcomeClient(t)
	ctx := itCtx(t, 3*time.Minute)
	t.Run("increment", func(t *testing.T) {
		var clean, unknown int
		for i := range outcomeRounds {
			row := fmt.Appendf(nil, "inc-%02d", i)
			before := armReset(t, ctx, c, d, table, row)
			res, err := c.Increment(ctx, &hbase.Increment{Table: table, Row: row, Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
			checkFired(t, d, before)
			stored := readValue(t, ctx, c, table, row, "n")
			if len(stored) != 8 || binary.BigEndian.Uint64(stored) != 1 {
				t.Errorf("round %d: counter = %x after one Increment, want 1", i, stored)
			}
			switch {
			case err == nil:
				clean++
				if v := res.Value([]byte("cf"), []byte("n")); len(v) != 8 || binary.BigEndian.Uint64(v) != 1 {
					t.Errorf("round %d: Increment returned %x, want 1", i, v)
				}
			case errors.Is(err, hbase.ErrOutcomeUnknown):
				unknown++
			default:
				t.Errorf("round %d: Increment: %v", i, err)
			}
		}
		t.Logf("%d rounds: %d answered once-applied, %d ErrOutcomeUnknown", outcomeRounds, clean, unknown)
	})
	t.Run("append", func(t *testing.T) {
		var clean, unknown int
		for i := range outcomeRounds {
			row := fmt.Appendf(nil, "app-%02d", i)
			before := armReset(t, ctx, c, d, table, row)
			res, err := c.Append(ctx, &hbase.Append{Table: table, Row: row, Values: map[string]map[string][]byte{"cf": {"s": []byte("x")}}})
			checkFired(t, d, before)
			if got := readValue(t, ctx, c, table, row, "s"); string(got) != "x" {
				t.Errorf("round %d: value = %q after one Append, want %q", i, got, "x")
			}
			switch {
			case err == nil:
				clean++
				if v := res.Value([]byte("cf"), []byte("s")); string(v) != "x" {
					t.Errorf("round %d: Append returned %q, want %q", i, v, "x")
				}
			case errors.Is(err, hbase.ErrOutcomeUnknown):
				unknown++
			default:
				t.Errorf("round %d: Append: %v", i, err)
			}
		}
		t.Logf("%d rounds: %d answered once-applied, %d ErrOutcomeUnknown", outcomeRounds, clean, unknown)
	})
}

func TestIntegrationOutcomeBatchReset(t *testing.T) {
	c, d, table := outcomeClient(t)
	ctx := itCtx(t, 3*time.Minute)
	var applied, unknown int
	for i := range outcomeRounds {
		row := fmt.Appendf(nil, "bcam-%02d", i)
		inc := fmt.Appendf(nil, "binc-%02d", i)
		acts := []hbase.Action{
			&hbase.CheckAndMutate{Table: table, Row: row, Family: []byte("cf"), Qualifier: []byte("q"), Compare: hbase.CompareEqual,
				Mutations: []hbase.Mutation{&hbase.Put{Values: map[string]map[string][]byte{"cf": {"q": []byte("mine")}}}}},
			&hbase.Increment{Table: table, Row: inc, Deltas: map[string]map[string]int64{"cf": {"n": 1}}},
			&hbase.Put{Table: table, Row: inc, Values: map[string]map[string][]byte{"cf": {"p": []byte("p")}}},
		}
		before := armReset(t, ctx, c, d, table, row)
		res, err := c.Batch(ctx, acts)
		checkFired(t, d, before)
		var be *hbase.BatchError
		if err != nil && !errors.As(err, &be) {
			t.Fatalf("round %d: Batch: %v", i, err)
		}
		switch r := res[0]; {
		case r.Err == nil && !r.Processed:
			t.Errorf("round %d: conditional item = (false, nil) for its own applied write", i)
		case r.Err == nil:
			applied++
		case errors.Is(r.Err, hbase.ErrOutcomeUnknown):
			unknown++
		default:
			t.Errorf("round %d: conditional item: %v", i, r.Err)
		}
		if got := readValue(t, ctx, c, table, row, "q"); string(got) != "mine" {
			t.Errorf("round %d: cf:q = %q, want %q", i, got, "mine")
		}
		if r := res[1]; r.Err != nil && !errors.Is(r.Err, hbase.ErrOutcomeUnknown) {
			t.Errorf("round %d: increment item: %v", i, r.Err)
		}
		if got := readValue(t, ctx, c, table, inc, "n"); len(got) != 8 || binary.BigEndian.Uint64(got) != 1 {
			t.Errorf("round %d: counter = %x after one Increment item, want 1", i, got)
		}
		if res[2].Err != nil {
			t.Errorf("round %d: put item: %v", i, res[2].Err)
		}
	}
	t.Logf("%d rounds: %d resolved true, %d ErrOutcomeUnknown", outcomeRounds, applied, unknown)
}
