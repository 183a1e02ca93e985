package cellblock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// KeyValueCodec is the Java codec class whose blocks this package decodes;
// pass it to rpc.WithCellBlockCodec.
const KeyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec"

// Cell is one decoded cell. Row, Family, Qualifier and Value alias the
// block they were decoded from.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp uint64
	// Type is the KeyValue type byte (4 Put, 8 Delete, 10
	// DeleteFamilyVersion, 12 DeleteColumn, 14 DeleteFamily).
	Type  uint8
	Value []byte
}

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("cellblock: malformed cell block")

const (
	entryHeader = 12 // total, keyLength, valueLength
	// Fixed key overhead: rowLength(2) + familyLength(1) + timestamp(8) + type(1).
	keyOverhead = 12
)

// MinCellSize is the size of the smallest entry (empty row, family,
// qualifier and value). A block of n bytes holds at most n/MinCellSize
// cells: check announced counts against it before allocating for them.
const MinCellSize = entryHeader + keyOverhead

// CheckCount reports an error when n cells cannot fit in block, so that a
// count read from the network never sizes an allocation by itself.
func CheckCount(n int64, block []byte) error {
	if n < 0 {
		return malformed("negative cell count %d", n)
	}
	if n > int64(len(block))/MinCellSize {
		return malformed("%d cells announced, the %d bytes left cannot hold them", n, len(block))
	}
	return nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// DecodeCell decodes the first entry of b and returns the rest. The cell
// aliases b. Tags (KeyValueCodecWithTags) are validated and skipped.
func DecodeCell(b []byte) (c Cell, rest []byte, err error) {
	if len(b) < entryHeader {
		return Cell{}, b, malformed("%d bytes left, need %d for an entry header", len(b), entryHeader)
	}
	total := int64(int32(binary.BigEndian.Uint32(b)))
	keyLen := int64(int32(binary.BigEndian.Uint32(b[4:])))
	valLen := int64(int32(binary.BigEndian.Uint32(b[8:])))
	if total < 0 || keyLen < keyOverhead || valLen < 0 {
		return Cell{}, b, malformed("entry lengths total=%d key=%d value=%d", total, keyLen, valLen)
	}
	if 4+total > int64(len(b)) {
		return Cell{}, b, malformed("entry of %d bytes, only %d left", 4+total, len(b))
	}
	kvLen := 8 + keyLen + valLen
	tagsLen := int64(-1)
	switch {
	case total == kvLen:
	case total >= kvLen+2:
		tagsLen = int64(binary.BigEndian.Uint16(b[4+kvLen:]))
		if total != kvLen+2+tagsLen {
			return Cell{}, b, malformed("entry total %d does not match key %d, value %d and tags %d", total, keyLen, valLen, tagsLen)
		}
	default:
		return Cell{}, b, malformed("entry total %d does not match key %d and value %d", total, keyLen, valLen)
	}
	key := b[entryHeader : entryHeader+keyLen]
	rowLen := int64(binary.BigEndian.Uint16(key))
	if 2+rowLen+1 > keyLen-9 {
		return Cell{}, b, malformed("row length %d overruns key of %d bytes", rowLen, keyLen)
	}
	c.Row = key[2 : 2+rowLen : 2+rowLen]
	famLen := int64(key[2+rowLen])
	qualStart := 3 + rowLen + famLen
	qualEnd := keyLen - 9
	if qualStart > qualEnd {
		return Cell{}, b, malformed("family length %d overruns key of %d bytes", famLen, keyLen)
	}
	c.Family = key[3+rowLen : qualStart : qualStart]
	c.Qualifier = key[qualStart:qualEnd:qualEnd]
	c.Timestamp = binary.BigEndian.Uint64(key[qualEnd:])
	c.Type = key[keyLen-1]
	vEnd := entryHeader + keyLen + valLen
	c.Value = b[entryHeader+keyLen : vEnd : vEnd]
	return c, b[4+total:], nil
}

// AppendCell appends c as a KeyValueCodec entry (without tags). It fails,
// leaving dst unchanged, when a part exceeds what the format can hold.
func AppendCell(dst []byte, c Cell) ([]byte, error) {
	if len(c.Row) > math.MaxInt16 {
		return dst, fmt.Errorf("cellblock: row of %d bytes exceeds %d", len(c.Row), math.MaxInt16)
	}
	if len(c.Family) > math.MaxInt8 {
		return dst, fmt.Errorf("cellblock: family of %d bytes exceeds %d", len(c.Family), math.MaxInt8)
	}
	keyLen := int64(keyOverhead + len(c.Row) + len(c.Family) + len(c.Qualifier))
	total := 8 + keyLen + int64(len(c.Value))
	if total > math.MaxInt32-4 {
		return dst, fmt.Errorf("cellblock: cell of %d bytes is too large", total)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = binary.BigEndian.AppendUint32(dst, uint32(keyLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Value)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(c.Row)))
	dst = append(dst, c.Row...)
	dst = append(dst, byte(len(c.Family)))
	dst = append(dst, c.Family...)
	dst = append(dst, c.Qualifier...)
	dst = binary.BigEndian.AppendUint64(dst, c.Timestamp)
	dst = append(dst, c.Type)
	dst = append(dst, c.Value...)
	return dst, nil
}

// Decode decodes a whole block.
func Decode(block []byte) ([]Cell, error) {
	var cells []Cell
	for len(block) > 0 {
		c, rest, err := DecodeCell(block)
		if err != nil {
			return nil, err
		}
		cells = append(cells, c)
		block = rest
	}
	return cells, nil
}

// The functions below rebuild protobuf cells (about seven allocations per
// cell). They are the generic path, for code that reads the cells of
// protobuf Results (hbase:meta lookups); package hbase decodes the blocks
// of its data calls with DecodeCell straight into its own cell type.

// Proto converts c to the inline protobuf form; the slices are shared.
func (c Cell) Proto() *pb.Cell {
	return &pb.Cell{
		Row:       c.Row,
		Family:    c.Family,
		Qualifier: c.Qualifier,
		Timestamp: proto.Uint64(c.Timestamp),
		CellType:  pb.CellType(c.Type).Enum(),
		Value:     c.Value,
	}
}

// take decodes n cells from block as protobuf cells.
func take(block []byte, n int) ([]*pb.Cell, []byte, error) {
	if err := CheckCount(int64(n), block); err != nil {
		return nil, block, err
	}
	if n == 0 {
		return nil, block, nil
	}
	out := make([]*pb.Cell, 0, n)
	for range n {
		c, rest, err := DecodeCell(block)
		if err != nil {
			return nil, block, err
		}
		out = append(out, c.Proto())
		block = rest
	}
	return out, block, nil
}

// FillResults moves cells from block into results, in order: each Result
// receives associated_cell_count cells, appended after any inline ones.
// Use it for Get, Mutate and Multi responses (results in the order they
// appear in the response; nil entries hold no cells). Every byte of the
// block must be consumed.
func FillResults(block []byte, results ...*pb.Result) error {
	for i, r := range results {
		if r == nil {
			continue
		}
		cells, rest, err := take(block, int(r.GetAssociatedCellCount()))
		if err != nil {
			return fmt.Errorf("result %d: %w", i, err)
		}
		r.Cell = append(r.Cell, cells...)
		block = rest
	}
	if len(block) != 0 {
		return malformed("%d bytes left after the last result", len(block))
	}
	return nil
}

// Fill moves the cells of block into the Results of resp, a
// *pb.GetResponse, *pb.MutateResponse, *pb.MultiResponse (results in
// response order) or *pb.ScanResponse, as if the server had sent them
// inline. A non-empty block for any other message is malformed.
func Fill(resp proto.Message, block []byte) error {
	switch r := resp.(type) {
	case *pb.ScanResponse:
		return FillScanResponse(block, r)
	case *pb.GetResponse:
		return FillResults(block, r.GetResult())
	case *pb.MutateResponse:
		return FillResults(block, r.GetResult())
	case *pb.MultiResponse:
		var results []*pb.Result
		for _, rar := range r.GetRegionActionResult() {
			for _, roe := range rar.GetResultOrException() {
				results = append(results, roe.GetResult())
			}
		}
		return FillResults(block, results...)
	}
	if len(block) == 0 {
		return nil
	}
	return malformed("%d bytes of cells for a %T", len(block), resp)
}

// FillScanResponse builds resp.Results from the block using
// cells_per_result and partial_flag_per_result. It does nothing when the
// response already carries inline results and no counts.
func FillScanResponse(block []byte, resp *pb.ScanResponse) error {
	counts := resp.GetCellsPerResult()
	partial := resp.GetPartialFlagPerResult()
	if len(counts) == 0 {
		if len(block) != 0 {
			return malformed("%d bytes of cells but no cells_per_result", len(block))
		}
		return nil
	}
	if len(resp.GetResults()) != 0 {
		return malformed("both inline results and cells_per_result")
	}
	if len(partial) != 0 && len(partial) != len(counts) {
		return malformed("%d partial flags for %d results", len(partial), len(counts))
	}
	results := make([]*pb.Result, len(counts))
	for i, n := range counts {
		cells, rest, err := take(block, int(n))
		if err != nil {
			return fmt.Errorf("scan result %d: %w", i, err)
		}
		block = rest
		r := &pb.Result{Cell: cells}
		if len(partial) != 0 && partial[i] {
			r.Partial = proto.Bool(true)
		}
		if resp.Stale != nil {
			r.Stale = proto.Bool(resp.GetStale())
		}
		results[i] = r
	}
	if len(block) != 0 {
		return malformed("%d bytes left after the last scan result", len(block))
	}
	resp.Results = results
	return nil
}
