package hbase

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/hbase/internal/flat"
	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// Conversions between the public request and result types and the wire
// messages of internal/pb. Requests are validated before they get here.

// Shared enum values: the encoders point at them instead of allocating.
// They are never written.
var (
	enumPut         = pb.MutationProto_PUT
	enumDelete      = pb.MutationProto_DELETE
	enumIncrement   = pb.MutationProto_INCREMENT
	enumAppend      = pb.MutationProto_APPEND
	enumDelOne      = pb.MutationProto_DELETE_ONE_VERSION
	enumDelMulti    = pb.MutationProto_DELETE_MULTIPLE_VERSIONS
	enumDelFamily   = pb.MutationProto_DELETE_FAMILY
	enumMustPassAll = pb.FilterList_MUST_PASS_ALL
	enumMustPassOne = pb.FilterList_MUST_PASS_ONE
	boolTrue        = true
	// binaryComparatorName is the class of binaryComparatorPB's comparator.
	binaryComparatorName = classBinaryComparator
	boolFalse            = false
	durabilityEnums      = [...]pb.MutationProto_Durability{0, 1, 2, 3, 4}
	compareTypeByOp      = [...]pb.CompareType{pb.CompareType_EQUAL, pb.CompareType_NOT_EQUAL, pb.CompareType_LESS, pb.CompareType_LESS_OR_EQUAL, pb.CompareType_GREATER, pb.CompareType_GREATER_OR_EQUAL, pb.CompareType_NO_OP}
)

func compareType(op CompareOp) *pb.CompareType {
	if int(op) < len(compareTypeByOp) {
		return &compareTypeByOp[op]
	}
	return &compareTypeByOp[CompareNoOp]
}

func durability(d Durability) *pb.MutationProto_Durability {
	if d == DurabilityDefault || int(d) >= len(durabilityEnums) {
		return nil // absent: USE_DEFAULT
	}
	return &durabilityEnums[d]
}

// wireTimestamp converts a mutation timestamp: 0 and LatestTimestamp mean
// "server time", sent as an absent field.
func wireTimestamp(ts int64) *uint64 {
	if ts <= 0 || ts == LatestTimestamp {
		return nil
	}
	return proto.Uint64(uint64(ts))
}

func timeRangeToPB(tr *TimeRange) *pb.TimeRange {
	if tr == nil {
		return nil
	}
	t := &pb.TimeRange{From: proto.Uint64(uint64(tr.From))}
	if tr.To != LatestTimestamp {
		t.To = proto.Uint64(uint64(tr.To))
	}
	return t
}

func maxVersionsToPB(n int) *uint32 {
	switch {
	case n <= 1:
		return nil // default 1
	case n > math.MaxInt32:
		n = math.MaxInt32
	}
	return proto.Uint32(uint32(n))
}

// columnsToPB turns a selection into Columns: each family of families
// whole, then the columns of the other families grouped by family in order
// of first appearance.
func columnsToPB(families [][]byte, columns []Column) []*pb.Column {
	if len(families) == 0 && len(columns) == 0 {
		return nil
	}
	out := make([]*pb.Column, 0, len(families)+len(columns))
	whole := func(f []byte) bool {
		for _, w := range families {
			if bytes.Equal(w, f) {
				return true
			}
		}
		return false
	}
	for i, f := range families {
		dup := false
		for _, g := range families[:i] {
			if bytes.Equal(f, g) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, &pb.Column{Family: f})
		}
	}
	nWhole := len(out)
	for _, c := range columns {
		if whole(c.Family) {
			continue
		}
		q := c.Qualifier
		if q == nil {
			q = []byte{}
		}
		var col *pb.Column
		for _, o := range out[nWhole:] {
			if bytes.Equal(o.Family, c.Family) {
				col = o
				break
			}
		}
		if col == nil {
			col = &pb.Column{Family: c.Family}
			out = append(out, col)
		}
		if !containsBytes(col.Qualifier, q) {
			col.Qualifier = append(col.Qualifier, q)
		}
	}
	return out
}

func containsBytes(list [][]byte, b []byte) bool {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}

// getToPB converts a validated Get.
func getToPB(g *Get) (*pb.Get, error) {
	pg := &pb.Get{
		Row:         g.Row,
		Column:      columnsToPB(g.Families, g.Columns),
		TimeRange:   timeRangeToPB(g.TimeRange),
		MaxVersions: maxVersionsToPB(g.MaxVersions),
	}
	if g.ExistenceOnly {
		pg.ExistenceOnly = &boolTrue
	}
	if g.Filter != nil {
		f, err := filterToPB(g.Filter)
		if err != nil {
			return nil, err
		}
		pg.Filter = f
	}
	return pg, nil
}

// putToPB converts a validated Put.
func putToPB(p *Put, row []byte) *pb.MutationProto {
	m := &pb.MutationProto{
		Row:        row,
		MutateType: &enumPut,
		Timestamp:  wireTimestamp(p.Timestamp),
		Durability: durability(p.Durability),
	}
	var cells [8]PutCell
	m.ColumnValue = cellsToPB(putCells(cells[:0], p), m.Timestamp)
	return m
}

// cellsToPB converts cells sorted by family and qualifier, so that the
// encoding is deterministic. ts, if set, is repeated on every cell.
func cellsToPB(cells []PutCell, ts *uint64) []*pb.MutationProto_ColumnValue {
	out := make([]*pb.MutationProto_ColumnValue, 0, 1)
	qvs := make([]pb.MutationProto_ColumnValue_QualifierValue, len(cells))
	var cur *pb.MutationProto_ColumnValue
	for i, c := range cells {
		if cur == nil || string(cur.Family) != c.Family {
			cur = &pb.MutationProto_ColumnValue{Family: readOnlyBytes(c.Family)}
			out = append(out, cur)
		}
		qv := &qvs[i]
		qv.Qualifier = readOnlyBytes(c.Qualifier)
		qv.Value = c.Value
		if qv.Value == nil {
			qv.Value = []byte{}
		}
		qv.Timestamp = ts
		cur.QualifierValue = append(cur.QualifierValue, qv)
	}
	return out
}

// readOnlyBytes returns the bytes of s without copying them, for a
// message that is only marshalled (a Put's families and qualifiers, map
// keys, would otherwise cost an allocation each per cell). Nothing may
// write to them. An empty s gives an empty, non-nil slice: nil would
// leave the field out of the message.
func readOnlyBytes(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// deleteToPB converts a validated Delete (see the Delete doc for the
// cases).
func deleteToPB(d *Delete, row []byte) *pb.MutationProto {
	ts := wireTimestamp(d.Timestamp)
	m := &pb.MutationProto{
		Row:        row,
		MutateType: &enumDelete,
		Timestamp:  ts,
		Durability: durability(d.Durability),
	}
	if d.Family == nil {
		return m // whole row
	}
	qv := &pb.MutationProto_ColumnValue_QualifierValue{Timestamp: ts}
	switch {
	case d.Qualifier == nil:
		qv.DeleteType = &enumDelFamily
	case d.AllVersions:
		qv.Qualifier = d.Qualifier
		qv.DeleteType = &enumDelMulti
	default:
		qv.Qualifier = d.Qualifier
		qv.DeleteType = &enumDelOne
	}
	m.ColumnValue = []*pb.MutationProto_ColumnValue{{Family: d.Family, QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{qv}}}
	return m
}

// noncedMutation is the head of an Increment's or Append's MutationProto:
// its row, type and durability, and its nonce unless 0.
func noncedMutation(row []byte, typ *pb.MutationProto_MutationType, d Durability, nonce uint64) *pb.MutationProto {
	m := &pb.MutationProto{Row: row, MutateType: typ, Durability: durability(d)}
	if nonce != 0 {
		m.Nonce = proto.Uint64(nonce)
	}
	return m
}

// incrementToPB converts a validated Increment; nonce 0 means none.
func incrementToPB(inc *Increment, nonce uint64) *pb.MutationProto {
	m := noncedMutation(inc.Row, &enumIncrement, inc.Durability, nonce)
	cols := flat.Map(inc.Deltas)
	qvs := make([]pb.MutationProto_ColumnValue_QualifierValue, len(cols))
	vals := make([]byte, 8*len(cols))
	var cur *pb.MutationProto_ColumnValue
	for i, c := range cols {
		if cur == nil || string(cur.Family) != c.Family {
			cur = &pb.MutationProto_ColumnValue{Family: []byte(c.Family)}
			m.ColumnValue = append(m.ColumnValue, cur)
		}
		v := vals[8*i : 8*i+8 : 8*i+8]
		binary.BigEndian.PutUint64(v, uint64(c.V))
		qvs[i].Qualifier = []byte(c.Qualifier)
		qvs[i].Value = v
		cur.QualifierValue = append(cur.QualifierValue, &qvs[i])
	}
	return m
}

// appendToPB converts a validated Append; nonce 0 means none.
func appendToPB(a *Append, nonce uint64) *pb.MutationProto {
	m := noncedMutation(a.Row, &enumAppend, a.Durability, nonce)
	m.ColumnValue = cellsToPB(valueCells(nil, a.Values), nil)
	return m
}

// mutationToPB converts a Put or Delete of a CheckAndMutate or
// RowMutations on row.
func mutationToPB(m Mutation, row []byte) (*pb.MutationProto, error) {
	switch m := m.(type) {
	case *Put:
		return putToPB(m, row), nil
	case *Delete:
		return deleteToPB(m, row), nil
	}
	return nil, fmt.Errorf("hbase: unsupported mutation %T", m)
}

// conditionToPB converts the condition of a validated CheckAndMutate.
// The API compares "current op Value"; HBase compares "Value op current",
// so the operator is reversed.
func conditionToPB(cam *CheckAndMutate) *pb.Condition {
	return &pb.Condition{
		Row:         cam.Row,
		Family:      cam.Family,
		Qualifier:   nonNil(cam.Qualifier),
		CompareType: compareType(cam.Compare.Reverse()),
		Comparator:  binaryComparatorPB(cam.Value),
		TimeRange:   timeRangeToPB(cam.TimeRange),
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// resultFromPB converts a wire Result. Cells keep the byte slices of r
// (which alias nothing the caller keeps). A nil r is an empty result.
func resultFromPB(r *pb.Result) *Result {
	res := &Result{}
	if r == nil {
		return res
	}
	res.Exists = r.GetExists()
	if n := len(r.Cell); n > 0 {
		res.Cells = make([]Cell, n)
		for i, c := range r.Cell {
			res.Cells[i] = cellFromPB(c)
		}
	}
	return res
}

func cellFromPB(c *pb.Cell) Cell {
	ts := c.GetTimestamp()
	if ts > math.MaxInt64 {
		ts = math.MaxInt64
	}
	return Cell{
		Row:       c.Row,
		Family:    c.Family,
		Qualifier: nonNil(c.Qualifier),
		Timestamp: int64(ts),
		Type:      CellType(c.GetCellType()),
		Value:     nonNil(c.Value),
	}
}

// decodeResult parses a Result message received from the network into a
// Result. Arbitrary input yields an error, never a panic.
func decodeResult(b []byte) (*Result, error) {
	var r pb.Result
	if err := proto.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("hbase: decode result: %w", err)
	}
	return resultFromPB(&r), nil
}

// Cell blocks. The client's connections announce KeyValueCodec, so the
// server sends the cells of Get, Mutate, Multi and Scan responses in a
// block after the protobuf message: Result.associated_cell_count (after
// any inline cells) or ScanResponse.cells_per_result says how many belong
// to each result, in order. The functions below decode them straight into
// Cells whose byte slices alias the block, which is the response frame
// internal/rpc allocated for this response alone and never reuses. A
// response thus costs a fixed number of allocations however many cells it
// carries. Each slice is capped at its own length, so an append to one
// never writes into its neighbour; but keeping any cell keeps the whole
// frame reachable.

// cellBlockOptions are the connection options asking for KeyValueCodec
// cell blocks on responses. Requests stay inline.
func cellBlockOptions() []rpc.Option {
	return []rpc.Option{rpc.WithCellBlockCodec(cellblock.KeyValueCodec)}
}

// errMalformedBlock wraps cell-block decoding failures.
func errMalformedBlock(err error) error {
	return fmt.Errorf("hbase: decode response cells: %w", err)
}

func cellFromBlock(c cellblock.Cell) Cell {
	ts := c.Timestamp
	if ts > math.MaxInt64 {
		ts = math.MaxInt64
	}
	return Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier, Timestamp: int64(ts), Type: CellType(c.Type), Value: c.Value}
}

// decodeCells fills dst with the next len(dst) cells of block and returns
// the rest of the block.
func decodeCells(dst []Cell, block []byte) ([]byte, error) {
	for i := range dst {
		c, rest, err := cellblock.DecodeCell(block)
		if err != nil {
			return block, errMalformedBlock(err)
		}
		dst[i] = cellFromBlock(c)
		block = rest
	}
	return block, nil
}

// resultFromWire converts r (nil: an empty result) with its inline cells
// followed by its associated_cell_count cells taken from the front of
// *block, which is advanced past them.
func resultFromWire(r *pb.Result, block *[]byte) (*Result, error) {
	n := int64(r.GetAssociatedCellCount())
	if n == 0 {
		return resultFromPB(r), nil
	}
	if err := cellblock.CheckCount(n, *block); err != nil {
		return nil, errMalformedBlock(err)
	}
	res := &Result{Exists: r.GetExists(), Cells: make([]Cell, len(r.Cell)+int(n))}
	for i, c := range r.Cell {
		res.Cells[i] = cellFromPB(c)
	}
	rest, err := decodeCells(res.Cells[len(r.Cell):], *block)
	if err != nil {
		return nil, err
	}
	*block = rest
	return res, nil
}

// singleResult converts the one Result of a Get or Mutate response, which
// must use up the block.
func singleResult(r *pb.Result, block []byte) (*Result, error) {
	res, err := resultFromWire(r, &block)
	if err != nil {
		return nil, err
	}
	if len(block) != 0 {
		return nil, errMalformedBlock(fmt.Errorf("%w: %d bytes left after the result", cellblock.ErrMalformed, len(block)))
	}
	return res, nil
}

// multiResults converts the results of a Multi response: out[i][j] is
// the result of RegionActionResult i, ResultOrException j (nil where
// there is none). The block must be used up.
func multiResults(resp *pb.MultiResponse, block []byte) ([][]*Result, error) {
	rars := resp.GetRegionActionResult()
	out := make([][]*Result, len(rars))
	var empty []Result // the results without cells (a Put's), in one allocation
	for i, rar := range rars {
		roes := rar.GetResultOrException()
		out[i] = make([]*Result, len(roes))
		for j, roe := range roes {
			if roe.Result == nil {
				continue
			}
			if len(roe.Result.Cell) == 0 && roe.Result.GetAssociatedCellCount() == 0 {
				if len(empty) == 0 {
					empty = make([]Result, len(roes)-j)
				}
				out[i][j], empty = &empty[0], empty[1:]
				out[i][j].Exists = roe.Result.GetExists()
				continue
			}
			res, err := resultFromWire(roe.Result, &block)
			if err != nil {
				return nil, err
			}
			out[i][j] = res
		}
	}
	if len(block) != 0 {
		return nil, errMalformedBlock(fmt.Errorf("%w: %d bytes left after the last result", cellblock.ErrMalformed, len(block)))
	}
	return out, nil
}

// scanPart is one result of a ScanResponse: the cells of a row, or of a
// part of it when partial (the row may go on in the next results).
type scanPart struct {
	cells   []Cell
	partial bool
}

// scanParts returns the results of a scan response, from the block when
// the server sent cells_per_result, else from the inline results. All the
// cells of a block-encoded response share one allocation.
func scanParts(resp *pb.ScanResponse, block []byte) ([]scanPart, error) {
	parts, _, err := scanPartsInto(nil, nil, resp, block)
	return parts, err
}

// scanPartsInto is scanParts reusing the arrays of parts and cells when
// they are large enough (Scan.ReuseMemory); it also returns the cells
// array the block's cells went into.
func scanPartsInto(parts []scanPart, cells []Cell, resp *pb.ScanResponse, block []byte) ([]scanPart, []Cell, error) {
	counts := resp.GetCellsPerResult()
	if len(counts) == 0 {
		if len(block) != 0 {
			return nil, nil, errMalformedBlock(fmt.Errorf("%w: %d bytes of cells but no cells_per_result", cellblock.ErrMalformed, len(block)))
		}
		parts := make([]scanPart, len(resp.GetResults()))
		for i, r := range resp.GetResults() {
			cells := make([]Cell, len(r.GetCell()))
			for j, c := range r.GetCell() {
				cells[j] = cellFromPB(c)
			}
			parts[i] = scanPart{cells: cells, partial: r.GetPartial()}
		}
		return parts, nil, nil
	}
	if len(resp.GetResults()) != 0 {
		return nil, nil, errMalformedBlock(fmt.Errorf("%w: both inline results and cells_per_result", cellblock.ErrMalformed))
	}
	partial := resp.GetPartialFlagPerResult()
	if len(partial) != 0 && len(partial) != len(counts) {
		return nil, nil, errMalformedBlock(fmt.Errorf("%w: %d partial flags for %d results", cellblock.ErrMalformed, len(partial), len(counts)))
	}
	var total int64
	for _, n := range counts {
		total += int64(n)
	}
	if err := cellblock.CheckCount(total, block); err != nil {
		return nil, nil, errMalformedBlock(err)
	}
	// CheckCount bounds total by the block's size.
	if int64(cap(cells)) >= total {
		cells = cells[:total]
	} else {
		cells = make([]Cell, total)
	}
	if cap(parts) >= len(counts) {
		parts = parts[:len(counts)]
	} else {
		parts = make([]scanPart, len(counts))
	}
	at := 0
	for i, n := range counts {
		end := at + int(n)
		rest, err := decodeCells(cells[at:end], block)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (scan result %d)", err, i)
		}
		block = rest
		parts[i] = scanPart{cells: cells[at:end:end], partial: len(partial) != 0 && partial[i]}
		at = end
	}
	if len(block) != 0 {
		return nil, nil, errMalformedBlock(fmt.Errorf("%w: %d bytes left after the last scan result", cellblock.ErrMalformed, len(block)))
	}
	return parts, cells, nil
}
