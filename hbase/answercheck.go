package hbase

import (
	"bytes"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

// Checks of answers (issue 34). HBase's RPC carries no checksum: a bit
// flipped on the way in a cell block can hand a caller the cells of
// another row. What the client knows an answer must hold is checked
// before it is used: the row asked for in a Get or Mutate result (and in
// each result of a Multi), the rows of a scan answer inside the region
// and the scan's range and in order. A failed check, like a cell block
// that does not decode, is a retryable *rpc.CorruptError
// (rpc.ErrCorruptAnswer): the call is sent again. Values cannot be
// checked.

// errOtherRow: a result holds a cell of another row than the one asked
// for. Row keys are not printed: they may hold personal data.
var errOtherRow = errors.New("hbase: answer holds a cell of another row than the one asked for")

// errScanRows: the rows of a scan answer are out of range or out of order.
var errScanRows = errors.New("hbase: scan answer has rows out of range or out of order")

// checkResultRow checks that every cell of res is of row.
func checkResultRow(res *Result, row []byte) error {
	for i := range res.Cells {
		if got := res.Cells[i].Row; !bytes.Equal(got, row) {
			return fmt.Errorf("%w (cell %d of %d: a row of %d bytes, asked for one of %d)", errOtherRow, i, len(res.Cells), len(got), len(row))
		}
	}
	return nil
}

// rowResult is singleResult for the answer to a call on row: its cells
// must all be of that row.
func rowResult(r *pb.Result, block, row []byte) (*Result, error) {
	res, err := singleResult(r, block)
	if err == nil {
		err = checkResultRow(res, row)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// errFlag: a conditional write's "processed" flag is encoded as neither
// 0 nor 1, which HBase never sends.
var errFlag = errors.New("hbase: answer holds a processed flag that is neither 0 nor 1")

// Field numbers of the "processed" flags: MutateResponse.processed,
// MultiResponse.regionActionResult and RegionActionResult.processed.
const (
	mutateProcessed    protowire.Number = 2
	multiRegionResults protowire.Number = 1
	regionProcessed    protowire.Number = 3
)

// checkFlag checks that every varint field num of msg, an encoded
// message, is the one byte 0 or 1, as HBase encodes a bool. A decoder
// takes any other value for true: a bit flipped in a "condition failed"
// (0) would report a conditional write applied that was not. Only the
// flip to 1 stays unseen.
func checkFlag(msg []byte, num protowire.Number) error {
	return eachField(msg, func(n protowire.Number, typ protowire.Type, v []byte) error {
		if n == num && typ == protowire.VarintType && (len(v) != 1 || v[0] > 1) {
			return errFlag
		}
		return nil
	})
}

// checkMultiFlags is checkFlag for the processed flag of each
// RegionActionResult of an encoded MultiResponse.
func checkMultiFlags(msg []byte) error {
	return eachField(msg, func(n protowire.Number, typ protowire.Type, v []byte) error {
		if n != multiRegionResults || typ != protowire.BytesType {
			return nil
		}
		rar, _ := protowire.ConsumeBytes(v) // eachField parsed it
		return checkFlag(rar, regionProcessed)
	})
}

// errUnparsed: an encoded message does not parse.
var errUnparsed = errors.New("hbase: answer message does not parse")

// eachField calls fn with each field of msg: its number, type and encoded
// value (a varint's bytes; a length-delimited field's length and bytes).
// It stops at the first error of fn, or with errUnparsed where msg does
// not parse.
func eachField(msg []byte, fn func(protowire.Number, protowire.Type, []byte) error) error {
	for len(msg) > 0 {
		n, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return errUnparsed
		}
		msg = msg[l:]
		l = protowire.ConsumeFieldValue(n, typ, msg)
		if l < 0 {
			return errUnparsed
		}
		if err := fn(n, typ, msg[:l]); err != nil {
			return err
		}
		msg = msg[l:]
	}
	return nil
}

// corruptAnswer marks err, a failed decode or check of an answer from
// addr to method, as a corrupt answer: retryable, sent.
func corruptAnswer(addr, method string, err error) error {
	if err == nil || errors.Is(err, rpc.ErrCorruptAnswer) {
		return err
	}
	return &rpc.CorruptError{Addr: addr, Method: method, Err: err}
}

// scanBounds is what the rows of a scan answer must respect: they lie in
// the region scanned and, when stop is set, not past it (stop itself is
// let through: it may be included); they come in the scan's order, the
// first one not before after (the last row completed, nil before any);
// each part holds the cells of one row.
type scanBounds struct {
	reg      *region
	stop     []byte
	reversed bool
	after    []byte
}

// check checks the parts of one scan answer.
func (b scanBounds) check(parts []scanPart) error {
	prev := b.after
	for i, p := range parts {
		if len(p.cells) == 0 {
			continue
		}
		row := p.cells[0].Row
		for j := range p.cells {
			if !bytes.Equal(p.cells[j].Row, row) {
				return fmt.Errorf("%w (result %d mixes rows)", errScanRows, i)
			}
		}
		if b.reg != nil && !b.reg.contains(row) {
			return fmt.Errorf("%w (result %d: a row outside the region scanned)", errScanRows, i)
		}
		if len(b.stop) > 0 && b.order(row, b.stop) > 0 {
			return fmt.Errorf("%w (result %d: a row past the stop row)", errScanRows, i)
		}
		if prev != nil && b.order(prev, row) > 0 {
			return fmt.Errorf("%w (result %d: a row before the one preceding it)", errScanRows, i)
		}
		prev = row
	}
	return nil
}

// order compares rows in the scan's direction.
func (b scanBounds) order(x, y []byte) int {
	if b.reversed {
		return bytes.Compare(y, x)
	}
	return bytes.Compare(x, y)
}

// regionAddr is r's server, or "" for no region.
func regionAddr(r *region) string {
	if r == nil {
		return ""
	}
	return r.addr
}
