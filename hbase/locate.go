package hbase

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// Meta search-key suffixes (wire protocol reference, section 4.3).
const (
	metaNines  = "99999999999999"
	metaZeroes = "00000000000000"
)

// metaLocateKey returns the start row of the reversed meta scan that finds
// the region holding row (before=false) or the region just before row
// (before=true; an empty row then means the table's last region).
func metaLocateKey(fq string, row []byte, before bool) []byte {
	if before && len(row) == 0 {
		return append([]byte(fq), 0)
	}
	// Keep the key within meta's row length limit.
	if max := MaxRowLength - len(fq) - 2 - len(metaNines); len(row) > max {
		row = row[:max]
	}
	k := make([]byte, 0, len(fq)+len(row)+2+len(metaNines))
	k = append(k, fq...)
	k = append(k, ',')
	k = append(k, row...)
	k = append(k, ',')
	if before {
		return append(k, metaZeroes...)
	}
	return append(k, metaNines...)
}

// locate returns the region of table (canonical name) holding row, from
// the cache or hbase:meta. With before, it returns the region holding the
// keys just before row instead (reversed scans), the last region when row
// is empty. Errors: ErrTableNotFound (wrapped) when meta has no region of
// the table; retryable errors while the region is unassigned or in
// transition, once the retries are spent.
func (c *Client) locate(ctx context.Context, table string, row []byte, before bool) (*region, error) {
	var r *region
	if before {
		r = c.regions.getBefore(table, row)
	} else {
		r = c.regions.get(table, row)
	}
	if r != nil {
		return r, nil
	}
	return c.lookup(ctx, table, row, before)
}

// lookup reads the region from hbase:meta, retrying while the region is
// not ready, and caches it.
func (c *Client) lookup(ctx context.Context, table string, row []byte, before bool) (*region, error) {
	key := metaLocateKey(table, row, before)
	scan := &pb.Scan{
		Column:         []*pb.Column{{Family: metaInfoFamily}},
		StartRow:       key,
		StopRow:        append([]byte(table), ",,"...),
		IncludeStopRow: proto.Bool(true),
		Reversed:       proto.Bool(true),
	}
	req := &pb.ScanRequest{
		Region:                  metaSpecifier(),
		Scan:                    scan,
		NumberOfRows:            proto.Uint32(5),
		CloseScanner:            proto.Bool(true),
		ClientHandlesPartials:   proto.Bool(false),
		ClientHandlesHeartbeats: proto.Bool(true),
	}
	var found *region
	var notFound bool
	err := c.metaAttempt(ctx, func(ctx context.Context, addr string) error {
		found, notFound = nil, false
		resp := new(pb.ScanResponse)
		if err := c.pool.Call(ctx, addr, rpc.ClientService, "Scan", req, resp, rpc.WithPriority(highQoS)); err != nil {
			return err
		}
		r, err := pickRegion(resp.GetResults(), table, row, before)
		switch {
		case errors.Is(err, ErrTableNotFound):
			notFound = true
			return nil
		case err != nil:
			return err
		}
		found = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	if notFound {
		c.regions.dropTable(table)
		return nil, fmt.Errorf("hbase: %s: %w", table, ErrTableNotFound)
	}
	c.regions.add(found)
	return found, nil
}

// pickRegion chooses the answer among the rows of a reversed meta scan:
// the first one that is not a split parent. It returns errRegionNotReady
// (retryable) for holes, offline or unassigned regions, and
// ErrTableNotFound when no row belongs to the table.
func pickRegion(results []*pb.Result, table string, row []byte, before bool) (*region, error) {
	for _, res := range results {
		if len(res.GetCell()) == 0 {
			continue
		}
		m, err := decodeMetaRow(res.GetCell())
		if err != nil {
			return nil, err
		}
		r := m.region
		if r.table != table {
			break
		}
		if r.info.GetSplit() || r.info.GetReplicaId() != 0 {
			continue
		}
		ok := r.contains(row)
		if before {
			ok = r.containsBefore(row)
		}
		if !ok || r.info.GetOffline() || r.addr == "" {
			return nil, errRegionNotReady
		}
		return r, nil
	}
	return nil, ErrTableNotFound
}
