// Package cellblock decodes the cell blocks that HBase appends to RPC
// responses when a connection announces a cell codec
// (rpc.WithCellBlockCodec), in the format of
// org.apache.hadoop.hbase.codec.KeyValueCodec.
//
// It is for hbkit's native client only, as an optimisation: without a codec
// every cell travels inline in the protobuf Result messages and this
// package is not needed. Nothing outside hbkit should import it.
//
// A block is a sequence of KeyValue entries:
//
//	int32 BE  total = 8 + keyLength + valueLength [+ 2 + tagsLength]
//	int32 BE  keyLength
//	int32 BE  valueLength
//	key:      int16 BE rowLength, row, uint8 familyLength, family,
//	          qualifier, int64 BE timestamp, uint8 type
//	value
//	[int16 BE tagsLength, tags]   (KeyValueCodecWithTags only; skipped)
//
// The results of a response take their cells from the block in order:
// Result.associated_cell_count cells each for Get, Mutate and Multi, and
// ScanResponse.cells_per_result[i] cells for the i-th scan result.
//
// Decoders validate every length, return errors rather than panic on any
// input, and return cells whose byte slices alias the block: the block
// (an RPC frame) is never reused by internal/rpc, so this is safe, but
// callers must not modify it.
//
// Two ways in. The fast one is DecodeCell, entry by entry, into the
// caller's own cell type: package hbase decodes the blocks of its Get,
// Mutate, Multi and Scan responses that way, with CheckCount bounding the
// counts it allocates for. The generic one is Fill, which rebuilds
// protobuf cells inside the response's Results (about seven allocations a
// cell); internal/rpc applies it to any response whose caller did not
// take the block (rpc.WithCellBlock), so code that reads protobuf cells,
// such as hbase:meta lookups, works on a connection with a codec.
package cellblock
