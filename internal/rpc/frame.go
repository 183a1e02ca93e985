package rpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/cellblock"
	"github.com/hbkit/hbkit/internal/pb"
)

// Preamble is the 6-byte connection preamble for SIMPLE authentication:
// magic "HBas", RPC version 0, auth method 80 (SIMPLE).
var preamble = [6]byte{'H', 'B', 'a', 's', 0, 0x50}

// DefaultMaxFrameSize bounds a response frame. HBase caps a scan response
// at 100 MiB by default; requests are capped by the server at 256 MiB.
const DefaultMaxFrameSize = 256 << 20

// fatalCallID is the smallest response call id that denotes a
// connection-level error: Java keeps ids in [0, 2^31-1] and answers a bad
// preamble or header with call id -1.
const fatalCallID = 1 << 31

// ErrFrameTooLarge is wrapped by ReadFrame when a frame announces more bytes
// than allowed.
var ErrFrameTooLarge = errors.New("rpc: frame too large")

var marshalOpts = proto.MarshalOptions{UseCachedSize: true}

// AppendHandshake appends the preamble and the ConnectionHeader (int32 BE
// length, then the raw message) to dst. On error dst is returned unchanged.
func AppendHandshake(dst []byte, hdr *pb.ConnectionHeader) ([]byte, error) {
	n := proto.Size(hdr)
	if n > DefaultMaxFrameSize {
		return dst, fmt.Errorf("rpc: connection header of %d bytes: %w", n, ErrFrameTooLarge)
	}
	dst = append(dst, preamble[:]...)
	return appendConnectionHeader(dst, hdr, len(dst)-len(preamble))
}

// appendConnectionHeader appends the ConnectionHeader alone (int32 BE
// length, then the message): after a SASL handshake it follows the
// handshake instead of the SIMPLE preamble. On error dst[:start] is
// returned.
func appendConnectionHeader(dst []byte, hdr *pb.ConnectionHeader, start int) ([]byte, error) {
	n := proto.Size(hdr)
	if n > DefaultMaxFrameSize {
		return dst[:start], fmt.Errorf("rpc: connection header of %d bytes: %w", n, ErrFrameTooLarge)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	out, err := marshalOpts.MarshalAppend(dst, hdr)
	if err != nil {
		return dst[:start], fmt.Errorf("rpc: marshal connection header: %w", err)
	}
	return out, nil
}

// AppendRequest appends one request frame to dst:
//
//	int32 BE total | varint len, RequestHeader | varint len, param
//
// param may be nil, which is sent as an empty message. The header must not
// announce a cell block (hbkit sends data inline). On error dst is returned
// unchanged.
func AppendRequest(dst []byte, hdr *pb.RequestHeader, param proto.Message) ([]byte, error) {
	if hdr.CellBlockMeta != nil {
		return dst, errors.New("rpc: request cell blocks are not supported")
	}
	hn := proto.Size(hdr)
	pn := 0
	if param != nil {
		pn = proto.Size(param)
	}
	total := protowire.SizeBytes(hn) + protowire.SizeBytes(pn)
	if total > DefaultMaxFrameSize {
		return dst, fmt.Errorf("rpc: request of %d bytes: %w", total, ErrFrameTooLarge)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = protowire.AppendVarint(dst, uint64(hn))
	var err error
	if dst, err = marshalOpts.MarshalAppend(dst, hdr); err != nil {
		return dst[:start], fmt.Errorf("rpc: marshal request header: %w", err)
	}
	dst = protowire.AppendVarint(dst, uint64(pn))
	if param != nil {
		if dst, err = marshalOpts.MarshalAppend(dst, param); err != nil {
			return dst[:start], fmt.Errorf("rpc: marshal request: %w", err)
		}
	}
	if len(dst)-start != 4+total {
		// A message changed while being marshalled (shared across goroutines).
		return dst[:start], errors.New("rpc: request changed during marshalling")
	}
	return dst, nil
}

// frameUpFront is the largest frame body allocated whole as soon as its
// length is read. A longer one grows, doubling, as its bytes arrive, so a
// bogus length costs at most this much memory before the read fails. It is
// well above a scan response of the default MaxResultSize (2 MiB plus one
// row), which then costs one allocation and no copy.
const frameUpFront = 8 << 20

// ReadFrame reads one frame (int32 BE length, then that many bytes) from r
// and returns its body. A frame longer than maxSize fails with
// ErrFrameTooLarge; memory for frames above frameUpFront is grown as bytes
// arrive, so a bogus length does not allocate maxSize up front. A clean EOF
// before the first byte returns io.EOF; a partial frame returns
// io.ErrUnexpectedEOF. The result is freshly allocated and does not alias
// any buffer of r.
func ReadFrame(r io.Reader, maxSize int) ([]byte, error) {
	n, err := readFrameLen(r, maxSize)
	if err != nil {
		return nil, err
	}
	return readFrameBody(r, n)
}

// readFrameLen reads a frame's length and checks it against maxSize.
func readFrameLen(r io.Reader, maxSize int) (int, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return 0, err
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n > math.MaxInt32 || int64(n) > int64(maxSize) {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, n, maxSize)
	}
	return int(n), nil
}

// readFrameBody reads a frame body of n bytes into new memory.
func readFrameBody(r io.Reader, n int) ([]byte, error) {
	if n <= frameUpFront {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, noEOF(err)
		}
		return b, nil
	}
	b := make([]byte, 0, frameUpFront)
	for len(b) < n {
		if len(b) == cap(b) {
			// Double (append grows large slices by only a quarter,
			// copying the frame many times over).
			nb := make([]byte, len(b), min(2*cap(b), n))
			copy(nb, b)
			b = nb
		}
		m, err := io.ReadFull(r, b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err != nil {
			return nil, noEOF(err)
		}
	}
	return b, nil
}

// FrameReuseMin is the smallest response frame that a Conn reads into the
// buffer its caller offered (WithFrameBuffer): below it, a frame costs
// little to allocate.
const FrameReuseMin = 32 << 10

// peekCallID returns the call id of the response frame whose first bytes
// are head (a prefix of the frame body): field 1 of the length-delimited
// ResponseHeader that starts the frame, the last one if repeated, as
// proto reads it. ok is false unless the whole header is in head and
// holds a call id.
func peekCallID(head []byte) (id uint32, ok bool) {
	h, n := protowire.ConsumeBytes(head)
	if n < 0 {
		return 0, false
	}
	for len(h) > 0 {
		num, typ, n := protowire.ConsumeTag(h)
		if n < 0 {
			return 0, false
		}
		h = h[n:]
		if num == 1 && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(h)
			if n < 0 || v > math.MaxUint32 {
				return 0, false
			}
			id, ok = uint32(v), true
			h = h[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, h)
		if n < 0 {
			return 0, false
		}
		h = h[n:]
	}
	return id, ok
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Response is a decoded response frame. Body and CellBlock alias the frame.
type Response struct {
	// Frame is the frame body the response was decoded from.
	Frame  []byte
	Header *pb.ResponseHeader
	// Body is the serialized response message; nil when Header.Exception is
	// set.
	Body []byte
	// CellBlock holds the trailing cell block announced by
	// Header.CellBlockMeta, or nil.
	CellBlock []byte
}

// DecodeResponse splits a response frame body (as returned by ReadFrame)
// into its header, message and cell block. It validates every length and
// never panics on malformed input.
func DecodeResponse(frame []byte) (Response, error) {
	r := Response{Frame: frame}
	hb, n := protowire.ConsumeBytes(frame)
	if n < 0 {
		return r, fmt.Errorf("rpc: malformed response header length: %w", protowire.ParseError(n))
	}
	r.Header = new(pb.ResponseHeader)
	if err := proto.Unmarshal(hb, r.Header); err != nil {
		return Response{}, fmt.Errorf("rpc: malformed response header: %w", err)
	}
	rest := frame[n:]
	if meta := r.Header.GetCellBlockMeta(); meta != nil {
		cl := int64(meta.GetLength())
		if cl > int64(len(rest)) {
			return Response{}, fmt.Errorf("rpc: cell block of %d bytes exceeds the %d bytes left in the frame", cl, len(rest))
		}
		r.CellBlock = rest[len(rest)-int(cl):]
		rest = rest[:len(rest)-int(cl)]
	}
	if r.Header.Exception != nil {
		return r, nil
	}
	if len(rest) == 0 {
		// No message: decode as an empty one.
		r.Body = rest
		return r, nil
	}
	body, n := protowire.ConsumeBytes(rest)
	if n < 0 {
		return Response{}, fmt.Errorf("rpc: malformed response length: %w", protowire.ParseError(n))
	}
	if n != len(rest) {
		return Response{}, fmt.Errorf("rpc: %d unexpected bytes after the response message", len(rest)-n)
	}
	r.Body = body
	return r, nil
}

// decodeBody unmarshals the response message of r into resp. When fill is
// set (the caller did not take the cell block with WithCellBlock), the
// cells of the block are moved into resp's Results as if they had been
// sent inline (cellblock.Fill), so code that reads protobuf cells works
// whether or not the connection announced a codec.
func decodeBody(r Response, resp proto.Message, fill bool) error {
	if err := proto.Unmarshal(r.Body, resp); err != nil {
		return err
	}
	if fill && len(r.CellBlock) > 0 {
		return cellblock.Fill(resp, r.CellBlock)
	}
	return nil
}
