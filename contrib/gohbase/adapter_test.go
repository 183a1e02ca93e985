package gohbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/hbase"
)

// Unit tests of the conversions and of the call routing, against a stub
// gohbase.Client; the integration tests run the adapter on HBase.

// stub is a gohbase.Client that records calls and answers from its
// fields. It does not implement gohbase.RPCClient.
type stub struct {
	mu      sync.Mutex
	batches [][]hrpc.Call // one per SendBatch
	cams    []*hrpc.CheckAndMutate
	gets    []*hrpc.Get
	scans   []*hrpc.Scan
	results []*hrpc.Result // what the scanner returns, in order
	scanErr error          // returned after results
	closed  int            // scanners closed
}

var _ gohbase.Client = (*stub)(nil)

func (s *stub) Scan(sc *hrpc.Scan) hrpc.Scanner {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scans = append(s.scans, sc)
	return &stubScanner{s: s, results: slices.Clone(s.results), err: s.scanErr}
}
func (s *stub) ScanV2(*hrpc.Scan) hrpc.ScannerV2 { panic("unused") }
func (s *stub) Get(g *hrpc.Get) (*hrpc.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets = append(s.gets, g)
	return &hrpc.Result{}, nil
}
func (s *stub) Put(*hrpc.Mutate) (*hrpc.Result, error)    { return &hrpc.Result{}, nil }
func (s *stub) Delete(*hrpc.Mutate) (*hrpc.Result, error) { return &hrpc.Result{}, nil }
func (s *stub) Append(*hrpc.Mutate) (*hrpc.Result, error) { return &hrpc.Result{}, nil }
func (s *stub) Increment(*hrpc.Mutate) (int64, error)     { return 0, nil }
func (s *stub) CheckAndPut(*hrpc.Mutate, string, string, []byte) (bool, error) {
	panic("unused")
}
func (s *stub) CheckAndPutWithCompareType(*hrpc.Mutate, string, string, []byte, pb.CompareType) (bool, error) {
	panic("unused")
}
func (s *stub) CheckAndMutate(cam *hrpc.CheckAndMutate) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cams = append(s.cams, cam)
	return true, nil
}
func (s *stub) SendBatch(ctx context.Context, batch []hrpc.Call) ([]hrpc.RPCResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, batch)
	res := make([]hrpc.RPCResult, len(batch))
	for i, c := range batch {
		switch c.(type) {
		case *hrpc.Get:
			v := uint64(7)
			res[i].Msg = &pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{Row: c.Key(), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: &v, Value: []byte("v")}}}}
		default:
			if string(c.Key()) == "fail" {
				res[i].Error = errors.New("HBase Java exception org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException:\norg.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: nope\n\tat x")
				continue
			}
			res[i].Msg = &pb.MutateResponse{}
		}
	}
	return res, true
}
func (s *stub) CacheRegions([]byte) error { return nil }
func (s *stub) Close()                    {}

type stubScanner struct {
	s       *stub
	results []*hrpc.Result
	err     error
}

func (sc *stubScanner) Next() (*hrpc.Result, error) {
	if len(sc.results) == 0 {
		if sc.err != nil {
			return nil, sc.err
		}
		return nil, io.EOF
	}
	r := sc.results[0]
	sc.results = sc.results[1:]
	return r, nil
}

func (sc *stubScanner) Close() error {
	sc.s.mu.Lock()
	defer sc.s.mu.Unlock()
	sc.s.closed++
	return nil
}

func (sc *stubScanner) GetScanMetrics() map[string]int64 { return nil }

func newStub(t *testing.T) (*Client, *stub) {
	t.Helper()
	s := &stub{}
	c, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		c    gohbase.Client
		opts []Option
	}{
		{"nil client", nil, nil},
		{"nil option", &stub{}, []Option{nil}},
		{"nil admin client", &stub{}, []Option{WithAdminClient(nil)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := New(tc.c, tc.opts...); err == nil || c != nil {
				t.Errorf("New = %v, %v; want an error", c, err)
			}
		})
	}
}

func TestWrapErr(t *testing.T) {
	java := func(class, msg string) error {
		return fmt.Errorf("HBase Java exception %s:\n%s: %s\n\tat org.apache.hadoop.hbase.Foo(Foo.java:1)", class, class, msg)
	}
	tests := []struct {
		name    string
		err     error
		want    error // a sentinel errors.Is must find, or nil
		class   string
		message string // Error() must contain it
	}{
		{"table not found (gohbase)", gohbase.TableNotFound, hbase.ErrTableNotFound, "", "table not found"},
		{"no such family", java("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException", "nope"),
			hbase.ErrNoSuchFamily, "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
			"HBase Java exception org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: nope"},
		{"table exists (procedure)", errors.New("procedure exception: org.apache.hadoop.hbase.TableExistsException: t"),
			hbase.ErrTableExists, "org.apache.hadoop.hbase.TableExistsException", "TableExistsException: t"},
		{"table not enabled", java("org.apache.hadoop.hbase.TableNotEnabledException", "t"), hbase.ErrTableDisabled,
			"org.apache.hadoop.hbase.TableNotEnabledException", "t"},
		{"not a counter", java("org.apache.hadoop.hbase.DoNotRetryIOException", "Field is not a long, it's 3 bytes wide"),
			hbase.ErrNotCounter, "org.apache.hadoop.hbase.DoNotRetryIOException", "Field is not a long"},
		{"other", errors.New("boom"), nil, "", "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := wrapErr("get", "t", tc.err)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("wrapErr = %T %v, want an *Error", err, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("errors.Is(%v, gohbase's error) = false", err)
			}
			if e.Class != tc.class {
				t.Errorf("Class = %q, want %q", e.Class, tc.class)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.message) || strings.Contains(msg, "\n") {
				t.Errorf("Error() = %q, want one line containing %q", msg, tc.message)
			}
			if hbase.IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true", err)
			}
		})
	}
	if err := wrapErr("get", "t", context.Canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("wrapErr(context.Canceled) = %v, want errors.Is context.Canceled", err)
	}
	if wrapErr("get", "t", nil) != nil {
		t.Error("wrapErr(nil) != nil")
	}
}

func TestUnsupportedError(t *testing.T) {
	err := unsupported("mutate row", "because")
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("%v: want errors.Is ErrUnsupported and errors.ErrUnsupported", err)
	}
	if got, want := err.Error(), "gohbase adapter: mutate row unsupported: because"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// Unsupported names, without sending anything, the calls the Client
// refuses whatever their arguments, with the error each returns.
func TestUnsupportedNamesRefusedCalls(t *testing.T) {
	c, st := newStub(t)
	ctx := context.Background()
	refused := map[string]error{
		"CreateNamespace": c.CreateNamespace(ctx, "ns"),
		"DeleteNamespace": c.DeleteNamespace(ctx, "ns"),
		"ListNamespaces":  second(c.ListNamespaces(ctx)),
		"TruncateTable":   c.TruncateTable(ctx, "t", true),
		"ModifyTable":     c.ModifyTable(ctx, hbase.TableDescriptor{Name: "t"}),
		"DescribeTable":   second(c.DescribeTable(ctx, "t")),
		"SplitRegion":     c.SplitRegion(ctx, "t", []byte("k")),
	}
	for method, want := range refused {
		got := c.Unsupported(method)
		var ue *UnsupportedError
		if !errors.As(got, &ue) || !errors.Is(got, errors.ErrUnsupported) || got.Error() != want.Error() {
			t.Errorf("Unsupported(%q) = %v, want the call's own *UnsupportedError %v", method, got, want)
		}
	}
	for _, method := range []string{"Get", "Put", "Delete", "Increment", "Append", "CheckAndMutate", "MutateRow", "Scan", "Batch",
		"CreateTable", "DeleteTable", "EnableTable", "DisableTable", "TableExists", "IsTableEnabled", "ListTables", "TableRegions"} {
		if err := c.Unsupported(method); err != nil {
			t.Errorf("Unsupported(%q) = %v, want nil: the adapter makes that call", method, err)
		}
	}
	if len(st.batches)+len(st.cams)+len(st.gets)+len(st.scans) != 0 {
		t.Error("Unsupported sent calls to gohbase")
	}
}

// mutation returns the MutationProto gohbase would send for m.
func mutation(t *testing.T, m *hrpc.Mutate) *pb.MutationProto {
	t.Helper()
	m.SetRegion(regionStub("t,,1.x."))
	return m.ToProto().(*pb.MutateRequest).GetMutation()
}

func TestToDelete(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		del  hbase.Delete
		want string // family:qualifier/deleteType@ts, "row@ts" for a row delete
	}{
		{"row", hbase.Delete{}, "row@-"},
		{"row up to", hbase.Delete{Timestamp: 200}, "row@200"},
		{"row, latest", hbase.Delete{Timestamp: hbase.LatestTimestamp}, "row@-"},
		{"family", hbase.Delete{Family: []byte("cf")}, "cf:/DELETE_FAMILY@-"},
		{"family up to", hbase.Delete{Family: []byte("cf"), Timestamp: 200}, "cf:/DELETE_FAMILY@200"},
		{"column, all versions", hbase.Delete{Family: []byte("cf"), Qualifier: []byte("q"), AllVersions: true}, "cf:q/DELETE_MULTIPLE_VERSIONS@-"},
		{"column versions up to", hbase.Delete{Family: []byte("cf"), Qualifier: []byte("q"), AllVersions: true, Timestamp: 9}, "cf:q/DELETE_MULTIPLE_VERSIONS@9"},
		{"newest version", hbase.Delete{Family: []byte("cf"), Qualifier: []byte("q")}, "cf:q/DELETE_ONE_VERSION@-"},
		{"one version", hbase.Delete{Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 9}, "cf:q/DELETE_ONE_VERSION@9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.del
			d.Table, d.Row = "t", []byte("r")
			m, err := toDelete(ctx, &d)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(mutation(t, m)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func describe(m *pb.MutationProto) string {
	ts := "-"
	if m.Timestamp != nil {
		ts = fmt.Sprint(m.GetTimestamp())
	}
	if len(m.GetColumnValue()) == 0 {
		return "row@" + ts
	}
	var parts []string
	for _, cv := range m.GetColumnValue() {
		for _, qv := range cv.GetQualifierValue() {
			parts = append(parts, fmt.Sprintf("%s:%s/%s@%s", cv.GetFamily(), qv.GetQualifier(), qv.GetDeleteType(), ts))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func TestOneMutation(t *testing.T) {
	ctx := context.Background()
	put := func(ts int64, kv ...string) *hbase.Put {
		p := &hbase.Put{Timestamp: ts, Values: map[string]map[string][]byte{}}
		for i := 0; i+2 < len(kv); i += 3 {
			if p.Values[kv[i]] == nil {
				p.Values[kv[i]] = map[string][]byte{}
			}
			p.Values[kv[i]][kv[i+1]] = []byte(kv[i+2])
		}
		return p
	}
	tests := []struct {
		name string
		muts []hbase.Mutation
		want string // the merged mutation's cells, or "unsupported"
	}{
		{"one put", []hbase.Mutation{put(0, "cf", "a", "1")}, "PUT cf:a=1@-"},
		{"puts merged", []hbase.Mutation{put(5, "cf", "a", "1"), put(5, "cf", "b", "2", "cf2", "c", "3")}, "PUT cf2:c=3@5 cf:a=1@5 cf:b=2@5"},
		{"latest and zero agree", []hbase.Mutation{put(0, "cf", "a", "1"), put(hbase.LatestTimestamp, "cf", "b", "2")}, "PUT cf:a=1@- cf:b=2@-"},
		{"one delete", []hbase.Mutation{&hbase.Delete{Family: []byte("cf")}}, "DELETE cf:=@-"},
		{"puts at two timestamps", []hbase.Mutation{put(5, "cf", "a", "1"), put(6, "cf", "b", "2")}, "unsupported"},
		{"two puts of one column", []hbase.Mutation{put(0, "cf", "a", "1"), put(0, "cf", "a", "2")}, "unsupported"},
		{"puts of two durabilities", []hbase.Mutation{put(0, "cf", "a", "1"), &hbase.Put{Durability: hbase.SkipWAL, Values: map[string]map[string][]byte{"cf": {"b": {}}}}}, "unsupported"},
		{"put and delete", []hbase.Mutation{put(0, "cf", "a", "1"), &hbase.Delete{Family: []byte("cf")}}, "unsupported"},
		{"two deletes", []hbase.Mutation{&hbase.Delete{}, &hbase.Delete{}}, "unsupported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := oneMutation(ctx, "mutate row", "t", []byte("r"), tc.muts)
			if tc.want == "unsupported" {
				if !errors.Is(err, ErrUnsupported) {
					t.Errorf("got %v, %v; want ErrUnsupported", m, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mp := mutation(t, m)
			ts := "-"
			if mp.Timestamp != nil {
				ts = fmt.Sprint(mp.GetTimestamp())
			}
			var cells []string
			for _, cv := range mp.GetColumnValue() {
				for _, qv := range cv.GetQualifierValue() {
					cells = append(cells, fmt.Sprintf("%s:%s=%s@%s", cv.GetFamily(), qv.GetQualifier(), qv.GetValue(), ts))
				}
			}
			slices.Sort(cells)
			if got := mp.GetMutateType().String() + " " + strings.Join(cells, " "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if string(mp.GetRow()) != "r" || string(m.Table()) != "t" {
				t.Errorf("row %q table %q, want r and t", mp.GetRow(), m.Table())
			}
		})
	}
}

func TestFamilyMap(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	got := familyMap([][]byte{b("f1")}, []hbase.Column{{Family: b("f1"), Qualifier: b("x")}, {Family: b("f2"), Qualifier: b("a")}, {Family: b("f2"), Qualifier: nil}})
	want := map[string][]string{"f1": nil, "f2": {"a", ""}}
	if fmt.Sprint(got) != fmt.Sprint(want) || got["f1"] != nil {
		t.Errorf("familyMap = %#v, want %#v", got, want)
	}
	if familyMap(nil, nil) != nil {
		t.Error("familyMap(nil, nil) != nil: a Get of every family must send no column")
	}
}

func TestToFilter(t *testing.T) {
	eq := &hbase.BinaryComparator{Value: []byte("v")}
	filters := map[string]hbase.Filter{
		"PrefixFilter":            &hbase.PrefixFilter{},
		"KeyOnlyFilter":           &hbase.KeyOnlyFilter{LengthAsValue: true},
		"FirstKeyOnlyFilter":      &hbase.FirstKeyOnlyFilter{},
		"PageFilter":              &hbase.PageFilter{Size: 3},
		"ColumnPrefixFilter":      &hbase.ColumnPrefixFilter{},
		"ColumnRangeFilter":       &hbase.ColumnRangeFilter{Min: []byte("a"), MaxInclusive: true},
		"RowFilter":               &hbase.RowFilter{Compare: hbase.CompareLess, Comparator: eq},
		"FamilyFilter":            &hbase.FamilyFilter{Comparator: &hbase.BinaryPrefixComparator{}},
		"QualifierFilter":         &hbase.QualifierFilter{Compare: hbase.CompareNotEqual, Comparator: &hbase.SubstringComparator{Substr: "x"}},
		"ValueFilter":             &hbase.ValueFilter{Compare: hbase.CompareGreaterOrEqual, Comparator: eq},
		"SingleColumnValueFilter": &hbase.SingleColumnValueFilter{Family: []byte("cf"), Comparator: eq, FilterIfMissing: true},
		"MultiRowRangeFilter":     &hbase.MultiRowRangeFilter{Ranges: []hbase.RowRange{{Start: []byte("a")}, {Stop: []byte("z")}}},
		"FilterList":              &hbase.FilterList{Op: hbase.MustPassOne, Filters: []hbase.Filter{&hbase.PrefixFilter{Prefix: []byte("p")}}},
	}
	for class, f := range filters {
		t.Run(class, func(t *testing.T) {
			if err := hbase.ValidateFilter(f); err != nil {
				t.Fatal(err)
			}
			gf, err := toFilter(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := gf.ConstructPBFilter()
			if err != nil {
				t.Fatalf("ConstructPBFilter: %v", err)
			}
			if want := "org.apache.hadoop.hbase.filter." + class; p.GetName() != want {
				t.Errorf("class %s, want %s", p.GetName(), want)
			}
		})
	}
	// Operators are HBase's for filters, reversed for check-and-mutate.
	gf, _ := toFilter(&hbase.RowFilter{Compare: hbase.CompareLess, Comparator: eq})
	p, _ := gf.ConstructPBFilter()
	var rf pb.RowFilter
	if err := proto.Unmarshal(p.GetSerializedFilter(), &rf); err != nil || rf.GetCompareFilter().GetCompareOp() != pb.CompareType_LESS {
		t.Errorf("RowFilter LESS sent as %v (%v)", rf.GetCompareFilter().GetCompareOp(), err)
	}
	cam, err := toCheckAndMutate(context.Background(), &hbase.CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"),
		Compare: hbase.CompareLess, Value: []byte("v"), Mutations: []hbase.Mutation{&hbase.Put{Values: map[string]map[string][]byte{"cf": {"q": {}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	cam.SetRegion(regionStub("t,,1.x."))
	if op := cam.ToProto().(*pb.MutateRequest).GetCondition().GetCompareType(); op != pb.CompareType_GREATER {
		t.Errorf("CheckAndMutate stored LESS v sent as %v, want GREATER", op)
	}
}

func TestTableState(t *testing.T) {
	for _, tc := range []struct {
		state int
		raw   []byte
	}{
		{tableEnabled, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 0)},
		{tableDisabled, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)},
		// An unknown field before the state is skipped.
		{tableDisabled, protowire.AppendVarint(protowire.AppendTag(protowire.AppendBytes(protowire.AppendTag(nil, 7, protowire.BytesType), []byte("x")), 1, protowire.VarintType), 1)},
	} {
		got, err := tableState(tc.raw)
		if err != nil || got != tc.state {
			t.Errorf("tableState(%x) = %d, %v; want %d", tc.raw, got, err, tc.state)
		}
	}
	for _, raw := range [][]byte{nil, {0xff}, {0x08}} {
		if _, err := tableState(raw); err == nil {
			t.Errorf("tableState(%x): no error", raw)
		}
	}
}

func TestRegionInfo(t *testing.T) {
	info := &pb.RegionInfo{RegionId: proto.Uint64(42), TableName: &pb.TableName{Namespace: []byte("default"), Qualifier: []byte("t")},
		StartKey: []byte("g"), EndKey: []byte("m")}
	raw, err := proto.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	row := []byte("t,g,42.abc.")
	res := func(regioninfo []byte) *hbase.Result {
		return &hbase.Result{Cells: []hbase.Cell{
			{Row: row, Family: []byte("info"), Qualifier: []byte("regioninfo"), Value: regioninfo},
			{Row: row, Family: []byte("info"), Qualifier: []byte("server"), Value: []byte("h:1")},
		}}
	}
	ri, ok, err := regionInfo(res(append([]byte("PBUF"), raw...)), "t")
	if err != nil || !ok || string(ri.StartKey) != "g" || string(ri.EndKey) != "m" || ri.Server != "h:1" || ri.ID != 42 || string(ri.RegionName) != string(row) || ri.Table != "t" {
		t.Errorf("regionInfo = %+v, %v, %v", ri, ok, err)
	}
	if _, ok, err := regionInfo(res(append([]byte("PBUF"), raw...)), "other"); err != nil || ok {
		t.Errorf("regionInfo of another table's row = %v, %v; want skipped", ok, err)
	}
	info.Offline, info.Split = proto.Bool(true), proto.Bool(true)
	raw, _ = proto.Marshal(info)
	if _, ok, err := regionInfo(res(append([]byte("PBUF"), raw...)), "t"); err != nil || ok {
		t.Errorf("regionInfo of a split parent = %v, %v; want skipped", ok, err)
	}
	if _, _, err := regionInfo(res(raw), "t"); err == nil {
		t.Error("regionInfo without the PBUF magic: no error")
	}
}

// TestAtomicCallProto: the request of an atomic row write carries the
// mutations in one atomic RegionAction, and the condition.
func TestAtomicCallProto(t *testing.T) {
	cam := &hbase.CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Compare: hbase.CompareGreater,
		Value: []byte("v"), TimeRange: &hbase.TimeRange{From: 1, To: 5},
		Mutations: []hbase.Mutation{&hbase.Put{Values: map[string]map[string][]byte{"cf": {"a": []byte("1")}}}, &hbase.Delete{Family: []byte("cf2")}}}
	cond, err := conditionProto(cam)
	if err != nil {
		t.Fatal(err)
	}
	muts, err := mutationProtos(cam.Mutations, cam.Row)
	if err != nil {
		t.Fatal(err)
	}
	call := &atomicCall{table: []byte("t"), row: cam.Row, muts: muts, cond: cond}
	call.SetRegion(regionStub("t,,1.x."))
	req := call.ToProto().(*pb.MultiRequest)
	ra := req.GetRegionAction()[0]
	if !ra.GetAtomic() || len(ra.GetAction()) != 2 || string(ra.GetRegion().GetValue()) != "t,,1.x." {
		t.Fatalf("RegionAction = %v", ra)
	}
	if describe(ra.GetAction()[1].GetMutation()) != "cf2:/DELETE_FAMILY@-" || ra.GetAction()[0].GetMutation().GetMutateType() != pb.MutationProto_PUT {
		t.Errorf("actions = %v", ra.GetAction())
	}
	got := req.GetCondition()
	if got == nil {
		t.Fatal("no condition in the MultiRequest")
	}
	if got.GetCompareType() != pb.CompareType_LESS || got.GetTimeRange().GetFrom() != 1 || got.GetTimeRange().GetTo() != 5 || string(got.GetRow()) != "r" {
		t.Errorf("condition = %v, want LESS (reversed) over [1, 5)", got)
	}
}

// regionStub is the region an atomicCall is sent to.
type regionStub string

func (r regionStub) Name() []byte { return []byte(r) }

// The rest of hrpc.RegionInfo, unused.
func (regionStub) IsUnavailable() bool               { return false }
func (regionStub) AvailabilityChan() <-chan struct{} { return nil }
func (regionStub) MarkUnavailable() bool             { return false }
func (regionStub) MarkAvailable()                    {}
func (regionStub) MarkDead()                         {}
func (regionStub) Context() context.Context          { return context.Background() }
func (r regionStub) String() string                  { return string(r) }
func (regionStub) ID() uint64                        { return 1 }
func (regionStub) StartKey() []byte                  { return nil }
func (regionStub) StopKey() []byte                   { return nil }
func (regionStub) Namespace() []byte                 { return nil }
func (regionStub) Table() []byte                     { return nil }
func (regionStub) SetClient(hrpc.RegionClient)       {}
func (regionStub) Client() hrpc.RegionClient         { return nil }

// TestAtomicNeedsRPCClient: a client without SendRPC cannot send several
// mutations at once; the call fails with an *UnsupportedError and sends
// nothing.
func TestAtomicNeedsRPCClient(t *testing.T) {
	c, s := newStub(t)
	ctx := context.Background()
	mixed := []hbase.Mutation{&hbase.Put{Values: map[string]map[string][]byte{"cf": {"a": []byte("1")}}}, &hbase.Delete{Family: []byte("cf")}}
	err := c.MutateRow(ctx, &hbase.RowMutations{Table: "t", Row: []byte("r"), Mutations: mixed})
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		t.Errorf("MutateRow = %v, want an *UnsupportedError", err)
	}
	_, err = c.CheckAndMutate(ctx, &hbase.CheckAndMutate{Table: "t", Row: []byte("r"), Family: []byte("cf"), Mutations: mixed})
	if !errors.As(err, &ue) {
		t.Errorf("CheckAndMutate = %v, want an *UnsupportedError", err)
	}
	if len(s.cams)+len(s.batches) != 0 {
		t.Errorf("sent %d calls, want none", len(s.cams)+len(s.batches))
	}
}

// TestBatchRouting: one SendBatch per table; CheckAndMutates one by one,
// in batch order per row; invalid actions fail alone; results in order.
func TestBatchRouting(t *testing.T) {
	c, s := newStub(t)
	val := map[string]map[string][]byte{"cf": {"q": []byte("v")}}
	cam := func(row, v string) *hbase.CheckAndMutate {
		return &hbase.CheckAndMutate{Table: "t1", Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"), Value: []byte(v),
			Mutations: []hbase.Mutation{&hbase.Put{Values: val}}}
	}
	actions := []hbase.Action{
		&hbase.Put{Table: "t1", Row: []byte("a"), Values: val}, // 0
		&hbase.Get{Table: "t2", Row: []byte("b")},              // 1
		cam("c", "1"),                        // 2
		&hbase.Put{Table: "t1", Values: val}, // 3: invalid
		cam("c", "2"),                        // 4
		&hbase.Increment{Table: "t2", Row: []byte("d"), Deltas: map[string]map[string]int64{"cf": {"n": 1}}}, // 5
		&hbase.Delete{Table: "t1", Row: []byte("fail")},                                                      // 6: the stub fails it
		cam("e", "3"), // 7
	}
	res, err := c.Batch(context.Background(), actions)
	var be *hbase.BatchError
	if !errors.As(err, &be) || len(be.Failed) != 2 || be.Failed[0].Index != 3 || be.Failed[1].Index != 6 {
		t.Fatalf("Batch error = %v, want actions 3 and 6", err)
	}
	if !errors.Is(res[3].Err, hbase.ErrEmptyRow) || !errors.Is(res[6].Err, hbase.ErrNoSuchFamily) {
		t.Errorf("errors = %v, %v", res[3].Err, res[6].Err)
	}
	for _, i := range []int{0, 1, 2, 4, 5, 7} {
		if res[i].Err != nil || res[i].Result == nil {
			t.Errorf("action %d: %+v, want a result", i, res[i])
		}
	}
	if got := string(res[1].Result.Value([]byte("cf"), []byte("q"))); got != "v" {
		t.Errorf("get result %q, want v", got)
	}
	for _, i := range []int{2, 4, 7} {
		if !res[i].Processed {
			t.Errorf("CheckAndMutate %d not processed", i)
		}
	}
	var tables []string
	for _, b := range s.batches {
		tables = append(tables, fmt.Sprintf("%s:%d", b[0].Table(), len(b)))
	}
	slices.Sort(tables)
	if fmt.Sprint(tables) != "[t1:2 t2:2]" {
		t.Errorf("SendBatch calls %v, want one per table: [t1:2 t2:2]", tables)
	}
	var rowC []string
	for _, cm := range s.cams {
		if string(cm.Key()) == "c" {
			cm.SetRegion(regionStub("t1,,1.x."))
			var bc pb.BinaryComparator
			if err := proto.Unmarshal(cm.ToProto().(*pb.MutateRequest).GetCondition().GetComparator().GetSerializedComparator(), &bc); err != nil {
				t.Fatal(err)
			}
			rowC = append(rowC, string(bc.GetComparable().GetValue()))
		}
	}
	if fmt.Sprint(rowC) != "[1 2]" || len(s.cams) != 3 {
		t.Errorf("CheckAndMutates of row c sent out of order or not alone: %q (%d in all)", rowC, len(s.cams))
	}
	if res, err := c.Batch(context.Background(), nil); err != nil || len(res) != 0 {
		t.Errorf("empty Batch = %v, %v", res, err)
	}
}

// TestScanner: the adapter's Limit counts rows (parts of a row count
// once), stops reading at it and closes gohbase's scanner; Batch is
// refused before anything is sent; a reversed scan without a start row
// starts at the greatest row key.
func TestScanner(t *testing.T) {
	ctx := context.Background()
	cell := func(row, q string) *hrpc.Cell {
		return &hrpc.Cell{Row: []byte(row), Family: []byte("cf"), Qualifier: []byte(q), Value: []byte("v")}
	}
	results := []*hrpc.Result{
		{Cells: []*hrpc.Cell{cell("a", "1")}},
		{Cells: []*hrpc.Cell{cell("b", "1")}},
		{Cells: []*hrpc.Cell{cell("b", "2")}}, // second part of b
		{Cells: []*hrpc.Cell{cell("c", "1")}},
		{Cells: []*hrpc.Cell{cell("d", "1")}},
	}
	rows := func(sc hbase.Scanner) string {
		var out []string
		for sc.Next() {
			out = append(out, string(sc.Result().Row()))
		}
		if err := sc.Err(); err != nil {
			out = append(out, "error: "+err.Error())
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		scan hbase.Scan
		want string
	}{
		{"all", hbase.Scan{}, "a b b c d"},
		{"limit", hbase.Scan{Limit: 2}, "a b"},
		{"limit with parts", hbase.Scan{Limit: 2, AllowPartial: true}, "a b b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newStub(t)
			s.results = results
			sc := tc.scan
			sc.Table = "t"
			scanner, err := c.Scan(ctx, &sc)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows(scanner); got != tc.want {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			if scanner.Next() || scanner.Close() != nil || scanner.Close() != nil {
				t.Error("Next after the end, or Close twice, misbehaves")
			}
			if s.closed != 1 {
				t.Errorf("gohbase scanner closed %d times, want 1", s.closed)
			}
		})
	}

	c, s := newStub(t)
	s.results = results[:1]
	s.scanErr = errors.New("HBase Java exception org.apache.hadoop.hbase.TableNotFoundException:\nx")
	scanner, err := c.Scan(ctx, &hbase.Scan{Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(scanner); !strings.HasPrefix(got, "a error: ") || !errors.Is(scanner.Err(), hbase.ErrTableNotFound) {
		t.Errorf("rows %q, Err %v; want a then ErrTableNotFound", got, scanner.Err())
	}

	if _, err := c.Scan(ctx, &hbase.Scan{Table: "t", Batch: 3}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Scan with Batch = %v, want ErrUnsupported", err)
	}
	if _, err := c.Scan(ctx, &hbase.Scan{Table: "t", Limit: -1}); !errors.Is(err, hbase.ErrInvalidRequest) {
		t.Errorf("Scan with Limit -1 = %v, want ErrInvalidRequest", err)
	}
	if _, err := c.Scan(ctx, &hbase.Scan{Table: "t", Reversed: true}); err != nil {
		t.Fatal(err)
	}
	if got := s.scans[len(s.scans)-1].StartRow(); len(got) != hbase.MaxRowLength || got[0] != 0xff {
		t.Errorf("reversed scan without a start row starts at %d bytes, want the greatest row key", len(got))
	}
	if len(s.scans) != 2 {
		t.Errorf("%d scans opened, want 2: refused requests send nothing", len(s.scans))
	}
}

// TestAdminWithoutAdminClient: table DDL needs WithAdminClient; requests
// the adapter cannot send fail first.
func TestAdminWithoutAdminClient(t *testing.T) {
	c, _ := newStub(t)
	ctx := context.Background()
	desc := hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "f"}}}
	for name, err := range map[string]error{
		"CreateTable":  c.CreateTable(ctx, desc, nil),
		"DeleteTable":  c.DeleteTable(ctx, "t"),
		"EnableTable":  c.EnableTable(ctx, "t"),
		"DisableTable": c.DisableTable(ctx, "t"),
		"TableExists":  second(c.TableExists(ctx, "t")),
		"ListTables":   second(c.ListTables(ctx, "")),
	} {
		if !errors.Is(err, ErrNoAdminClient) {
			t.Errorf("%s = %v, want ErrNoAdminClient", name, err)
		}
	}
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: "ns:t", Families: desc.Families}, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("CreateTable in a namespace = %v, want ErrUnsupported", err)
	}
	var ie *hbase.InvalidRequestError
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: "t"}, nil); !errors.As(err, &ie) {
		t.Errorf("CreateTable without families = %v, want an *hbase.InvalidRequestError", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestIncrementValues(t *testing.T) {
	m, err := toIncrement(context.Background(), &hbase.Increment{Table: "t", Row: []byte("r"), Deltas: map[string]map[string]int64{"cf": {"n": -2}}})
	if err != nil {
		t.Fatal(err)
	}
	v := m.Values()["cf"]["n"]
	if len(v) != 8 || int64(binary.BigEndian.Uint64(v)) != -2 {
		t.Errorf("delta encoded as %x, want 8-byte big-endian -2", v)
	}
}
