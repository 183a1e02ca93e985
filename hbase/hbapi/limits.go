package hbapi

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Byte limits of writes, as HBase's own client and servers keep them
// (docs/write-limits.md has what HBase 2.6.4 was seen to refuse).
const (
	// DefaultMaxCellSize is the largest cell a Client sends by default
	// (WithMaxCellSize), as CellSize counts it: HBase's default
	// hbase.client.keyvalue.maxsize and hbase.server.keyvalue.maxsize, 10
	// MiB. A server with its default refuses a larger cell.
	DefaultMaxCellSize = 10 << 20
	// DefaultWriteBufferSize bounds the bytes of the mutations of one
	// Multi request (WithWriteBufferSize): HBase's default
	// hbase.client.write.buffer, 2 MiB.
	DefaultWriteBufferSize = 2 << 20
	// MaxRequestSize is HBase's default hbase.ipc.max.request.size, 256
	// MiB: a server refuses a larger request and drops its connection,
	// so a Client refuses a mutation that large before sending it.
	MaxRequestSize = 256 << 20
)

// cellOverhead is what CellSize adds to the lengths of a cell's row,
// family, qualifier and value: a KeyValue's two length fields (8 bytes),
// its key's row length, family length, timestamp and type (12), and the
// 4 bytes more the server counts (PrivateCellUtil.estimatedSerializedSizeOf).
const cellOverhead = 24

// CellSize is the size of a cell as an HBase server measures it when it
// checks it against hbase.server.keyvalue.maxsize: the lengths of its
// row, family, qualifier and value plus 24 bytes.
func CellSize(row []byte, family, qualifier string, value []byte) int {
	return len(row) + len(family) + len(qualifier) + len(value) + cellOverhead
}

// WriteLimits are the byte limits a client applies to writes.
type WriteLimits struct {
	// MaxCellSize is the largest cell, as CellSize counts it, sent to
	// the servers; 0 means no limit.
	MaxCellSize int
	// WriteBufferSize bounds the bytes of one request's mutations; a
	// larger mutation goes alone.
	WriteBufferSize int
}

// DefaultWriteLimits returns HBase's defaults.
func DefaultWriteLimits() WriteLimits {
	return WriteLimits{MaxCellSize: DefaultMaxCellSize, WriteBufferSize: DefaultWriteBufferSize}
}

// CheckWriteSize checks the cells of a valid *Put, *Append,
// *CheckAndMutate or *RowMutations against maxCellSize (0: no limit) and
// the whole against MaxRequestSize, as a Client does before sending it;
// other requests pass. A failure is an *InvalidRequestError wrapping
// ErrCellTooLarge, whose Field names the column, or ErrRequestTooLarge;
// neither names the row. Implementations of DataClient other than Client
// (the fake) use it to refuse what HBase refuses.
func CheckWriteSize(req any, maxCellSize int) error {
	_, err := WriteSize(req, maxCellSize)
	return err
}

// WriteSize returns the bytes of the cells of req as CellSize counts
// them (an estimate of what it costs on the wire and in a server's
// memory), checking them as CheckWriteSize says.
func WriteSize(req any, maxCellSize int) (int, error) {
	var op string
	var n int
	var err error
	switch r := req.(type) {
	case *Put:
		op = "put"
		n, err = putSize(op, -1, r, r.Row, maxCellSize)
	case *Append:
		op = "append"
		n, err = valuesSize(op, "", r.Row, r.Values, maxCellSize)
	case *CheckAndMutate:
		op = "check and mutate"
		n, err = mutationsSize(op, r.Row, r.Mutations, maxCellSize)
		n += len(r.Value)
	case *RowMutations:
		op = "mutate row"
		n, err = mutationsSize(op, r.Row, r.Mutations, maxCellSize)
	case *Increment:
		for f, qs := range r.Deltas {
			for q := range qs {
				n += len(r.Row) + len(f) + len(q) + 8 + cellOverhead
			}
		}
		return n, nil
	case *Get:
		return len(r.Row) + cellOverhead, nil
	case *Delete:
		return len(r.Row) + len(r.Family) + len(r.Qualifier) + cellOverhead, nil
	default:
		return 0, nil
	}
	if err == nil && n > MaxRequestSize {
		err = invalidf(op, "", ErrRequestTooLarge, "%d bytes > %d", n, MaxRequestSize)
	}
	return n, err
}

func mutationsSize(op string, row []byte, muts []Mutation, limit int) (int, error) {
	total := 0
	for i, m := range muts {
		var n int
		var err error
		switch m := m.(type) {
		case *Put:
			n, err = putSize(op, i, m, row, limit)
		case *Delete:
			n, err = WriteSize(m, limit)
		}
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// putSize is valuesSize of p's cells, Cells or Values, on row; p is
// mutation mut of a request (-1: none), which the field of an error names.
func putSize(op string, mut int, p *Put, row []byte, limit int) (int, error) {
	prefix := func() string {
		if mut < 0 {
			return ""
		}
		return "Mutations[" + strconv.Itoa(mut) + "]."
	}
	if len(p.Cells) == 0 {
		return valuesSize(op, prefix(), row, p.Values, limit)
	}
	total := 0
	for i, c := range p.Cells {
		n := CellSize(row, c.Family, c.Qualifier, c.Value)
		if limit > 0 && n > limit {
			return 0, invalidf(op, fmt.Sprintf("%sCells[%d]", prefix(), i), ErrCellTooLarge, "%d bytes > %d", n, limit)
		}
		total += n
	}
	return total, nil
}

// valuesSize sums the CellSize of the cells of values on row; with limit
// > 0, the first cell (in family, qualifier order) larger than limit is
// an error naming its column, field prefixed by prefix.
func valuesSize(op, prefix string, row []byte, values map[string]map[string][]byte, limit int) (int, error) {
	total, over := 0, false
	for f, qs := range values {
		for q, v := range qs {
			n := CellSize(row, f, q, v)
			total += n
			over = over || (limit > 0 && n > limit)
		}
	}
	if !over {
		return total, nil
	}
	for _, f := range slices.Sorted(maps.Keys(values)) {
		for _, q := range slices.Sorted(maps.Keys(values[f])) {
			if n := CellSize(row, f, q, values[f][q]); n > limit {
				return 0, invalidf(op, fmt.Sprintf("%sValues[%q][%q]", prefix, f, q), ErrCellTooLarge,
					"%d bytes > %d", n, limit)
			}
		}
	}
	return total, nil
}
