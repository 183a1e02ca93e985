package hbase

import (
	"fmt"
	"math"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

var benchSpec = &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("t,,1700000000000.0123456789abcdef0123456789abcdef.")}

// BenchmarkEncodePut measures converting a 3-column Put into the wire
// MutateRequest and marshalling it, as Client.Put does before sending.
func BenchmarkEncodePut(b *testing.B) {
	p := &Put{Table: "t", Row: []byte("row-0000001"), Values: map[string]map[string][]byte{
		"cf": {"a": []byte("value-a"), "b": []byte("value-b"), "c": []byte("value-c")}}}
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	for b.Loop() {
		req := &pb.MutateRequest{Region: benchSpec, Mutation: putToPB(p, p.Row)}
		var err error
		buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], req)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeGet measures a Get with a filter.
func BenchmarkEncodeGet(b *testing.B) {
	g := &Get{Table: "t", Row: []byte("row-0000001"), Families: [][]byte{[]byte("cf")},
		Filter: &ColumnPrefixFilter{Prefix: []byte("a")}}
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	for b.Loop() {
		pg, err := getToPB(g)
		if err != nil {
			b.Fatal(err)
		}
		buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], &pb.GetRequest{Region: benchSpec, Get: pg})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeMulti measures a 1,000-put Multi for one region, Puts
// of one cell with values of 5 B to 16 KiB, its Actions built as putToPB
// gives them (putToPB) and encoded straight into their bytes
// (putActionField, without Batch's maxPutWire bound); the allocations per
// action are reported too.
func BenchmarkEncodeMulti(b *testing.B) {
	for _, size := range []int{5, 128, 256, 512, 1 << 10, 4 << 10, 16 << 10} {
		puts := make([]*Put, 1000)
		for i := range puts {
			puts[i] = &Put{Table: "t", Row: []byte{byte(i >> 8), byte(i), 'r'}, Values: map[string]map[string][]byte{"cf": {"q": make([]byte, size)}}}
		}
		for _, bc := range []struct {
			name   string
			action func(i int, p *Put) *pb.Action
		}{
			{"putToPB", func(i int, p *Put) *pb.Action {
				return &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: putToPB(p, p.Row)}
			}},
			{"putActionField", func(i int, p *Put) *pb.Action {
				a := &pb.Action{Index: proto.Uint32(uint32(i))}
				raw, _ := putActionField(p, p.Row, math.MaxInt)
				a.ProtoReflect().SetUnknown(raw)
				return a
			}},
		} {
			b.Run(fmt.Sprintf("value=%d/%s", size, bc.name), func(b *testing.B) {
				b.ReportAllocs()
				buf := make([]byte, 0, 64<<10)
				for b.Loop() {
					ra := &pb.RegionAction{Region: benchSpec, Action: make([]*pb.Action, len(puts))}
					for i, p := range puts {
						ra.Action[i] = bc.action(i, p)
					}
					var err error
					buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestEncodePutAllocs keeps the Put encoding's allocations in check.
func TestEncodePutAllocs(t *testing.T) {
	p := &Put{Table: "t", Row: []byte("r"), Values: map[string]map[string][]byte{"cf": {"a": []byte("1"), "b": []byte("2")}}}
	buf := make([]byte, 0, 512)
	n := testing.AllocsPerRun(100, func() {
		req := &pb.MutateRequest{Region: benchSpec, Mutation: putToPB(p, p.Row)}
		buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], req)
	})
	// MutateRequest, MutationProto, the flattened cells (one slice), one
	// ColumnValue with its slice, the QualifierValue block; families and
	// qualifiers alias the map's keys (readOnlyBytes). 16 when they were
	// copied and the flattening grew its slice cell by cell.
	if n > 9 {
		t.Errorf("Put encoding: %.0f allocations, want <= 9", n)
	}
}

// Recorded responses of one Scan call over 64 rows of one 1,000-byte cell
// each, from HBase 2.6.4 (TestIntegrationRecordScanResponses): inline
// protobuf cells, and a KeyValueCodec cell block.
const scanFrameRows = 64

func readScanFrame(b *testing.B, form string) []byte {
	b.Helper()
	frame, err := os.ReadFile("testdata/scan-1k-rows." + form + ".frame")
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

// BenchmarkDecodeScan measures turning a scan response frame (as
// rpc.ReadFrame returns it) into Results, per row:
//
//   - inline-before: the client before cell blocks, inline cells through
//     resultFromPB, one Result per row;
//   - inline: today's path on a server that ignores the codec;
//   - cellblock: today's path, cells decoded from the block.
//
// Reading the frame itself (one allocation per response) is not counted.
func BenchmarkDecodeScan(b *testing.B) {
	for _, tc := range []struct{ name, form string }{
		{"inline-before", "inline"}, {"inline", "inline"}, {"cellblock", "cellblock"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			frame := readScanFrame(b, tc.form)
			sc := &scanner{}
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				r, err := rpc.DecodeResponse(frame)
				if err != nil {
					b.Fatal(err)
				}
				var resp pb.ScanResponse
				if err := proto.Unmarshal(r.Body, &resp); err != nil {
					b.Fatal(err)
				}
				if tc.name == "inline-before" {
					var out []*Result
					for _, res := range resp.GetResults() {
						out = append(out, resultFromPB(res))
					}
					if len(out) != scanFrameRows {
						b.Fatalf("%d rows", len(out))
					}
					continue
				}
				parts, err := scanParts(&resp, r.CellBlock)
				if err != nil {
					b.Fatal(err)
				}
				sc.buf, sc.slab, sc.lastRow = sc.buf[:0], nil, nil
				for _, p := range parts {
					sc.addPart(p)
				}
				if len(sc.buf) != scanFrameRows {
					b.Fatalf("%d rows", len(sc.buf))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*scanFrameRows), "ns/row")
		})
	}
}
