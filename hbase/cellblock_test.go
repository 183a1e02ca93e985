package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
)

// blockOf encodes cells as a KeyValueCodec block.
func blockOf(t testing.TB, cells ...Cell) []byte {
	t.Helper()
	var b []byte
	for _, c := range cells {
		var err error
		b, err = cellblock.AppendCell(b, cellblock.Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier,
			Timestamp: uint64(c.Timestamp), Type: uint8(c.Type), Value: c.Value})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func testCell(row, q string) Cell {
	return Cell{Row: []byte(row), Family: []byte("cf"), Qualifier: []byte(q), Timestamp: 1700000000000, Type: CellTypePut, Value: []byte(row + "=" + q)}
}

func showCells(cells []Cell) string {
	var b bytes.Buffer
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s/%s:%s@%d/%v=%s", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value)
	}
	return b.String()
}

func TestScanPartsFromBlock(t *testing.T) {
	a1, a2, b1 := testCell("a", "1"), testCell("a", "2"), testCell("b", "1")
	block := blockOf(t, a1, a2, b1)
	resp := &pb.ScanResponse{CellsPerResult: []uint32{1, 1, 1}, PartialFlagPerResult: []bool{true, false, false}}
	parts, err := scanParts(resp, block)
	if err != nil {
		t.Fatalf("scanParts: %v", err)
	}
	want := []scanPart{{cells: []Cell{a1}, partial: true}, {cells: []Cell{a2}}, {cells: []Cell{b1}}}
	if len(parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(parts), len(want))
	}
	for i := range want {
		if got, w := showCells(parts[i].cells), showCells(want[i].cells); got != w || parts[i].partial != want[i].partial {
			t.Errorf("part %d = %s partial=%v, want %s partial=%v", i, got, parts[i].partial, w, want[i].partial)
		}
	}
	// Parts are capped: appending to one never writes into the next.
	grown := append(parts[0].cells, testCell("x", "x"))
	_ = grown
	if got := showCells(parts[1].cells); got != showCells([]Cell{a2}) {
		t.Errorf("append to part 0 changed part 1: %s", got)
	}

	// The inline form gives the same parts.
	inline := &pb.ScanResponse{Results: []*pb.Result{
		{Cell: []*pb.Cell{cellToPB(a1)}, Partial: proto.Bool(true)},
		{Cell: []*pb.Cell{cellToPB(a2)}},
		{Cell: []*pb.Cell{cellToPB(b1)}},
	}}
	iparts, err := scanParts(inline, nil)
	if err != nil {
		t.Fatalf("scanParts(inline): %v", err)
	}
	for i := range want {
		if got, w := showCells(iparts[i].cells), showCells(want[i].cells); got != w || iparts[i].partial != want[i].partial {
			t.Errorf("inline part %d = %s partial=%v, want %s partial=%v", i, got, iparts[i].partial, w, want[i].partial)
		}
	}
}

func cellToPB(c Cell) *pb.Cell {
	return &pb.Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier, Timestamp: proto.Uint64(uint64(c.Timestamp)),
		CellType: pb.CellType(c.Type).Enum(), Value: c.Value}
}

// TestMalformedBlocks: every inconsistency between the counts of the
// message and the block is an error wrapping cellblock.ErrMalformed.
func TestMalformedBlocks(t *testing.T) {
	block := blockOf(t, testCell("a", "1"), testCell("a", "2"))
	trunc := block[:len(block)-1]
	badLen := bytes.Clone(block)
	binary.BigEndian.PutUint32(badLen, 0x7fffffff)
	scans := []struct {
		name  string
		resp  *pb.ScanResponse
		block []byte
	}{
		{"cells without counts", &pb.ScanResponse{}, block},
		{"counts and inline results", &pb.ScanResponse{CellsPerResult: []uint32{2}, Results: []*pb.Result{{}}}, block},
		{"flags for other results", &pb.ScanResponse{CellsPerResult: []uint32{1, 1}, PartialFlagPerResult: []bool{true}}, block},
		{"more cells than the block", &pb.ScanResponse{CellsPerResult: []uint32{3}}, block},
		{"huge count", &pb.ScanResponse{CellsPerResult: []uint32{1 << 31, 1 << 31, 1 << 31}}, block},
		{"left over", &pb.ScanResponse{CellsPerResult: []uint32{1}}, block},
		{"truncated", &pb.ScanResponse{CellsPerResult: []uint32{2}}, trunc},
		{"bad entry length", &pb.ScanResponse{CellsPerResult: []uint32{2}}, badLen},
	}
	for _, tc := range scans {
		t.Run("scan/"+tc.name, func(t *testing.T) {
			if _, err := scanParts(tc.resp, tc.block); !errors.Is(err, cellblock.ErrMalformed) {
				t.Errorf("scanParts error = %v, want cellblock.ErrMalformed", err)
			}
		})
	}
	results := []struct {
		name  string
		r     *pb.Result
		block []byte
	}{
		{"more cells than the block", &pb.Result{AssociatedCellCount: proto.Int32(3)}, block},
		{"negative count", &pb.Result{AssociatedCellCount: proto.Int32(-1)}, block},
		{"left over", &pb.Result{AssociatedCellCount: proto.Int32(1)}, block},
		{"cells but no count", &pb.Result{}, block},
		{"truncated", &pb.Result{AssociatedCellCount: proto.Int32(2)}, trunc},
	}
	for _, tc := range results {
		t.Run("result/"+tc.name, func(t *testing.T) {
			if _, err := singleResult(tc.r, tc.block); !errors.Is(err, cellblock.ErrMalformed) {
				t.Errorf("singleResult error = %v, want cellblock.ErrMalformed", err)
			}
		})
	}
	multi := &pb.MultiResponse{RegionActionResult: []*pb.RegionActionResult{{ResultOrException: []*pb.ResultOrException{
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}}}}}
	if _, err := multiResults(multi, block); !errors.Is(err, cellblock.ErrMalformed) {
		t.Errorf("multiResults with cells left over: %v, want cellblock.ErrMalformed", err)
	}
}

func TestResultsFromBlock(t *testing.T) {
	a1, a2, b1 := testCell("a", "1"), testCell("a", "2"), testCell("b", "1")
	// Inline cells come first, then the associated ones.
	r, err := singleResult(&pb.Result{Cell: []*pb.Cell{cellToPB(a1)}, AssociatedCellCount: proto.Int32(1)}, blockOf(t, a2))
	if err != nil || showCells(r.Cells) != showCells([]Cell{a1, a2}) {
		t.Errorf("singleResult = %s, %v", showCells(r.Cells), err)
	}
	if r, err := singleResult(nil, nil); err != nil || !r.Empty() {
		t.Errorf("singleResult(nil) = %v, %v; want an empty result", r, err)
	}
	multi := &pb.MultiResponse{RegionActionResult: []*pb.RegionActionResult{
		{ResultOrException: []*pb.ResultOrException{{Result: &pb.Result{AssociatedCellCount: proto.Int32(2)}}, {Exception: &pb.NameBytesPair{}}}},
		{ResultOrException: []*pb.ResultOrException{{Result: &pb.Result{}}, {Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}}},
	}}
	out, err := multiResults(multi, blockOf(t, a1, a2, b1))
	if err != nil {
		t.Fatalf("multiResults: %v", err)
	}
	if got := showCells(out[0][0].Cells); got != showCells([]Cell{a1, a2}) {
		t.Errorf("result 0/0 = %s", got)
	}
	if out[0][1] != nil || !out[1][0].Empty() {
		t.Errorf("results 0/1 = %v (want nil), 1/0 = %v (want empty)", out[0][1], out[1][0])
	}
	if got := showCells(out[1][1].Cells); got != showCells([]Cell{b1}) {
		t.Errorf("result 1/1 = %s", got)
	}
}

// FuzzScanParts decodes arbitrary blocks against arbitrary counts: an
// error or parts that account for every byte, never a panic.
func FuzzScanParts(f *testing.F) {
	block := blockOf(f, testCell("a", "1"), testCell("a", "2"), testCell("b", "1"))
	f.Add([]byte{1, 2}, []byte{1, 0}, block)
	f.Add([]byte{3}, []byte{}, block)
	f.Add([]byte{0, 0, 3}, []byte{0, 0, 1}, block)
	f.Add([]byte{255}, []byte{}, block[:40])
	f.Fuzz(func(t *testing.T, counts, flags, block []byte) {
		resp := &pb.ScanResponse{}
		total := 0
		for _, n := range counts {
			resp.CellsPerResult = append(resp.CellsPerResult, uint32(n))
			total += int(n)
		}
		for _, fl := range flags {
			resp.PartialFlagPerResult = append(resp.PartialFlagPerResult, fl&1 == 1)
		}
		parts, err := scanParts(resp, block)
		if err != nil {
			if !errors.Is(err, cellblock.ErrMalformed) {
				t.Fatalf("error %v does not wrap cellblock.ErrMalformed", err)
			}
			return
		}
		n := 0
		for _, p := range parts {
			n += len(p.cells)
		}
		if n != total {
			t.Fatalf("%d cells decoded, %d announced", n, total)
		}
		// The same bytes as a Get's associated cells.
		if _, err := singleResult(&pb.Result{AssociatedCellCount: proto.Int32(int32(total))}, block); err != nil {
			t.Fatalf("singleResult of a block scanParts accepted: %v", err)
		}
	})
}

// TestScanPartsAllocs: decoding a block-encoded response allocates a
// fixed number of times, whatever the number of cells.
func TestScanPartsAllocs(t *testing.T) {
	var cells []Cell
	for i := range 200 {
		cells = append(cells, testCell(fmt.Sprintf("r%03d", i/4), fmt.Sprintf("q%d", i%4)))
	}
	block := blockOf(t, cells...)
	resp := &pb.ScanResponse{}
	for range 50 {
		resp.CellsPerResult = append(resp.CellsPerResult, 4)
	}
	n := testing.AllocsPerRun(20, func() {
		if _, err := scanParts(resp, block); err != nil {
			t.Fatal(err)
		}
	})
	// The cells and the parts.
	if n > 2 {
		t.Errorf("scanParts of 200 cells: %.0f allocations, want <= 2", n)
	}
}
