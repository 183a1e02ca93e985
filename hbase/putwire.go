package hbase

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hbkit/hbkit/hbase/internal/flat"
	"github.com/hbkit/hbkit/internal/pb"
)

// A Put whose MutationProto is up to 1 KiB in a Batch is encoded straight
// from its cells into the bytes of its Action's mutation field, which the
// Action carries as an unknown field: proto.Marshal copies those bytes as
// they are, after the Action's index (field 1), so the request is byte for
// byte what the Action with its MutationProto set would give
// (TestPutWireMatchesProto), without building the MutationProto, its
// ColumnValues and QualifierValues, and walking them again to size and
// marshal them. A Batch of small Puts is most of what an indexed write
// sends; larger Puts keep the generated message (maxPutWire).

// Field numbers of MutationProto and its nested messages (Client.proto),
// all below 16: each tag is one byte, as the sizes below count it.
const (
	fieldActionMutation = 2

	fieldMutationRow         = 1
	fieldMutationType        = 2
	fieldMutationColumnValue = 3
	fieldMutationTimestamp   = 4
	fieldMutationDurability  = 6

	fieldColumnFamily = 1
	fieldColumnQV     = 2

	fieldQVQualifier = 1
	fieldQVValue     = 2
	fieldQVTimestamp = 3
)

// maxPutWire is the largest MutationProto putActionField encodes for a
// Batch. Its bytes copy the Put's row and values once more than the
// generated message does (which points at them, Marshal then copying
// them into the request), and are kept until the Batch returns: for
// small Puts that costs less than building the message, for larger ones
// more. BenchmarkEncodeMulti, 1,000 Puts of one cell: values of 5 B 325
// against 665-685 µs through putToPB, 512 B 498-503 against 646-654, 1 KiB
// 652-663 against 624-633, 16 KiB 4.8-5.0 ms and 18.6 MB against 1.8 ms
// and 0.58 MB.
const maxPutWire = 1 << 10

// putActionField returns field 2 (mutation) of an Action for the valid
// Put p of row, tag and length included, or false when its MutationProto
// would be larger than limit bytes.
func putActionField(p *Put, row []byte, limit int) (protoreflect.RawFields, bool) {
	var cells [8]PutCell
	var fams [4]famRun
	w := putWire{p: p, row: row, cols: putCells(cells[:0], p)}
	if t := wireTimestamp(p.Timestamp); t != nil {
		w.ts, w.hasTS = *t, true
	}
	var n int
	n, w.fams = w.measure(fams[:0])
	if n > limit {
		return nil, false
	}
	b := make([]byte, 0, protowire.SizeTag(fieldActionMutation)+protowire.SizeBytes(n))
	b = protowire.AppendTag(b, fieldActionMutation, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	return w.append(b), true
}

// putWire is one Put on its way into bytes: its cells sorted, its
// timestamp (hasTS: on every cell, as putToPB sets it), and the runs of
// cells of one family with the size of their ColumnValue, which measure
// counts once for the sizes and append reuses for the length prefixes.
type putWire struct {
	p     *Put
	row   []byte
	cols  []PutCell
	fams  []famRun
	ts    uint64
	hasTS bool
}

// famRun is the cells cols[previous run's end:end] of one family, and the
// size of their ColumnValue.
type famRun struct{ end, size int }

// qvSize is the size of the QualifierValue of c.
func (w putWire) qvSize(c *PutCell) int {
	n := 1 + protowire.SizeBytes(len(c.Qualifier)) + 1 + protowire.SizeBytes(len(c.Value))
	if w.hasTS {
		n += 1 + protowire.SizeVarint(w.ts)
	}
	return n
}

// measure returns the size of the Put's MutationProto, and its runs of
// one family appended to fams.
func (w putWire) measure(fams []famRun) (int, []famRun) {
	n := 1 + protowire.SizeBytes(len(w.row)) + 1 + protowire.SizeVarint(uint64(pb.MutationProto_PUT))
	for i := 0; i < len(w.cols); {
		fam := w.cols[i].Family
		size := 1 + protowire.SizeBytes(len(fam))
		for ; i < len(w.cols) && w.cols[i].Family == fam; i++ {
			size += 1 + protowire.SizeBytes(w.qvSize(&w.cols[i]))
		}
		fams = append(fams, famRun{end: i, size: size})
		n += 1 + protowire.SizeBytes(size)
	}
	if w.hasTS {
		n += 1 + protowire.SizeVarint(w.ts)
	}
	if d := durability(w.p.Durability); d != nil {
		n += 1 + protowire.SizeVarint(uint64(*d))
	}
	return n, fams
}

// append appends the Put's MutationProto (w.fams set by measure), fields in
// number order as proto.Marshal writes them.
func (w putWire) append(b []byte) []byte {
	b = protowire.AppendTag(b, fieldMutationRow, protowire.BytesType)
	b = protowire.AppendBytes(b, w.row)
	b = protowire.AppendTag(b, fieldMutationType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(pb.MutationProto_PUT))
	i := 0
	for _, f := range w.fams {
		b = protowire.AppendTag(b, fieldMutationColumnValue, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(f.size))
		b = protowire.AppendTag(b, fieldColumnFamily, protowire.BytesType)
		b = protowire.AppendString(b, w.cols[i].Family)
		for ; i < f.end; i++ {
			c := &w.cols[i]
			b = protowire.AppendTag(b, fieldColumnQV, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(w.qvSize(c)))
			b = protowire.AppendTag(b, fieldQVQualifier, protowire.BytesType)
			b = protowire.AppendString(b, c.Qualifier)
			b = protowire.AppendTag(b, fieldQVValue, protowire.BytesType)
			b = protowire.AppendBytes(b, c.Value)
			if w.hasTS {
				b = protowire.AppendTag(b, fieldQVTimestamp, protowire.VarintType)
				b = protowire.AppendVarint(b, w.ts)
			}
		}
	}
	if w.hasTS {
		b = protowire.AppendTag(b, fieldMutationTimestamp, protowire.VarintType)
		b = protowire.AppendVarint(b, w.ts)
	}
	if d := durability(w.p.Durability); d != nil {
		b = protowire.AppendTag(b, fieldMutationDurability, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*d))
	}
	return b
}

// putCells returns the cells of p sorted by family then qualifier: its
// Cells when sorted (as a schema encodes them), else in dst's memory when
// it holds them.
func putCells(dst []PutCell, p *Put) []PutCell {
	if len(p.Cells) > 0 {
		return p.SortedCells()
	}
	return valueCells(dst, p.Values)
}

// valueCells appends the cells of values sorted by family then qualifier
// to dst.
func valueCells(dst []PutCell, values map[string]map[string][]byte) []PutCell {
	var cols [8]flat.Col[[]byte]
	for _, c := range flat.MapInto(cols[:0], values) {
		dst = append(dst, PutCell{Family: c.Family, Qualifier: c.Qualifier, Value: c.V})
	}
	return dst
}

// camActions returns the mutations of the validated cam as the numbered
// actions of its atomic RegionAction, its Puts of up to maxPutWire
// bytes encoded straight into their bytes (putActionField).
func camActions(cam *CheckAndMutate) ([]*pb.Action, error) {
	n := len(cam.Mutations)
	acts, idx, out := make([]pb.Action, n), make([]uint32, n), make([]*pb.Action, n)
	for i, m := range cam.Mutations {
		a := &acts[i]
		idx[i], a.Index, out[i] = uint32(i), &idx[i], a
		if p, ok := m.(*Put); ok {
			if raw, ok := putActionField(p, cam.Row, maxPutWire); ok {
				a.ProtoReflect().SetUnknown(raw)
				continue
			}
		}
		mp, err := mutationToPB(m, cam.Row)
		if err != nil {
			return nil, err
		}
		a.Mutation = mp
	}
	return out, nil
}
