package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// hbase:meta layout (wire protocol reference, section 4.2).
var (
	metaRegionName   = []byte("hbase:meta,,1")
	metaInfoFamily   = []byte("info")
	metaTableFamily  = []byte("table")
	qualRegionInfo   = []byte("regioninfo")
	qualServer       = []byte("server")
	qualState        = []byte("state")
	qualServerName   = []byte("sn")
	qualStartCode    = []byte("serverstartcode")
	qualSeqNum       = []byte("seqnumDuringOpen")
	pbMagic          = []byte("PBUF")
	errMalformedMeta = errors.New("hbase: malformed hbase:meta row")
)

// highQoS is the RPC priority the Java client uses for hbase:meta.
const highQoS = 200

func metaSpecifier() *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: metaRegionName}
}

// metaRow is a decoded info: row of hbase:meta.
type metaRow struct {
	region *region // addr is info:server
	state  string  // info:state ("OPEN", "OPENING", "CLOSED", ...); may be empty
	// target is the "host:port" of info:sn: the server a region in
	// transition is being opened on. Empty when absent.
	target string
}

// decodeRegionInfo parses a "PBUF"-prefixed RegionInfo (meta's
// info:regioninfo, splitA, ...). The result does not alias b.
func decodeRegionInfo(b []byte) (*pb.RegionInfo, error) {
	rest, ok := bytes.CutPrefix(b, pbMagic)
	if !ok {
		return nil, fmt.Errorf("%w: regioninfo without PBUF magic", errMalformedMeta)
	}
	ri := new(pb.RegionInfo)
	if err := proto.Unmarshal(rest, ri); err != nil {
		return nil, fmt.Errorf("%w: regioninfo: %v", errMalformedMeta, err)
	}
	if ri.GetTableName() == nil || len(ri.GetTableName().GetQualifier()) == 0 {
		return nil, fmt.Errorf("%w: regioninfo without table name", errMalformedMeta)
	}
	return ri, nil
}

// tableNameString is the canonical spelling of a pb TableName.
func tableNameString(tn *pb.TableName) string {
	return TableName{Namespace: string(tn.GetNamespace()), Qualifier: string(tn.GetQualifier())}.String()
}

// decodeMetaRow parses the cells of one hbase:meta row. The row key is
// the region name. The server is empty when info:server is absent (the
// region is not assigned). Replica columns (server_0001, ...) are ignored:
// only the default replica is read. The region aliases nothing in cells.
func decodeMetaRow(cells []*pb.Cell) (metaRow, error) {
	col, err := readMetaColumns(cells)
	if err != nil {
		return metaRow{}, err
	}
	if col.regionInfo == nil {
		return metaRow{}, fmt.Errorf("%w: no info:regioninfo", errMalformedMeta)
	}
	ri, err := decodeRegionInfo(col.regionInfo)
	if err != nil {
		return metaRow{}, err
	}
	r := &region{
		info:   ri,
		table:  tableNameString(ri.GetTableName()),
		name:   bytes.Clone(cells[0].GetRow()),
		start:  bytes.Clone(ri.GetStartKey()),
		end:    bytes.Clone(ri.GetEndKey()),
		seqNum: col.seqNum,
	}
	if len(r.end) != 0 && bytes.Compare(r.start, r.end) >= 0 {
		return metaRow{}, fmt.Errorf("%w: region start key not below end key", errMalformedMeta)
	}
	if len(col.server) > 0 {
		host, port, err := net.SplitHostPort(string(col.server))
		if err != nil || host == "" || port == "" {
			return metaRow{}, fmt.Errorf("%w: info:server %q", errMalformedMeta, col.server)
		}
		r.addr = net.JoinHostPort(host, port)
		r.startCode = col.startCode
	}
	m := metaRow{region: r, state: col.state}
	if len(col.sn) > 0 {
		// A ServerName: "host,port,startcode".
		parts := strings.Split(string(col.sn), ",")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
			return metaRow{}, fmt.Errorf("%w: info:sn %q", errMalformedMeta, col.sn)
		}
		m.target = net.JoinHostPort(parts[0], parts[1])
	}
	return m, nil
}

// metaColumns are the info columns of an hbase:meta row that
// decodeMetaRow reads; a byte slice is nil when its column is absent.
type metaColumns struct {
	regionInfo, server, sn []byte
	state                  string
	seqNum, startCode      uint64
}

// readMetaColumns reads the newest value of each info column of one
// hbase:meta row; the cells must all be of one row.
func readMetaColumns(cells []*pb.Cell) (metaColumns, error) {
	var col metaColumns
	if len(cells) == 0 {
		return col, fmt.Errorf("%w: no cells", errMalformedMeta)
	}
	row := cells[0].GetRow()
	for _, c := range cells {
		if !bytes.Equal(c.GetRow(), row) {
			return metaColumns{}, fmt.Errorf("%w: cells of several rows", errMalformedMeta)
		}
		if !bytes.Equal(c.GetFamily(), metaInfoFamily) {
			continue
		}
		// Cells come newest first per column: keep the first.
		switch q := c.GetQualifier(); {
		case bytes.Equal(q, qualRegionInfo):
			keepFirst(&col.regionInfo, c.GetValue())
		case bytes.Equal(q, qualServer):
			keepFirst(&col.server, c.GetValue())
		case bytes.Equal(q, qualState):
			if col.state == "" {
				col.state = string(c.GetValue())
			}
		case bytes.Equal(q, qualServerName):
			keepFirst(&col.sn, c.GetValue())
		case bytes.Equal(q, qualSeqNum):
			if v := c.GetValue(); len(v) == 8 && col.seqNum == 0 {
				col.seqNum = binary.BigEndian.Uint64(v)
			}
		case bytes.Equal(q, qualStartCode):
			if v := c.GetValue(); len(v) == 8 && col.startCode == 0 {
				col.startCode = binary.BigEndian.Uint64(v)
			}
		}
	}
	return col, nil
}

// keepFirst sets *dst to v (empty, not nil, when v is nil) unless a
// value is kept already.
func keepFirst(dst *[]byte, v []byte) {
	if *dst != nil {
		return
	}
	if v == nil {
		v = []byte{}
	}
	*dst = v
}

// metaAttempt runs fn against the hbase:meta server with the client's
// retries, for the calls that read meta on their own (listing a table's
// regions, reading a table's state): each attempt is one metaOnce.
func (c *Client) metaAttempt(ctx context.Context, fn func(ctx context.Context, addr string) error) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	sp := spanFromContext(ctx)
	r := c.newRetrier(func(reason string) { sp.retried(ctx, reason) })
	for {
		err := c.metaOnce(ctx, fn)
		if err == nil {
			return nil
		}
		if c.closed.Load() {
			return ErrClosed
		}
		kind := classify(err)
		if kind == retryReopenScanner {
			kind = retryBackoff
		}
		if werr := r.wait(ctx, err, kind); werr != nil {
			return werr
		}
	}
}

// metaOnce runs fn once against the hbase:meta server, within
// WithRPCTimeout. On errors that mean meta cannot be reached there
// (connection errors, NotServingRegion, RegionMoved, ...) the cached
// location is dropped, so that the next attempt re-reads ZooKeeper; any
// failure but an answer lost on the way (lostAnswer: the server is up)
// also paces the next reads of meta by every caller (see metaState), and
// a success ends that.
func (c *Client) metaOnce(ctx context.Context, fn func(ctx context.Context, addr string) error) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	addr, err := c.metaServer(ctx)
	if err == nil {
		actx, cancel := c.attemptContext(ctx)
		err = attemptError(ctx, actx, fn(actx, addr))
		cancel()
	}
	if err == nil {
		c.regions.metaOK()
		return nil
	}
	if ctx.Err() != nil || c.closed.Load() || lostAnswer(err) {
		// A lost answer: the meta server is up, the caller retries.
		return err
	}
	switch classify(err) {
	case retryConn, retryRelocate, retryMoved:
		if addr != "" {
			c.forgetMeta(addr)
		}
	}
	c.regions.metaFailed(err, time.Now(), c.opts.backoffBase, min(c.opts.backoffMax, relocateHoldFactor*c.opts.backoffBase))
	return err
}

// metaServer returns the address of the hbase:meta server: cached, or
// read from ZooKeeper once for all the callers that need it at the same
// time.
func (c *Client) metaServer(ctx context.Context) (string, error) {
	c.mu.Lock()
	addr := c.metaAddr
	c.mu.Unlock()
	if addr != "" {
		return addr, nil
	}
	return c.regions.metaZK.do(ctx, c.opts.zkTimeout, c.metaAddress)
}

// metaFailed paces the reads of hbase:meta after a failure: no lookup
// starts before the backoff of the consecutive failures (at most maxWait)
// has passed (they wait for it, see locate), so callers arriving while
// meta is down do not each read ZooKeeper and dial meta.
func (rc *regionCache) metaFailed(err error, now time.Time, base, maxWait time.Duration) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d := time.Duration(backoffSteps[min(rc.meta.fails, len(backoffSteps)-1)]) * base
	if d > maxWait || d <= 0 {
		d = maxWait
	}
	rc.meta.fails++
	rc.meta.until = now.Add(d)
	rc.meta.err = err
}

// metaOK records a successful read of hbase:meta.
func (rc *regionCache) metaOK() {
	rc.mu.RLock()
	ok := rc.meta.fails == 0
	rc.mu.RUnlock()
	if ok {
		return
	}
	rc.mu.Lock()
	rc.meta = metaState{}
	rc.mu.Unlock()
}

// addrFlight shares one read of an address among the callers that need
// it at the same time.
type addrFlight struct {
	mu  sync.Mutex
	cur *addrCall // guarded by mu; the read in flight
}

type addrCall struct {
	done    chan struct{}
	addr    string
	err     error
	waiters int // guarded by addrFlight.mu
	cancel  context.CancelFunc
}

// do returns the result of read, run once for all concurrent callers in
// a goroutine of its own, bounded by timeout and cancelled when every
// caller has given up.
func (f *addrFlight) do(ctx context.Context, timeout time.Duration, read func(context.Context) (string, error)) (string, error) {
	f.mu.Lock()
	call := f.cur
	if call == nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		call = &addrCall{done: make(chan struct{}), cancel: cancel}
		f.cur = call
		go func() {
			addr, err := read(rctx)
			f.mu.Lock()
			if f.cur == call {
				f.cur = nil
			}
			call.addr, call.err = addr, err
			f.mu.Unlock()
			close(call.done)
			cancel()
		}()
	}
	call.waiters++
	f.mu.Unlock()
	select {
	case <-call.done:
		return call.addr, call.err
	case <-ctx.Done():
		f.mu.Lock()
		call.waiters--
		if call.waiters == 0 && f.cur == call {
			f.cur = nil
			call.cancel()
		}
		f.mu.Unlock()
		return "", ctx.Err()
	}
}

// scanMetaOnce runs one meta scan on addr and calls fn for each row until
// fn returns false or the scan ends. It returns the last row key passed
// to fn, so that a retry can resume after it.
func (c *Client) scanMetaOnce(ctx context.Context, addr string, scan *pb.Scan, fn func(*pb.Result) bool) (last []byte, err error) {
	req := &pb.ScanRequest{
		Region:                  metaSpecifier(),
		Scan:                    scan,
		NumberOfRows:            proto.Uint32(100),
		ClientHandlesPartials:   proto.Bool(false),
		ClientHandlesHeartbeats: proto.Bool(true),
	}
	for {
		resp := new(pb.ScanResponse)
		if err := c.pool.Call(ctx, addr, rpc.ClientService, "Scan", req, resp, rpc.WithPriority(highQoS)); err != nil {
			return last, err
		}
		open := resp.ScannerId != nil && resp.GetMoreResults() && resp.GetMoreResultsInRegion()
		for _, res := range resp.GetResults() {
			if len(res.GetCell()) == 0 {
				continue
			}
			last = res.GetCell()[0].GetRow()
			if !fn(res) {
				if open {
					closeReq := &pb.ScanRequest{ScannerId: resp.ScannerId, CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}
					_ = c.pool.Call(context.WithoutCancel(ctx), addr, rpc.ClientService, "Scan", closeReq, nil, rpc.WithPriority(highQoS))
				}
				return last, nil
			}
		}
		if !open {
			return last, nil
		}
		req = &pb.ScanRequest{
			ScannerId:               resp.ScannerId,
			NumberOfRows:            proto.Uint32(100),
			ClientHandlesPartials:   proto.Bool(false),
			ClientHandlesHeartbeats: proto.Bool(true),
		}
	}
}

// scanMeta scans hbase:meta forward from start (inclusive) to stop
// (exclusive), family info, calling fn for each row in order until it
// returns false. Retries resume after the last row seen.
func (c *Client) scanMeta(ctx context.Context, start, stop []byte, fn func(*pb.Result) bool) error {
	scan := &pb.Scan{
		Column:   []*pb.Column{{Family: metaInfoFamily}},
		StartRow: start,
		StopRow:  stop,
	}
	stopped := false
	return c.metaAttempt(ctx, func(ctx context.Context, addr string) error {
		if stopped {
			return nil
		}
		last, err := c.scanMetaOnce(ctx, addr, scan, func(r *pb.Result) bool {
			if !fn(r) {
				stopped = true
				return false
			}
			return true
		})
		if last != nil {
			scan = proto.CloneOf(scan)
			scan.StartRow = bytes.Clone(last)
			scan.IncludeStartRow = proto.Bool(false)
		}
		return err
	})
}

// tableRegions lists the regions of table from hbase:meta (wire protocol
// reference, section 4.4), sorted by start key: split parents and offline
// regions are left out. It returns an error wrapping ErrTableNotFound when
// meta has no region of the table. The regions' Server is empty for
// unassigned regions. For AdminClient.TableRegions (admin*.go); it also
// refreshes the client's region cache.
func (c *Client) tableRegions(ctx context.Context, table string) ([]RegionInfo, error) {
	rs, err := c.metaRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	out := make([]RegionInfo, len(rs))
	for i, r := range rs {
		out[i] = r.regionInfo()
	}
	return out, nil
}

// metaRegions lists the live regions of table as *region.
func (c *Client) metaRegions(ctx context.Context, table string) ([]*region, error) {
	tn, err := ParseTableName(table)
	if err != nil {
		return nil, err
	}
	fq := tn.String()
	start := append([]byte(fq), ",,"...)
	stop := append([]byte(fq), " ,,"...)
	var out, cacheable []*region
	var decodeErr error
	startGen := c.regions.generation()
	err = c.scanMeta(ctx, start, stop, func(res *pb.Result) bool {
		m, err := decodeMetaRow(res.GetCell())
		if err != nil {
			decodeErr = err
			return false
		}
		if m.region.table != fq {
			return true
		}
		if m.region.info.GetSplit() || m.region.info.GetOffline() || m.region.info.GetReplicaId() != 0 {
			return true
		}
		if m.region.addr != "" && servedAt(m.state) {
			cacheable = append(cacheable, m.region)
		}
		// A resumed scan may repeat nothing, but guard against it.
		if n := len(out); n > 0 && bytes.Equal(out[n-1].name, m.region.name) {
			return true
		}
		out = append(out, m.region)
		return true
	})
	if err == nil {
		err = decodeErr
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		c.regions.dropTable(fq)
		return nil, fmt.Errorf("hbase: %s: %w", fq, ErrTableNotFound)
	}
	c.regions.learnListing(cacheable, startGen)
	return out, nil
}

// metaTableState reads the table's state row from hbase:meta (key = table
// name, table:state = raw TableState), in one attempt: it only explains a
// failure the caller retries anyway. ok is false when the row is absent.
func (c *Client) metaTableState(ctx context.Context, table string) (state pb.TableState_State, ok bool, err error) {
	req := &pb.GetRequest{
		Region: metaSpecifier(),
		Get: &pb.Get{
			Row:    []byte(table),
			Column: []*pb.Column{{Family: metaTableFamily, Qualifier: [][]byte{qualState}}},
		},
	}
	var resp pb.GetResponse
	err = c.metaOnce(ctx, func(ctx context.Context, addr string) error {
		return c.pool.Call(ctx, addr, rpc.ClientService, "Get", req, &resp, rpc.WithPriority(highQoS))
	})
	if err != nil {
		return 0, false, err
	}
	cells := resp.GetResult().GetCell()
	if len(cells) == 0 {
		return 0, false, nil
	}
	var ts pb.TableState
	if err := proto.Unmarshal(cells[0].GetValue(), &ts); err != nil {
		return 0, false, fmt.Errorf("%w: table state: %v", errMalformedMeta, err)
	}
	return ts.GetState(), true, nil
}

// checkTableUsable turns a region that keeps failing into a clear error:
// ErrTableNotFound if the table is gone, ErrTableDisabled if it is
// disabled or being disabled. It returns nil when the table looks enabled
// (the failure is transient) or its state cannot be read, and does not
// read meta while meta reads are being paced after failures.
func (c *Client) checkTableUsable(ctx context.Context, table string) error {
	if c.regions.metaPaced(time.Now()) {
		return nil
	}
	st, ok, err := c.metaTableState(ctx, table)
	if err != nil || !ok {
		if err == nil {
			c.regions.dropTable(table)
			return fmt.Errorf("hbase: %s: %w", table, ErrTableNotFound)
		}
		return nil
	}
	switch st {
	case pb.TableState_DISABLED, pb.TableState_DISABLING:
		return fmt.Errorf("hbase: %s: %w", table, ErrTableDisabled)
	}
	return nil
}
