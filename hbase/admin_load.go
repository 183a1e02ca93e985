package hbase

import (
	"bytes"
	"context"

	"github.com/hbkit/hbkit/internal/pb"
)

// RegionLoads returns the load of every region of table that a live
// region server reports, from the master's cluster status. A table with
// no region reported (or none yet) gives an empty slice; the call does
// not check that the table exists.
func (c *Client) RegionLoads(ctx context.Context, table string) (_ []RegionLoad, err error) {
	const op = "region loads"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "region_loads", table)
	defer func() { sp.end(ctx, err) }()
	resp := &pb.GetClusterStatusResponse{}
	req := &pb.GetClusterStatusRequest{Options: []pb.Option{pb.Option_LIVE_SERVERS}}
	if err := c.masterCall(ctx, "GetClusterStatus", req, resp); err != nil {
		return nil, adminErr(op, table, err)
	}
	return regionLoadsOf(resp.GetClusterStatus(), tn), nil
}

// regionLoadsOf picks the loads of tn's regions: region names start with
// the table's meta name (namespace elided for the default one) and a comma.
func regionLoadsOf(cs *pb.ClusterStatus, tn TableName) []RegionLoad {
	prefix := []byte(tn.String() + ",")
	out := []RegionLoad{}
	for _, ls := range cs.GetLiveServers() {
		for _, rl := range ls.GetServerLoad().GetRegionLoads() {
			name := rl.GetRegionSpecifier().GetValue()
			if !bytes.HasPrefix(name, prefix) {
				continue
			}
			out = append(out, RegionLoad{
				RegionName:           bytes.Clone(name),
				ReadRequests:         rl.GetReadRequestsCount(),
				WriteRequests:        rl.GetWriteRequestsCount(),
				FilteredReadRequests: rl.GetFilteredReadRequestsCount(),
				StoreFiles:           rl.GetStorefiles(),
				StoreFileSizeMB:      rl.GetStorefileSize_MB(),
				MemStoreSizeMB:       rl.GetMemStoreSize_MB(),
			})
		}
	}
	return out
}
