package hbase

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hbkit/hbkit/internal/pb"
)

// A Put of up to 1 KiB of wire bytes in a Batch is encoded straight from
// its map into the bytes of its Action's mutation field, which the Action
// carries as an unknown field: proto.Marshal copies those bytes as they
// are, after the Action's index (field 1), so the request is byte for
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
// Put p, tag and length included, or false when its MutationProto would
// be larger than limit bytes.
func putActionField(p *Put, limit int) (protoreflect.RawFields, bool) {
	var small [8]flatCol[[]byte]
	cols := flattenMapInto(small[:0], p.Values)
	ts, hasTS := uint64(0), false
	if t := wireTimestamp(p.Timestamp); t != nil {
		ts, hasTS = *t, true
	}
	n := putMutationSize(p, cols, ts, hasTS)
	if n > limit {
		return nil, false
	}
	b := make([]byte, 0, protowire.SizeTag(fieldActionMutation)+protowire.SizeBytes(n))
	b = protowire.AppendTag(b, fieldActionMutation, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	return appendPutMutation(b, p, cols, ts, hasTS), true
}

// qvSize is the size of one QualifierValue of a Put (timestamp on every
// cell when the Put has one, as putToPB sets it).
func qvSize(c *flatCol[[]byte], ts uint64, hasTS bool) int {
	n := 1 + protowire.SizeBytes(len(c.qualifier)) + 1 + protowire.SizeBytes(len(c.v))
	if hasTS {
		n += 1 + protowire.SizeVarint(ts)
	}
	return n
}

// familySize is the size of the ColumnValue of the family of cols[0],
// whose cells are cols[:end], and end.
func familySize(cols []flatCol[[]byte], ts uint64, hasTS bool) (size, end int) {
	fam := cols[0].family
	size = 1 + protowire.SizeBytes(len(fam))
	for end = 0; end < len(cols) && cols[end].family == fam; end++ {
		size += 1 + protowire.SizeBytes(qvSize(&cols[end], ts, hasTS))
	}
	return size, end
}

// putMutationSize is the size of p's MutationProto.
func putMutationSize(p *Put, cols []flatCol[[]byte], ts uint64, hasTS bool) int {
	n := 1 + protowire.SizeBytes(len(p.Row)) + 1 + protowire.SizeVarint(uint64(pb.MutationProto_PUT))
	for rest := cols; len(rest) > 0; {
		size, end := familySize(rest, ts, hasTS)
		n += 1 + protowire.SizeBytes(size)
		rest = rest[end:]
	}
	if hasTS {
		n += 1 + protowire.SizeVarint(ts)
	}
	if d := durability(p.Durability); d != nil {
		n += 1 + protowire.SizeVarint(uint64(*d))
	}
	return n
}

// appendPutMutation appends p's MutationProto, fields in number order as
// proto.Marshal writes them.
func appendPutMutation(b []byte, p *Put, cols []flatCol[[]byte], ts uint64, hasTS bool) []byte {
	b = protowire.AppendTag(b, fieldMutationRow, protowire.BytesType)
	b = protowire.AppendBytes(b, p.Row)
	b = protowire.AppendTag(b, fieldMutationType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(pb.MutationProto_PUT))
	for rest := cols; len(rest) > 0; {
		size, end := familySize(rest, ts, hasTS)
		b = protowire.AppendTag(b, fieldMutationColumnValue, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(size))
		b = protowire.AppendTag(b, fieldColumnFamily, protowire.BytesType)
		b = protowire.AppendString(b, rest[0].family)
		for i := range rest[:end] {
			c := &rest[i]
			b = protowire.AppendTag(b, fieldColumnQV, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(qvSize(c, ts, hasTS)))
			b = protowire.AppendTag(b, fieldQVQualifier, protowire.BytesType)
			b = protowire.AppendString(b, c.qualifier)
			b = protowire.AppendTag(b, fieldQVValue, protowire.BytesType)
			b = protowire.AppendBytes(b, c.v)
			if hasTS {
				b = protowire.AppendTag(b, fieldQVTimestamp, protowire.VarintType)
				b = protowire.AppendVarint(b, ts)
			}
		}
		rest = rest[end:]
	}
	if hasTS {
		b = protowire.AppendTag(b, fieldMutationTimestamp, protowire.VarintType)
		b = protowire.AppendVarint(b, ts)
	}
	if d := durability(p.Durability); d != nil {
		b = protowire.AppendTag(b, fieldMutationDurability, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(*d))
	}
	return b
}
