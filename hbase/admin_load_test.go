package hbase

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func TestRegionLoadsOf(t *testing.T) {
	load := func(name string, reads uint64) *pb.RegionLoad {
		return &pb.RegionLoad{
			RegionSpecifier:   &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(name)},
			ReadRequestsCount: proto.Uint64(reads), WriteRequestsCount: proto.Uint64(reads + 1),
			Storefiles: proto.Uint32(2),
		}
	}
	cs := &pb.ClusterStatus{LiveServers: []*pb.LiveServerInfo{
		{ServerLoad: &pb.ServerLoad{RegionLoads: []*pb.RegionLoad{load("t,,1.a.", 5), load("t2,,1.b.", 6)}}},
		{ServerLoad: &pb.ServerLoad{RegionLoads: []*pb.RegionLoad{load("t,m,1.c.", 7), load("ns:t,,1.d.", 8)}}},
	}}
	tests := []struct {
		name  string
		table TableName
		cs    *pb.ClusterStatus
		want  []string // region names
		reads []uint64
	}{
		{"default namespace", TableName{Namespace: DefaultNamespace, Qualifier: "t"}, cs, []string{"t,,1.a.", "t,m,1.c."}, []uint64{5, 7}},
		{"other namespace", TableName{Namespace: "ns", Qualifier: "t"}, cs, []string{"ns:t,,1.d."}, []uint64{8}},
		{"no status", TableName{Namespace: DefaultNamespace, Qualifier: "t"}, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := regionLoadsOf(tt.cs, tt.table)
			if len(got) != len(tt.want) {
				t.Fatalf("regionLoadsOf(%s) = %+v, want regions %q", tt.table, got, tt.want)
			}
			for i, l := range got {
				if string(l.RegionName) != tt.want[i] || l.ReadRequests != tt.reads[i] || l.WriteRequests != tt.reads[i]+1 || l.StoreFiles != 2 {
					t.Errorf("load %d = %+v, want region %q with %d reads", i, l, tt.want[i], tt.reads[i])
				}
			}
		})
	}
}
