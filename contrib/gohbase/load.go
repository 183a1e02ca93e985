package gohbase

import (
	"bytes"
	"context"

	"github.com/hbkit/hbkit/hbase"
)

// RegionLoads returns the load of every region of table that a live
// region server reports, from the master's cluster status (gohbase's
// AdminClient.ClusterStatus), as the native client does: request counts,
// store files and sizes (FilteredReadRequests stays 0: gohbase's copy of
// the ClusterStatus message predates that field). A table with no region reported (or none yet)
// gives an empty slice; the call does not check that the table exists.
//
// gohbase's ClusterStatus takes no context: when ctx ends first, the call
// returns ctx's error and gohbase's request is left to finish on its own.
func (c *Client) RegionLoads(ctx context.Context, table string) ([]hbase.RegionLoad, error) {
	const op = "region loads"
	if err := c.adminClient(op); err != nil {
		return nil, err
	}
	tn, err := hbase.ParseTableName(table)
	if err != nil {
		return nil, err
	}
	type answer struct {
		loads []hbase.RegionLoad
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		cs, err := c.admin.ClusterStatus()
		if err != nil {
			done <- answer{err: wrapErr(op, table, err)}
			return
		}
		// Region names start with the table's name as hbase:meta writes it
		// (the default namespace elided) and a comma.
		prefix := []byte(tn.String() + ",")
		out := []hbase.RegionLoad{}
		for _, ls := range cs.GetLiveServers() {
			for _, rl := range ls.GetServerLoad().GetRegionLoads() {
				name := rl.GetRegionSpecifier().GetValue()
				if !bytes.HasPrefix(name, prefix) {
					continue
				}
				out = append(out, hbase.RegionLoad{
					RegionName:      bytes.Clone(name),
					ReadRequests:    rl.GetReadRequestsCount(),
					WriteRequests:   rl.GetWriteRequestsCount(),
					StoreFiles:      rl.GetStorefiles(),
					StoreFileSizeMB: rl.GetStorefileSize_MB(),
					MemStoreSizeMB:  rl.GetMemstoreSize_MB(),
				})
			}
		}
		done <- answer{loads: out}
	}()
	select {
	case a := <-done:
		return a.loads, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
