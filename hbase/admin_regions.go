package hbase

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hbkit/hbkit/internal/pb"
)

// forgetTableRegions drops the cached region locations of a table whose
// regions a DDL call changed (deleted, truncated, split, reopened).
func (c *Client) forgetTableRegions(tn TableName) {
	if c.regions != nil {
		c.regions.dropTable(tn.String())
	}
}

// TableRegions lists the regions of a table from hbase:meta, sorted by
// start key: split parents and offline regions are left out, so the
// regions tile the key space. Server is empty for a region that is not
// assigned (a disabled table's, or one in transition). ErrTableNotFound if
// the table has no region.
func (c *Client) TableRegions(ctx context.Context, table string) (_ []RegionInfo, err error) {
	const op = "table regions"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return nil, err
	}
	ctx, sp := c.startOp(ctx, "table_regions", table)
	defer func() { sp.end(ctx, err) }()
	regions, err := c.tableRegions(ctx, tn.String())
	if err != nil {
		return nil, adminErr(op, table, err)
	}
	return regions, nil
}

// checkSplitKey validates the split point of SplitRegion.
func checkSplitKey(op string, key []byte) error {
	if len(key) == 0 {
		return invalid(op, "splitKey", ErrInvalidSplitKeys, "empty split key")
	}
	if len(key) > MaxRowLength {
		return invalidf(op, "splitKey", ErrInvalidSplitKeys, "%d bytes", len(key))
	}
	return nil
}

// splitTarget picks the region to split at key among a table's regions
// (sorted, as from hbase:meta): the one holding key, which must not be
// its start key.
func splitTarget(op string, regions []*region, key []byte) (*region, error) {
	for _, r := range regions {
		if !r.contains(key) {
			continue
		}
		if bytes.Equal(r.start, key) {
			return nil, invalidf(op, "splitKey", ErrInvalidSplitKeys, "split key equals a region start key")
		}
		return r, nil
	}
	// The regions of a live table tile the key space; a gap means one is
	// in transition.
	return nil, fmt.Errorf("no region holds the split key: %w", errRegionNotReady)
}

// SplitRegion splits the region holding splitKey at splitKey: the master's
// SplitRegion call (a SplitTableRegionRequest with the region as read from
// hbase:meta), then a wait for the split procedure, whose end sees both
// daughters open. splitKey must lie strictly inside a region: a key equal
// to a region's start key is rejected with ErrInvalidSplitKeys. The table
// must be enabled (ErrTableDisabled otherwise). The client's cached
// locations of the table are dropped.
func (c *Client) SplitRegion(ctx context.Context, table string, splitKey []byte) (err error) {
	const op = "split region"
	tn, err := parseAdminTable(op, table)
	if err != nil {
		return err
	}
	if err := checkSplitKey(op, splitKey); err != nil {
		return err
	}
	ctx, sp := c.startOp(ctx, "split_region", table)
	defer func() { sp.end(ctx, err) }()
	state, err := c.masterTableState(ctx, tn)
	if err != nil {
		return adminErr(op, table, err)
	}
	if state != pb.TableState_ENABLED {
		return adminErr(op, table, fmt.Errorf("table state %s: %w", state, ErrTableDisabled))
	}
	regions, err := c.metaRegions(ctx, tn.String())
	if err != nil {
		return adminErr(op, table, err)
	}
	target, err := splitTarget(op, regions, splitKey)
	if err != nil {
		return adminErr(op, table, err)
	}
	group, nonce := c.ddlNonce()
	req := &pb.SplitTableRegionRequest{
		RegionInfo: target.info,
		SplitRow:   bytes.Clone(splitKey),
		NonceGroup: group,
		Nonce:      nonce,
	}
	err = c.runProcedure(ctx, "SplitRegion", req, &pb.SplitTableRegionResponse{})
	c.forgetTableRegions(tn)
	return adminErr(op, table, err)
}
