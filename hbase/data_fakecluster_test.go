package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/internal/zk"
)

// fakeCluster is an in-process HBase for the data path's unit tests: one
// table "t" with family "cf" spread over regions hosted by fake region
// servers, and an hbase:meta served by the first server. It speaks HBase's
// RPC framing over net.Pipe (written here with protowire and
// encoding/binary, not with internal/rpc), records every call, and lets
// tests inject exceptions and move regions.
type fakeCluster struct {
	t testing.TB

	mu       sync.Mutex
	regions  []*fakeRegion // sorted by start
	rows     map[string]map[string][]byte
	disabled bool
	scanners map[uint64]*fakeScanner
	nextID   uint64
	calls    []fakeCall
	renewals int
	// hook, if set, may answer a call with an exception instead of
	// handling it. It runs without mu held.
	hook func(addr, method string, req proto.Message) *pb.ExceptionResponse
	// actionHook, if set, may fail one action of a Multi.
	actionHook func(addr string, reg *fakeRegion, a *pb.Action) *pb.NameBytesPair
	// hang makes region servers (not meta) never answer.
	hang bool
	// dropAnswers, when above 0, makes the next answers of region servers
	// (not meta) to Mutate and Multi calls be dropped after the call was
	// handled, and the connection closed: the server acted, the client
	// never learns how it ended.
	dropAnswers int
	// mutateConditions makes Mutate evaluate its condition (holds);
	// otherwise every conditional Mutate is processed.
	mutateConditions bool
	// heartbeats makes every scan call that would return cells answer
	// with an empty heartbeat first, on the next call the data.
	heartbeats bool
	// inline makes the servers ignore the cell codec the client
	// announces and send every cell inline.
	inline bool
	// nextReadPoint is the MVCC read point given to the next scanner
	// opened without one.
	nextReadPoint uint64
	// blocks counts the responses sent with a cell block.
	blocks int
	// rpcOpts are added to the options of the clients' connection pools.
	rpcOpts []rpc.Option
	// holdNext, when set, is asked about each next call (a scan call on
	// an open scanner) by its number k among them (from 1): an answer it
	// holds that leaves the scanner open and has at least
	// rpc.FrameReuseMin bytes is written in two parts: up to 100 bytes
	// into its cell block, then, once a later next call arrived (or after
	// 5 s) and the delay passed, the rest, with the cell block's bytes
	// garbled if corrupt. nexts counts the next calls received.
	holdNext func(k int) heldAnswer
	nexts    int
}

type fakeRegion struct {
	name       []byte
	start, end []byte
	addr       string
	id         uint64
}

type fakeCall struct {
	addr, method string
	req          proto.Message
}

type fakeScanner struct {
	addr      string
	reg       *fakeRegion
	cells     []*pb.Cell // remaining cells: rows in scan order
	batch     int        // Scan.batch_size
	maxSize   int        // Scan.max_result_size
	readPoint uint64
	beat      bool // the last answer was a heartbeat
}

// newFakeCluster makes table "t" with regions split at splits, hosted
// round-robin by servers rs1, rs2, ...
func newFakeCluster(t testing.TB, splits []string, nServers int) *fakeCluster {
	fc := &fakeCluster{t: t, rows: map[string]map[string][]byte{}, scanners: map[uint64]*fakeScanner{}, nextReadPoint: 5000}
	bounds := append([]string{""}, splits...)
	for i, s := range bounds {
		end := ""
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		fc.regions = append(fc.regions, fc.newRegion(s, end, fmt.Sprintf("rs%d:16020", i%nServers+1)))
	}
	return fc
}

func (fc *fakeCluster) newRegion(start, end, addr string) *fakeRegion {
	fc.nextID++
	id := 1000 + fc.nextID
	return &fakeRegion{name: []byte(fmt.Sprintf("t,%s,%d.enc%d.", start, id, id)), start: []byte(start), end: []byte(end), addr: addr, id: id}
}

// client returns a Client on the fake cluster with fast backoff.
func (fc *fakeCluster) client(opts ...Option) *Client {
	fc.t.Helper()
	return newTestClient(fc.t, fc.dial, fc.rpcOpts, opts...)
}

// newTestClient returns a Client whose meta is at rs1:16020 (fakeZK) and
// whose connections dial (with rpcOpts added to its pool's options),
// with fast backoff.
func newTestClient(tb testing.TB, dial func(ctx context.Context, network, addr string) (net.Conn, error), rpcOpts []rpc.Option, opts ...Option) *Client {
	tb.Helper()
	o := defaultOptions()
	o.backoffBase, o.backoffMax = time.Millisecond, 5*time.Millisecond
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		tb.Fatal(err)
	}
	tel, err := newTelemetry(&o)
	if err != nil {
		tb.Fatal(err)
	}
	pool, err := rpc.NewPool(append(append(cellBlockOptions(), rpc.WithDialFunc(dial), rpc.WithUser("hbkit-test")), rpcOpts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	c := &Client{opts: o, zk: fakeZK{}, pool: pool, tel: tel, regions: newRegionCache(), nonceGroup: 7, done: make(chan struct{})}
	tb.Cleanup(func() { c.Close() })
	return c
}

// fakeZK points at the fake meta.
type fakeZK struct{}

func (fakeZK) Master(context.Context) (zk.Master, error) {
	return zk.Master{Server: zk.ServerName{Host: "master", Port: 16000}}, nil
}

func (fakeZK) MetaRegionServer(context.Context) (zk.MetaLocation, error) {
	return zk.MetaLocation{Server: zk.ServerName{Host: "rs1", Port: 16020}, State: zk.StateOpen}, nil
}

func (fakeZK) Close() error { return nil }

// move rehosts the region starting at start on addr (meta is updated; the
// old server answers NotServingRegion).
func (fc *fakeCluster) move(start, addr string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, r := range fc.regions {
		if string(r.start) == start {
			r.addr = addr
			return
		}
	}
	fc.t.Fatalf("no region starts at %q", start)
}

// split splits the region holding at into two new regions.
func (fc *fakeCluster) split(at string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for i, r := range fc.regions {
		if r.containsRow([]byte(at)) {
			a := fc.newRegion(string(r.start), at, r.addr)
			b := fc.newRegion(at, string(r.end), r.addr)
			fc.regions = slices.Replace(fc.regions, i, i+1, a, b)
			for id, sc := range fc.scanners {
				if sc.reg == r {
					delete(fc.scanners, id)
				}
			}
			return
		}
	}
}

func (r *fakeRegion) containsRow(row []byte) bool {
	return bytes.Compare(row, r.start) >= 0 && (len(r.end) == 0 || bytes.Compare(row, r.end) < 0)
}

// count returns how many calls of method (any method if "") went to addr
// (any server if "").
func (fc *fakeCluster) count(addr, method string) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	n := 0
	for _, c := range fc.calls {
		if (addr == "" || c.addr == addr) && (method == "" || c.method == method) {
			n++
		}
	}
	return n
}

// metaScans counts the scans of hbase:meta.
func (fc *fakeCluster) metaScans() int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	n := 0
	for _, c := range fc.calls {
		if r, ok := c.req.(*pb.ScanRequest); ok && bytes.Equal(r.GetRegion().GetValue(), metaRegionName) {
			n++
		}
	}
	return n
}

func (fc *fakeCluster) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !strings.HasPrefix(addr, "rs") {
		return nil, fmt.Errorf("fake cluster: no server at %s", addr)
	}
	client, server := net.Pipe()
	go fc.serve(addr, server)
	return client, nil
}

func (fc *fakeCluster) serve(addr string, nc net.Conn) {
	hc := &holdConn{Conn: nc, fc: fc, held: make(map[uint32]heldAnswer)}
	serveTestConnCells(fc.t, "fake cluster", hc, func(ch *pb.ConnectionHeader, hdr *pb.RequestHeader, param []byte, reply func(proto.Message, []byte, *pb.ExceptionResponse)) {
		if hdr.GetMethodName() == "Scan" {
			var sr pb.ScanRequest
			if proto.Unmarshal(param, &sr) == nil && sr.ScannerId != nil && !sr.GetCloseScanner() && !sr.GetRenew() {
				fc.mu.Lock()
				fc.nexts++
				if fc.holdNext != nil {
					if ha := fc.holdNext(fc.nexts); ha.hold {
						ha.k = fc.nexts
						hc.held[hdr.GetCallId()] = ha
					}
				}
				fc.mu.Unlock()
			}
		}
		go func() {
			resp, exc := fc.handle(addr, hdr.GetMethodName(), param)
			if resp == nil && exc == nil {
				return // hang
			}
			if fc.dropAnswer(hdr.GetMethodName()) {
				nc.Close()
				return
			}
			fc.mu.Lock()
			inline := fc.inline
			fc.mu.Unlock()
			var cells []byte
			if exc == nil && !inline && ch.GetCellBlockCodecClass() == cellblock.KeyValueCodec {
				cells = toCellBlock(fc.t, resp)
			}
			if len(cells) > 0 {
				fc.mu.Lock()
				fc.blocks++
				fc.mu.Unlock()
			}
			reply(resp, cells, exc)
		}()
	})
}

// dropAnswer reports whether the answer to a call of method is to be
// dropped (see dropAnswers), counting it.
func (fc *fakeCluster) dropAnswer(method string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.dropAnswers <= 0 || method != "Mutate" && method != "Multi" {
		return false
	}
	fc.dropAnswers--
	return true
}

// holdConn is a fake server's end of a connection, which writes the
// answers of the next calls that fakeCluster.holdNext picks in two parts.
type holdConn struct {
	net.Conn
	fc   *fakeCluster
	held map[uint32]heldAnswer // by call id; fc.mu
}

type heldAnswer struct {
	hold    bool
	corrupt bool
	delay   time.Duration
	k       int // the call's number among the next calls
}

func (c *holdConn) Write(b []byte) (int, error) {
	// int32 length | delimited header | delimited message | cells
	hdr, n := protowire.ConsumeBytes(b[4:])
	var h pb.ResponseHeader
	if n < 0 || proto.Unmarshal(hdr, &h) != nil {
		return c.Conn.Write(b)
	}
	c.fc.mu.Lock()
	ha, held := c.held[h.GetCallId()]
	delete(c.held, h.GetCallId())
	c.fc.mu.Unlock()
	msg, m := protowire.ConsumeBytes(b[4+n:])
	var sr pb.ScanResponse
	if !held || m < 0 || h.CellBlockMeta == nil || len(b) < rpc.FrameReuseMin ||
		proto.Unmarshal(msg, &sr) != nil || !leavesScannerOpen(&sr) {
		return c.Conn.Write(b)
	}
	// The client peeks 64 bytes for the call id.
	cut := 4 + n + m + 100
	w, err := c.Conn.Write(b[:cut])
	if err != nil {
		return w, err
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.fc.mu.Lock()
		later := c.fc.nexts > ha.k
		c.fc.mu.Unlock()
		if later {
			break
		}
	}
	time.Sleep(ha.delay)
	rest := b[cut:]
	if ha.corrupt {
		rest = bytes.Repeat([]byte{0xff}, len(rest))
	}
	w2, err := c.Conn.Write(rest)
	return w + w2, err
}

// toCellBlock moves the cells of resp's Results into a KeyValueCodec
// block, as a server does for a connection that announced the codec.
func toCellBlock(t testing.TB, resp proto.Message) []byte {
	var block []byte
	take := func(r *pb.Result) {
		if r == nil || len(r.Cell) == 0 {
			return
		}
		for _, c := range r.Cell {
			var err error
			block, err = cellblock.AppendCell(block, cellblock.Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier,
				Timestamp: c.GetTimestamp(), Type: uint8(c.GetCellType()), Value: c.Value})
			if err != nil {
				t.Errorf("fake cluster: %v", err)
			}
		}
		r.AssociatedCellCount = proto.Int32(int32(len(r.Cell)))
		r.Cell = nil
	}
	switch m := resp.(type) {
	case *pb.GetResponse:
		take(m.Result)
	case *pb.MutateResponse:
		take(m.Result)
	case *pb.MultiResponse:
		for _, rar := range m.RegionActionResult {
			for _, roe := range rar.ResultOrException {
				take(roe.Result)
			}
		}
	case *pb.ScanResponse:
		if len(m.Results) == 0 {
			return nil
		}
		for _, r := range m.Results {
			m.CellsPerResult = append(m.CellsPerResult, uint32(len(r.Cell)))
			m.PartialFlagPerResult = append(m.PartialFlagPerResult, r.GetPartial())
			take(r)
		}
		m.Results = nil
	}
	return block
}

func fcException(class string) *pb.ExceptionResponse {
	dnr := isDoNotRetryClass(class) || sentinelFor(class) != nil ||
		class == excUnknownScanner || class == excOutOfOrderScanner
	return &pb.ExceptionResponse{ExceptionClassName: proto.String(class), StackTrace: proto.String(class + ": injected\n\tat X(X.java:1)"), DoNotRetry: proto.Bool(dnr)}
}

func (fc *fakeCluster) handle(addr, method string, param []byte) (proto.Message, *pb.ExceptionResponse) {
	var req proto.Message
	switch method {
	case "Get":
		req = new(pb.GetRequest)
	case "Mutate":
		req = new(pb.MutateRequest)
	case "Scan":
		req = new(pb.ScanRequest)
	case "Multi":
		req = new(pb.MultiRequest)
	default:
		return nil, fcException(excUnknownProtocol)
	}
	if err := proto.Unmarshal(param, req); err != nil {
		fc.t.Errorf("fake cluster: %s: %v", method, err)
		return nil, fcException(excDoNotRetry)
	}
	fc.mu.Lock()
	fc.calls = append(fc.calls, fakeCall{addr: addr, method: method, req: req})
	hook, hang := fc.hook, fc.hang
	fc.mu.Unlock()
	if hook != nil {
		if exc := hook(addr, method, req); exc != nil {
			return nil, exc
		}
	}
	if sr, ok := req.(*pb.ScanRequest); ok && bytes.Equal(sr.GetRegion().GetValue(), metaRegionName) {
		return fc.metaScan(sr), nil
	}
	if gr, ok := req.(*pb.GetRequest); ok && bytes.Equal(gr.GetRegion().GetValue(), metaRegionName) {
		return fc.metaGet(gr), nil
	}
	if hang {
		return nil, nil
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	switch req := req.(type) {
	case *pb.GetRequest:
		if _, exc := fc.region(addr, req.GetRegion()); exc != nil {
			return nil, exc
		}
		return &pb.GetResponse{Result: fc.read(req.GetGet().GetRow())}, nil
	case *pb.MutateRequest:
		if _, exc := fc.region(addr, req.GetRegion()); exc != nil {
			return nil, exc
		}
		if cond := req.GetCondition(); cond != nil && fc.mutateConditions && !fc.holds(cond) {
			return &pb.MutateResponse{Processed: proto.Bool(false)}, nil
		}
		res, x := fc.apply(req.GetMutation())
		if x != nil {
			return nil, fcException(x.GetName())
		}
		return &pb.MutateResponse{Result: res, Processed: proto.Bool(true)}, nil
	case *pb.ScanRequest:
		return fc.scan(addr, req)
	case *pb.MultiRequest:
		resp := &pb.MultiResponse{}
		for _, ra := range req.GetRegionAction() {
			rar := &pb.RegionActionResult{}
			resp.RegionActionResult = append(resp.RegionActionResult, rar)
			reg, exc := fc.region(addr, ra.GetRegion())
			if exc != nil {
				rar.Exception = &pb.NameBytesPair{Name: exc.ExceptionClassName, Value: []byte(exc.GetStackTrace())}
				continue
			}
			if cond := ra.GetCondition(); cond != nil {
				fc.conditional(addr, reg, ra, rar)
				continue
			}
			for _, a := range ra.GetAction() {
				roe := &pb.ResultOrException{Index: a.Index}
				rar.ResultOrException = append(rar.ResultOrException, roe)
				if fc.actionHook != nil {
					if x := fc.actionHook(addr, reg, a); x != nil {
						roe.Exception = x
						continue
					}
				}
				if a.Get != nil {
					roe.Result = fc.read(a.Get.GetRow())
					continue
				}
				roe.Result, roe.Exception = fc.apply(a.GetMutation())
			}
			rar.Processed = proto.Bool(true)
		}
		return resp, nil
	}
	return nil, fcException(excDoNotRetry)
}

// conditional runs a conditional RegionAction as HBase 2.4+ does: the
// condition compares "given OP stored" (family cf only); a failure is the
// RegionActionResult's exception; the outcome is its processed. actionHook
// sees the first action. mu is held.
func (fc *fakeCluster) conditional(addr string, reg *fakeRegion, ra *pb.RegionAction, rar *pb.RegionActionResult) {
	if fc.actionHook != nil && len(ra.GetAction()) > 0 {
		if x := fc.actionHook(addr, reg, ra.GetAction()[0]); x != nil {
			rar.Exception = x
			return
		}
	}
	ok := fc.holds(ra.GetCondition())
	if ok {
		for _, a := range ra.GetAction() {
			if _, x := fc.apply(a.GetMutation()); x != nil {
				rar.Exception = x
				return
			}
		}
	}
	rar.Processed = proto.Bool(ok)
}

// holds evaluates a condition as HBase 2.4+ does: "given OP stored"
// (family cf only). mu is held.
func (fc *fakeCluster) holds(cond *pb.Condition) bool {
	var bc pb.BinaryComparator
	if err := proto.Unmarshal(cond.GetComparator().GetSerializedComparator(), &bc); err != nil {
		fc.t.Errorf("fake cluster: condition comparator: %v", err)
	}
	given := bc.GetComparable().GetValue()
	stored, found := fc.rows[string(cond.GetRow())][string(cond.GetQualifier())]
	var ok bool
	switch c := bytes.Compare(given, stored); {
	case len(given) == 0 && cond.GetCompareType() == pb.CompareType_EQUAL:
		ok = len(stored) == 0
	case len(given) == 0 && cond.GetCompareType() == pb.CompareType_NOT_EQUAL:
		ok = len(stored) > 0
	case !found:
		ok = false
	default:
		ok = map[pb.CompareType]bool{
			pb.CompareType_LESS: c < 0, pb.CompareType_LESS_OR_EQUAL: c <= 0, pb.CompareType_EQUAL: c == 0,
			pb.CompareType_NOT_EQUAL: c != 0, pb.CompareType_GREATER_OR_EQUAL: c >= 0, pb.CompareType_GREATER: c > 0,
		}[cond.GetCompareType()]
	}
	return ok
}

// region finds the region a request names, hosted on addr; mu is held.
func (fc *fakeCluster) region(addr string, spec *pb.RegionSpecifier) (*fakeRegion, *pb.ExceptionResponse) {
	for _, r := range fc.regions {
		if bytes.Equal(r.name, spec.GetValue()) {
			if r.addr != addr || fc.disabled {
				break
			}
			return r, nil
		}
	}
	return nil, fcException(excNotServingRegion)
}

func (fc *fakeCluster) read(row []byte) *pb.Result {
	cols := fc.rows[string(row)]
	res := &pb.Result{}
	for _, q := range slices.Sorted(mapsKeys(cols)) {
		res.Cell = append(res.Cell, &pb.Cell{Row: bytes.Clone(row), Family: []byte("cf"), Qualifier: []byte(q),
			Timestamp: proto.Uint64(1), CellType: pb.CellType_PUT.Enum(), Value: cols[q]})
	}
	return res
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// apply runs a Put, Delete (whole row) or Increment; mu is held.
func (fc *fakeCluster) apply(m *pb.MutationProto) (*pb.Result, *pb.NameBytesPair) {
	row := string(m.GetRow())
	for _, cv := range m.GetColumnValue() {
		if string(cv.GetFamily()) != "cf" {
			return nil, &pb.NameBytesPair{Name: proto.String(excNoSuchFamily), Value: []byte("no family " + string(cv.GetFamily()))}
		}
	}
	switch m.GetMutateType() {
	case pb.MutationProto_PUT:
		if fc.rows[row] == nil {
			fc.rows[row] = map[string][]byte{}
		}
		for _, cv := range m.GetColumnValue() {
			for _, qv := range cv.GetQualifierValue() {
				fc.rows[row][string(qv.GetQualifier())] = qv.GetValue()
			}
		}
		return &pb.Result{}, nil
	case pb.MutationProto_DELETE:
		delete(fc.rows, row)
		return &pb.Result{}, nil
	case pb.MutationProto_INCREMENT:
		if fc.rows[row] == nil {
			fc.rows[row] = map[string][]byte{}
		}
		res := &pb.Result{}
		for _, cv := range m.GetColumnValue() {
			for _, qv := range cv.GetQualifierValue() {
				old := fc.rows[row][string(qv.GetQualifier())]
				var n uint64
				if len(old) == 8 {
					n = binary.BigEndian.Uint64(old)
				}
				n += binary.BigEndian.Uint64(qv.GetValue())
				v := binary.BigEndian.AppendUint64(nil, n)
				fc.rows[row][string(qv.GetQualifier())] = v
				res.Cell = append(res.Cell, &pb.Cell{Row: []byte(row), Family: []byte("cf"), Qualifier: qv.GetQualifier(), Value: v})
			}
		}
		return res, nil
	}
	return nil, &pb.NameBytesPair{Name: proto.String(excDoNotRetry), Value: []byte("unsupported")}
}

// scan serves a user-table scan; mu is held. Like HBase it cuts results
// at batch_size cells and, for clients that handle partials, where a
// response reaches max_result_size (flagging the result partial); with
// fc.heartbeats it answers every other call with an empty heartbeat.
func (fc *fakeCluster) scan(addr string, req *pb.ScanRequest) (proto.Message, *pb.ExceptionResponse) {
	if !req.GetClientHandlesPartials() || !req.GetClientHandlesHeartbeats() {
		fc.t.Errorf("fake cluster: scan request without client_handles_partials and client_handles_heartbeats: %v", req)
	}
	if req.GetRenew() {
		if fc.scanners[req.GetScannerId()] == nil {
			return nil, fcException(excUnknownScanner)
		}
		fc.renewals++
		return &pb.ScanResponse{ScannerId: req.ScannerId, MoreResults: proto.Bool(true), MoreResultsInRegion: proto.Bool(true)}, nil
	}
	var sc *fakeScanner
	var id uint64
	resp := &pb.ScanResponse{MoreResults: proto.Bool(true)}
	if req.Scan != nil {
		reg, exc := fc.region(addr, req.GetRegion())
		if exc != nil {
			return nil, exc
		}
		s := req.GetScan()
		var rows []string
		for row := range fc.rows {
			b := []byte(row)
			if !reg.containsRow(b) {
				continue
			}
			start, stop := s.GetStartRow(), s.GetStopRow()
			if !s.GetReversed() {
				if c := bytes.Compare(b, start); c < 0 || (c == 0 && !s.GetIncludeStartRow()) {
					continue
				}
				if len(stop) > 0 && bytes.Compare(b, stop) >= 0 {
					continue
				}
			} else {
				if len(start) > 0 {
					if c := bytes.Compare(b, start); c > 0 || (c == 0 && !s.GetIncludeStartRow()) {
						continue
					}
				}
				if len(stop) > 0 && bytes.Compare(b, stop) <= 0 {
					continue
				}
			}
			rows = append(rows, row)
		}
		sort.Strings(rows)
		if s.GetReversed() {
			slices.Reverse(rows)
		}
		if l := req.GetLimitOfRows(); l > 0 && int(l) < len(rows) {
			rows = rows[:l]
		}
		fc.nextID++
		id = fc.nextID
		sc = &fakeScanner{addr: addr, reg: reg, batch: int(s.GetBatchSize()), maxSize: int(s.GetMaxResultSize()), readPoint: s.GetMvccReadPoint()}
		if sc.maxSize <= 0 {
			sc.maxSize = 2 << 20
		}
		if sc.readPoint == 0 {
			fc.nextReadPoint++
			sc.readPoint = fc.nextReadPoint
		}
		resp.MvccReadPoint = proto.Uint64(sc.readPoint)
		for _, row := range rows {
			sc.cells = append(sc.cells, fc.read([]byte(row)).Cell...)
		}
		fc.scanners[id] = sc
	} else {
		id = req.GetScannerId()
		sc = fc.scanners[id]
		if sc == nil || sc.addr != addr {
			return nil, fcException(excUnknownScanner)
		}
		if req.GetCloseScanner() {
			delete(fc.scanners, id)
			return &pb.ScanResponse{MoreResults: proto.Bool(false)}, nil
		}
	}
	resp.ScannerId = proto.Uint64(id)
	if fc.heartbeats && !sc.beat && len(sc.cells) > 0 {
		sc.beat = true
		resp.HeartbeatMessage = proto.Bool(true)
		resp.MoreResultsInRegion = proto.Bool(true)
		return resp, nil
	}
	sc.beat = false
	resp.Results = sc.next(int(req.GetNumberOfRows()))
	if len(sc.cells) == 0 {
		delete(fc.scanners, id)
		resp.MoreResultsInRegion = proto.Bool(false)
	} else {
		resp.MoreResultsInRegion = proto.Bool(true)
	}
	return resp, nil
}

// next cuts the next results: at most n of them, each ending with its
// row, at batch cells (flagged partial, as HBase flags a result that
// reached the batch limit) or where the response reaches maxSize bytes
// in the middle of a row (flagged partial).
func (sc *fakeScanner) next(n int) []*pb.Result {
	var out []*pb.Result
	var cur *pb.Result
	size := 0
	for len(sc.cells) > 0 && (cur != nil || len(out) < n) {
		c := sc.cells[0]
		sc.cells = sc.cells[1:]
		if cur == nil {
			cur = &pb.Result{}
			out = append(out, cur)
		}
		cur.Cell = append(cur.Cell, c)
		size += len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + 20
		more := len(sc.cells) > 0 && bytes.Equal(sc.cells[0].Row, c.Row)
		if sc.batch > 0 && len(cur.Cell) == sc.batch {
			cur.Partial = proto.Bool(true)
			cur = nil
		} else if !more {
			cur = nil
		}
		if size >= sc.maxSize {
			if cur != nil {
				cur.Partial = proto.Bool(true)
			}
			break
		}
	}
	return out
}

// metaRowOf encodes the meta row of r.
func metaRowOf(r *fakeRegion) *pb.Result {
	ri, _ := proto.Marshal(&pb.RegionInfo{
		RegionId:  proto.Uint64(r.id),
		TableName: &pb.TableName{Namespace: []byte("default"), Qualifier: []byte("t")},
		StartKey:  r.start,
		EndKey:    r.end,
	})
	cell := func(q, v string) *pb.Cell {
		return &pb.Cell{Row: r.name, Family: []byte("info"), Qualifier: []byte(q), Value: []byte(v)}
	}
	return &pb.Result{Cell: []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", r.addr), cell("state", "OPEN")}}
}

// metaScan answers the client's two kinds of meta scans: the reversed
// locate scan and the forward listing.
func (fc *fakeCluster) metaScan(req *pb.ScanRequest) *pb.ScanResponse {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	s := req.GetScan()
	resp := &pb.ScanResponse{MoreResults: proto.Bool(false), MoreResultsInRegion: proto.Bool(false)}
	if s == nil {
		return resp
	}
	if !bytes.HasPrefix(s.GetStartRow(), []byte("t,")) && !bytes.Equal(s.GetStartRow(), []byte("t\x00")) {
		return resp // another table: no rows
	}
	if !s.GetReversed() {
		for _, r := range fc.regions {
			resp.Results = append(resp.Results, metaRowOf(r))
		}
		return resp
	}
	key := s.GetStartRow()
	var row []byte
	last := true
	if key[1] == ',' {
		last = false
		row = key[2:bytes.LastIndexByte(key, ',')]
	}
	before := bytes.HasSuffix(key, []byte(metaZeroes))
	for i := len(fc.regions) - 1; i >= 0 && len(resp.Results) < int(req.GetNumberOfRows()); i-- {
		r := fc.regions[i]
		c := bytes.Compare(r.start, row)
		if last || c < 0 || (c == 0 && !before) {
			resp.Results = append(resp.Results, metaRowOf(r))
		}
	}
	return resp
}

// metaGet answers the table state Get.
func (fc *fakeCluster) metaGet(req *pb.GetRequest) *pb.GetResponse {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if string(req.GetGet().GetRow()) != "t" {
		return &pb.GetResponse{Result: &pb.Result{}}
	}
	st := pb.TableState_ENABLED
	if fc.disabled {
		st = pb.TableState_DISABLED
	}
	v, _ := proto.Marshal(&pb.TableState{State: st.Enum()})
	return &pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{Row: []byte("t"), Family: []byte("table"), Qualifier: []byte("state"), Value: v}}}}
}

// load writes rows directly into the fake.
func (fc *fakeCluster) load(rows ...string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, r := range rows {
		fc.rows[r] = map[string][]byte{"q": []byte("v-" + r)}
	}
}

// set changes the fake's knobs (hook, actionHook, hang, disabled) under
// its lock.
func (fc *fakeCluster) set(f func()) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	f()
}
