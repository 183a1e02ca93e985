package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

func (s *suite) testPutGet(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	s.put(t, ctx, tbl, "pg-1", 0, "cf", "b", "vb", "cf", "a", "va", "cf2", "c", "vc", "cf", "empty", "")

	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1")})
	wantCells(t, "whole row", r, false, "cf:a=va cf:b=vb cf:empty= cf2:c=vc")
	if got := string(r.Row()); got != "pg-1" {
		t.Errorf("Row() = %q, want pg-1", got)
	}
	for _, c := range r.Cells {
		if c.Type != hbapi.CellTypePut {
			t.Errorf("cell %s:%s has type %v, want Put", c.Family, c.Qualifier, c.Type)
		}
		if c.Timestamp <= 0 || c.Timestamp == hbapi.LatestTimestamp {
			t.Errorf("cell %s:%s has timestamp %d, want a server-assigned time", c.Family, c.Qualifier, c.Timestamp)
		}
		if !bytes.Equal(c.Row, b("pg-1")) {
			t.Errorf("cell row = %q, want pg-1", c.Row)
		}
	}
	if v := r.Value(b("cf"), b("empty")); v == nil || len(v) != 0 {
		t.Errorf("Value(cf:empty) = %#v, want empty non-nil", v)
	}
	ts := r.Cells[0].Timestamp
	for _, c := range r.Cells {
		if c.Timestamp != ts {
			t.Errorf("cells of one Put have timestamps %d and %d, want one", ts, c.Timestamp)
		}
	}

	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), Families: [][]byte{b("cf2")}})
	wantCells(t, "family cf2", r, false, "cf2:c=vc")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("b")}, {Family: b("cf2"), Qualifier: b("c")}}})
	wantCells(t, "columns cf:b cf2:c", r, false, "cf:b=vb cf2:c=vc")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), Families: [][]byte{b("cf2")}, Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("a")}}})
	wantCells(t, "family cf2 + column cf:a", r, false, "cf:a=va cf2:c=vc")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("nope")}}})
	if !r.Empty() {
		t.Errorf("missing column: got %q, want empty", show(r, false))
	}

	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-missing")})
	if !r.Empty() || r.Row() != nil {
		t.Errorf("missing row: got %q, want empty", show(r, false))
	}

	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), ExistenceOnly: true})
	if !r.Exists {
		t.Error("ExistenceOnly on an existing row: Exists = false")
	}
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-missing"), ExistenceOnly: true})
	if r.Exists {
		t.Error("ExistenceOnly on a missing row: Exists = true")
	}

	// Overwrite: a later Put of the same column wins.
	s.put(t, ctx, tbl, "pg-1", 0, "cf", "a", "va2")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("pg-1"), Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("a")}}})
	wantCells(t, "after overwrite", r, false, "cf:a=va2")

	// Binary row keys and values survive unchanged.
	key := []byte{0x00, 0xff, 0x10, 0x00}
	val := []byte{0xde, 0xad, 0x00, 0xbe, 0xef}
	if err := s.h.Data.Put(ctx, &hbapi.Put{Table: tbl, Row: key, Values: map[string]map[string][]byte{"cf": {"\x00q": val}}}); err != nil {
		t.Fatalf("Put binary: %v", err)
	}
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: key})
	if got := r.Value(b("cf"), b("\x00q")); !bytes.Equal(got, val) || !bytes.Equal(r.Row(), key) {
		t.Errorf("binary round trip: got row %x value %x, want %x %x", r.Row(), got, key, val)
	}
}

func (s *suite) testVersions(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	for _, ts := range []int64{100, 200, 300, 400} {
		s.put(t, ctx, tbl, "ver-1", ts, "cf", "q", fmt.Sprintf("v%d", ts), "cf2", "q", fmt.Sprintf("w%d", ts))
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("ver-1")})
	wantCells(t, "default one version", r, true, "cf:q@400=v400 cf2:q@400=w400")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("ver-1"), MaxVersions: hbapi.AllVersions})
	wantCells(t, "all versions (cf keeps 3, cf2 keeps 1)", r, true, "cf:q@400=v400 cf:q@300=v300 cf:q@200=v200 cf2:q@400=w400")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("ver-1"), Families: [][]byte{b("cf")}, MaxVersions: 2})
	wantCells(t, "two versions", r, true, "cf:q@400=v400 cf:q@300=v300")
	if got := r.Versions(b("cf"), b("q")); len(got) != 2 || got[0].Timestamp != 400 {
		t.Errorf("Versions() = %v", got)
	}

	// A Put with an existing timestamp replaces that version.
	s.put(t, ctx, tbl, "ver-1", 300, "cf", "q", "v300bis")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("ver-1"), Families: [][]byte{b("cf")}, MaxVersions: hbapi.AllVersions})
	wantCells(t, "same timestamp replaced", r, true, "cf:q@400=v400 cf:q@300=v300bis cf:q@200=v200")

	// Scans honour MaxVersions the same way.
	var scanned []string
	for r, err := range hbapi.ScanAll(ctx, s.h.Data, &hbapi.Scan{Table: tbl, StartRow: b("ver-1"), StopRow: b("ver-1\x00"),
		Families: [][]byte{b("cf")}, MaxVersions: 2}) {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		scanned = append(scanned, show(r, true))
	}
	if got := strings.Join(scanned, " | "); got != "cf:q@400=v400 cf:q@300=v300bis" {
		t.Errorf("scan with MaxVersions 2: got %q, want %q", got, "cf:q@400=v400 cf:q@300=v300bis")
	}

	// An older timestamp written later stays behind the newer version.
	s.put(t, ctx, tbl, "ver-2", 500, "cf", "q", "new")
	s.put(t, ctx, tbl, "ver-2", 50, "cf", "q", "old")
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("ver-2")})
	wantCells(t, "newest timestamp wins, not newest write", r, true, "cf:q@500=new")
}

func (s *suite) testTimeRange(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	for _, ts := range []int64{1000, 2000, 3000} {
		s.put(t, ctx, tbl, "tr-1", ts, "cf", "q", fmt.Sprintf("v%d", ts))
	}
	tests := []struct {
		name string
		tr   *hbapi.TimeRange
		maxV int
		want string
	}{
		{"middle", &hbapi.TimeRange{From: 1500, To: 2500}, 0, "cf:q@2000=v2000"},
		{"from inclusive", &hbapi.TimeRange{From: 2000, To: 2001}, 0, "cf:q@2000=v2000"},
		{"to exclusive", &hbapi.TimeRange{From: 1000, To: 3000}, 0, "cf:q@2000=v2000"},
		{"to exclusive all versions", &hbapi.TimeRange{From: 1000, To: 3000}, hbapi.AllVersions, "cf:q@2000=v2000 cf:q@1000=v1000"},
		{"at timestamp", hbapi.AtTimestamp(1000), 0, "cf:q@1000=v1000"},
		{"unbounded above", &hbapi.TimeRange{From: 2500, To: hbapi.LatestTimestamp}, hbapi.AllVersions, "cf:q@3000=v3000"},
		{"nothing", &hbapi.TimeRange{From: 1, To: 999}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("tr-1"), TimeRange: tc.tr, MaxVersions: tc.maxV})
			wantCells(t, "get", r, true, tc.want)
			var scanned []string
			for r, err := range hbapi.ScanAll(ctx, s.h.Data, &hbapi.Scan{Table: tbl, StartRow: b("tr-1"), StopRow: b("tr-2"), TimeRange: tc.tr, MaxVersions: tc.maxV}) {
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				scanned = append(scanned, show(r, true))
			}
			if got := strings.Join(scanned, " | "); got != tc.want {
				t.Errorf("scan: got %q, want %q", got, tc.want)
			}
		})
	}
}

func (s *suite) testDeletes(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	all := hbapi.AllVersions
	// seed writes cf:q and cf:r at 100, 200, 300 and cf2:q at 300.
	seed := func(t *testing.T, row string) {
		t.Helper()
		for _, ts := range []int64{100, 200, 300} {
			s.put(t, ctx, tbl, row, ts, "cf", "q", fmt.Sprintf("q%d", ts), "cf", "r", fmt.Sprintf("r%d", ts))
		}
		s.put(t, ctx, tbl, row, 300, "cf2", "q", "x")
	}
	tests := []struct {
		name string
		del  hbapi.Delete
		want string
	}{
		{"newest version of a column", hbapi.Delete{Family: b("cf"), Qualifier: b("q")},
			"cf:q@200=q200 cf:q@100=q100 cf:r@300=r300 cf:r@200=r200 cf:r@100=r100 cf2:q@300=x"},
		{"one version by timestamp", hbapi.Delete{Family: b("cf"), Qualifier: b("q"), Timestamp: 200},
			"cf:q@300=q300 cf:q@100=q100 cf:r@300=r300 cf:r@200=r200 cf:r@100=r100 cf2:q@300=x"},
		{"one version, no such timestamp", hbapi.Delete{Family: b("cf"), Qualifier: b("q"), Timestamp: 250},
			"cf:q@300=q300 cf:q@200=q200 cf:q@100=q100 cf:r@300=r300 cf:r@200=r200 cf:r@100=r100 cf2:q@300=x"},
		{"all versions of a column", hbapi.Delete{Family: b("cf"), Qualifier: b("q"), AllVersions: true},
			"cf:r@300=r300 cf:r@200=r200 cf:r@100=r100 cf2:q@300=x"},
		{"column versions up to a timestamp", hbapi.Delete{Family: b("cf"), Qualifier: b("q"), AllVersions: true, Timestamp: 200},
			"cf:q@300=q300 cf:r@300=r300 cf:r@200=r200 cf:r@100=r100 cf2:q@300=x"},
		{"family", hbapi.Delete{Family: b("cf")}, "cf2:q@300=x"},
		{"family up to a timestamp", hbapi.Delete{Family: b("cf"), Timestamp: 200},
			"cf:q@300=q300 cf:r@300=r300 cf2:q@300=x"},
		{"row", hbapi.Delete{}, ""},
		{"row up to a timestamp", hbapi.Delete{Timestamp: 200}, "cf:q@300=q300 cf:r@300=r300 cf2:q@300=x"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row := fmt.Sprintf("del-%02d", i)
			seed(t, row)
			d := tc.del
			d.Table, d.Row = tbl, b(row)
			if err := s.h.Data.Delete(ctx, &d); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row), MaxVersions: all})
			wantCells(t, "after delete", r, true, tc.want)
		})
	}

	s.testDeleteEdges(t, ctx, tbl)
}

// testDeleteEdges covers deletes beyond one marker on a seeded row: a row
// marker hiding later puts, a server-time delete, the refused empty
// qualifier, a missing row.
func (s *suite) testDeleteEdges(t *testing.T, ctx context.Context, tbl string) {
	all := hbapi.AllVersions
	t.Run("marker hides later puts with older timestamps", func(t *testing.T) {
		row := "del-mask"
		if err := s.h.Data.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b(row), Timestamp: 5000}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		s.put(t, ctx, tbl, row, 4000, "cf", "q", "hidden")
		s.put(t, ctx, tbl, row, 5000, "cf", "q", "hidden too")
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
		wantCells(t, "puts at or before the row marker", r, true, "")
		s.put(t, ctx, tbl, row, 6000, "cf", "q", "visible")
		r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row), MaxVersions: all})
		wantCells(t, "put after the row marker", r, true, "cf:q@6000=visible")
	})

	t.Run("server time delete then newer put", func(t *testing.T) {
		row := "del-now"
		s.put(t, ctx, tbl, row, 0, "cf", "q", "a")
		if err := s.h.Data.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b(row), Family: b("cf"), Qualifier: b("q"), AllVersions: true}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
		wantCells(t, "after delete", r, false, "")
		s.put(t, ctx, tbl, row, hbapi.LatestTimestamp-1, "cf", "q", "far future")
		r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
		wantCells(t, "newer put", r, false, "cf:q=far future")
	})

	t.Run("empty qualifier refused", func(t *testing.T) {
		// A non-nil empty qualifier is refused, alone, in a Batch, in a
		// CheckAndMutate and in a MutateRow, never read as "the family":
		// the column with the empty qualifier and its neighbours stay.
		row := "del-empty-q"
		s.put(t, ctx, tbl, row, 100, "cf", "", "e", "cf", "q", "q")
		del := func() *hbapi.Delete {
			return &hbapi.Delete{Table: tbl, Row: b(row), Family: b("cf"), Qualifier: []byte{}, AllVersions: true}
		}
		wantErr(t, "Delete", s.h.Data.Delete(ctx, del()), hbapi.ErrInvalidRequest)
		_, err := s.h.Data.Batch(ctx, []hbapi.Action{del()})
		wantErr(t, "Batch", err, hbapi.ErrInvalidRequest)
		_, err = s.h.Data.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: tbl, Row: b(row), Family: b("cf"), Qualifier: b("q"),
			Compare: hbapi.CompareEqual, Value: b("q"), Mutations: []hbapi.Mutation{del()}})
		wantErr(t, "CheckAndMutate", err, hbapi.ErrInvalidRequest)
		wantErr(t, "MutateRow", s.h.Data.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b(row), Mutations: []hbapi.Mutation{del()}}), hbapi.ErrInvalidRequest)
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
		wantCells(t, "after the refused deletes", r, false, "cf:=e cf:q=q")
	})

	t.Run("missing row", func(t *testing.T) {
		if err := s.h.Data.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b("del-nothing-here")}); err != nil {
			t.Errorf("Delete of a missing row: %v", err)
		}
	})
}

func (s *suite) testCheckAndMutate(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	cam := func(t *testing.T, c hbapi.CheckAndMutate) bool {
		t.Helper()
		c.Table = tbl
		ok, err := s.h.Data.CheckAndMutate(ctx, &c)
		if err != nil {
			t.Fatalf("CheckAndMutate: %v", err)
		}
		return ok
	}
	value := func(t *testing.T, row, q string) string {
		t.Helper()
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row), Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b(q)}}})
		if r.Empty() {
			return "<absent>"
		}
		return string(r.Value(b("cf"), b(q)))
	}
	setQ := func(v string) []hbapi.Mutation {
		return []hbapi.Mutation{&hbapi.Put{Values: vals("cf", "q", v)}}
	}

	t.Run("absent", func(t *testing.T) {
		row := b("cam-absent")
		if !cam(t, hbapi.CheckAndMutate{Row: row, Family: b("cf"), Qualifier: b("q"), Mutations: setQ("first")}) {
			t.Fatal("absence check on an absent column: false, want true")
		}
		if got := value(t, "cam-absent", "q"); got != "first" {
			t.Errorf("value = %q, want first", got)
		}
		if cam(t, hbapi.CheckAndMutate{Row: row, Family: b("cf"), Qualifier: b("q"), Mutations: setQ("second")}) {
			t.Error("absence check on a present column: true, want false")
		}
		if got := value(t, "cam-absent", "q"); got != "first" {
			t.Errorf("value = %q, want first (mutation must not apply)", got)
		}
		// NOT_EQUAL with an empty value: holds for a present, non-empty value.
		if !cam(t, hbapi.CheckAndMutate{Row: row, Family: b("cf"), Qualifier: b("q"), Compare: hbapi.CompareNotEqual, Mutations: setQ("third")}) {
			t.Error("presence check on a present column: false, want true")
		}
		if cam(t, hbapi.CheckAndMutate{Row: row, Family: b("cf"), Qualifier: b("other"), Compare: hbapi.CompareNotEqual, Mutations: setQ("fourth")}) {
			t.Error("presence check on an absent column: true, want false")
		}
		if got := value(t, "cam-absent", "q"); got != "third" {
			t.Errorf("value = %q, want third", got)
		}
	})

	t.Run("equal", func(t *testing.T) {
		row := "cam-eq"
		s.put(t, ctx, tbl, row, 0, "cf", "q", "v1")
		if !cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Value: b("v1"), Mutations: setQ("v2")}) {
			t.Fatal("EQUAL v1 on v1: false, want true")
		}
		if cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Value: b("v1"), Mutations: setQ("v3")}) {
			t.Error("EQUAL v1 on v2: true, want false")
		}
		if got := value(t, row, "q"); got != "v2" {
			t.Errorf("value = %q, want v2", got)
		}
		if !cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Compare: hbapi.CompareNotEqual, Value: b("v1"), Mutations: setQ("v4")}) {
			t.Error("NOT_EQUAL v1 on v2: false, want true")
		}
		if cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("absent"), Compare: hbapi.CompareNotEqual, Value: b("v1"), Mutations: setQ("v5")}) {
			t.Error("NOT_EQUAL v1 on an absent column: true, want false")
		}
		if got := value(t, row, "q"); got != "v4" {
			t.Errorf("value = %q, want v4", got)
		}
	})

	s.testCheckAndMutateOptions(t, ctx, tbl, cam)
}

// testCheckAndMutateOptions covers what a check can say beyond equality
// (ordering operators, a time range), several mutations under one check,
// and a mutation of a missing family; cam is testCheckAndMutate's.
func (s *suite) testCheckAndMutateOptions(t *testing.T, ctx context.Context, tbl string, cam func(*testing.T, hbapi.CheckAndMutate) bool) {
	t.Run("ordering operators compare stored OP given", func(t *testing.T) {
		row := "cam-ord"
		s.put(t, ctx, tbl, row, 0, "cf", "q", "5")
		tests := []struct {
			op    hbapi.CompareOp
			value string
			want  bool
		}{
			{hbapi.CompareGreater, "3", true},
			{hbapi.CompareGreater, "5", false},
			{hbapi.CompareGreater, "7", false},
			{hbapi.CompareGreaterOrEqual, "5", true},
			{hbapi.CompareGreaterOrEqual, "7", false},
			{hbapi.CompareLess, "7", true},
			{hbapi.CompareLess, "3", false},
			{hbapi.CompareLessOrEqual, "5", true},
			{hbapi.CompareLessOrEqual, "3", false},
		}
		for _, tc := range tests {
			got := cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Compare: tc.op, Value: b(tc.value),
				Mutations: []hbapi.Mutation{&hbapi.Put{Values: vals("cf", "hit", "1")}}})
			if got != tc.want {
				t.Errorf("stored 5 %v %s = %v, want %v", tc.op, tc.value, got, tc.want)
			}
		}
	})

	t.Run("delete and several mutations", func(t *testing.T) {
		row := "cam-multi"
		s.put(t, ctx, tbl, row, 0, "cf", "q", "go", "cf", "gone", "x")
		ok := cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Value: b("go"), Mutations: []hbapi.Mutation{
			&hbapi.Delete{Family: b("cf"), Qualifier: b("gone"), AllVersions: true},
			&hbapi.Put{Table: tbl, Row: b(row), Values: vals("cf", "new", "n", "cf2", "z", "z")},
		}})
		if !ok {
			t.Fatal("EQUAL go on go: false, want true")
		}
		r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
		wantCells(t, "after conditional mutations", r, false, "cf:new=n cf:q=go cf2:z=z")
	})

	t.Run("time range", func(t *testing.T) {
		row := "cam-tr"
		s.put(t, ctx, tbl, row, 100, "cf", "q", "old")
		s.put(t, ctx, tbl, row, 200, "cf", "q", "new")
		if !cam(t, hbapi.CheckAndMutate{Row: b(row), Family: b("cf"), Qualifier: b("q"), Value: b("old"), TimeRange: &hbapi.TimeRange{From: 0, To: 150},
			Mutations: []hbapi.Mutation{&hbapi.Put{Values: vals("cf", "hit", "1")}}}) {
			t.Error("EQUAL old within [0,150): false, want true")
		}
	})

	t.Run("no such family", func(t *testing.T) {
		_, err := s.h.Data.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: tbl, Row: b("cam-nsf"), Family: b("cf"), Qualifier: b("q"),
			Mutations: []hbapi.Mutation{&hbapi.Put{Values: vals("nope", "q", "v")}}})
		wantErr(t, "mutation of a missing family", err, hbapi.ErrNoSuchFamily)
	})
}

func (s *suite) testMutateRow(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	row := "mr-1"
	s.put(t, ctx, tbl, row, 0, "cf", "a", "1", "cf", "b", "2")
	err := s.h.Data.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b(row), Mutations: []hbapi.Mutation{
		&hbapi.Put{Values: vals("cf", "c", "3", "cf2", "d", "4")},
		&hbapi.Delete{Family: b("cf"), Qualifier: b("a"), AllVersions: true},
	}})
	if err != nil {
		t.Fatalf("MutateRow: %v", err)
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
	wantCells(t, "after MutateRow", r, false, "cf:b=2 cf:c=3 cf2:d=4")

	// One server timestamp for the whole batch: the Delete hides the Put of
	// the same column even though the Put comes after it (HBase 2.6 does
	// this; checked with the Java client).
	err = s.h.Data.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b("mr-2"), Mutations: []hbapi.Mutation{
		&hbapi.Delete{Family: b("cf"), Qualifier: b("a"), AllVersions: true},
		&hbapi.Put{Values: vals("cf", "a", "after delete", "cf", "b", "kept")},
	}})
	if err != nil {
		t.Fatalf("MutateRow: %v", err)
	}
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("mr-2")})
	wantCells(t, "delete then put of one column in one MutateRow", r, false, "cf:b=kept")

	// All or nothing: a bad family fails the whole batch.
	err = s.h.Data.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b(row), Mutations: []hbapi.Mutation{
		&hbapi.Put{Values: vals("cf", "e", "5")},
		&hbapi.Put{Values: vals("nope", "f", "6")},
	}})
	wantErr(t, "MutateRow with a missing family", err, hbapi.ErrNoSuchFamily)
	r = s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b(row)})
	wantCells(t, "after failed MutateRow", r, false, "cf:b=2 cf:c=3 cf2:d=4")
}

func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func (s *suite) testIncrement(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	row := b("inc-1")
	inc := func(t *testing.T, deltas map[string]map[string]int64) *hbapi.Result {
		t.Helper()
		r, err := s.h.Data.Increment(ctx, &hbapi.Increment{Table: tbl, Row: row, Deltas: deltas})
		if err != nil {
			t.Fatalf("Increment: %v", err)
		}
		return r
	}
	r := inc(t, map[string]map[string]int64{"cf": {"n": 5}})
	if got := r.Value(b("cf"), b("n")); !bytes.Equal(got, be64(5)) {
		t.Errorf("first increment: %x, want %x", got, be64(5))
	}
	r = inc(t, map[string]map[string]int64{"cf": {"n": -7, "m": 1}})
	if got := r.Value(b("cf"), b("n")); !bytes.Equal(got, be64(-2)) {
		t.Errorf("second increment n: %x, want %x", got, be64(-2))
	}
	if got := r.Value(b("cf"), b("m")); !bytes.Equal(got, be64(1)) {
		t.Errorf("second increment m: %x, want %x", got, be64(1))
	}
	g := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: row, Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("n")}}})
	if got := g.Value(b("cf"), b("n")); !bytes.Equal(got, be64(-2)) {
		t.Errorf("stored counter: %x, want %x", got, be64(-2))
	}
	s.put(t, ctx, tbl, "inc-1", 0, "cf", "text", "abc")
	_, err := s.h.Data.Increment(ctx, &hbapi.Increment{Table: tbl, Row: row, Deltas: map[string]map[string]int64{"cf": {"text": 1}}})
	if err == nil {
		t.Error("Increment of a 3-byte value: no error")
	} else if hbapi.IsRetryable(err) {
		t.Errorf("Increment of a 3-byte value: retryable error %v", err)
	}
	_, err = s.h.Data.Increment(ctx, &hbapi.Increment{Table: tbl, Row: row, Deltas: map[string]map[string]int64{"nope": {"n": 1}}})
	wantErr(t, "Increment of a missing family", err, hbapi.ErrNoSuchFamily)
}

func (s *suite) testAppend(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	app := func(t *testing.T, suffix string) *hbapi.Result {
		t.Helper()
		r, err := s.h.Data.Append(ctx, &hbapi.Append{Table: tbl, Row: b("app-1"), Values: vals("cf", "s", suffix)})
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		return r
	}
	if got := string(app(t, "ab").Value(b("cf"), b("s"))); got != "ab" {
		t.Errorf("first append: %q, want ab", got)
	}
	if got := string(app(t, "cd").Value(b("cf"), b("s"))); got != "abcd" {
		t.Errorf("second append: %q, want abcd", got)
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("app-1")})
	wantCells(t, "stored", r, false, "cf:s=abcd")
}
