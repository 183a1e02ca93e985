package rpc

import (
	"bufio"
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

// ErrCorruptAnswer says an answer was corrupted on the way (HBase's RPC
// carries no checksum) or the server sent nonsense. Two shapes wrap it,
// both retryable and both sent (RequestSent):
//
//   - a *ConnError, when the frame's lengths disagree with each other (the
//     header, message and announced cell block do not fill the frame):
//     where the next frame starts can no longer be trusted, so the
//     connection is closed and every call on it fails; the next call
//     through a Pool dials a fresh one;
//   - a *CorruptError, when the parts fill the frame exactly but the
//     message or cell block does not decode, or the caller's check
//     (WithCheck) rejects it: that call alone fails.
var ErrCorruptAnswer = errors.New("rpc: corrupt answer")

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

// frameHead is what the header of a response frame says about the frame.
type frameHead struct {
	id        uint32
	hasID     bool
	exception bool
	cellBlock uint64 // CellBlockMeta.length
	end       int    // where the length-delimited header ends
}

// parseHead reads the length-delimited ResponseHeader at the start of b,
// which must hold all of it, without unmarshalling it: only the fields
// that place the frame's parts, read as proto reads them (the last of
// repeated fields, uint32 fields truncated).
func parseHead(b []byte) (frameHead, error) {
	h, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return frameHead{}, fmt.Errorf("header length: %w", protowire.ParseError(n))
	}
	fh := frameHead{end: n}
	for len(h) > 0 {
		num, typ, k := protowire.ConsumeTag(h)
		if k < 0 {
			return frameHead{}, fmt.Errorf("header: %w", protowire.ParseError(k))
		}
		h = h[k:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, k := protowire.ConsumeVarint(h)
			if k < 0 {
				return frameHead{}, errors.New("header: bad call id")
			}
			fh.id, fh.hasID, h = uint32(v), true, h[k:] // truncated, as proto does
			continue
		case num == 2 && typ == protowire.BytesType:
			fh.exception = true
		case num == 3 && typ == protowire.BytesType:
			meta, k := protowire.ConsumeBytes(h)
			if k < 0 {
				return frameHead{}, fmt.Errorf("header: cell block meta: %w", protowire.ParseError(k))
			}
			// Repeated, the messages merge: the last length set wins.
			if l, set, ok := cellBlockLength(meta); !ok {
				return frameHead{}, errors.New("header: bad cell block meta")
			} else if set {
				fh.cellBlock = l
			}
		}
		k = protowire.ConsumeFieldValue(num, typ, h)
		if k < 0 {
			return frameHead{}, fmt.Errorf("header: %w", protowire.ParseError(k))
		}
		h = h[k:]
	}
	return fh, nil
}

// cellBlockLength returns field 1 (length) of a CellBlockMeta message and
// whether it is set; ok is false when the message is malformed.
func cellBlockLength(b []byte) (length uint64, set, ok bool) {
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return 0, false, false
		}
		b = b[k:]
		if num == 1 && typ == protowire.VarintType {
			v, k := protowire.ConsumeVarint(b)
			if k < 0 {
				return 0, false, false
			}
			length, set, b = uint64(uint32(v)), true, b[k:] // truncated, as proto does
			continue
		}
		if k = protowire.ConsumeFieldValue(num, typ, b); k < 0 {
			return 0, false, false
		}
		b = b[k:]
	}
	return length, set, true
}

// corrupt is the error of a frame whose parts do not add up.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorruptAnswer}, args...)...)
}

// readHead checks, before the body of a frame of n bytes is read, that
// its header parses and that its parts fill the frame exactly: header,
// then a length-delimited message (none is allowed), then the cell block
// the header announces. It peeks only at bytes the frame holds, one at a
// time beyond the header, so a length that is too long is caught without
// waiting for bytes that will not come. checked is false when the header
// does not fit br's buffer (a long exception): DecodeResponse checks the
// frame once read.
func readHead(br *bufio.Reader, n int) (fh frameHead, checked bool, err error) {
	hl, k, err := peekVarint(br, 0, n)
	if err != nil {
		return frameHead{}, false, err
	}
	if hl > uint64(n-k) {
		return frameHead{}, false, corrupt("a header of %d bytes in a frame of %d", hl, n)
	}
	end := k + int(hl)
	if end > br.Size() {
		return frameHead{}, false, nil
	}
	b, err := br.Peek(end)
	if err != nil {
		return frameHead{}, false, err
	}
	if fh, err = parseHead(b); err != nil {
		return frameHead{}, false, corrupt("%v", err)
	}
	rest := uint64(n - end)
	if fh.cellBlock > rest {
		return frameHead{}, false, corrupt("a cell block of %d bytes, %d left in the frame", fh.cellBlock, rest)
	}
	if rest -= fh.cellBlock; rest == 0 {
		return fh, true, nil
	}
	if end+binary.MaxVarintLen64 > br.Size() {
		return fh, false, nil
	}
	ml, k, err := peekVarint(br, end, end+int(rest))
	if err != nil {
		return frameHead{}, false, err
	}
	if uint64(k)+ml != rest {
		return frameHead{}, false, corrupt("a message of %d bytes and a cell block of %d in the %d bytes after the header",
			ml, fh.cellBlock, rest)
	}
	return fh, true, nil
}

// peekVarint peeks at the varint at offset off of br, which must end
// before limit, reading one byte more at a time.
func peekVarint(br *bufio.Reader, off, limit int) (v uint64, size int, err error) {
	for k := 1; k <= binary.MaxVarintLen64; k++ {
		if off+k > limit {
			break
		}
		b, err := br.Peek(off + k)
		if err != nil {
			return 0, 0, err
		}
		if b[off+k-1] < 0x80 {
			v, n := protowire.ConsumeVarint(b[off:])
			if n < 0 {
				return 0, 0, corrupt("varint at byte %d: %v", off, protowire.ParseError(n))
			}
			return v, n, nil
		}
	}
	return 0, 0, corrupt("a length at byte %d runs past the frame's %d bytes", off, limit)
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
