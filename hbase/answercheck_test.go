package hbase

import (
	"errors"
	"testing"

	"github.com/hbkit/hbkit/internal/rpc"
)

func partOf(rows ...string) scanPart {
	var p scanPart
	for _, r := range rows {
		p.cells = append(p.cells, Cell{Row: []byte(r), Family: []byte("cf"), Qualifier: []byte("q")})
	}
	return p
}

// TestScanBoundsCheck: the rows of a scan answer must lie in the region
// and before the stop row, come in the scan's order, not before the last
// row completed, and each result must hold one row.
func TestScanBoundsCheck(t *testing.T) {
	reg := &region{start: []byte("b"), end: []byte("m")}
	tests := []struct {
		name   string
		b      scanBounds
		parts  []scanPart
		wantOK bool
	}{
		{"in order", scanBounds{reg: reg}, []scanPart{partOf("b", "b"), partOf("c"), partOf("l")}, true},
		{"a row repeated across parts", scanBounds{reg: reg}, []scanPart{partOf("c"), partOf("c")}, true},
		{"the last row again", scanBounds{reg: reg, after: []byte("c")}, []scanPart{partOf("c"), partOf("d")}, true},
		{"stop row itself", scanBounds{reg: reg, stop: []byte("e")}, []scanPart{partOf("e")}, true},
		{"reversed", scanBounds{reg: reg, reversed: true, after: []byte("k")}, []scanPart{partOf("j"), partOf("c")}, true},
		{"empty parts", scanBounds{reg: reg}, []scanPart{{}, partOf("c")}, true},
		{"out of order", scanBounds{reg: reg}, []scanPart{partOf("d"), partOf("c")}, false},
		{"before the last row", scanBounds{reg: reg, after: []byte("e")}, []scanPart{partOf("d")}, false},
		{"before the region", scanBounds{reg: reg}, []scanPart{partOf("a")}, false},
		{"past the region", scanBounds{reg: reg}, []scanPart{partOf("m")}, false},
		{"past the stop row", scanBounds{reg: reg, stop: []byte("e")}, []scanPart{partOf("f")}, false},
		{"reversed out of order", scanBounds{reg: reg, reversed: true}, []scanPart{partOf("c"), partOf("j")}, false},
		{"reversed past the stop row", scanBounds{reg: reg, reversed: true, stop: []byte("e")}, []scanPart{partOf("d")}, false},
		{"mixed rows", scanBounds{reg: reg}, []scanPart{partOf("c", "d")}, false},
	}
	for _, tt := range tests {
		err := tt.b.check(tt.parts)
		if (err == nil) != tt.wantOK {
			t.Errorf("%s: check = %v, want ok %v", tt.name, err, tt.wantOK)
		}
		if err != nil && !errors.Is(err, errScanRows) {
			t.Errorf("%s: check = %v, want errScanRows", tt.name, err)
		}
	}
}

// TestCheckResultRow: a result with a cell of another row is a retryable
// corrupt answer.
func TestCheckResultRow(t *testing.T) {
	res := &Result{Cells: partOf("r1", "r1").cells}
	if err := checkResultRow(res, []byte("r1")); err != nil {
		t.Errorf("checkResultRow(r1) = %v, want nil", err)
	}
	if err := checkResultRow(&Result{}, []byte("r1")); err != nil {
		t.Errorf("checkResultRow(empty) = %v, want nil", err)
	}
	res.Cells[1].Row = []byte("r3")
	err := corruptAnswer("rs1:16020", "Get", checkResultRow(res, []byte("r1")))
	if !errors.Is(err, errOtherRow) || !errors.Is(err, rpc.ErrCorruptAnswer) || !IsRetryable(err) {
		t.Errorf("a cell of another row: %v, want a retryable corrupt answer wrapping errOtherRow", err)
	}
}

// TestCheckFlag: HBase encodes a conditional write's "processed" flag as
// the byte 0 or 1; a flipped bit that makes it anything else is caught,
// in a MutateResponse and in each RegionActionResult of a MultiResponse.
// The answers are as HBase 2.6 sent them (a CheckAndMutate whose
// condition failed).
func TestCheckFlag(t *testing.T) {
	mutate := []byte{0x10, 0x00}                                                // MutateResponse{processed: false}
	multi := []byte{0x0a, 0x06, 0x0a, 0x02, 0x08, 0x00, 0x18, 0x00, 0x1a, 0x00} // one RegionActionResult, processed false
	for _, tt := range []struct {
		name  string
		msg   []byte
		at    int // the flag's byte
		check func([]byte) error
	}{
		{"Mutate", mutate, 1, func(b []byte) error { return checkFlag(b, mutateProcessed) }},
		{"Multi", multi, 7, checkMultiFlags},
	} {
		if err := tt.check(tt.msg); err != nil {
			t.Errorf("%s: %v for the answer as sent", tt.name, err)
		}
		for bit := range 8 {
			b := append([]byte(nil), tt.msg...)
			b[tt.at] ^= 1 << bit
			err := tt.check(b)
			switch {
			case bit == 0 && err != nil:
				t.Errorf("%s, bit 0 flipped (%x): %v, want nil (1 is a valid true)", tt.name, b, err)
			case bit == 7 && err == nil: // 0x80 starts a longer varint: the message does not parse
				t.Errorf("%s, bit 7 flipped (%x): nil, want an error", tt.name, b)
			case bit > 0 && bit < 7 && !errors.Is(err, errFlag):
				t.Errorf("%s, bit %d flipped (%x): %v, want errFlag", tt.name, bit, b, err)
			}
		}
	}
}
