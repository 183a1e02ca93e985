package hbase

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// BenchmarkIndexedPutWire counts what one PutBatch of 100 SMS costs from
// the record down to the bytes on the wire: dao and the index protocol
// (verification sent synchronously) over the native client, whose
// requests go through its RPC layer to sinkServer, an in-process region
// server that answers every call with success and allocates nothing per
// call once warm, so that the allocations counted are the client side's
// (dao's BenchmarkIndexedPutAllocs stops at the client interface).
// allocs/record is the allocations per indexed put: strict, mutable and
// insert-only 90.4, 62.1 and 62.8 (904, 665 and 574 KB per PutBatch) on
// f3fe174 with this benchmark; 49.6, 37.2 and 34.9 (705, 660 and 449 KB)
// on branch e3-alloc (a64f803), -count 5 in the same window.
func BenchmarkIndexedPutWire(b *testing.B) {
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]*seeds.SMS, 100)
	for i := range recs {
		recs[i] = &seeds.SMS{Mobile: "138" + strconv.Itoa(10_000_000+i), SentAt: day.Add(time.Duration(i) * time.Second),
			Account: "acct" + strconv.Itoa(i%50), Content: "您的验证码是123456,5分钟内有效。", Delivered: i%2 == 0}
	}
	for _, mode := range []schema.WriteMode{schema.Strict, schema.Mutable, schema.InsertOnly} {
		b.Run(mode.String(), func(b *testing.B) {
			// Only the data calls, as on dao's nopClient: the index's state
			// is not read.
			c := struct{ DataClient }{newTestClient(b, sinkDial(b), nil)}
			repo, err := seedstore.NewSMS(c, dao.WithAsyncVerify(false), dao.WithWriteMode(mode))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := repo.PutBatch(ctx, recs); err != nil { // locate the tables
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := repo.PutBatch(ctx, recs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(testing.AllocsPerRun(10, func() { _, _ = repo.PutBatch(ctx, recs) }))/float64(len(recs)), "allocs/record")
		})
	}
}

// sinkDial returns a dial function whose connections are served by
// sinkServer.
func sinkDial(tb testing.TB) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		client, server := net.Pipe()
		go (&sinkServer{tb: tb}).serve(server)
		return client, nil
	}
}

// sinkServer is a region server that hosts every table in one region
// (and hbase:meta) and answers every Get with an empty result, every
// Mutate and every action of a Multi with success, without storing
// anything. Calls are parsed and answered with protowire into buffers it
// reuses; only meta scans (the client's first lookup of each table) go
// through generated messages.
type sinkServer struct {
	tb        testing.TB
	in, out   []byte
	msg       []byte
	regionEnd []int // per RegionAction of a Multi: its number of actions
}

func (s *sinkServer) serve(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	var pre [6]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return
	}
	if _, err := rpc.ReadFrame(r, 1<<20); err != nil { // ConnectionHeader
		return
	}
	for {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return
		}
		size := int(binary.BigEndian.Uint32(n[:]))
		if cap(s.in) < size {
			s.in = make([]byte, size)
		}
		s.in = s.in[:size]
		if _, err := io.ReadFull(r, s.in); err != nil {
			return
		}
		hdr, k := protowire.ConsumeBytes(s.in)
		param, m := protowire.ConsumeBytes(s.in[max(k, 0):])
		if k < 0 || m < 0 {
			s.tb.Errorf("sink server: bad request frame")
			return
		}
		callID, method := s.header(hdr)
		s.msg = s.answer(s.msg[:0], method, param)
		if _, err := nc.Write(s.frame(callID)); err != nil {
			return
		}
	}
}

// header returns the call id and method name of a RequestHeader.
func (s *sinkServer) header(hdr []byte) (callID uint64, method []byte) {
	for len(hdr) > 0 {
		num, typ, n := protowire.ConsumeTag(hdr)
		if n < 0 {
			break
		}
		hdr = hdr[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			callID, n = protowire.ConsumeVarint(hdr)
		case num == 3 && typ == protowire.BytesType:
			method, n = protowire.ConsumeBytes(hdr)
		default:
			n = protowire.ConsumeFieldValue(num, typ, hdr)
		}
		if n < 0 {
			break
		}
		hdr = hdr[n:]
	}
	return callID, method
}

// frame returns the response frame of callID carrying s.msg.
func (s *sinkServer) frame(callID uint64) []byte {
	hdrLen := 1 + protowire.SizeVarint(callID)
	body := protowire.SizeBytes(hdrLen) + protowire.SizeBytes(len(s.msg))
	b := binary.BigEndian.AppendUint32(s.out[:0], uint32(body))
	b = protowire.AppendVarint(b, uint64(hdrLen))
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, callID)
	b = protowire.AppendBytes(b, s.msg)
	s.out = b
	return b
}

// answer appends the response message of a call of method to b.
func (s *sinkServer) answer(b []byte, method, param []byte) []byte {
	switch string(method) {
	case "Scan":
		return s.metaScan(b, param)
	case "Get":
		return append(b, 0x0a, 0x00) // result: {}
	case "Mutate":
		return append(b, 0x0a, 0x00, 0x10, 0x01) // result: {}, processed: true
	case "Multi":
		return s.multi(b, param)
	}
	s.tb.Errorf("sink server: unexpected call %s", method)
	return b
}

// each calls fn with the value of each length-delimited field num of msg.
func each(msg []byte, num protowire.Number, fn func(v []byte)) {
	for len(msg) > 0 {
		n, typ, k := protowire.ConsumeTag(msg)
		if k < 0 {
			return
		}
		msg = msg[k:]
		k = protowire.ConsumeFieldValue(n, typ, msg)
		if k < 0 {
			return
		}
		if n == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(msg[:k])
			fn(v)
		}
		msg = msg[k:]
	}
}

// actionIndex returns the index (field 1) of an Action.
func actionIndex(a []byte) uint64 {
	for len(a) > 0 {
		n, typ, k := protowire.ConsumeTag(a)
		if k < 0 {
			return 0
		}
		a = a[k:]
		if n == 1 && typ == protowire.VarintType {
			v, _ := protowire.ConsumeVarint(a)
			return v
		}
		if k = protowire.ConsumeFieldValue(n, typ, a); k < 0 {
			return 0
		}
		a = a[k:]
	}
	return 0
}

// roeSize is the size of the ResultOrException {index, result: {}}.
func roeSize(idx uint64) int { return 1 + protowire.SizeVarint(idx) + 2 }

// multi appends the MultiResponse to a MultiRequest: per RegionAction a
// RegionActionResult, processed, with an empty result per action.
func (s *sinkServer) multi(b, req []byte) []byte {
	s.regionEnd = s.regionEnd[:0]
	each(req, 1, func(ra []byte) {
		size := 2 // processed: true
		each(ra, 3, func(a []byte) { size += 1 + protowire.SizeBytes(roeSize(actionIndex(a))) })
		s.regionEnd = append(s.regionEnd, size)
	})
	i := 0
	each(req, 1, func(ra []byte) {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(s.regionEnd[i]))
		i++
		each(ra, 3, func(a []byte) {
			idx := actionIndex(a)
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(roeSize(idx)))
			b = protowire.AppendTag(b, 1, protowire.VarintType)
			b = protowire.AppendVarint(b, idx)
			b = append(b, 0x12, 0x00) // result: {}
		})
		b = append(b, 0x18, 0x01) // processed: true
	})
	return b
}

// metaScan answers a lookup in hbase:meta with the one region of the
// table it names, hosted by this server.
func (s *sinkServer) metaScan(b, param []byte) []byte {
	var req pb.ScanRequest
	if err := proto.Unmarshal(param, &req); err != nil {
		s.tb.Errorf("sink server: scan: %v", err)
		return b
	}
	resp := &pb.ScanResponse{MoreResults: proto.Bool(false), MoreResultsInRegion: proto.Bool(false)}
	start := req.GetScan().GetStartRow()
	if i := bytes.IndexByte(start, ','); i > 0 {
		ns, q := []byte("default"), start[:i]
		if j := bytes.IndexByte(q, ':'); j >= 0 {
			ns, q = q[:j], q[j+1:]
		}
		ri, _ := proto.Marshal(&pb.RegionInfo{RegionId: proto.Uint64(1), TableName: &pb.TableName{Namespace: ns, Qualifier: q}})
		name := append(bytes.Clone(start[:i]), ",,1.sink."...)
		cell := func(q, v string) *pb.Cell {
			return &pb.Cell{Row: name, Family: []byte("info"), Qualifier: []byte(q), Value: []byte(v)}
		}
		resp.Results = []*pb.Result{{Cell: []*pb.Cell{cell("regioninfo", "PBUF"+string(ri)), cell("server", "rs1:16020"), cell("state", "OPEN")}}}
	}
	out, err := proto.MarshalOptions{}.MarshalAppend(b, resp)
	if err != nil {
		s.tb.Errorf("sink server: %v", err)
	}
	return out
}
