package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

// Harness gives the suite the clients under test.
type Harness struct {
	Data  hbapi.DataClient
	Admin hbapi.AdminClient
	// NewTableName returns a table qualifier (no namespace) that no
	// existing table uses, built from base, e.g. base + a random suffix.
	// Required.
	NewTableName func(base string) string
	// Timeout bounds each test (default 2 minutes).
	Timeout time.Duration
	// KeepTables leaves the suite's tables in place for inspection.
	KeepTables bool
	// Unsupported names what the implementation does not offer, each
	// with the reason; the tests that need it are skipped with that
	// reason. Nil for a complete implementation.
	Unsupported map[Capability]string
}

// Capability is a part of the interfaces that an implementation may leave
// out (an adapter over another client library), documenting the gap. The
// suite needs CreateTable, DisableTable and DeleteTable in every case.
type Capability string

const (
	// ScanBatch is Scan.Batch: wide rows cut into Results of at most
	// Batch cells.
	ScanBatch Capability = "Scan.Batch"
	// FullAdmin is the rest of hbase.AdminClient, which the Admin test
	// runs on a table of a namespace of its own: namespaces, TableExists,
	// IsTableEnabled, ListTables, DescribeTable, ModifyTable,
	// EnableTable, TruncateTable, TableRegions and SplitRegion.
	FullAdmin Capability = "the full AdminClient"
	// CellSizeLimit is HBase's maximum cell size checked before sending:
	// a larger cell refused with an *hbase.InvalidRequestError wrapping
	// hbase.ErrCellTooLarge that names the column.
	CellSizeLimit Capability = "the cell size limit"
)

// need skips t if the implementation lacks c.
func (s *suite) need(t *testing.T, c Capability) {
	t.Helper()
	if why, ok := s.h.Unsupported[c]; ok {
		t.Skipf("unsupported: %s: %s", c, why)
	}
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, h Harness) {
	if h.Data == nil || h.Admin == nil || h.NewTableName == nil {
		t.Fatal("conformance: Harness needs Data, Admin and NewTableName")
	}
	if h.Timeout == 0 {
		h.Timeout = 2 * time.Minute
	}
	s := &suite{h: h}
	s.data = s.createTable(t, "conf_data", []hbapi.FamilyDescriptor{
		{Name: "cf", Attributes: map[string]string{"VERSIONS": "3"}},
		{Name: "cf2"},
	}, nil)
	t.Run("PutGet", s.testPutGet)
	t.Run("Versions", s.testVersions)
	t.Run("TimeRange", s.testTimeRange)
	t.Run("Deletes", s.testDeletes)
	t.Run("CheckAndMutate", s.testCheckAndMutate)
	t.Run("MutateRow", s.testMutateRow)
	t.Run("Increment", s.testIncrement)
	t.Run("Append", s.testAppend)
	t.Run("Batch", s.testBatch)
	t.Run("BatchCheckAndMutate", s.testBatchCheckAndMutate)
	t.Run("Validation", s.testValidation)
	t.Run("Errors", s.testErrors)
	t.Run("WriteLimits", s.testWriteLimits)

	s.scan = s.createTable(t, "conf_scan", []hbapi.FamilyDescriptor{{Name: "cf"}, {Name: "meta"}},
		[][]byte{[]byte("k15"), []byte("k05"), []byte("k10")})
	s.loadScanTable(t)
	t.Run("Scan", s.testScan)
	t.Run("ScanFilters", s.testScanFilters)
	t.Run("ScanWideRows", s.testScanWideRows)

	t.Run("Admin", s.testAdmin)
}

type suite struct {
	h    Harness
	data string // families cf (VERSIONS 3) and cf2 (VERSIONS 1)
	scan string // families cf, meta; split at k05, k10, k15; rows k00..k19
}

func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), s.h.Timeout)
	t.Cleanup(cancel)
	return ctx
}

func (s *suite) createTable(t *testing.T, base string, fams []hbapi.FamilyDescriptor, splits [][]byte) string {
	t.Helper()
	name := s.h.NewTableName(base)
	ctx := s.ctx(t)
	if err := s.h.Admin.CreateTable(ctx, hbapi.TableDescriptor{Name: name, Families: fams}, splits); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	if !s.h.KeepTables {
		t.Cleanup(func() { s.dropTable(name) })
	}
	return name
}

func (s *suite) dropTable(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.h.Timeout)
	defer cancel()
	_ = s.h.Admin.DisableTable(ctx, name)
	_ = s.h.Admin.DeleteTable(ctx, name)
}

// Ten-ish helpers shared by the tests.

func b(s string) []byte { return []byte(s) }

func vals(kv ...string) map[string]map[string][]byte {
	m := map[string]map[string][]byte{}
	for i := 0; i+2 < len(kv); i += 3 {
		if m[kv[i]] == nil {
			m[kv[i]] = map[string][]byte{}
		}
		m[kv[i]][kv[i+1]] = []byte(kv[i+2])
	}
	return m
}

func (s *suite) put(t *testing.T, ctx context.Context, table, row string, ts int64, kv ...string) {
	t.Helper()
	if err := s.h.Data.Put(ctx, &hbapi.Put{Table: table, Row: b(row), Values: vals(kv...), Timestamp: ts}); err != nil {
		t.Fatalf("Put(%s, %q): %v", table, row, err)
	}
}

func (s *suite) get(t *testing.T, ctx context.Context, g *hbapi.Get) *hbapi.Result {
	t.Helper()
	r, err := s.h.Data.Get(ctx, g)
	if err != nil {
		t.Fatalf("Get(%q): %v", g.Row, err)
	}
	if r == nil {
		t.Fatalf("Get(%q) returned a nil Result", g.Row)
	}
	return r
}

// show renders cells as "family:qualifier@ts=value" ("@ts" only when
// withTS), the readable form used in comparisons.
func show(r *hbapi.Result, withTS bool) string {
	if r == nil {
		return "<nil>"
	}
	parts := make([]string, 0, len(r.Cells))
	for _, c := range r.Cells {
		p := string(c.Family) + ":" + string(c.Qualifier)
		if withTS {
			p += fmt.Sprintf("@%d", c.Timestamp)
		}
		parts = append(parts, p+"="+string(c.Value))
	}
	return strings.Join(parts, " ")
}

func wantCells(t *testing.T, what string, r *hbapi.Result, withTS bool, want string) {
	t.Helper()
	if got := show(r, withTS); got != want {
		t.Errorf("%s: got  %q\n\twant %q", what, got, want)
	}
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: error = %v, want errors.Is(%v)", what, err, sentinel)
	}
}

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
	setQ := func(v string) *hbapi.Put { return &hbapi.Put{Values: vals("cf", "q", v)} }
	tests := []struct {
		action    hbapi.Action
		processed bool
		err       error
	}{
		{action: &hbapi.Put{Table: tbl, Row: b("bcam-p"), Values: vals("cf", "q", "p")}},
		{action: camQ("bcam-a", hbapi.CompareEqual, "a", setQ("a2")), processed: true},
		{action: camQ("bcam-b", hbapi.CompareEqual, "x", setQ("b2"))},
		// Three on one row: absent → n1; absent again fails; n1 → n3.
		{action: camQ("bcam-new", hbapi.CompareEqual, "", setQ("n1")), processed: true},
		{action: camQ("bcam-new", hbapi.CompareEqual, "", setQ("n2"))},
		{action: camQ("bcam-new", hbapi.CompareEqual, "n1", setQ("n3")), processed: true},
		// Stored "b" is greater than "a": holds (operator as in filters).
		{action: camQ("bcam-b", hbapi.CompareGreater, "a", &hbapi.Delete{Family: b("cf"), Qualifier: b("q")}), processed: true},
		{action: camQ("bcam-b2", hbapi.CompareEqual, "", &hbapi.Put{Values: vals("nope", "q", "x")}), err: hbapi.ErrNoSuchFamily},
		// Several mutations, applied together.
		{action: camQ("bcam-m", hbapi.CompareEqual, "", setQ("m"), &hbapi.Put{Values: vals("cf2", "r", "m")}), processed: true},
		{action: camQ("bcam-a", hbapi.CompareLess, "a", setQ("never"))},
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

	// Only conditions that fail: nothing is written, nothing is an error.
	res, err = s.h.Data.Batch(ctx, []hbapi.Action{
		camQ("bcam-a", hbapi.CompareEqual, "a", setQ("stale")),
		camQ("bcam-new", hbapi.CompareEqual, "", setQ("again")),
		camQ("bcam-b", hbapi.CompareNotEqual, "", setQ("b3")),
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
			many = append(many, camQ(fmt.Sprintf("bcam-many-%02d", i), hbapi.CompareEqual, prev, setQ(set)))
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
		camQ("bcam-x", hbapi.CompareEqual, "", setQ("x")),
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

func (s *suite) testValidation(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	long := bytes.Repeat([]byte("x"), hbapi.MaxRowLength+1)
	longFam := strings.Repeat("f", hbapi.MaxFamilyLength+1)
	d := s.h.Data
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"put empty row", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Values: vals("cf", "q", "v")}) }, hbapi.ErrEmptyRow},
		{"put long row", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: long, Values: vals("cf", "q", "v")}) }, hbapi.ErrRowTooLong},
		{"put empty family", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals("", "q", "v")}) }, hbapi.ErrEmptyFamily},
		{"put long family", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals(longFam, "q", "v")})
		}, hbapi.ErrFamilyTooLong},
		{"put nil value", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: map[string]map[string][]byte{"cf": {"q": nil}}})
		}, hbapi.ErrNilValue},
		{"put negative timestamp", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1"), Values: vals("cf", "q", "v"), Timestamp: -1})
		}, hbapi.ErrNegativeTimestamp},
		{"put no columns", func() error { return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("val-1")}) }, hbapi.ErrEmptyMutation},
		{"put empty table", func() error { return d.Put(ctx, &hbapi.Put{Row: b("val-1"), Values: vals("cf", "q", "v")}) }, hbapi.ErrEmptyTableName},
		{"put invalid table", func() error {
			return d.Put(ctx, &hbapi.Put{Table: "bad name", Row: b("val-1"), Values: vals("cf", "q", "v")})
		}, hbapi.ErrInvalidTableName},
		{"put nil", func() error { return d.Put(ctx, nil) }, hbapi.ErrInvalidRequest},
		{"get empty row", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: tbl}); return err }, hbapi.ErrEmptyRow},
		{"get long row", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: long}); return err }, hbapi.ErrRowTooLong},
		{"get bad time range", func() error {
			_, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: b("val-1"), TimeRange: &hbapi.TimeRange{From: 10, To: 5}})
			return err
		}, hbapi.ErrInvalidTimeRange},
		{"delete negative timestamp", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b("val-1"), Timestamp: -2}) }, hbapi.ErrNegativeTimestamp},
		{"delete empty row", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl}) }, hbapi.ErrEmptyRow},
		{"increment empty row", func() error {
			_, err := d.Increment(ctx, &hbapi.Increment{Table: tbl, Deltas: map[string]map[string]int64{"cf": {"n": 1}}})
			return err
		}, hbapi.ErrEmptyRow},
		{"append nil value", func() error {
			_, err := d.Append(ctx, &hbapi.Append{Table: tbl, Row: b("val-1"), Values: map[string]map[string][]byte{"cf": {"q": nil}}})
			return err
		}, hbapi.ErrNilValue},
		{"check and mutate other row", func() error {
			_, err := d.CheckAndMutate(ctx, &hbapi.CheckAndMutate{Table: tbl, Row: b("val-1"), Family: b("cf"), Qualifier: b("q"),
				Mutations: []hbapi.Mutation{&hbapi.Put{Row: b("val-2"), Values: vals("cf", "q", "v")}}})
			return err
		}, hbapi.ErrRowMismatch},
		{"mutate row empty", func() error { return d.MutateRow(ctx, &hbapi.RowMutations{Table: tbl, Row: b("val-1")}) }, hbapi.ErrEmptyMutation},
		{"scan invalid table", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: "a:b:c"}); return err }, hbapi.ErrInvalidTableName},
		{"scan long start row", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: tbl, StartRow: long}); return err }, hbapi.ErrRowTooLong},
		{"scan negative limit", func() error { _, err := d.Scan(ctx, &hbapi.Scan{Table: tbl, Limit: -1}); return err }, hbapi.ErrInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantErr(t, "call", err, tc.want)
			var ie *hbapi.InvalidRequestError
			if err != nil && !errors.As(err, &ie) {
				t.Errorf("error %v is not an *hbase.InvalidRequestError", err)
			}
			if hbapi.IsRetryable(err) {
				t.Errorf("validation error %v is retryable", err)
			}
		})
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("val-1")})
	wantCells(t, "nothing written by rejected requests", r, false, "")
}

func (s *suite) testErrors(t *testing.T) {
	ctx := s.ctx(t)
	tbl := s.data
	d := s.h.Data
	missing := s.h.NewTableName("conf_missing")
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"put missing family", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("err-1"), Values: vals("nope", "q", "v")})
		}, hbapi.ErrNoSuchFamily},
		{"put one missing family of two", func() error {
			return d.Put(ctx, &hbapi.Put{Table: tbl, Row: b("err-1"), Values: vals("cf", "q", "v", "nope", "q", "v")})
		}, hbapi.ErrNoSuchFamily},
		{"get missing family", func() error {
			_, err := d.Get(ctx, &hbapi.Get{Table: tbl, Row: b("err-1"), Families: [][]byte{b("nope")}})
			return err
		}, hbapi.ErrNoSuchFamily},
		{"delete missing family", func() error { return d.Delete(ctx, &hbapi.Delete{Table: tbl, Row: b("err-1"), Family: b("nope")}) }, hbapi.ErrNoSuchFamily},
		{"scan missing family", func() error { return scanErr(ctx, d, &hbapi.Scan{Table: tbl, Families: [][]byte{b("nope")}}) }, hbapi.ErrNoSuchFamily},
		{"get missing table", func() error { _, err := d.Get(ctx, &hbapi.Get{Table: missing, Row: b("r")}); return err }, hbapi.ErrTableNotFound},
		{"put missing table", func() error { return d.Put(ctx, &hbapi.Put{Table: missing, Row: b("r"), Values: vals("cf", "q", "v")}) }, hbapi.ErrTableNotFound},
		{"scan missing table", func() error { return scanErr(ctx, d, &hbapi.Scan{Table: missing}) }, hbapi.ErrTableNotFound},
		{"batch missing table", func() error {
			_, err := d.Batch(ctx, []hbapi.Action{&hbapi.Get{Table: missing, Row: b("r")}})
			return err
		}, hbapi.ErrTableNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantErr(t, "call", err, tc.want)
			if hbapi.IsRetryable(err) {
				t.Errorf("error %v is retryable", err)
			}
		})
	}
	r := s.get(t, ctx, &hbapi.Get{Table: tbl, Row: b("err-1")})
	wantCells(t, "nothing written by failed puts", r, false, "")

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := d.Get(canceled, &hbapi.Get{Table: tbl, Row: b("err-1")})
	wantErr(t, "get with a canceled context", err, context.Canceled)
}

// scanErr opens a scan and reads it to the end, returning the first error
// (the open or the iteration).
func scanErr(ctx context.Context, d hbapi.DataClient, s *hbapi.Scan) error {
	for _, err := range hbapi.ScanAll(ctx, d, s) {
		if err != nil {
			return err
		}
	}
	return nil
}

// loadScanTable writes rows k00..k19 to the scan table: cf:n = the row
// number, cf:even = "1" on even rows, meta:tag = "t" on multiples of 5.
func (s *suite) loadScanTable(t *testing.T) {
	ctx := s.ctx(t)
	var actions []hbapi.Action
	for i := range 20 {
		v := vals("cf", "n", fmt.Sprintf("%02d", i))
		if i%2 == 0 {
			v["cf"]["even"] = []byte("1")
		}
		if i%5 == 0 {
			v["meta"] = map[string][]byte{"tag": []byte("t")}
		}
		actions = append(actions, &hbapi.Put{Table: s.scan, Row: b(fmt.Sprintf("k%02d", i)), Values: v})
	}
	if _, err := s.h.Data.Batch(ctx, actions); err != nil {
		t.Fatalf("loading the scan table: %v", err)
	}
}

// keys returns "k00..k04"-style expectations: the keys from..to inclusive,
// counting down if from > to.
func keys(from, to int) string {
	var out []string
	step := 1
	if from > to {
		step = -1
	}
	for i := from; ; i += step {
		out = append(out, fmt.Sprintf("k%02d", i))
		if i == to {
			break
		}
	}
	return strings.Join(out, " ")
}

// scanRows runs a scan and returns its row keys and results.
func (s *suite) scanRows(t *testing.T, ctx context.Context, sc *hbapi.Scan) (string, []*hbapi.Result) {
	t.Helper()
	sc.Table = s.scan
	var rows []string
	var results []*hbapi.Result
	for r, err := range hbapi.ScanAll(ctx, s.h.Data, sc) {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		if r.Empty() {
			t.Errorf("scan returned an empty result")
			continue
		}
		rows = append(rows, string(r.Row()))
		results = append(results, r)
	}
	return strings.Join(rows, " "), results
}

func (s *suite) testScan(t *testing.T) {
	ctx := s.ctx(t)
	tests := []struct {
		name string
		scan hbapi.Scan
		want string
	}{
		{"all", hbapi.Scan{}, keys(0, 19)},
		{"all one row per call", hbapi.Scan{Caching: 1}, keys(0, 19)},
		{"all small calls", hbapi.Scan{Caching: 3, MaxResultSize: 64}, keys(0, 19)},
		{"start inclusive stop exclusive", hbapi.Scan{StartRow: b("k03"), StopRow: b("k12")}, keys(3, 11)},
		{"bounds on region boundaries", hbapi.Scan{StartRow: b("k05"), StopRow: b("k15")}, keys(5, 14)},
		{"start between rows", hbapi.Scan{StartRow: b("k045"), StopRow: b("k07")}, keys(5, 6)},
		{"start only", hbapi.Scan{StartRow: b("k17")}, keys(17, 19)},
		{"stop only", hbapi.Scan{StopRow: b("k02")}, keys(0, 1)},
		{"empty range", hbapi.Scan{StartRow: b("k055"), StopRow: b("k06")}, ""},
		{"past the end", hbapi.Scan{StartRow: b("z")}, ""},
		{"limit", hbapi.Scan{Limit: 7}, keys(0, 6)},
		{"limit across regions with small calls", hbapi.Scan{StartRow: b("k03"), Limit: 9, Caching: 2}, keys(3, 11)},
		{"limit larger than range", hbapi.Scan{StartRow: b("k18"), Limit: 10}, keys(18, 19)},
		{"reversed all", hbapi.Scan{Reversed: true}, keys(19, 0)},
		{"reversed small calls", hbapi.Scan{Reversed: true, Caching: 2}, keys(19, 0)},
		{"reversed start inclusive stop exclusive", hbapi.Scan{Reversed: true, StartRow: b("k12"), StopRow: b("k03")}, keys(12, 4)},
		{"reversed on region boundaries", hbapi.Scan{Reversed: true, StartRow: b("k15"), StopRow: b("k05")}, keys(15, 6)},
		{"reversed start between rows", hbapi.Scan{Reversed: true, StartRow: b("k105"), StopRow: b("k08")}, keys(10, 9)},
		{"reversed start only", hbapi.Scan{Reversed: true, StartRow: b("k02")}, keys(2, 0)},
		{"reversed stop only", hbapi.Scan{Reversed: true, StopRow: b("k16")}, keys(19, 17)},
		{"reversed limit", hbapi.Scan{Reversed: true, Limit: 8}, keys(19, 12)},
		{"reusing memory", hbapi.Scan{ReuseMemory: true, Caching: 3}, keys(0, 19)},
		{"reusing memory reversed from a row", hbapi.Scan{ReuseMemory: true, Reversed: true, StartRow: b("k12"), Caching: 2}, keys(12, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.scan
			got, _ := s.scanRows(t, ctx, &sc)
			if got != tc.want {
				t.Errorf("rows:\n\tgot  %q\n\twant %q", got, tc.want)
			}
		})
	}

	t.Run("columns", func(t *testing.T) {
		_, res := s.scanRows(t, ctx, &hbapi.Scan{StartRow: b("k04"), StopRow: b("k06")})
		if len(res) == 2 {
			wantCells(t, "k04", res[0], false, "cf:even=1 cf:n=04")
			wantCells(t, "k05", res[1], false, "cf:n=05 meta:tag=t")
		} else {
			t.Errorf("got %d rows, want 2", len(res))
		}
		got, res := s.scanRows(t, ctx, &hbapi.Scan{Families: [][]byte{b("meta")}})
		if got != "k00 k05 k10 k15" {
			t.Errorf("family meta rows: %q, want k00 k05 k10 k15", got)
		}
		if len(res) > 0 {
			wantCells(t, "meta only", res[0], false, "meta:tag=t")
		}
		got, _ = s.scanRows(t, ctx, &hbapi.Scan{Columns: []hbapi.Column{{Family: b("cf"), Qualifier: b("even")}}, StopRow: b("k05")})
		if got != "k00 k02 k04" {
			t.Errorf("column cf:even rows: %q, want k00 k02 k04", got)
		}
	})

	t.Run("scanner protocol", func(t *testing.T) {
		sc, err := s.h.Data.Scan(ctx, &hbapi.Scan{Table: s.scan, StartRow: b("k01"), Caching: 1})
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if !sc.Next() {
			t.Fatalf("Next() = false, Err() = %v", sc.Err())
		}
		first := sc.Result()
		if !sc.Next() {
			t.Fatalf("second Next() = false, Err() = %v", sc.Err())
		}
		if got := string(first.Row()); got != "k01" {
			t.Errorf("first row %q (after a second Next), want k01", got)
		}
		if err := sc.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if sc.Next() {
			t.Error("Next() after Close = true")
		}
		if err := sc.Err(); err != nil {
			t.Errorf("Err() after an early Close = %v, want nil", err)
		}
		if err := sc.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}

		sc, err = s.h.Data.Scan(ctx, &hbapi.Scan{Table: s.scan, StartRow: b("k19")})
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		n := 0
		for sc.Next() {
			n++
		}
		if n != 1 || sc.Err() != nil {
			t.Errorf("scan to the end: %d rows, Err() = %v; want 1, nil", n, sc.Err())
		}
		if sc.Next() {
			t.Error("Next() after the end = true")
		}
		if err := sc.Close(); err != nil {
			t.Errorf("Close after the end: %v", err)
		}
	})

	t.Run("sees writes made before it opens", func(t *testing.T) {
		s.put(t, ctx, s.scan, "k07", 0, "meta", "late", "yes")
		got, _ := s.scanRows(t, ctx, &hbapi.Scan{Columns: []hbapi.Column{{Family: b("meta"), Qualifier: b("late")}}})
		if got != "k07" {
			t.Errorf("rows with meta:late = %q, want k07", got)
		}
		if err := s.h.Data.Delete(ctx, &hbapi.Delete{Table: s.scan, Row: b("k07"), Family: b("meta"), Qualifier: b("late"), AllVersions: true}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	})
}

// testScanWideRows reads rows wider than a scan call's size limit whole,
// in Batch-sized Results, and in parts (AllowPartial).
func (s *suite) testScanWideRows(t *testing.T) {
	ctx := s.ctx(t)
	wide := map[string]map[string][]byte{"cf": {}}
	var all []string
	for i := range 25 {
		q := fmt.Sprintf("c%02d", i)
		wide["cf"][q] = bytes.Repeat([]byte{byte('a' + i)}, 40)
		all = append(all, q)
	}
	if err := s.h.Data.Put(ctx, &hbapi.Put{Table: s.data, Row: b("wide-1"), Values: wide}); err != nil {
		t.Fatalf("Put: %v", err)
	}
	s.put(t, ctx, s.data, "wide-2", 0, "cf", "c00", "x", "cf", "c01", "y", "cf", "c02", "z")
	// layout renders results as row:qualifiers, and checks the values.
	// Scans without bounds get the wide rows' range.
	layout := func(t *testing.T, sc hbapi.Scan) string {
		t.Helper()
		sc.Table = s.data
		if sc.StartRow == nil {
			sc.StartRow, sc.StopRow = b("wide-"), b("wide.")
		}
		var parts []string
		for r, err := range hbapi.ScanAll(ctx, s.h.Data, &sc) {
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			var qs []string
			for _, c := range r.Cells {
				qs = append(qs, string(c.Qualifier))
				if string(c.Row) == "wide-1" && !bytes.Equal(c.Value, wide["cf"][string(c.Qualifier)]) {
					t.Errorf("wide-1 %s = %q", c.Qualifier, c.Value)
				}
			}
			parts = append(parts, string(r.Row())+":"+strings.Join(qs, ","))
		}
		return strings.Join(parts, " ")
	}
	row1 := func(from, to int) string { return "wide-1:" + strings.Join(all[from:to], ",") }
	var pairs []string
	for i := 0; i < 25; i += 2 {
		pairs = append(pairs, row1(i, min(i+2, 25)))
	}
	tests := []struct {
		name string
		scan hbapi.Scan
		want string
	}{
		{"whole rows", hbapi.Scan{MaxResultSize: 100}, row1(0, 25) + " wide-2:c00,c01,c02"},
		{"batch", hbapi.Scan{Batch: 10}, row1(0, 10) + " " + row1(10, 20) + " " + row1(20, 25) + " wide-2:c00,c01,c02"},
		{"batch with small calls", hbapi.Scan{Batch: 10, MaxResultSize: 100, Caching: 1}, row1(0, 10) + " " + row1(10, 20) + " " + row1(20, 25) + " wide-2:c00,c01,c02"},
		{"batch with limit", hbapi.Scan{Batch: 10, Limit: 1}, row1(0, 10) + " " + row1(10, 20) + " " + row1(20, 25)},
		{"batch reversed", hbapi.Scan{Batch: 2, Reversed: true, StartRow: b("wide."), StopRow: b("wide-")}, "wide-2:c00,c01 wide-2:c02 " + strings.Join(pairs, " ")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.scan.Batch > 0 {
				s.need(t, ScanBatch)
			}
			if got := layout(t, tc.scan); got != tc.want {
				t.Errorf("results:\n\tgot  %s\n\twant %s", got, tc.want)
			}
		})
	}

	t.Run("allow partial", func(t *testing.T) {
		got := layout(t, hbapi.Scan{AllowPartial: true, MaxResultSize: 100})
		// Parts of a row are consecutive; joined they are the row.
		joined := map[string][]string{}
		var order []string
		for _, p := range strings.Fields(got) {
			row, qs, _ := strings.Cut(p, ":")
			if len(order) == 0 || order[len(order)-1] != row {
				order = append(order, row)
			}
			joined[row] = append(joined[row], strings.Split(qs, ",")...)
		}
		if strings.Join(order, " ") != "wide-1 wide-2" || strings.Join(joined["wide-1"], ",") != strings.Join(all, ",") ||
			strings.Join(joined["wide-2"], ",") != "c00,c01,c02" {
			t.Errorf("parts %s do not join into the two rows", got)
		}
	})

	t.Run("negative batch", func(t *testing.T) {
		_, err := s.h.Data.Scan(ctx, &hbapi.Scan{Table: s.data, Batch: -1})
		wantErr(t, "Scan with Batch -1", err, hbapi.ErrInvalidRequest)
	})
}

func (s *suite) testScanFilters(t *testing.T) {
	ctx := s.ctx(t)
	eq := func(v string) hbapi.Comparator { return &hbapi.BinaryComparator{Value: b(v)} }
	evenSCVF := func(ifMissing bool) *hbapi.SingleColumnValueFilter {
		return &hbapi.SingleColumnValueFilter{Family: b("cf"), Qualifier: b("even"), Compare: hbapi.CompareEqual, Comparator: eq("1"),
			FilterIfMissing: ifMissing, LatestVersionOnly: true}
	}
	tests := []struct {
		name string
		scan hbapi.Scan
		want string
	}{
		{"prefix", hbapi.Scan{StartRow: b("k1"), Filter: &hbapi.PrefixFilter{Prefix: b("k1")}}, keys(10, 19)},
		{"prefix without start row", hbapi.Scan{Filter: &hbapi.PrefixFilter{Prefix: b("k0")}}, keys(0, 9)},
		{"prefix reversed", hbapi.Scan{Reversed: true, StartRow: b("k1\xff"), Filter: &hbapi.PrefixFilter{Prefix: b("k1")}}, keys(19, 10)},
		{"row less", hbapi.Scan{Filter: &hbapi.RowFilter{Compare: hbapi.CompareLess, Comparator: eq("k03")}}, keys(0, 2)},
		{"row greater or equal", hbapi.Scan{Filter: &hbapi.RowFilter{Compare: hbapi.CompareGreaterOrEqual, Comparator: eq("k17")}}, keys(17, 19)},
		{"row binary prefix", hbapi.Scan{Filter: &hbapi.RowFilter{Compare: hbapi.CompareEqual, Comparator: &hbapi.BinaryPrefixComparator{Prefix: b("k1")}}}, keys(10, 19)},
		{"single column value", hbapi.Scan{Filter: &hbapi.SingleColumnValueFilter{Family: b("cf"), Qualifier: b("n"), Compare: hbapi.CompareEqual, Comparator: eq("07"), FilterIfMissing: true, LatestVersionOnly: true}}, "k07"},
		{"single column value greater", hbapi.Scan{Filter: &hbapi.SingleColumnValueFilter{Family: b("cf"), Qualifier: b("n"), Compare: hbapi.CompareGreater, Comparator: eq("16"), FilterIfMissing: true, LatestVersionOnly: true}}, keys(17, 19)},
		{"single column value filter if missing", hbapi.Scan{StopRow: b("k06"), Filter: evenSCVF(true)}, "k00 k02 k04"},
		{"single column value keep missing", hbapi.Scan{StopRow: b("k06"), Filter: evenSCVF(false)}, keys(0, 5)},
		{"column prefix drops rows without such columns", hbapi.Scan{StopRow: b("k06"), Filter: &hbapi.ColumnPrefixFilter{Prefix: b("ev")}}, "k00 k02 k04"},
		{"qualifier filter", hbapi.Scan{Filter: &hbapi.QualifierFilter{Compare: hbapi.CompareEqual, Comparator: eq("tag")}}, "k00 k05 k10 k15"},
		{"value filter", hbapi.Scan{Filter: &hbapi.ValueFilter{Compare: hbapi.CompareEqual, Comparator: eq("13")}}, "k13"},
		{"family filter", hbapi.Scan{Filter: &hbapi.FamilyFilter{Compare: hbapi.CompareEqual, Comparator: eq("meta")}}, "k00 k05 k10 k15"},
		{"multi row range", hbapi.Scan{Filter: &hbapi.MultiRowRangeFilter{Ranges: []hbapi.RowRange{
			{Start: b("k02"), StartInclusive: true, Stop: b("k04")},
			{Start: b("k16"), Stop: b("k18"), StopInclusive: true},
		}}}, "k02 k03 k17 k18"},
		{"must pass one", hbapi.Scan{Filter: &hbapi.FilterList{Op: hbapi.MustPassOne, Filters: []hbapi.Filter{
			&hbapi.RowFilter{Compare: hbapi.CompareEqual, Comparator: eq("k01")},
			&hbapi.RowFilter{Compare: hbapi.CompareEqual, Comparator: eq("k15")},
		}}}, "k01 k15"},
		{"must pass all", hbapi.Scan{StartRow: b("k1"), Filter: &hbapi.FilterList{Op: hbapi.MustPassAll, Filters: []hbapi.Filter{
			&hbapi.PrefixFilter{Prefix: b("k1")}, evenSCVF(true),
		}}}, "k10 k12 k14 k16 k18"},
		{"page filter within one region", hbapi.Scan{StopRow: b("k05"), Filter: &hbapi.PageFilter{Size: 3}}, keys(0, 2)},
		{"filter with limit", hbapi.Scan{Limit: 2, Filter: evenSCVF(true)}, "k00 k02"},
		// HBase rejects this unless the client turns off on-demand family
		// loading ("Reverse scan with loading CFs on demand is not supported").
		{"filter reversed", hbapi.Scan{Reversed: true, Filter: evenSCVF(true), Limit: 3}, "k18 k16 k14"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.scan
			got, _ := s.scanRows(t, ctx, &sc)
			if got != tc.want {
				t.Errorf("rows:\n\tgot  %q\n\twant %q", got, tc.want)
			}
		})
	}

	t.Run("key only", func(t *testing.T) {
		_, res := s.scanRows(t, ctx, &hbapi.Scan{StartRow: b("k05"), StopRow: b("k06"), Filter: &hbapi.KeyOnlyFilter{}})
		if len(res) != 1 {
			t.Fatalf("got %d rows, want 1", len(res))
		}
		wantCells(t, "values stripped", res[0], false, "cf:n= meta:tag=")
		_, res = s.scanRows(t, ctx, &hbapi.Scan{StartRow: b("k05"), StopRow: b("k06"), Filter: &hbapi.KeyOnlyFilter{LengthAsValue: true}})
		if len(res) != 1 {
			t.Fatalf("got %d rows, want 1", len(res))
		}
		if got := res[0].Value(b("cf"), b("n")); !bytes.Equal(got, []byte{0, 0, 0, 2}) {
			t.Errorf("length as value: %x, want 00000002", got)
		}
	})

	t.Run("first key only", func(t *testing.T) {
		got, res := s.scanRows(t, ctx, &hbapi.Scan{Filter: &hbapi.FilterList{Filters: []hbapi.Filter{&hbapi.FirstKeyOnlyFilter{}, &hbapi.KeyOnlyFilter{}}}})
		if got != keys(0, 19) {
			t.Errorf("rows %q, want all", got)
		}
		for _, r := range res {
			if len(r.Cells) != 1 || len(r.Cells[0].Value) != 0 {
				t.Errorf("row %s: %q, want one cell without value", r.Row(), show(r, false))
			}
		}
		if len(res) > 0 {
			wantCells(t, "first cell of k00", res[0], false, "cf:even=")
		}
	})

	t.Run("get with filter", func(t *testing.T) {
		r := s.get(t, ctx, &hbapi.Get{Table: s.scan, Row: b("k04"), Filter: &hbapi.ColumnPrefixFilter{Prefix: b("n")}})
		wantCells(t, "column prefix", r, false, "cf:n=04")
		r = s.get(t, ctx, &hbapi.Get{Table: s.scan, Row: b("k03"), Filter: evenSCVF(true)})
		wantCells(t, "filtered out", r, false, "")
	})
}

func (s *suite) testAdmin(t *testing.T) {
	s.need(t, FullAdmin)
	ctx := s.ctx(t)
	a := s.h.Admin
	d := s.h.Data
	base := s.h.NewTableName("conf_admin")
	ns := "ns_" + strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, base)
	if err := a.CreateNamespace(ctx, ns); err != nil {
		t.Fatalf("CreateNamespace(%s): %v", ns, err)
	}
	nsDropped := false
	t.Cleanup(func() {
		if !nsDropped {
			c, cancel := context.WithTimeout(context.Background(), s.h.Timeout)
			defer cancel()
			_ = a.DeleteNamespace(c, ns)
		}
	})
	wantErr(t, "CreateNamespace twice", a.CreateNamespace(ctx, ns), hbapi.ErrNamespaceExists)
	nss, err := a.ListNamespaces(ctx)
	if err != nil || !slices.Contains(nss, ns) || !slices.Contains(nss, "default") {
		t.Errorf("ListNamespaces = %v, %v; want %s and default in it", nss, err, ns)
	}

	name := ns + ":adm"
	desc := hbapi.TableDescriptor{Name: name, Families: []hbapi.FamilyDescriptor{
		{Name: "f1", Attributes: map[string]string{"VERSIONS": "5", "BLOOMFILTER": "ROWCOL"}},
		{Name: "f2"},
	}}
	if err := a.CreateTable(ctx, desc, [][]byte{b("m"), b("g"), b("t")}); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	dropped := false
	t.Cleanup(func() {
		if !dropped {
			s.dropTable(name)
		}
	})
	wantErr(t, "CreateTable twice", a.CreateTable(ctx, desc, nil), hbapi.ErrTableExists)
	wantErr(t, "CreateTable in a missing namespace",
		a.CreateTable(ctx, hbapi.TableDescriptor{Name: ns + "_missing:t", Families: []hbapi.FamilyDescriptor{{Name: "f"}}}, nil),
		hbapi.ErrNamespaceNotFound)

	if ok, err := a.TableExists(ctx, name); err != nil || !ok {
		t.Errorf("TableExists = %v, %v; want true", ok, err)
	}
	if ok, err := a.TableExists(ctx, ns+":nothing"); err != nil || ok {
		t.Errorf("TableExists(missing) = %v, %v; want false", ok, err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled = %v, %v; want true", ok, err)
	}
	if tables, err := a.ListTables(ctx, ns); err != nil || fmt.Sprint(tables) != "["+name+"]" {
		t.Errorf("ListTables(%s) = %v, %v; want [%s]", ns, tables, err, name)
	}
	if tables, err := a.ListTables(ctx, ""); err != nil || !slices.Contains(tables, name) || !slices.Contains(tables, s.data) {
		t.Errorf("ListTables(\"\") = %v, %v; want %s and %s in it", tables, err, name, s.data)
	}

	got, err := a.DescribeTable(ctx, name)
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	if tn, _ := hbapi.ParseTableName(got.Name); tn.String() != name {
		t.Errorf("DescribeTable name = %q, want %q", got.Name, name)
	}
	if f1, ok := got.Family("f1"); !ok || f1.Attributes["VERSIONS"] != "5" || f1.Attributes["BLOOMFILTER"] != "ROWCOL" {
		t.Errorf("DescribeTable f1 = %+v, want VERSIONS 5 and BLOOMFILTER ROWCOL", f1)
	}
	if _, ok := got.Family("f2"); !ok || len(got.Families) != 2 {
		t.Errorf("DescribeTable families = %+v, want f1 and f2", got.Families)
	}

	// ModifyTable: change a family attribute and add a family.
	mod := hbapi.TableDescriptor{Name: name, Families: []hbapi.FamilyDescriptor{
		{Name: "f1", Attributes: map[string]string{"VERSIONS": "2", "BLOOMFILTER": "ROWCOL"}},
		{Name: "f2"},
		{Name: "f3", Attributes: map[string]string{"IN_MEMORY": "true"}},
	}}
	if err := a.ModifyTable(ctx, mod); err != nil {
		t.Fatalf("ModifyTable: %v", err)
	}
	got, err = a.DescribeTable(ctx, name)
	if err != nil {
		t.Fatalf("DescribeTable after ModifyTable: %v", err)
	}
	if f1, _ := got.Family("f1"); f1.Attributes["VERSIONS"] != "2" {
		t.Errorf("f1 after ModifyTable = %+v, want VERSIONS 2", f1)
	}
	if f3, ok := got.Family("f3"); !ok || !strings.EqualFold(f3.Attributes["IN_MEMORY"], "true") {
		t.Errorf("f3 after ModifyTable = %+v, %v; want IN_MEMORY true", f3, ok)
	}
	wantErr(t, "ModifyTable of a missing table",
		a.ModifyTable(ctx, hbapi.TableDescriptor{Name: ns + ":nothing", Families: []hbapi.FamilyDescriptor{{Name: "f"}}}),
		hbapi.ErrTableNotFound)
	_, err = a.IsTableEnabled(ctx, ns+":nothing")
	wantErr(t, "IsTableEnabled of a missing table", err, hbapi.ErrTableNotFound)

	wantRegions := func(t *testing.T, want string) {
		t.Helper()
		regions, err := a.TableRegions(ctx, name)
		if err != nil {
			t.Fatalf("TableRegions: %v", err)
		}
		checkRegions(t, name, regions, want)
	}
	wantRegions(t, ",g g,m m,t t,")

	s.put(t, ctx, name, "row-h", 0, "f1", "q", "v")
	s.put(t, ctx, name, "row-z", 0, "f1", "q", "v")
	if got, _ := s.scanTable(t, ctx, name); got != "row-h row-z" {
		t.Errorf("rows = %q, want row-h row-z", got)
	}

	wantErr(t, "DeleteTable of an enabled table", a.DeleteTable(ctx, name), hbapi.ErrTableNotDisabled)
	wantErr(t, "EnableTable of an enabled table", a.EnableTable(ctx, name), hbapi.ErrTableNotDisabled)
	wantErr(t, "TruncateTable of an enabled table", a.TruncateTable(ctx, name, true), hbapi.ErrTableNotDisabled)
	wantErr(t, "DeleteNamespace of a non-empty namespace", a.DeleteNamespace(ctx, ns), hbapi.ErrNamespaceNotEmpty)

	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || ok {
		t.Errorf("IsTableEnabled after disable = %v, %v; want false", ok, err)
	}
	wantErr(t, "DisableTable twice", a.DisableTable(ctx, name), hbapi.ErrTableDisabled)
	_, err = d.Get(ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantErr(t, "Get on a disabled table", err, hbapi.ErrTableDisabled)
	wantErr(t, "Put on a disabled table", d.Put(ctx, &hbapi.Put{Table: name, Row: b("row-h"), Values: vals("f1", "q", "v")}), hbapi.ErrTableDisabled)
	wantErr(t, "Scan on a disabled table", scanErr(ctx, d, &hbapi.Scan{Table: name}), hbapi.ErrTableDisabled)

	if err := a.EnableTable(ctx, name); err != nil {
		t.Fatalf("EnableTable: %v", err)
	}
	r := s.get(t, ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantCells(t, "data survives disable/enable", r, false, "f1:q=v")

	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := a.TruncateTable(ctx, name, true); err != nil {
		t.Fatalf("TruncateTable: %v", err)
	}
	if ok, err := a.IsTableEnabled(ctx, name); err != nil || !ok {
		t.Errorf("IsTableEnabled after truncate = %v, %v; want true", ok, err)
	}
	if got, _ := s.scanTable(t, ctx, name); got != "" {
		t.Errorf("rows after truncate = %q, want none", got)
	}
	wantRegions(t, ",g g,m m,t t,")

	if err := a.SplitRegion(ctx, name, b("p")); err != nil {
		t.Fatalf("SplitRegion: %v", err)
	}
	// The new boundaries may take a moment to show in hbase:meta.
	deadline := time.Now().Add(30 * time.Second)
	for {
		regions, err := a.TableRegions(ctx, name)
		if err == nil && len(regions) == 5 {
			checkRegions(t, name, regions, ",g g,m m,p p,t t,")
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("after SplitRegion(p): regions %v, %v; want 5", regions, err)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.put(t, ctx, name, "q-row", 0, "f2", "q", "after split", "f3", "q", "new family")
	r = s.get(t, ctx, &hbapi.Get{Table: name, Row: b("q-row")})
	wantCells(t, "write after split", r, false, "f2:q=after split f3:q=new family")

	if err := a.DisableTable(ctx, name); err != nil {
		t.Fatalf("DisableTable: %v", err)
	}
	if err := a.DeleteTable(ctx, name); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	dropped = true
	if ok, err := a.TableExists(ctx, name); err != nil || ok {
		t.Errorf("TableExists after delete = %v, %v; want false", ok, err)
	}
	_, err = d.Get(ctx, &hbapi.Get{Table: name, Row: b("row-h")})
	wantErr(t, "Get on a deleted table", err, hbapi.ErrTableNotFound)
	_, err = a.DescribeTable(ctx, name)
	wantErr(t, "DescribeTable of a deleted table", err, hbapi.ErrTableNotFound)
	wantErr(t, "DisableTable of a deleted table", a.DisableTable(ctx, name), hbapi.ErrTableNotFound)

	if err := a.DeleteNamespace(ctx, ns); err != nil {
		t.Fatalf("DeleteNamespace: %v", err)
	}
	nsDropped = true
	_, err = a.ListTables(ctx, ns)
	wantErr(t, "ListTables of a deleted namespace", err, hbapi.ErrNamespaceNotFound)
	wantErr(t, "DeleteNamespace twice", a.DeleteNamespace(ctx, ns), hbapi.ErrNamespaceNotFound)
}

// scanTable returns the row keys of a whole table.
func (s *suite) scanTable(t *testing.T, ctx context.Context, table string) (string, int) {
	t.Helper()
	var rows []string
	for r, err := range hbapi.ScanAll(ctx, s.h.Data, &hbapi.Scan{Table: table}) {
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		rows = append(rows, string(r.Row()))
	}
	return strings.Join(rows, " "), len(rows)
}

// checkRegions compares region boundaries with want, written as
// "start,end start,end ..." and checks that the regions tile the key space.
func checkRegions(t *testing.T, table string, regions []hbapi.RegionInfo, want string) {
	t.Helper()
	var got []string
	for i, r := range regions {
		got = append(got, string(r.StartKey)+","+string(r.EndKey))
		if tn, _ := hbapi.ParseTableName(r.Table); tn.String() != table {
			t.Errorf("region %d table = %q, want %q", i, r.Table, table)
		}
		if len(r.RegionName) == 0 {
			t.Errorf("region %d has no name", i)
		}
		if i > 0 && !bytes.Equal(regions[i-1].EndKey, r.StartKey) {
			t.Errorf("region %d starts at %q, previous ends at %q", i, r.StartKey, regions[i-1].EndKey)
		}
	}
	if strings.Join(got, " ") != want {
		t.Errorf("regions = %q, want %q", strings.Join(got, " "), want)
	}
}

// NameGenerator returns a Harness.NewTableName that makes names unlikely
// to collide across runs and processes: prefix, base, a time-derived run
// id and a counter ("hbkit_conf_data_lx2k9a_1").
func NameGenerator(prefix string) func(base string) string {
	run := strconv.FormatInt(time.Now().UnixNano()/int64(time.Millisecond), 36)
	var mu sync.Mutex
	n := 0
	return func(base string) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s_%s_%s_%d", prefix, base, run, n)
	}
}
