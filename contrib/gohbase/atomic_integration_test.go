//go:build integration

package gohbase_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// TestIntegrationAtomicAfterSplit: the adapter's atomic row writes
// (MutateRow, and CheckAndMutate of several mutations, which gohbase has
// no call for) find the row's region again after it moved: the region
// that gohbase cached is split by another client between two writes.
func TestIntegrationAtomicAfterSplit(t *testing.T) {
	native := nativeClient(t)
	c := adapter(t)
	ctx := itCtx(t, 5*time.Minute)
	name := itNames("atomic")
	if err := native.CreateTable(ctx, hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "cf"}}}, nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	dropLater(t, native, name)
	vals := func(v string) map[string]map[string][]byte {
		return map[string]map[string][]byte{"cf": {"q": []byte(v)}}
	}
	mixed := func(row, v string) *hbase.RowMutations {
		return &hbase.RowMutations{Table: name, Row: []byte(row), Mutations: []hbase.Mutation{
			&hbase.Delete{Family: []byte("cf"), Qualifier: []byte("old"), AllVersions: true},
			&hbase.Put{Values: vals(v)},
		}}
	}
	for i := range 20 {
		if err := c.MutateRow(ctx, mixed(fmt.Sprintf("r%02d", i), "before")); err != nil {
			t.Fatalf("MutateRow before the split: %v", err)
		}
	}
	if err := native.SplitRegion(ctx, name, []byte("r10")); err != nil {
		t.Fatalf("SplitRegion: %v", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		regions, err := native.TableRegions(ctx, name)
		if err == nil && len(regions) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("split: regions %v, %v", regions, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i := range 20 {
		row := fmt.Sprintf("r%02d", i)
		if err := c.MutateRow(ctx, mixed(row, "after")); err != nil {
			t.Fatalf("MutateRow after the split: %v", err)
		}
		ok, err := c.CheckAndMutate(ctx, &hbase.CheckAndMutate{Table: name, Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"),
			Value: []byte("after"), Mutations: []hbase.Mutation{
				&hbase.Put{Values: vals("checked")},
				&hbase.Delete{Family: []byte("cf"), Qualifier: []byte("gone"), AllVersions: true},
			}})
		if err != nil || !ok {
			t.Fatalf("CheckAndMutate after the split = %v, %v; want applied", ok, err)
		}
		r, err := native.Get(ctx, &hbase.Get{Table: name, Row: []byte(row)})
		if err != nil || string(r.Value([]byte("cf"), []byte("q"))) != "checked" {
			t.Errorf("%s after the split = %v, %v; want cf:q=checked", row, r, err)
		}
	}
	regions, err := c.TableRegions(ctx, name)
	if err != nil || len(regions) != 2 || string(regions[1].StartKey) != "r10" {
		t.Errorf("adapter TableRegions after the split = %+v, %v", regions, err)
	}
}

// TestIntegrationAtomicCheckAndMutate: a check-and-mutate the adapter
// sends as an atomic region action (several kinds of mutation, or a time
// range) reports whether its condition held, and applies all of its
// mutations or none.
func TestIntegrationAtomicCheckAndMutate(t *testing.T) {
	c := adapter(t)
	ctx := itCtx(t, 5*time.Minute)
	name := itNames("atomiccam")
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{
		{Name: "cf", Attributes: map[string]string{"VERSIONS": "3"}}}}, nil); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	dropLater(t, c, name)
	b := func(s string) []byte { return []byte(s) }
	for _, ts := range []int64{100, 200} {
		if err := c.Put(ctx, &hbase.Put{Table: name, Row: b("r"), Timestamp: ts,
			Values: map[string]map[string][]byte{"cf": {"q": b(fmt.Sprint(ts)), "x": b("x")}}}); err != nil {
			t.Fatal(err)
		}
	}
	muts := func(v string) []hbase.Mutation {
		return []hbase.Mutation{
			&hbase.Put{Values: map[string]map[string][]byte{"cf": {"w": b(v)}}},
			&hbase.Delete{Family: b("cf"), Qualifier: b("x"), AllVersions: true},
		}
	}
	state := func() string {
		r, err := c.Get(ctx, &hbase.Get{Table: name, Row: b("r")})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("q=%s w=%s x=%s", r.Value(b("cf"), b("q")), r.Value(b("cf"), b("w")), r.Value(b("cf"), b("x")))
	}
	tests := []struct {
		name string
		cam  hbase.CheckAndMutate
		want bool
		then string
	}{
		{"mixed, condition fails", hbase.CheckAndMutate{Value: b("100"), Mutations: muts("1")}, false, "q=200 w= x=x"},
		{"time range, condition fails", hbase.CheckAndMutate{Value: b("200"), TimeRange: &hbase.TimeRange{From: 0, To: 150},
			Mutations: muts("2")[:1]}, false, "q=200 w= x=x"},
		{"time range, condition holds", hbase.CheckAndMutate{Value: b("100"), TimeRange: &hbase.TimeRange{From: 0, To: 150},
			Mutations: muts("3")[:1]}, true, "q=200 w=3 x=x"},
		{"mixed, absence test on a present column", hbase.CheckAndMutate{Qualifier: b("w"), Mutations: muts("4")}, false, "q=200 w=3 x=x"},
		{"mixed, condition holds", hbase.CheckAndMutate{Compare: hbase.CompareGreater, Value: b("150"), Mutations: muts("5")}, true, "q=200 w=5 x="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cam := tc.cam
			cam.Table, cam.Row, cam.Family = name, b("r"), b("cf")
			if cam.Qualifier == nil {
				cam.Qualifier = b("q")
			}
			ok, err := c.CheckAndMutate(ctx, &cam)
			if err != nil || ok != tc.want {
				t.Fatalf("CheckAndMutate = %v, %v; want %v", ok, err, tc.want)
			}
			if got := state(); got != tc.then {
				t.Errorf("row %s, want %s", got, tc.then)
			}
		})
	}
	// The same in a Batch.
	res, err := c.Batch(ctx, []hbase.Action{
		&hbase.CheckAndMutate{Table: name, Row: b("r"), Family: b("cf"), Qualifier: b("q"), Value: b("nope"), Mutations: muts("6")},
		&hbase.CheckAndMutate{Table: name, Row: b("r"), Family: b("cf"), Qualifier: b("q"), Value: b("200"), Mutations: muts("7")},
	})
	if err != nil || res[0].Processed || !res[1].Processed {
		t.Errorf("Batch = %+v, %v; want the second processed only", res, err)
	}
	if got := state(); got != "q=200 w=7 x=" {
		t.Errorf("row after the Batch %s, want q=200 w=7 x=", got)
	}
}
