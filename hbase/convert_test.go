package hbase

import (
	"bytes"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func TestFilterEncoding(t *testing.T) {
	f := &FilterList{Op: MustPassOne, Filters: []Filter{
		&PrefixFilter{Prefix: []byte("p")},
		&FilterList{Filters: []Filter{&FirstKeyOnlyFilter{}, &KeyOnlyFilter{}}},
		&SingleColumnValueFilter{Family: []byte("cf"), Qualifier: []byte("q"), Compare: CompareGreater,
			Comparator: &BinaryPrefixComparator{Prefix: []byte("x")}, LatestVersionOnly: true},
		&ValueFilter{Compare: CompareEqual, Comparator: &SubstringComparator{Substr: "abc"}},
		&MultiRowRangeFilter{Ranges: []RowRange{{Start: []byte("a"), StartInclusive: true}}},
		&PageFilter{Size: 3}, &ColumnPrefixFilter{Prefix: []byte("c")}, &ColumnRangeFilter{Min: []byte("a")},
		&RowFilter{Compare: CompareLess, Comparator: &BinaryComparator{Value: []byte("m")}},
		&FamilyFilter{Compare: CompareNotEqual, Comparator: &BinaryComparator{}},
		&QualifierFilter{Compare: CompareLessOrEqual, Comparator: &BinaryComparator{}},
	}}
	pf, err := filterToPB(f)
	if err != nil {
		t.Fatal(err)
	}
	if pf.GetName() != "org.apache.hadoop.hbase.filter.FilterList" {
		t.Fatalf("name %q", pf.GetName())
	}
	var fl pb.FilterList
	if err := proto.Unmarshal(pf.GetSerializedFilter(), &fl); err != nil {
		t.Fatal(err)
	}
	if fl.GetOperator() != pb.FilterList_MUST_PASS_ONE || len(fl.GetFilters()) != 11 {
		t.Fatalf("list %v", &fl)
	}
	wantNames := []string{"PrefixFilter", "FilterList", "SingleColumnValueFilter", "ValueFilter", "MultiRowRangeFilter",
		"PageFilter", "ColumnPrefixFilter", "ColumnRangeFilter", "RowFilter", "FamilyFilter", "QualifierFilter"}
	for i, sub := range fl.GetFilters() {
		if got, want := sub.GetName(), "org.apache.hadoop.hbase.filter."+wantNames[i]; got != want {
			t.Errorf("filter %d: %s, want %s", i, got, want)
		}
	}
	var scv pb.SingleColumnValueFilter
	if err := proto.Unmarshal(fl.GetFilters()[2].GetSerializedFilter(), &scv); err != nil {
		t.Fatal(err)
	}
	if scv.GetCompareOp() != pb.CompareType_GREATER || !scv.GetLatestVersionOnly() || scv.FilterIfMissing == nil ||
		scv.GetComparator().GetName() != "org.apache.hadoop.hbase.filter.BinaryPrefixComparator" {
		t.Errorf("SingleColumnValueFilter %v", &scv)
	}
	if _, err := filterToPB(nil); err == nil {
		t.Error("nil filter encoded")
	}
}

func TestMutationEncoding(t *testing.T) {
	p := putToPB(&Put{Table: "t", Row: []byte("r"), Timestamp: 5, Durability: SyncWAL,
		Values: map[string]map[string][]byte{"b": {"y": []byte("2"), "x": {}}, "a": {"z": []byte("1")}}}, []byte("r"))
	if p.GetMutateType() != pb.MutationProto_PUT || p.GetTimestamp() != 5 || p.GetDurability() != pb.MutationProto_SYNC_WAL {
		t.Errorf("put %v", p)
	}
	if len(p.ColumnValue) != 2 || string(p.ColumnValue[0].Family) != "a" || string(p.ColumnValue[1].QualifierValue[0].Qualifier) != "x" ||
		p.ColumnValue[1].QualifierValue[0].Value == nil {
		t.Errorf("put columns not sorted or empty value lost: %v", p)
	}
	if wireTimestamp(0) != nil || wireTimestamp(LatestTimestamp) != nil {
		t.Error("server-time timestamps are sent")
	}
	tests := []struct {
		d    Delete
		want *pb.MutationProto_DeleteType // nil: whole row
	}{
		{Delete{Row: []byte("r")}, nil},
		{Delete{Row: []byte("r"), Family: []byte("f")}, pb.MutationProto_DELETE_FAMILY.Enum()},
		{Delete{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q")}, pb.MutationProto_DELETE_ONE_VERSION.Enum()},
		{Delete{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), AllVersions: true, Timestamp: 9}, pb.MutationProto_DELETE_MULTIPLE_VERSIONS.Enum()},
	}
	for i, tc := range tests {
		m := deleteToPB(&tc.d, tc.d.Row)
		if tc.want == nil {
			if len(m.ColumnValue) != 0 {
				t.Errorf("%d: row delete has columns", i)
			}
			continue
		}
		qv := m.ColumnValue[0].QualifierValue[0]
		if qv.DeleteType == nil || *qv.DeleteType != *tc.want {
			t.Errorf("%d: delete type %v, want %v", i, qv.DeleteType, tc.want)
		}
		if tc.d.Timestamp != 0 && qv.GetTimestamp() != uint64(tc.d.Timestamp) {
			t.Errorf("%d: per-cell timestamp %d", i, qv.GetTimestamp())
		}
	}
	inc := incrementToPB(&Increment{Row: []byte("r"), Deltas: map[string]map[string]int64{"f": {"a": -1, "b": 7}}}, 42)
	if inc.GetNonce() != 42 || int64(binary.BigEndian.Uint64(inc.ColumnValue[0].QualifierValue[0].Value)) != -1 {
		t.Errorf("increment %v", inc)
	}
	cols := columnsToPB([][]byte{[]byte("a")}, []Column{{Family: []byte("a"), Qualifier: []byte("x")}, {Family: []byte("b"), Qualifier: []byte("y")}, {Family: []byte("b")}})
	if len(cols) != 2 || len(cols[0].Qualifier) != 0 || len(cols[1].Qualifier) != 2 {
		t.Errorf("columns %v", cols)
	}
}

func TestResultDecoding(t *testing.T) {
	b, _ := proto.Marshal(&pb.Result{Cell: []*pb.Cell{{Row: []byte("r"), Family: []byte("f"), Timestamp: proto.Uint64(3), CellType: pb.CellType_DELETE_FAMILY_VERSION.Enum()}}, Exists: proto.Bool(true)})
	r, err := decodeResult(b)
	if err != nil || len(r.Cells) != 1 || !r.Exists {
		t.Fatalf("decodeResult = %v, %v", r, err)
	}
	c := r.Cells[0]
	if c.Type != CellTypeDeleteFamilyVersion || c.Timestamp != 3 || c.Qualifier == nil || c.Value == nil {
		t.Errorf("cell %+v", c)
	}
	if _, err := decodeResult([]byte{0xff}); err == nil {
		t.Error("garbage decoded")
	}
}

func TestDecodeMetaRow(t *testing.T) {
	fr := &fakeRegion{name: []byte("t,b,5.e."), start: []byte("b"), end: []byte("d"), addr: "h:1", id: 5}
	m, err := decodeMetaRow(metaRowOf(fr).GetCell())
	if err != nil {
		t.Fatal(err)
	}
	r := m.region
	if r.table != "t" || !bytes.Equal(r.start, []byte("b")) || !bytes.Equal(r.end, []byte("d")) || r.addr != "h:1" || m.state != "OPEN" || !bytes.Equal(r.name, fr.name) {
		t.Errorf("region %+v", r)
	}
	bad := metaRowOf(fr)
	bad.Cell[0].Value = []byte("PBU")
	if _, err := decodeMetaRow(bad.GetCell()); err == nil {
		t.Error("bad regioninfo decoded")
	}
	for i, key := range [][]byte{metaLocateKey("t", []byte("row"), false), metaLocateKey("t", []byte("row"), true), metaLocateKey("ns:t", nil, true)} {
		want := []string{"t,row,99999999999999", "t,row,00000000000000", "ns:t\x00"}[i]
		if string(key) != want {
			t.Errorf("locate key %q, want %q", key, want)
		}
	}
	if k := metaLocateKey("t", bytes.Repeat([]byte("x"), MaxRowLength), false); len(k) > MaxRowLength {
		t.Errorf("locate key of %d bytes", len(k))
	}
}

// FuzzDecodeMetaRow feeds arbitrary bytes as a meta row's regioninfo and
// server, and as a whole serialized Result: errors, never panics.
func FuzzDecodeMetaRow(f *testing.F) {
	good := metaRowOf(&fakeRegion{name: []byte("t,b,5.e."), start: []byte("b"), end: []byte("d"), addr: "h:1", id: 5})
	gb, _ := proto.Marshal(good)
	f.Add(good.Cell[0].Value, []byte("h:1"), gb)
	f.Add([]byte("PBUF"), []byte("[::1]:16020"), []byte{})
	f.Add([]byte("PBUF\x0a\x00"), []byte(""), []byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, regionInfo, server, result []byte) {
		cells := []*pb.Cell{
			{Row: []byte("t,,1.x."), Family: []byte("info"), Qualifier: []byte("regioninfo"), Value: regionInfo},
			{Row: []byte("t,,1.x."), Family: []byte("info"), Qualifier: []byte("server"), Value: server},
		}
		if m, err := decodeMetaRow(cells); err == nil {
			r := m.region
			if len(r.end) != 0 && bytes.Compare(r.start, r.end) >= 0 {
				t.Fatalf("accepted start %q >= end %q", r.start, r.end)
			}
			_ = r.contains([]byte("x"))
			_ = r.regionInfo()
		}
		var res pb.Result
		if proto.Unmarshal(result, &res) == nil {
			_, _ = decodeMetaRow(res.GetCell())
			_, _ = pickRegion([]*pb.Result{&res}, "t", []byte("k"), false)
		}
	})
}

// FuzzDecodeResult decodes arbitrary bytes as a Result message.
func FuzzDecodeResult(f *testing.F) {
	b, _ := proto.Marshal(&pb.Result{Cell: []*pb.Cell{{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: proto.Uint64(1<<63 + 5), CellType: pb.CellType_PUT.Enum(), Value: []byte("v")}}})
	f.Add(b)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x03, 0x28, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeResult(data)
		if err != nil {
			return
		}
		for _, c := range r.Cells {
			if c.Timestamp < 0 {
				t.Fatalf("negative timestamp %d", c.Timestamp)
			}
		}
		_ = r.Families()
	})
}

// TestBinaryComparatorBytes: binaryComparatorPB encodes the comparator
// byte for byte as proto.Marshal does, for empty and non-empty values.
func TestBinaryComparatorBytes(t *testing.T) {
	for _, v := range [][]byte{nil, {}, []byte("v"), bytes.Repeat([]byte{0xff}, 300)} {
		want, err := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: nonNil(v)}})
		if err != nil {
			t.Fatal(err)
		}
		c := binaryComparatorPB(v)
		if got := c.SerializedComparator; !bytes.Equal(got, want) {
			t.Errorf("value %x: got %x, want %x", v, got, want)
		}
		if c.GetName() != classBinaryComparator {
			t.Errorf("name %q", c.GetName())
		}
	}
}
