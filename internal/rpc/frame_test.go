package rpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

func TestAppendHandshake(t *testing.T) {
	hdr := &pb.ConnectionHeader{
		UserInfo:    &pb.UserInformation{EffectiveUser: proto.String("u")},
		ServiceName: proto.String("ClientService"),
	}
	got, err := AppendHandshake([]byte("x"), hdr)
	if err != nil {
		t.Fatalf("AppendHandshake: %v", err)
	}
	// 0a 03 (0a 01 'u') | 12 0d "ClientService"
	body := append([]byte{0x0a, 0x03, 0x0a, 0x01, 'u', 0x12, 0x0d}, "ClientService"...)
	want := append([]byte("xHBas\x00\x50"), 0, 0, 0, byte(len(body)))
	want = append(want, body...)
	if !bytes.Equal(got, want) {
		t.Errorf("got %x, want %x", got, want)
	}
	// A missing required field fails and leaves dst unchanged.
	got, err = AppendHandshake([]byte("x"), &pb.ConnectionHeader{UserInfo: &pb.UserInformation{}})
	if err == nil || string(got) != "x" {
		t.Errorf("AppendHandshake(incomplete) = %q, %v; want \"x\" and an error", got, err)
	}
}

func TestAppendRequest(t *testing.T) {
	hdr := &pb.RequestHeader{
		CallId:       proto.Uint32(7),
		MethodName:   proto.String("IsMasterRunning"),
		RequestParam: proto.Bool(true),
	}
	got, err := AppendRequest(nil, hdr, &pb.IsMasterRunningRequest{})
	if err != nil {
		t.Fatalf("AppendRequest: %v", err)
	}
	// header: 08 07 | 1a 0f "IsMasterRunning" | 20 01 (21 bytes); empty param.
	h := append(append([]byte{0x08, 0x07, 0x1a, 0x0f}, "IsMasterRunning"...), 0x20, 0x01)
	want := []byte{0, 0, 0, byte(1 + len(h) + 1), byte(len(h))}
	want = append(want, h...)
	want = append(want, 0x00)
	if !bytes.Equal(got, want) {
		t.Errorf("got %x, want %x", got, want)
	}

	// nil param is an empty message too.
	got2, err := AppendRequest(nil, hdr, nil)
	if err != nil || !bytes.Equal(got2, want) {
		t.Errorf("AppendRequest(nil param) = %x, %v; want %x", got2, err, want)
	}

	// Errors leave dst unchanged.
	dst := []byte("keep")
	out, err := AppendRequest(dst, hdr, &pb.GetTableStateRequest{})
	if err == nil || string(out) != "keep" {
		t.Errorf("AppendRequest(missing required) = %q, %v; want \"keep\" and an error", out, err)
	}
	cb := proto.Clone(hdr).(*pb.RequestHeader)
	cb.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(1)}
	if out, err := AppendRequest(dst, cb, nil); err == nil || string(out) != "keep" {
		t.Errorf("AppendRequest(cell block) = %q, %v; want \"keep\" and an error", out, err)
	}
}

// TestAppendRequestAllocs enforces that encoding into a buffer with enough
// capacity does not allocate.
func TestAppendRequestAllocs(t *testing.T) {
	hdr, req := benchRequest()
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		buf, err = AppendRequest(buf[:0], hdr, req)
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendRequest allocates %v times per call, want 0", allocs)
	}
}

func frameOf(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func TestReadFrame(t *testing.T) {
	mid := bytes.Repeat([]byte{0xcd}, 3<<20)             // one allocation
	big := bytes.Repeat([]byte{0xab}, 2*frameUpFront+17) // exercises the growing path
	tests := []struct {
		name    string
		in      []byte
		max     int
		want    []byte
		wantErr error
	}{
		{"empty frame", frameOf(nil), 16, []byte{}, nil},
		{"small", frameOf([]byte("abc")), 16, []byte("abc"), nil},
		{"mid", frameOf(mid), 4 << 20, mid, nil},
		{"large", frameOf(big), 4 * frameUpFront, big, nil},
		{"large at limit", frameOf(big), len(big), big, nil},
		{"at limit", frameOf([]byte("abcd")), 4, []byte("abcd"), nil},
		{"over limit", frameOf([]byte("abcde")), 4, nil, ErrFrameTooLarge},
		{"negative length", []byte{0xff, 0xff, 0xff, 0xff}, DefaultMaxFrameSize, nil, ErrFrameTooLarge},
		{"clean EOF", nil, 16, nil, io.EOF},
		{"short length", []byte{0, 0}, 16, nil, io.ErrUnexpectedEOF},
		{"short body", []byte{0, 0, 0, 4, 'a'}, 16, nil, io.ErrUnexpectedEOF},
		{"short mid body", frameOf(mid)[:2<<20], 4 << 20, nil, io.ErrUnexpectedEOF},
		{"short large body", frameOf(big)[:frameUpFront+3<<20], 4 * frameUpFront, nil, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, to exercise short reads.
			got, err := ReadFrame(iotest.HalfReader(bytes.NewReader(tt.in)), tt.max)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && !bytes.Equal(got, tt.want) {
				t.Errorf("got %d bytes %.16x, want %d bytes %.16x", len(got), got, len(tt.want), tt.want)
			}
		})
	}
}

// responseFrame builds a response frame body from raw parts.
func responseFrame(t testing.TB, hdr *pb.ResponseHeader, body []byte, cells []byte) []byte {
	hb, err := proto.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	b := protowire.AppendBytes(nil, hb)
	if body != nil {
		b = protowire.AppendBytes(b, body)
	}
	return append(b, cells...)
}

func TestDecodeResponse(t *testing.T) {
	ok := func(id uint32) *pb.ResponseHeader { return &pb.ResponseHeader{CallId: proto.Uint32(id)} }
	withCells := &pb.ResponseHeader{CallId: proto.Uint32(3), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(4)}}
	exc := &pb.ResponseHeader{CallId: proto.Uint32(4), Exception: &pb.ExceptionResponse{ExceptionClassName: proto.String("X")}}
	tests := []struct {
		name      string
		frame     []byte
		wantID    uint32
		wantBody  []byte
		wantCells []byte
		wantErr   string
	}{
		{"body", responseFrame(t, ok(1), []byte{0x08, 0x01}, nil), 1, []byte{0x08, 0x01}, nil, ""},
		{"empty body", responseFrame(t, ok(2), []byte{}, nil), 2, []byte{}, nil, ""},
		{"no body", responseFrame(t, ok(2), nil, nil), 2, []byte{}, nil, ""},
		{"cell block", responseFrame(t, withCells, []byte{0x08, 0x01}, []byte{1, 2, 3, 4}), 3, []byte{0x08, 0x01}, []byte{1, 2, 3, 4}, ""},
		{"exception", responseFrame(t, exc, nil, nil), 4, nil, nil, ""},
		{"empty frame", nil, 0, nil, nil, "malformed response header length"},
		{"header overruns", []byte{0x05, 0x08}, 0, nil, nil, "malformed response header length"},
		{"bad header", []byte{0x01, 0xff}, 0, nil, nil, "malformed response header"},
		{"body overruns", append(responseFrame(t, ok(1), nil, nil), 0x09, 0x01), 0, nil, nil, "malformed response length"},
		{"trailing bytes", append(responseFrame(t, ok(1), []byte{}, nil), 0x01), 0, nil, nil, "unexpected bytes"},
		{"cell block overruns", responseFrame(t, withCells, nil, []byte{1}), 0, nil, nil, "exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponse(tt.frame)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			if got := r.Header.GetCallId(); got != tt.wantID {
				t.Errorf("call id = %d, want %d", got, tt.wantID)
			}
			if !bytes.Equal(r.Body, tt.wantBody) || (r.Body == nil) != (tt.wantBody == nil) {
				t.Errorf("body = %x (nil %v), want %x (nil %v)", r.Body, r.Body == nil, tt.wantBody, tt.wantBody == nil)
			}
			if !bytes.Equal(r.CellBlock, tt.wantCells) {
				t.Errorf("cell block = %x, want %x", r.CellBlock, tt.wantCells)
			}
		})
	}
}

func TestExceptionMessage(t *testing.T) {
	tests := []struct {
		name, class, trace, want string
	}{
		{"plain", "a.B", "a.B: boom\n\tat x.y(Z.java:1)\n", "boom"},
		{"multi-line", "a.B", "a.B: one\ntwo\n\tat x", "one\ntwo"},
		{"no message", "a.B", "a.B\n\tat x", ""},
		{"other class first", "a.B", "c.D: wrapped\n\tat x", "c.D: wrapped"},
		{"empty", "a.B", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exceptionMessage(tt.class, tt.trace); got != tt.want {
				t.Errorf("exceptionMessage(%q, %q) = %q, want %q", tt.class, tt.trace, got, tt.want)
			}
		})
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add(frameOf([]byte("abc")))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0x10, 0, 0, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 1 << 22
		got, err := ReadFrame(bytes.NewReader(in), max)
		if err != nil {
			return
		}
		if len(got) > max || len(in) < 4+len(got) {
			t.Fatalf("frame of %d bytes from %d input bytes", len(got), len(in))
		}
		if !bytes.Equal(got, in[4:4+len(got)]) {
			t.Fatalf("frame %x is not the input %x", got, in)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add(responseFrame(f, &pb.ResponseHeader{CallId: proto.Uint32(1)}, []byte{0x08, 0x01}, nil))
	f.Add(responseFrame(f, &pb.ResponseHeader{CallId: proto.Uint32(3), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(2)}}, []byte{}, []byte{9, 9}))
	f.Add(responseFrame(f, &pb.ResponseHeader{CallId: proto.Uint32(0xffffffff), Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException"),
		StackTrace:         proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException: x\n\tat y"),
	}}, nil, nil))
	f.Fuzz(func(t *testing.T, frame []byte) {
		r, err := DecodeResponse(frame)
		if err != nil {
			return
		}
		if len(r.Body)+len(r.CellBlock) > len(frame) {
			t.Fatalf("body %d + cells %d bytes from a %d-byte frame", len(r.Body), len(r.CellBlock), len(frame))
		}
		if x := r.Header.GetException(); x != nil {
			_ = newRemoteError(x).Error()
			return
		}
		var resp pb.GetResponse
		_ = proto.Unmarshal(r.Body, &resp)
	})
}

func TestPeekCallID(t *testing.T) {
	meta := &pb.CellBlockMeta{Length: proto.Uint32(9)}
	full := responseFrame(t, &pb.ResponseHeader{CallId: proto.Uint32(70000), CellBlockMeta: meta}, []byte{}, nil)
	metaFirst := protowire.AppendTag(nil, 3, protowire.BytesType)
	mb, err := proto.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	metaFirst = protowire.AppendBytes(metaFirst, mb)
	metaFirst = protowire.AppendTag(metaFirst, 1, protowire.VarintType)
	metaFirst = protowire.AppendVarint(metaFirst, 42)
	tests := []struct {
		name   string
		head   []byte
		want   uint32
		wantOK bool
	}{
		{"call id first", full, 70000, true},
		{"call id after another field", protowire.AppendBytes(nil, metaFirst), 42, true},
		{"truncated before the id's value", full[:3], 0, false},
		{"header longer than the bytes peeked", full[:len(full)-2], 0, false},
		{"repeated: the last wins", protowire.AppendBytes(nil, []byte{0x08, 0x01, 0x08, 0x02}), 2, true},
		{"no call id", responseFrame(t, &pb.ResponseHeader{CellBlockMeta: meta}, nil, nil), 0, false},
		{"id beyond the header", append(protowire.AppendVarint(nil, 0), 0x08, 0x05), 0, false},
		{"header of another field's bytes", protowire.AppendBytes(nil, []byte{0x1a, 0x02, 0x08, 0x05}), 0, false},
		{"empty", nil, 0, false},
		{"bad length", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0, false},
		{"id out of range", append(protowire.AppendVarint(nil, 6), protowire.AppendVarint([]byte{0x08}, 1<<33)...), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := peekCallID(tt.head)
			if id != tt.want || ok != tt.wantOK {
				t.Errorf("peekCallID(%x) = %d, %v; want %d, %v", tt.head, id, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzPeekCallID: arbitrary bytes never panic, and a call id found in a
// header proto accepts is the one proto reads (a frame read into the wrong call's
// buffer would corrupt that call's response).
func FuzzPeekCallID(f *testing.F) {
	f.Add(responseFrame(f, &pb.ResponseHeader{CallId: proto.Uint32(7)}, nil, nil))
	f.Add([]byte{0x02, 0x10, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		id, ok := peekCallID(in)
		if !ok {
			return
		}
		hb, n := protowire.ConsumeBytes(in)
		if n < 0 {
			t.Fatalf("peekCallID(%x) found %d in no header", in, id)
		}
		var h pb.ResponseHeader
		if err := proto.Unmarshal(hb, &h); err != nil {
			// The reader then fails the connection, and with it the
			// call whose buffer took the frame.
			return
		}
		if h.CallId == nil || id != h.GetCallId() {
			t.Fatalf("peekCallID(%x) = %d, proto reads %v", in, id, h.CallId)
		}
	})
}
