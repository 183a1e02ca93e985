//go:build integration

package rpc

import (
	"cmp"
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/zk"
)

// These tests talk to the local HBase started by tools/hbase: the master
// at HBKIT_MASTER_ADDR, else 127.0.0.1:HBKIT_MASTER_PORT, else
// 127.0.0.1:16000. They only read.

func masterAddr() string {
	if a := os.Getenv("HBKIT_MASTER_ADDR"); a != "" {
		return a
	}
	if p := os.Getenv("HBKIT_MASTER_PORT"); p != "" {
		return net.JoinHostPort("127.0.0.1", p)
	}
	return masterFromZK()
}

// masterFromZK asks ZooKeeper (HBKIT_ZK, else 127.0.0.1:2181) for the
// active master, so the tests follow an HBase on any ports (a container's,
// say); on failure it returns the default address and the dial reports it.
func masterFromZK() string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	quorum := cmp.Or(os.Getenv("HBKIT_ZK"), "127.0.0.1:2181")
	m, err := zk.Locate(ctx, strings.Split(quorum, ","))
	if err != nil {
		return "127.0.0.1:16000"
	}
	return m.Master.Server.Addr()
}

func integrationPool(t *testing.T) (*Pool, context.Context) {
	t.Helper()
	p, err := NewPool()
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return p, ctx
}

func TestIntegrationIsMasterRunning(t *testing.T) {
	p, ctx := integrationPool(t)
	var resp pb.IsMasterRunningResponse
	if err := p.Call(ctx, masterAddr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, &resp); err != nil {
		t.Fatalf("IsMasterRunning: %v", err)
	}
	if !resp.GetIsMasterRunning() {
		t.Fatal("is_master_running = false, want true")
	}
}

func TestIntegrationRemoteError(t *testing.T) {
	p, ctx := integrationPool(t)
	req := &pb.GetTableStateRequest{TableName: &pb.TableName{
		Namespace: []byte("default"),
		Qualifier: []byte("hbkit_rpc_no_such_table_" + strconv.FormatInt(time.Now().UnixNano(), 36)),
	}}
	err := p.Call(ctx, masterAddr(), MasterService, "GetTableState", req, &pb.GetTableStateResponse{})
	var re *RemoteError
	if !errors.As(err, &re) {
		t.Fatalf("GetTableState(missing table) = %v, want *RemoteError", err)
	}
	if re.Class != "org.apache.hadoop.hbase.TableNotFoundException" || !re.DoNotRetry {
		t.Errorf("RemoteError = %+v, want a do-not-retry TableNotFoundException", re)
	}
	// The connection survives a per-call exception.
	if err := p.Call(ctx, masterAddr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil); err != nil {
		t.Errorf("IsMasterRunning after exception: %v", err)
	}
}

func TestIntegrationUnknownMethod(t *testing.T) {
	p, ctx := integrationPool(t)
	err := p.Call(ctx, masterAddr(), MasterService, "isMasterRunning", &pb.IsMasterRunningRequest{}, nil)
	var re *RemoteError
	if !errors.As(err, &re) || !re.DoNotRetry {
		t.Fatalf("wrong-case method = %v, want a do-not-retry *RemoteError", err)
	}
}

// TestIntegrationMetaGet reads hbase:meta's own row through ClientService
// on the region server that hosts it, found with ClientMetaService.
func TestIntegrationMetaGet(t *testing.T) {
	p, ctx := integrationPool(t)
	rs := metaServer(t, p, ctx)

	var tables pb.GetTableNamesResponse
	if err := p.Call(ctx, masterAddr(), MasterService, "GetTableNames", &pb.GetTableNamesRequest{IncludeSysTables: proto.Bool(true)}, &tables); err != nil {
		t.Fatalf("GetTableNames: %v", err)
	}
	req := &pb.GetRequest{
		Region: &pb.RegionSpecifier{
			Type:  pb.RegionSpecifier_REGION_NAME.Enum(),
			Value: []byte("hbase:meta,,1"),
		},
		// The table-state row of hbase:namespace (family "table").
		Get: &pb.Get{Row: []byte("hbase:namespace"), Column: []*pb.Column{{Family: []byte("table")}}},
	}
	var resp pb.GetResponse
	if err := p.Call(ctx, rs, ClientService, "Get", req, &resp, WithPriority(PriorityHigh)); err != nil {
		t.Fatalf("Get on hbase:meta: %v", err)
	}
	for _, c := range resp.GetResult().GetCell() {
		if string(c.GetFamily()) != "table" {
			t.Errorf("cell family %q, want table", c.GetFamily())
		}
	}
	t.Logf("meta on %s; %d tables; hbase:namespace state cells: %d", rs, len(tables.GetTableNames()), len(resp.GetResult().GetCell()))
}

// TestIntegrationScanMeta opens, reads and closes a scanner on hbase:meta
// with inline cells.
func TestIntegrationScanMeta(t *testing.T) {
	p, ctx := integrationPool(t)
	rs := metaServer(t, p, ctx)
	open := &pb.ScanRequest{
		Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("hbase:meta,,1")},
		// Only hbase:namespace's row: other tests create and drop tables
		// concurrently, and this test must not depend on them.
		Scan: &pb.Scan{
			Column:   []*pb.Column{{Family: []byte("info")}},
			StartRow: []byte("hbase:namespace,,"),
			StopRow:  []byte("hbase:namespace ,,"),
			Reversed: proto.Bool(false),
		},
		NumberOfRows:            proto.Uint32(5),
		ClientHandlesPartials:   proto.Bool(true),
		ClientHandlesHeartbeats: proto.Bool(true),
	}
	var resp pb.ScanResponse
	if err := p.Call(ctx, rs, ClientService, "Scan", open, &resp, WithPriority(PriorityHigh)); err != nil {
		t.Fatalf("Scan open: %v", err)
	}
	if len(resp.GetResults()) == 0 || len(resp.GetResults()[0].GetCell()) == 0 {
		t.Fatalf("no inline cells in %d results", len(resp.GetResults()))
	}
	if len(resp.GetCellsPerResult()) != 0 {
		t.Errorf("cells_per_result set without a codec: %v", resp.GetCellsPerResult())
	}
	if resp.GetMoreResultsInRegion() {
		closeReq := &pb.ScanRequest{ScannerId: proto.Uint64(resp.GetScannerId()), CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}
		if err := p.Call(ctx, rs, ClientService, "Scan", closeReq, &pb.ScanResponse{}); err != nil {
			t.Errorf("Scan close: %v", err)
		}
	}
}

// TestIntegrationRegionLoad decodes the cluster status and per-region loads.
func TestIntegrationRegionLoad(t *testing.T) {
	p, ctx := integrationPool(t)
	var cs pb.GetClusterStatusResponse
	req := &pb.GetClusterStatusRequest{Options: []pb.Option{pb.Option_LIVE_SERVERS, pb.Option_MASTER, pb.Option_CLUSTER_ID}}
	if err := p.Call(ctx, masterAddr(), MasterService, "GetClusterStatus", req, &cs); err != nil {
		t.Fatalf("GetClusterStatus: %v", err)
	}
	live := cs.GetClusterStatus().GetLiveServers()
	if len(live) == 0 {
		t.Fatal("no live servers")
	}
	rs := metaServer(t, p, ctx)
	var rl pb.GetRegionLoadResponse
	if err := p.Call(ctx, rs, AdminService, "GetRegionLoad", &pb.GetRegionLoadRequest{}, &rl); err != nil {
		t.Fatalf("GetRegionLoad: %v", err)
	}
	if len(rl.GetRegionLoads()) == 0 {
		t.Fatal("no region loads")
	}
	t.Logf("%d live servers, %d regions on %s", len(live), len(rl.GetRegionLoads()), rs)
}

func metaServer(t *testing.T, p *Pool, ctx context.Context) string {
	t.Helper()
	var locs pb.GetMetaRegionLocationsResponse
	if err := p.Call(ctx, masterAddr(), ClientMetaService, "GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, &locs); err != nil {
		t.Fatalf("GetMetaRegionLocations: %v", err)
	}
	if len(locs.GetMetaLocations()) == 0 {
		t.Fatal("no meta location")
	}
	sn := locs.GetMetaLocations()[0].GetServerName()
	return net.JoinHostPort(sn.GetHostName(), strconv.Itoa(int(sn.GetPort())))
}

// TestIntegrationBadHeader: HBase 2.6.4's Netty server logs
// UnknownServiceException / UnsupportedCellCodecException and closes the
// connection without a call-id -1 response, so the client only sees the
// connection break. Either form must surface as a *ConnError.
func TestIntegrationBadHeader(t *testing.T) {
	p, ctx := integrationPool(t)
	err := p.Call(ctx, masterAddr(), "NoSuchService", "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil)
	if !errors.As(err, new(*ConnError)) {
		t.Errorf("unknown service: error = %v (%T), want *ConnError", err, err)
	}
	bad, err := NewPool(WithCellBlockCodec("org.example.NoSuchCodec"))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.Call(ctx, masterAddr(), MasterService, "IsMasterRunning", &pb.IsMasterRunningRequest{}, nil)
	if !errors.As(err, new(*ConnError)) {
		t.Errorf("unknown codec: error = %v (%T), want *ConnError", err, err)
	}
}
