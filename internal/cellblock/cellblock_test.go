package cellblock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func mustAppend(t testing.TB, dst []byte, cells ...Cell) []byte {
	t.Helper()
	for _, c := range cells {
		var err error
		if dst, err = AppendCell(dst, c); err != nil {
			t.Fatalf("AppendCell: %v", err)
		}
	}
	return dst
}

func cellsEqual(a, b Cell) bool {
	return bytes.Equal(a.Row, b.Row) && bytes.Equal(a.Family, b.Family) &&
		bytes.Equal(a.Qualifier, b.Qualifier) && a.Timestamp == b.Timestamp &&
		a.Type == b.Type && bytes.Equal(a.Value, b.Value)
}

// TestKeyValueLayout pins the byte layout against a hand-built entry.
func TestKeyValueLayout(t *testing.T) {
	c := Cell{Row: []byte("r1"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 0x0102, Type: 4, Value: []byte("v")}
	want := []byte{
		0, 0, 0, 25, // total = 8 + 16 + 1
		0, 0, 0, 16, // key length = 2+2 + 1+1 + 1 + 8 + 1
		0, 0, 0, 1, // value length
		0, 2, 'r', '1', // row
		1, 'f', // family
		'q',                          // qualifier
		0, 0, 0, 0, 0, 0, 0x01, 0x02, // timestamp
		4,   // type Put
		'v', // value
	}
	got := mustAppend(t, nil, c)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendCell = %x, want %x", got, want)
	}
	d, rest, err := DecodeCell(want)
	if err != nil {
		t.Fatalf("DecodeCell: %v", err)
	}
	if !cellsEqual(d, c) || len(rest) != 0 {
		t.Errorf("DecodeCell = %+v, rest %x; want %+v", d, rest, c)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	cells := []Cell{
		{Row: []byte("row"), Family: []byte("cf"), Qualifier: []byte("qual"), Timestamp: 1700000000000, Type: 4, Value: []byte("value")},
		{Row: []byte("r"), Family: []byte{}, Qualifier: []byte{}, Timestamp: 0, Type: 14, Value: []byte{}},
		{Row: bytes.Repeat([]byte{0xff}, 32767), Family: bytes.Repeat([]byte{'f'}, 127), Qualifier: []byte{0}, Timestamp: 1<<63 - 1, Type: 12, Value: bytes.Repeat([]byte{1}, 1000)},
	}
	block := mustAppend(t, nil, cells...)
	got, err := Decode(block)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(got) != len(cells) {
		t.Fatalf("decoded %d cells, want %d", len(got), len(cells))
	}
	for i := range cells {
		if !cellsEqual(got[i], cells[i]) {
			t.Errorf("cell %d = %+v, want %+v", i, got[i], cells[i])
		}
	}
}

func TestDecodeWithTags(t *testing.T) {
	c := Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 5, Type: 4, Value: []byte("v")}
	e := mustAppend(t, nil, c)
	// Add int16 tags length + 3 tag bytes and fix the total.
	e = append(e, 0, 3, 'a', 'b', 'c')
	binary.BigEndian.PutUint32(e, binary.BigEndian.Uint32(e)+5)
	e = mustAppend(t, e, c)
	got, err := Decode(e)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(got) != 2 || !cellsEqual(got[0], c) || !cellsEqual(got[1], c) {
		t.Errorf("Decode = %+v, want two copies of %+v", got, c)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := mustAppend(t, nil, Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Type: 4, Value: []byte("v")})
	patch := func(off int, v uint32) []byte {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint32(b[off:], v)
		return b
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"short header", good[:11]},
		{"truncated entry", good[:len(good)-1]},
		{"negative total", patch(0, 0xffffffff)},
		{"total too small", patch(0, 8)},
		{"total mismatch", patch(0, binary.BigEndian.Uint32(good)+1)},
		{"key too short", patch(4, 11)},
		{"negative value", patch(8, 0x80000000)},
		{"row overruns key", func() []byte { b := bytes.Clone(good); b[12], b[13] = 0, 200; return b }()},
		{"family overruns key", func() []byte { b := bytes.Clone(good); b[15] = 100; return b }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode(tt.in); !errors.Is(err, ErrMalformed) {
				t.Errorf("Decode(%x) error = %v, want ErrMalformed", tt.in, err)
			}
		})
	}
}

func TestAppendCellLimits(t *testing.T) {
	dst := []byte("keep")
	for _, c := range []Cell{
		{Row: make([]byte, 32768), Family: []byte("f")},
		{Row: []byte("r"), Family: make([]byte, 128)},
	} {
		out, err := AppendCell(dst, c)
		if err == nil || string(out) != "keep" {
			t.Errorf("AppendCell(row %d, family %d) = %q, %v; want \"keep\" and an error", len(c.Row), len(c.Family), out, err)
		}
	}
}

func TestFillResults(t *testing.T) {
	c := func(q string) Cell {
		return Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte(q), Timestamp: 1, Type: 4, Value: []byte(q)}
	}
	block := mustAppend(t, nil, c("a"), c("b"), c("c"))
	r1 := &pb.Result{AssociatedCellCount: proto.Int32(2)}
	r2 := &pb.Result{} // e.g. a Put: no cells
	r3 := &pb.Result{AssociatedCellCount: proto.Int32(1)}
	if err := FillResults(block, r1, nil, r2, r3); err != nil {
		t.Fatalf("FillResults: %v", err)
	}
	quals := func(r *pb.Result) (s string) {
		for _, x := range r.GetCell() {
			s += string(x.GetQualifier())
		}
		return s
	}
	if quals(r1) != "ab" || quals(r2) != "" || quals(r3) != "c" {
		t.Errorf("results hold %q %q %q, want ab, \"\", c", quals(r1), quals(r2), quals(r3))
	}
	if got := r1.GetCell()[0]; got.GetCellType() != pb.CellType_PUT || string(got.GetValue()) != "a" || got.GetTimestamp() != 1 {
		t.Errorf("cell = %v", got)
	}

	tests := []struct {
		name    string
		results []*pb.Result
	}{
		{"too few cells", []*pb.Result{{AssociatedCellCount: proto.Int32(4)}}},
		{"left over", []*pb.Result{{AssociatedCellCount: proto.Int32(2)}}},
		{"negative count", []*pb.Result{{AssociatedCellCount: proto.Int32(-1)}}},
		{"huge count", []*pb.Result{{AssociatedCellCount: proto.Int32(1 << 30)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := FillResults(block, tt.results...); !errors.Is(err, ErrMalformed) {
				t.Errorf("FillResults error = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestFillScanResponse(t *testing.T) {
	c := func(row string) Cell {
		return Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 1, Type: 4, Value: []byte("v")}
	}
	block := mustAppend(t, nil, c("a"), c("b"), c("b"))
	resp := &pb.ScanResponse{
		CellsPerResult:       []uint32{1, 2},
		PartialFlagPerResult: []bool{false, true},
	}
	if err := FillScanResponse(block, resp); err != nil {
		t.Fatalf("FillScanResponse: %v", err)
	}
	rs := resp.GetResults()
	if len(rs) != 2 || len(rs[0].GetCell()) != 1 || len(rs[1].GetCell()) != 2 {
		t.Fatalf("results = %v, want 1 and 2 cells", rs)
	}
	if rs[0].GetPartial() || !rs[1].GetPartial() {
		t.Errorf("partial flags = %v, %v; want false, true", rs[0].GetPartial(), rs[1].GetPartial())
	}

	// Inline mode is left alone.
	inline := &pb.ScanResponse{Results: []*pb.Result{{}}}
	if err := FillScanResponse(nil, inline); err != nil || len(inline.Results) != 1 {
		t.Errorf("FillScanResponse(inline) = %v, results %d", err, len(inline.Results))
	}
	for name, r := range map[string]*pb.ScanResponse{
		"bytes without counts": {},
		"flag count mismatch":  {CellsPerResult: []uint32{3}, PartialFlagPerResult: []bool{true, false}},
		"too many cells":       {CellsPerResult: []uint32{4}},
		"left over":            {CellsPerResult: []uint32{1}},
	} {
		if err := FillScanResponse(block, r); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error = %v, want ErrMalformed", name, err)
		}
	}
}

func TestDecodeAllocs(t *testing.T) {
	block := mustAppend(t, nil, Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Type: 4, Value: []byte("v")})
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := DecodeCell(block); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("DecodeCell allocates %v times, want 0", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(mustAppend(f, nil, Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Type: 4, Value: []byte("v")}))
	f.Add([]byte{0, 0, 0, 20, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		cells, err := Decode(in)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// Without tags, re-encoding reproduces the input exactly.
		var out []byte
		for _, c := range cells {
			if out, err = AppendCell(out, c); err != nil {
				t.Fatalf("AppendCell of a decoded cell: %v", err)
			}
		}
		if len(out) > len(in) {
			t.Fatalf("re-encoded %d bytes from %d", len(out), len(in))
		}
		if len(out) == len(in) && !bytes.Equal(out, in) {
			t.Fatalf("re-encoded %x, want %x", out, in)
		}
		_ = FillResults(in, &pb.Result{AssociatedCellCount: proto.Int32(int32(len(cells)))})
	})
}

func BenchmarkDecode(b *testing.B) {
	var block []byte
	for i := range 100 {
		block = mustAppend(b, block, Cell{Row: []byte("user0042:profile"), Family: []byte("d"), Qualifier: []byte{byte(i)}, Timestamp: 1700000000000, Type: 4, Value: bytes.Repeat([]byte("x"), 64)})
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		rest := block
		for len(rest) > 0 {
			var err error
			if _, rest, err = DecodeCell(rest); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestFill moves a block into each kind of response and rejects a block
// for a message that carries no results.
func TestFill(t *testing.T) {
	c := func(q string) Cell {
		return Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte(q), Timestamp: 1, Type: 4, Value: []byte(q)}
	}
	block := mustAppend(t, nil, c("a"), c("b"), c("c"))
	quals := func(r *pb.Result) (s string) {
		for _, x := range r.GetCell() {
			s += string(x.GetQualifier())
		}
		return s
	}
	get := &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(3)}}
	if err := Fill(get, block); err != nil || quals(get.Result) != "abc" {
		t.Errorf("Fill(GetResponse) = %v, cells %q; want nil, abc", err, quals(get.Result))
	}
	mut := &pb.MutateResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(3)}}
	if err := Fill(mut, block); err != nil || quals(mut.Result) != "abc" {
		t.Errorf("Fill(MutateResponse) = %v, cells %q; want nil, abc", err, quals(mut.Result))
	}
	multi := &pb.MultiResponse{RegionActionResult: []*pb.RegionActionResult{
		{ResultOrException: []*pb.ResultOrException{{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}, {}}},
		{ResultOrException: []*pb.ResultOrException{{Result: &pb.Result{AssociatedCellCount: proto.Int32(2)}}}},
	}}
	if err := Fill(multi, block); err != nil {
		t.Errorf("Fill(MultiResponse) = %v", err)
	} else if a, b := quals(multi.RegionActionResult[0].ResultOrException[0].Result), quals(multi.RegionActionResult[1].ResultOrException[0].Result); a != "a" || b != "bc" {
		t.Errorf("Fill(MultiResponse) cells %q %q, want a bc", a, b)
	}
	scan := &pb.ScanResponse{CellsPerResult: []uint32{3}}
	if err := Fill(scan, block); err != nil || len(scan.Results) != 1 || quals(scan.Results[0]) != "abc" {
		t.Errorf("Fill(ScanResponse) = %v, results %v", err, scan.Results)
	}
	if err := Fill(&pb.GetRegionInfoResponse{}, block); !errors.Is(err, ErrMalformed) {
		t.Errorf("Fill(GetRegionInfoResponse, block) = %v, want ErrMalformed", err)
	}
	if err := Fill(&pb.GetRegionInfoResponse{}, nil); err != nil {
		t.Errorf("Fill(GetRegionInfoResponse, nil) = %v", err)
	}
}

func TestCheckCount(t *testing.T) {
	block := make([]byte, 2*MinCellSize+MinCellSize-1)
	for _, tc := range []struct {
		n  int64
		ok bool
	}{{0, true}, {2, true}, {3, false}, {-1, false}, {1 << 40, false}} {
		if err := CheckCount(tc.n, block); (err == nil) != tc.ok {
			t.Errorf("CheckCount(%d, %d bytes) = %v, want ok=%v", tc.n, len(block), err, tc.ok)
		}
	}
}
