//go:build integration

package cellblock_test

import (
	"cmp"
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// TestIntegrationKeyValueCodec scans hbase:meta on the local HBase twice,
// once with inline cells and once with a KeyValueCodec cell block, and
// checks that both give the same cells. Read-only.
func TestIntegrationKeyValueCodec(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	master := os.Getenv("HBKIT_MASTER_ADDR")
	if p := os.Getenv("HBKIT_MASTER_PORT"); master == "" && p != "" {
		master = net.JoinHostPort("127.0.0.1", p)
	}
	if master == "" {
		// Follow ZooKeeper, so the test works on an HBase on any ports.
		b, err := zk.Locate(ctx, strings.Split(cmp.Or(os.Getenv("HBKIT_ZK"), "127.0.0.1:2181"), ","))
		if err != nil {
			t.Fatalf("locating the master through ZooKeeper: %v", err)
		}
		master = b.Master.Server.Addr()
	}

	inline, err := rpc.NewPool()
	if err != nil {
		t.Fatal(err)
	}
	defer inline.Close()
	coded, err := rpc.NewPool(rpc.WithCellBlockCodec(cellblock.KeyValueCodec))
	if err != nil {
		t.Fatal(err)
	}
	defer coded.Close()

	var locs pb.GetMetaRegionLocationsResponse
	if err := inline.Call(ctx, master, rpc.ClientMetaService, "GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, &locs); err != nil {
		t.Fatalf("GetMetaRegionLocations: %v", err)
	}
	if len(locs.GetMetaLocations()) == 0 {
		t.Fatal("no meta location")
	}
	sn := locs.GetMetaLocations()[0].GetServerName()
	rs := net.JoinHostPort(sn.GetHostName(), strconv.Itoa(int(sn.GetPort())))

	scan := func(p *rpc.Pool) (*pb.ScanResponse, []byte) {
		t.Helper()
		req := &pb.ScanRequest{
			Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("hbase:meta,,1")},
			// Only hbase:namespace's row, so the two scans see the same
			// rows while other tests create and drop tables.
			Scan:                    &pb.Scan{StartRow: []byte("hbase:namespace,,"), StopRow: []byte("hbase:namespace ,,")},
			NumberOfRows:            proto.Uint32(100),
			CloseScanner:            proto.Bool(true),
			ClientHandlesPartials:   proto.Bool(true),
			ClientHandlesHeartbeats: proto.Bool(true),
		}
		var resp pb.ScanResponse
		var cells []byte
		if err := p.Call(ctx, rs, rpc.ClientService, "Scan", req, &resp, rpc.WithCellBlock(&cells)); err != nil {
			t.Fatalf("Scan: %v", err)
		}
		return &resp, cells
	}
	want, _ := scan(inline)
	got, block := scan(coded)
	if len(block) == 0 || len(got.GetCellsPerResult()) == 0 {
		t.Fatalf("codec connection got no cell block (%d bytes, %d counts)", len(block), len(got.GetCellsPerResult()))
	}
	if err := cellblock.FillScanResponse(block, got); err != nil {
		t.Fatalf("FillScanResponse: %v", err)
	}
	if len(got.GetResults()) != len(want.GetResults()) {
		t.Fatalf("%d results with the codec, %d inline", len(got.GetResults()), len(want.GetResults()))
	}
	n := 0
	for i := range want.GetResults() {
		w, g := want.GetResults()[i].GetCell(), got.GetResults()[i].GetCell()
		if len(w) != len(g) {
			t.Fatalf("result %d: %d cells with the codec, %d inline", i, len(g), len(w))
		}
		for j := range w {
			// The inline form omits tags; both must agree on everything else.
			if !proto.Equal(w[j], g[j]) {
				t.Errorf("result %d cell %d: codec %v, inline %v", i, j, g[j], w[j])
			}
			n++
		}
	}
	t.Logf("%d results, %d cells, %d-byte block", len(want.GetResults()), n, len(block))
}
