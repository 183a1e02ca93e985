package hbapi

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type validator interface{ Validate() error }

func TestValidate(t *testing.T) {
	long := bytes.Repeat([]byte("r"), MaxRowLength+1)
	maxRow := bytes.Repeat([]byte("r"), MaxRowLength)
	longFam := strings.Repeat("f", MaxFamilyLength+1)
	vals := map[string]map[string][]byte{"cf": {"q": []byte("v")}}
	tests := []struct {
		name  string
		req   validator
		want  error  // nil: valid
		field string // expected InvalidRequestError.Field, if want != nil
	}{
		{"get ok", &Get{Table: "t", Row: []byte("r")}, nil, ""},
		{"get ns ok", &Get{Table: "ns:t", Row: maxRow}, nil, ""},
		{"get nil", (*Get)(nil), ErrInvalidRequest, ""},
		{"get empty table", &Get{Row: []byte("r")}, ErrEmptyTableName, "Table"},
		{"get bad table", &Get{Table: "-t", Row: []byte("r")}, ErrInvalidTableName, "Table"},
		{"get bad ns", &Get{Table: "n-s:t", Row: []byte("r")}, ErrInvalidTableName, "Table"},
		{"get empty ns", &Get{Table: ":t", Row: []byte("r")}, ErrInvalidTableName, "Table"},
		{"get empty row", &Get{Table: "t"}, ErrEmptyRow, "Row"},
		{"get long row", &Get{Table: "t", Row: long}, ErrRowTooLong, "Row"},
		{"get empty family", &Get{Table: "t", Row: []byte("r"), Families: [][]byte{{}}}, ErrEmptyFamily, "Families[0]"},
		{"get long family column", &Get{Table: "t", Row: []byte("r"), Columns: []Column{{Family: []byte(longFam)}}}, ErrFamilyTooLong, "Columns[0].Family"},
		{"get negative versions", &Get{Table: "t", Row: []byte("r"), MaxVersions: -1}, ErrInvalidRequest, "MaxVersions"},
		{"get inverted time range", &Get{Table: "t", Row: []byte("r"), TimeRange: &TimeRange{From: 5, To: 5}}, ErrInvalidTimeRange, "TimeRange"},
		{"get negative time range", &Get{Table: "t", Row: []byte("r"), TimeRange: &TimeRange{From: -1, To: 5}}, ErrInvalidTimeRange, "TimeRange"},
		{"get nil comparator", &Get{Table: "t", Row: []byte("r"), Filter: &RowFilter{}}, ErrInvalidFilter, "Filter"},
		{"get nil filter in list", &Get{Table: "t", Row: []byte("r"), Filter: &FilterList{Filters: []Filter{nil}}}, ErrInvalidFilter, "Filter"},

		{"put ok", &Put{Table: "t", Row: []byte("r"), Values: vals}, nil, ""},
		{"put empty value ok", &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"": {}}}}, nil, ""},
		{"put empty row", &Put{Table: "t", Values: vals}, ErrEmptyRow, "Row"},
		{"put long row", &Put{Table: "t", Row: long, Values: vals}, ErrRowTooLong, "Row"},
		{"put no values", &Put{Table: "t", Row: []byte("r")}, ErrEmptyMutation, "Values"},
		{"put empty family map", &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {}}}, ErrEmptyMutation, `Values["cf"]`},
		{"put empty family", &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"": {"q": []byte("v")}}}, ErrEmptyFamily, `Values[""]["q"]`},
		{"put long family", &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{longFam: {"q": []byte("v")}}}, ErrFamilyTooLong, ""},
		{"put nil value", &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"q": nil}}}, ErrNilValue, `Values["cf"]["q"]`},
		{"put negative ts", &Put{Table: "t", Row: []byte("r"), Values: vals, Timestamp: -1}, ErrNegativeTimestamp, "Timestamp"},
		{"put bad durability", &Put{Table: "t", Row: []byte("r"), Values: vals, Durability: 9}, ErrInvalidRequest, "Durability"},
		{"put empty table", &Put{Row: []byte("r"), Values: vals}, ErrEmptyTableName, "Table"},

		{"delete row ok", &Delete{Table: "t", Row: []byte("r")}, nil, ""},
		{"delete column ok", &Delete{Table: "t", Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 7}, nil, ""},
		{"delete empty row", &Delete{Table: "t"}, ErrEmptyRow, "Row"},
		{"delete qualifier without family", &Delete{Table: "t", Row: []byte("r"), Qualifier: []byte("q")}, ErrEmptyFamily, "Qualifier"},
		{"delete empty family", &Delete{Table: "t", Row: []byte("r"), Family: []byte{}}, ErrEmptyFamily, "Family"},
		{"delete empty qualifier", &Delete{Table: "t", Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte{}}, ErrInvalidRequest, "Qualifier"},
		{"delete negative ts", &Delete{Table: "t", Row: []byte("r"), Timestamp: -5}, ErrNegativeTimestamp, "Timestamp"},

		{"increment ok", &Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}}, nil, ""},
		{"increment none", &Increment{Table: "t", Row: []byte("r")}, ErrEmptyMutation, "Deltas"},
		{"increment empty family", &Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"": {"n": 1}}}, ErrEmptyFamily, `Deltas[""]`},
		{"append ok", &Append{Table: "t", Row: []byte("r"), Values: vals}, nil, ""},
		{"append nil value", &Append{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"q": nil}}}, ErrNilValue, `Values["cf"]["q"]`},

		{"cam ok", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Mutations: []Mutation{&Put{Values: vals}}}, nil, ""},
		{"cam greater ok", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Compare: CompareGreater, Value: []byte("1"), Mutations: []Mutation{&Delete{}}}, nil, ""},
		{"cam absent with less", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Compare: CompareLess, Mutations: []Mutation{&Delete{}}}, ErrInvalidRequest, "Compare"},
		{"cam no-op", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Compare: CompareNoOp, Value: []byte("x"), Mutations: []Mutation{&Delete{}}}, ErrInvalidRequest, "Compare"},
		{"cam no family", &CheckAndMutate{Table: "t", Row: []byte("r"), Mutations: []Mutation{&Delete{}}}, ErrEmptyFamily, "Family"},
		{"cam no mutations", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf")}, ErrEmptyMutation, "Mutations"},
		{"cam other row", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: []Mutation{&Put{Row: []byte("x"), Values: vals}}}, ErrRowMismatch, "Mutations[0].Row"},
		{"cam other table", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: []Mutation{&Put{Table: "u", Values: vals}}}, ErrInvalidRequest, "Mutations[0].Table"},
		{"cam same table other spelling", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: []Mutation{&Put{Table: "default:t", Values: vals}}}, nil, ""},
		{"cam nil value in put", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: []Mutation{&Put{Values: map[string]map[string][]byte{"cf": {"q": nil}}}}}, ErrNilValue, `Mutations[0].Values["cf"]["q"]`},
		{"cam nil put", &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: []Mutation{(*Put)(nil)}}, ErrInvalidRequest, "Mutations[0]"},

		{"row mutations ok", &RowMutations{Table: "t", Row: []byte("r"), Mutations: []Mutation{&Put{Values: vals}, &Delete{Family: []byte("cf")}}}, nil, ""},
		{"row mutations empty", &RowMutations{Table: "t", Row: []byte("r")}, ErrEmptyMutation, "Mutations"},
		{"row mutations empty row", &RowMutations{Table: "t", Mutations: []Mutation{&Put{Values: vals}}}, ErrEmptyRow, "Row"},
		{"row mutations negative ts", &RowMutations{Table: "t", Row: []byte("r"), Mutations: []Mutation{&Delete{Timestamp: -1}}}, ErrNegativeTimestamp, "Mutations[0].Timestamp"},

		{"scan ok", &Scan{Table: "t"}, nil, ""},
		{"scan reversed ok", &Scan{Table: "t", StartRow: []byte("z"), StopRow: []byte("a"), Reversed: true}, nil, ""},
		{"scan long start", &Scan{Table: "t", StartRow: long}, ErrRowTooLong, "StartRow"},
		{"scan long stop", &Scan{Table: "t", StopRow: long}, ErrRowTooLong, "StopRow"},
		{"scan negative limit", &Scan{Table: "t", Limit: -1}, ErrInvalidRequest, "Limit"},
		{"scan negative caching", &Scan{Table: "t", Caching: -1}, ErrInvalidRequest, "Caching"},
		{"scan negative page", &Scan{Table: "t", Filter: &PageFilter{Size: -1}}, ErrInvalidFilter, "Filter"},
		{"scan substring less", &Scan{Table: "t", Filter: &ValueFilter{Compare: CompareLess, Comparator: &SubstringComparator{Substr: "x"}}}, ErrInvalidFilter, "Filter"},
		{"scan bad table", &Scan{Table: "a:b:c"}, ErrInvalidTableName, "Table"},

		{"descriptor ok", &TableDescriptor{Name: "ns:t", Families: []FamilyDescriptor{{Name: "cf", Attributes: map[string]string{"VERSIONS": "3", "IN_MEMORY": "TRUE", "BLOOMFILTER": "ROW"}}}}, nil, ""},
		{"descriptor no families", &TableDescriptor{Name: "t"}, ErrEmptyFamily, "Families"},
		{"descriptor dup families", &TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "cf"}, {Name: "cf"}}}, ErrInvalidFamily, "Families[1]"},
		{"descriptor family colon", &TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "c:f"}}}, ErrInvalidFamily, "Families[0]"},
		{"descriptor family dot", &TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: ".cf"}}}, ErrInvalidFamily, "Families[0]"},
		{"descriptor bad versions", &TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "cf", Attributes: map[string]string{"VERSIONS": "0"}}}}, ErrInvalidRequest, "Families[0].Attributes[VERSIONS]"},
		{"descriptor bad ttl", &TableDescriptor{Name: "t", Families: []FamilyDescriptor{{Name: "cf", Attributes: map[string]string{"TTL": "FOREVER"}}}}, ErrInvalidRequest, "Families[0].Attributes[TTL]"},
		{"descriptor bad name", &TableDescriptor{Name: ".t", Families: []FamilyDescriptor{{Name: "cf"}}}, ErrInvalidTableName, "Table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Validate() = %v, want errors.Is %v", err, tc.want)
			}
			var ie *InvalidRequestError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate() = %T %v, want *InvalidRequestError", err, err)
			}
			if tc.field != "" && ie.Field != tc.field {
				t.Errorf("Field = %q, want %q (error %v)", ie.Field, tc.field, err)
			}
			if !strings.HasPrefix(err.Error(), "hbase: invalid ") {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), "hbase: invalid ")
			}
		})
	}
}

func TestParseTableName(t *testing.T) {
	tests := []struct {
		in      string
		want    TableName
		str     string
		wantErr error
	}{
		{"t", TableName{"default", "t"}, "t", nil},
		{"default:t", TableName{"default", "t"}, "t", nil},
		{"ns:t.x-y_1", TableName{"ns", "t.x-y_1"}, "ns:t.x-y_1", nil},
		{"hbase:meta", TableName{"hbase", "meta"}, "hbase:meta", nil},
		{"", TableName{}, "", ErrEmptyTableName},
		{":t", TableName{}, "", ErrInvalidTableName},
		{"ns:", TableName{}, "", ErrInvalidTableName},
		{"ns:.t", TableName{}, "", ErrInvalidTableName},
		{"-t", TableName{}, "", ErrInvalidTableName},
		{"a b", TableName{}, "", ErrInvalidTableName},
		{"n.s:t", TableName{}, "", ErrInvalidTableName},
		{"a:b:c", TableName{}, "", ErrInvalidTableName},
		{"t\x00", TableName{}, "", ErrInvalidTableName},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTableName(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ParseTableName(%q) error = %v, want %v", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTableName(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("ParseTableName(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			if got.String() != tc.str {
				t.Errorf("String() = %q, want %q", got.String(), tc.str)
			}
		})
	}
}

func TestValidateSplitKeys(t *testing.T) {
	tests := []struct {
		name string
		keys [][]byte
		ok   bool
	}{
		{"none", nil, true},
		{"unsorted", [][]byte{[]byte("m"), []byte("c")}, true},
		{"empty key", [][]byte{[]byte("m"), {}}, false},
		{"duplicate", [][]byte{[]byte("m"), []byte("c"), []byte("m")}, false},
		{"too long", [][]byte{bytes.Repeat([]byte("k"), MaxRowLength+1)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateSplitKeys(tc.keys)
			if tc.ok != (err == nil) {
				t.Fatalf("ValidateSplitKeys = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidSplitKeys) {
				t.Fatalf("error %v does not wrap ErrInvalidSplitKeys", err)
			}
		})
	}
}

func TestValidateAction(t *testing.T) {
	if err := ValidateAction(nil); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("ValidateAction(nil) = %v, want ErrInvalidRequest", err)
	}
	if err := ValidateAction(&Get{Table: "t"}); !errors.Is(err, ErrEmptyRow) {
		t.Errorf("ValidateAction(get without row) = %v, want ErrEmptyRow", err)
	}
	if err := ValidateAction(&Delete{Table: "t", Row: []byte("r")}); err != nil {
		t.Errorf("ValidateAction(delete) = %v", err)
	}
	if got := ActionTable(&Increment{Table: "ns:x"}); got != "ns:x" {
		t.Errorf("ActionTable = %q, want ns:x", got)
	}
}

// A valid write is checked without allocating (it runs for every action
// of every Batch); an invalid one still names the first bad column in
// sorted order, whatever the map's iteration order.
func TestValidateWriteAllocs(t *testing.T) {
	put := &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{
		"cf": {"a": []byte("1"), "b": []byte("2"), "c": []byte{}}, "cg": {"x": []byte("3")},
	}}
	cam := &CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("a"),
		Compare: CompareEqual, Mutations: []Mutation{&Put{Values: put.Values}}}
	for _, a := range []Action{put, cam} {
		if n := testing.AllocsPerRun(100, func() {
			if err := ValidateAction(a); err != nil {
				t.Fatal(err)
			}
		}); n > 1 {
			t.Errorf("ValidateAction(%T) allocated %.0f times, want at most 1", a, n)
		}
	}
	bad := &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{
		"cf": {"a": []byte("1"), "m": nil, "z": nil}, "cg": {"b": nil},
	}}
	for range 20 {
		var ie *InvalidRequestError
		if err := bad.Validate(); !errors.As(err, &ie) || ie.Field != `Values["cf"]["m"]` {
			t.Fatalf("Validate = %v, want the first nil value in order, Values[\"cf\"][\"m\"]", err)
		}
	}
}

// TestValidatePutCells: a Put's Cells are checked as its Values are (a
// family, a non-nil value), each column once, in any order; a Put has
// Cells or Values, not both; WriteSize counts Cells as it counts Values.
func TestValidatePutCells(t *testing.T) {
	v := []byte("v")
	tests := []struct {
		name  string
		cells []PutCell
		vals  map[string]map[string][]byte
		want  error
		field string
	}{
		{"sorted", []PutCell{{Family: "a", Qualifier: "q", Value: v}, {Family: "b", Qualifier: "", Value: []byte{}}}, nil, nil, ""},
		{"out of order", []PutCell{{Family: "b", Qualifier: "q", Value: v}, {Family: "a", Qualifier: "q", Value: v}}, nil, nil, ""},
		{"twice", []PutCell{{Family: "a", Qualifier: "q", Value: v}, {Family: "b", Qualifier: "q", Value: v}, {Family: "a", Qualifier: "q", Value: v}}, nil, ErrInvalidRequest, "Cells"},
		{"nil value", []PutCell{{Family: "a", Qualifier: "q", Value: v}, {Family: "a", Qualifier: "r"}}, nil, ErrNilValue, "Cells[1].Value"},
		{"no family", []PutCell{{Qualifier: "q", Value: v}}, nil, ErrEmptyFamily, "Cells[0].Family"},
		{"both", []PutCell{{Family: "a", Qualifier: "q", Value: v}}, map[string]map[string][]byte{"a": {"r": v}}, ErrInvalidRequest, "Values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Put{Table: "t", Row: []byte("r"), Cells: tc.cells, Values: tc.vals}
			err := p.Validate()
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			var ie *InvalidRequestError
			if tc.want != nil && (!errors.As(err, &ie) || ie.Field != tc.field) {
				t.Fatalf("got %v, want field %q", err, tc.field)
			}
			if tc.want != nil {
				return
			}
			byMap := &Put{Table: "t", Row: p.Row, Values: map[string]map[string][]byte{}}
			for _, c := range p.SortedCells() {
				if byMap.Values[c.Family] == nil {
					byMap.Values[c.Family] = map[string][]byte{}
				}
				byMap.Values[c.Family][c.Qualifier] = c.Value
			}
			got, err := WriteSize(p, 0)
			want, err2 := WriteSize(byMap, 0)
			if err != nil || err2 != nil || got != want {
				t.Fatalf("WriteSize %d, %v; of the same Values %d, %v", got, err, want, err2)
			}
		})
	}
}
