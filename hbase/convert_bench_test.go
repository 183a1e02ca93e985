package hbase

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
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

// BenchmarkEncodeMulti measures a 1,000-put Multi for one region; the
// allocations per action are reported too.
func BenchmarkEncodeMulti(b *testing.B) {
	puts := make([]*Put, 1000)
	for i := range puts {
		puts[i] = &Put{Table: "t", Row: []byte{byte(i >> 8), byte(i), 'r'}, Values: map[string]map[string][]byte{"cf": {"q": []byte("value")}}}
	}
	b.ReportAllocs()
	buf := make([]byte, 0, 64<<10)
	for b.Loop() {
		ra := &pb.RegionAction{Region: benchSpec, Action: make([]*pb.Action, len(puts))}
		for i, p := range puts {
			ra.Action[i] = &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: putToPB(p, p.Row)}
		}
		var err error
		buf, err = proto.MarshalOptions{}.MarshalAppend(buf[:0], &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}})
		if err != nil {
			b.Fatal(err)
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
	// MutateRequest, MutationProto, flattening (slice + strings), one
	// ColumnValue with its slice, the QualifierValue block, and the
	// family/qualifier []byte conversions.
	if n > 16 {
		t.Errorf("Put encoding: %.0f allocations, want <= 16", n)
	}
}
