package gohbase

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/hbkit/hbkit/hbase"
)

// Scan opens a gohbase scanner. Limit is applied by the adapter (gohbase
// has no row limit): it stops reading and closes the scanner after Limit
// rows. Scan.Batch (wide rows cut into Results of at most Batch cells) is
// not offered by gohbase and fails with an *UnsupportedError.
func (c *Client) Scan(ctx context.Context, s *hbase.Scan) (hbase.Scanner, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Batch > 0 {
		return nil, unsupported("scan", "Scan.Batch: gohbase does not set the scan's batch size")
	}
	f := s.Filter
	if s.Reversed && f != nil {
		f = everyFamilyEssential(f)
	}
	opts, err := readOptions(s.Families, s.Columns, s.MaxVersions, s.TimeRange, f)
	if err != nil {
		return nil, wrapErr("scan", s.Table, err)
	}
	if s.Reversed {
		opts = append(opts, hrpc.Reversed())
	}
	caching := s.Caching
	if s.Limit > 0 && (caching == 0 || caching > s.Limit) {
		caching = s.Limit // no point fetching more rows per call than the scan returns
	}
	if caching > 0 {
		opts = append(opts, hrpc.NumberOfRows(uint32(caching)))
	}
	if s.MaxResultSize > 0 {
		opts = append(opts, hrpc.MaxResultSize(uint64(s.MaxResultSize)))
	}
	if s.AllowPartial {
		opts = append(opts, hrpc.AllowPartialResults())
	}
	start := s.StartRow
	if s.Reversed && len(start) == 0 {
		// gohbase starts a reversed scan without a start row in the
		// table's first region, not its last; the greatest possible row
		// key makes it start at the end.
		start = maxRow
	}
	rpc, err := hrpc.NewScanRange(ctx, tableName(s.Table), start, s.StopRow, opts...)
	if err != nil {
		return nil, wrapErr("scan", s.Table, err)
	}
	return &scanner{sc: c.c.Scan(rpc), table: s.Table, limit: s.Limit, partial: s.AllowPartial}, nil
}

// everyFamilyEssential returns f joined (MustPassAll) with a filter that
// keeps every row. HBase rejects a reversed scan that loads column
// families on demand, which it does when a filter declares some family
// non-essential (a SingleColumnValueFilter with FilterIfMissing); gohbase
// cannot turn that loading off in the request, as the native client does.
// A filter list reads a family as essential if any of its filters does,
// and the added filter, like most, declares every family essential: the
// scan reads every family up front, with the rows and cells of f alone.
func everyFamilyEssential(f hbase.Filter) hbase.Filter {
	keepAll := &hbase.RowFilter{Compare: hbase.CompareNotEqual, Comparator: &hbase.BinaryComparator{Value: []byte{}}}
	return &hbase.FilterList{Op: hbase.MustPassAll, Filters: []hbase.Filter{f, keepAll}}
}

// maxRow is the greatest row key HBase accepts: every row sorts at or
// before it.
var maxRow = bytes.Repeat([]byte{0xff}, hbase.MaxRowLength)

// scanner adapts hrpc.Scanner to hbase.Scanner.
type scanner struct {
	sc      hrpc.Scanner
	table   string
	limit   int  // rows; 0: none
	partial bool // a row may come in several results

	rows    int    // rows started so far
	lastRow []byte // row of the last result, to count rows split in parts
	cur     *hbase.Result
	err     error
	done    bool
	closed  bool
}

func (s *scanner) Next() bool {
	if s.done || s.closed {
		return false
	}
	if s.limit > 0 && s.rows == s.limit && !s.partial {
		s.done = true // whole rows: the last one is complete, read no further
		s.closeScanner()
		return false
	}
	for {
		r, err := s.sc.Next()
		if err != nil {
			s.done = true
			if !errors.Is(err, io.EOF) {
				s.err = wrapErr("scan", s.table, err)
			}
			s.closeScanner()
			return false
		}
		res := fromResult(r)
		if res.Empty() {
			continue
		}
		if row := res.Row(); s.lastRow == nil || !bytes.Equal(row, s.lastRow) {
			if s.limit > 0 && s.rows == s.limit {
				s.done = true
				s.closeScanner()
				return false
			}
			s.rows++
			s.lastRow = row
		}
		s.cur = res
		return true
	}
}

func (s *scanner) Result() *hbase.Result { return s.cur }

func (s *scanner) Err() error { return s.err }

func (s *scanner) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.closeScanner()
	return nil
}

// closeScanner closes gohbase's scanner once (which releases the server's
// scanner if one is open).
func (s *scanner) closeScanner() {
	if s.sc != nil {
		_ = s.sc.Close()
		s.sc = nil
	}
}
