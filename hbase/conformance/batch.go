package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

func (s *suite) testBatch(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	s.put(t, ctx, tbl, "bat-0", 0, "cf", "q", "zero")
	s.put(t, ctx, tbl, "bat-del", 0, "cf", "q", "doomed")
	actions := []hbapi.Action{
		&hbapi.Put{Table: tbl, Row: b("bat-1"), Values: vals("cf", "q", "one")},                            // 0
		&hbapi.Get{Table: tbl, Row: b("bat-0")},                                                            // 1
		&hbapi.Put{Table: tbl, Row: b("bat-2"), Values: vals("nope", "q", "x")},                            // 2: no such family
		&hbapi.Delete{Table: tbl, Row: b("bat-del")},                                                       // 3
		&hbapi.Get{Table: tbl, Row: b("bat-missing")},                                                      // 4
		&hbapi.Increment{Table: tbl, Row: b("bat-3"), Deltas: map[string]map[string]int64{"cf": {"n": 2}}}, // 5
		&hbapi.Put{Table: tbl, Values: vals("cf", "q", "x")},                                               // 6: empty row
		&hbapi.Append{Table: tbl, Row: b("bat-4"), Values: vals("cf", "s", "tail")},                        // 7
	}
	res, err := s.h.Data.Batch(ctx, actions)
	var be *hbapi.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("Batch error = %v, want *hbase.BatchError", err)
	}
	if len(res) != len(actions) {
		t.Fatalf("Batch returned %d results for %d actions", len(res), len(actions))
	}
	var failed []int
	for _, f := range be.Failed {
		failed = append(failed, f.Index)
	}
	if fmt.Sprint(failed) != "[2 6]" {
		t.Errorf("failed actions = %v, want [2 6] (%v)", failed, err)
	}
	wantErr(t, "action 2", res[2].Err, hbapi.ErrNoSuchFamily)
	wantErr(t, "action 6", res[6].Err, hbapi.ErrEmptyRow)
	wantErr(t, "batch error", err, hbapi.ErrNoSuchFamily)
	wantErr(t, "batch error", err, hbapi.ErrEmptyRow)
	for _, i := range []int{0, 1, 3, 4, 5, 7} {
		if res[i].Err != nil || res[i].Result == nil {
			t.Errorf("action %d: result %v, error %v; want a result", i, res[i].Result, res[i].Err)
		}
	}
	if !t.Failed() {
		wantCells(t, "get result", res[1].Result, false, "cf:q=zero")
		if !res[4].Result.Empty() {
			t.Errorf("get of a missing row: %q", show(res[4].Result, false))
		}
		if got := res[5].Result.Value(b("cf"), b("n")); !bytes.Equal(got, be64(2)) {
			t.Errorf("increment result %x, want %x", got, be64(2))
		}
		if got := string(res[7].Result.Value(b("cf"), b("s"))); got != "tail" {
			t.Errorf("append result %q, want tail", got)
		}
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("bat-1")})
	wantCells(t, "batch put", r, false, "cf:q=one")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("bat-del")})
	wantCells(t, "batch delete", r, false, "")

	res, err = s.h.Data.Batch(ctx, []hbapi.Action{&hbapi.Get{Table: tbl, Row: b("bat-1")}})
	if err != nil || len(res) != 1 || res[0].Err != nil {
		t.Errorf("all-good batch: %v, %+v", err, res)
	}
	res, err = s.h.Data.Batch(ctx, nil)
	if err != nil || len(res) != 0 {
		t.Errorf("empty batch: %v, %d results", err, len(res))
	}
}

// testBatchCheckAndMutate: CheckAndMutates as Batch actions, mixed with
// plain ones. Each reports Processed; a failing condition is not an
// error; the CheckAndMutates of one row apply in batch order, each seeing
// the earlier ones' effects (HBase runs the RegionActions of a Multi in
// order).
func (s *suite) testBatchCheckAndMutate(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	s.put(t, ctx, tbl, "bcam-a", 0, "cf", "q", "a")
	s.put(t, ctx, tbl, "bcam-b", 0, "cf", "q", "b")
	camQ := func(row string, cmp hbapi.CompareOp, value string, muts ...hbapi.Mutation) *hbapi.CheckAndMutate {
		return &hbapi.CheckAndMutate{Table: tbl, Row: b(row), Family: b("cf"), Qualifier: b("q"),
			Compare: cmp, Value: b(value), Mutations: muts}
	}
	tests := []struct {
		action    hbapi.Action
		processed bool
		err       error
	}{
		{action: &hbapi.Put{Table: tbl, Row: b("bcam-p"), Values: vals("cf", "q", "p")}},
		{action: camQ("bcam-a", hbapi.CompareEqual, "a", putQ("a2")), processed: true},
		{action: camQ("bcam-b", hbapi.CompareEqual, "x", putQ("b2"))},
		// Three on one row: absent → n1; absent again fails; n1 → n3.
		{action: camQ("bcam-new", hbapi.CompareEqual, "", putQ("n1")), processed: true},
		{action: camQ("bcam-new", hbapi.CompareEqual, "", putQ("n2"))},
		{action: camQ("bcam-new", hbapi.CompareEqual, "n1", putQ("n3")), processed: true},
		// Stored "b" is greater than "a": holds (operator as in filters).
		{action: camQ("bcam-b", hbapi.CompareGreater, "a", &hbapi.Delete{Family: b("cf"), Qualifier: b("q")}), processed: true},
		{action: camQ("bcam-b2", hbapi.CompareEqual, "", &hbapi.Put{Values: vals("nope", "q", "x")}), err: hbapi.ErrNoSuchFamily},
		// Several mutations, applied together.
		{action: camQ("bcam-m", hbapi.CompareEqual, "", putQ("m"), &hbapi.Put{Values: vals("cf2", "r", "m")}), processed: true},
		{action: camQ("bcam-a", hbapi.CompareLess, "a", putQ("never"))},
	}
	actions := make([]hbapi.Action, len(tests))
	for i, tt := range tests {
		actions[i] = tt.action
	}
	res, err := s.h.Data.Batch(ctx, actions)
	var be *hbapi.BatchError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Index != 7 {
		t.Fatalf("Batch error = %v, want a *hbase.BatchError for action 7 only", err)
	}
	if len(res) != len(actions) {
		t.Fatalf("Batch returned %d results for %d actions", len(res), len(actions))
	}
	for i, tt := range tests {
		if tt.err != nil {
			wantErr(t, fmt.Sprintf("action %d", i), res[i].Err, tt.err)
			if res[i].Processed {
				t.Errorf("action %d failed but Processed", i)
			}
			continue
		}
		if res[i].Err != nil || res[i].Result == nil {
			t.Errorf("action %d: result %v, error %v; want a result", i, res[i].Result, res[i].Err)
			continue
		}
		if res[i].Processed != tt.processed {
			t.Errorf("action %d (%T): Processed = %v, want %v", i, tt.action, res[i].Processed, tt.processed)
		}
	}
	for _, w := range []struct{ row, want string }{
		{"bcam-p", "cf:q=p"},
		{"bcam-a", "cf:q=a2"},
		{"bcam-b", ""},
		{"bcam-new", "cf:q=n3"},
		{"bcam-b2", ""},
		{"bcam-m", "cf:q=m cf2:r=m"},
	} {
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(w.row)})
		wantCells(t, w.row, r, false, w.want)
	}

	s.testBatchCheckAndMutateMixes(t, ctx, tbl, camQ)
}

// testBatchCheckAndMutateMixes covers batches of conditional mutations
// that all fail, that build on each other (two per row), and that mix
// invalid ones with a valid one; camQ is testBatchCheckAndMutate's.
func (s *suite) testBatchCheckAndMutateMixes(t *testing.T, ctx context.Context, tbl string,
	camQ func(row string, cmp hbapi.CompareOp, value string, muts ...hbapi.Mutation) *hbapi.CheckAndMutate) {
	var be *hbapi.BatchError
	// Only conditions that fail: nothing is written, nothing is an error.
	res, err := s.h.Data.Batch(ctx, []hbapi.Action{
		camQ("bcam-a", hbapi.CompareEqual, "a", putQ("stale")),
		camQ("bcam-new", hbapi.CompareEqual, "", putQ("again")),
		camQ("bcam-b", hbapi.CompareNotEqual, "", putQ("b3")),
	})
	if err != nil || len(res) != 3 {
		t.Fatalf("Batch: %v, %d results", err, len(res))
	}
	for i, r := range res {
		if r.Err != nil || r.Processed {
			t.Errorf("failing condition %d: %+v, want not processed", i, r)
		}
	}
	for _, w := range []struct{ row, want string }{{"bcam-a", "cf:q=a2"}, {"bcam-new", "cf:q=n3"}, {"bcam-b", ""}} {
		wantCells(t, w.row, s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(w.row)}), false, w.want)
	}

	// Many, two per row: the second of each row sees the first.
	var many []hbapi.Action
	for pass, set := range []string{"one", "two"} {
		for i := range 40 {
			prev := ""
			if pass == 1 {
				prev = "one"
			}
			many = append(many, camQ(fmt.Sprintf("bcam-many-%02d", i), hbapi.CompareEqual, prev, putQ(set)))
		}
	}
	res, err = s.h.Data.Batch(ctx, many)
	if err != nil || len(res) != len(many) {
		t.Fatalf("Batch of %d: %v, %d results", len(many), err, len(res))
	}
	for i, r := range res {
		if r.Err != nil || !r.Processed {
			t.Errorf("action %d of many: %+v, want processed", i, r)
		}
	}
	for i := range 40 {
		row := fmt.Sprintf("bcam-many-%02d", i)
		wantCells(t, row, s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)}), false, "cf:q=two")
	}

	// An invalid CheckAndMutate fails alone, before anything is sent.
	res, err = s.h.Data.Batch(ctx, []hbapi.Action{
		&hbapi.CheckAndMutate{Table: tbl, Row: b("bcam-x"), Family: b("cf"), Qualifier: b("q")},
		(*hbapi.CheckAndMutate)(nil),
		camQ("bcam-x", hbapi.CompareEqual, "", putQ("x")),
	})
	if !errors.As(err, &be) || len(be.Failed) != 2 {
		t.Fatalf("Batch error = %v, want two invalid actions", err)
	}
	wantErr(t, "no mutations", res[0].Err, hbapi.ErrEmptyMutation)
	wantErr(t, "nil", res[1].Err, hbapi.ErrInvalidRequest)
	if res[2].Err != nil || !res[2].Processed {
		t.Errorf("valid action next to invalid ones: %+v", res[2])
	}
}

// putQ is a Put of value v to cf:q, for a conditional mutation to carry.
func putQ(v string) *hbapi.Put { return &hbapi.Put{Values: vals("cf", "q", v)} }
