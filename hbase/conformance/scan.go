package conformance

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase/hbapi"
)

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
	tests := []scanCase{
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
	s.runScanCases(t, ctx, tests)

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

	t.Run("scanner protocol", func(t *testing.T) { s.testScannerProtocol(t, ctx) })

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
	layout := func(t *testing.T, sc hbapi.Scan) string {
		t.Helper()
		return s.wideLayout(t, ctx, sc, wide["cf"])
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
	tests := []scanCase{
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
	s.runScanCases(t, ctx, tests)

	s.testScanFilterProjections(t, ctx)
}

// scanCase is a scan of the scan table and the rows it returns (see keys).
type scanCase struct {
	name string
	scan hbapi.Scan
	want string
}

// runScanCases runs each case as a subtest of t.
func (s *suite) runScanCases(t *testing.T, ctx context.Context, tests []scanCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.scan
			got, _ := s.scanRows(t, ctx, &sc)
			if got != tc.want {
				t.Errorf("rows:\n\tgot  %q\n\twant %q", got, tc.want)
			}
		})
	}
}

// testScannerProtocol checks Next, Result, Err and Close of a scanner
// closed early and of one read to the end.
func (s *suite) testScannerProtocol(t *testing.T, ctx context.Context) {
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
}

// wideLayout renders the results of sc on the data table as
// row:qualifiers, checking wide-1's values against wide. A scan without
// bounds gets the wide rows' range.
func (s *suite) wideLayout(t *testing.T, ctx context.Context, sc hbapi.Scan, wide map[string][]byte) string {
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
			if string(c.Row) == "wide-1" && !bytes.Equal(c.Value, wide[string(c.Qualifier)]) {
				t.Errorf("wide-1 %s = %q", c.Qualifier, c.Value)
			}
		}
		parts = append(parts, string(r.Row())+":"+strings.Join(qs, ","))
	}
	return strings.Join(parts, " ")
}

// eq is a comparator for the bytes of v.
func eq(v string) hbapi.Comparator { return &hbapi.BinaryComparator{Value: b(v)} }

// evenSCVF keeps the rows whose cf:even is "1" (rows without it only
// unless ifMissing).
func evenSCVF(ifMissing bool) *hbapi.SingleColumnValueFilter {
	return &hbapi.SingleColumnValueFilter{Family: b("cf"), Qualifier: b("even"), Compare: hbapi.CompareEqual, Comparator: eq("1"),
		FilterIfMissing: ifMissing, LatestVersionOnly: true}
}

// testScanFilterProjections covers filters that strip what a row returns
// (key only, first key only) and a Get with a filter.
func (s *suite) testScanFilterProjections(t *testing.T, ctx context.Context) {
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
