package zk

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// serverNameMsg encodes a ServerName message.
func serverNameMsg(host string, port, startCode uint64) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, host)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, port)
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, startCode)
	return b
}

// withMeta wraps a protobuf message the way HBase writes znodes.
func withMeta(id string, msg []byte) []byte {
	b := []byte{0xFF}
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)+8))
	b = append(b, id...)
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8) // salt
	b = append(b, "PBUF"...)
	return append(b, msg...)
}

func field(num protowire.Number, msg []byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func varintField(num protowire.Number, v uint64) []byte {
	b := protowire.AppendTag(nil, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDecodeMasterLiteral(t *testing.T) {
	// What HBase 2.x writes to /hbase/master for 127.0.0.1:16000, start
	// code 1, info port 16010: metadata (id "master:16000" + 8 salt bytes),
	// PBUF, Master{master: ServerName{...}, rpc_version: 0, info_port}.
	data := []byte{
		0xff, 0x00, 0x00, 0x00, 0x14,
		'm', 'a', 's', 't', 'e', 'r', ':', '1', '6', '0', '0', '0',
		0x9c, 0x1f, 0x03, 0x44, 0x00, 0xaa, 0x05, 0x11,
		'P', 'B', 'U', 'F',
		0x0a, 0x10,
		0x0a, 0x09, '1', '2', '7', '.', '0', '.', '0', '.', '1',
		0x10, 0x80, 0x7d,
		0x18, 0x01,
		0x10, 0x00,
		0x18, 0x8a, 0x7d,
	}
	m, err := DecodeMaster(data)
	if err != nil {
		t.Fatalf("DecodeMaster: %v", err)
	}
	want := Master{Server: ServerName{Host: "127.0.0.1", Port: 16000, StartCode: 1}, InfoPort: 16010}
	if m != want {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if got := m.Server.Addr(); got != "127.0.0.1:16000" {
		t.Errorf("Addr() = %q", got)
	}
	if got := m.Server.String(); got != "127.0.0.1,16000,1" {
		t.Errorf("String() = %q", got)
	}
}

// Znodes as written by the local HBase 2.6.4 (tools/hbase) with the web UI
// off: both carry the master's id "master:16000" and a random salt.
var (
	realMaster = unhex("ff000000146d61737465723a3136303030f16e3c09bfd1fa62504255460a150a093132372e302e302e3110807d18fba68085a034100018ffffffff0f")
	realMeta   = unhex("ff000000146d61737465723a31363030302b36fd4ba184df04504255460a150a093132372e302e302e3110947d1897b18085a03410001803")
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestDecodeReal(t *testing.T) {
	m, err := DecodeMaster(realMaster)
	if err != nil {
		t.Fatalf("DecodeMaster: %v", err)
	}
	if want := (Master{Server: ServerName{"127.0.0.1", 16000, 1795306820475}, InfoPort: -1}); m != want {
		t.Errorf("master = %+v, want %+v", m, want)
	}
	loc, err := DecodeMetaRegionServer(realMeta)
	if err != nil {
		t.Fatalf("DecodeMetaRegionServer: %v", err)
	}
	if want := (MetaLocation{Server: ServerName{"127.0.0.1", 16020, 1795306821783}, State: StateOpen}); loc != want {
		t.Errorf("meta = %+v, want %+v", loc, want)
	}
	// Cutting the data anywhere before the end of the server name is an
	// error; after it only optional fields are lost.
	for _, tc := range []struct {
		name      string
		data      []byte
		serverEnd int // offset just past the ServerName field
		decode    func([]byte) error
	}{
		{"master", realMaster, len(realMaster) - 8, func(b []byte) error { _, err := DecodeMaster(b); return err }},
		{"meta", realMeta, len(realMeta) - 4, func(b []byte) error { _, err := DecodeMetaRegionServer(b); return err }},
	} {
		for i := range tc.serverEnd {
			if err := tc.decode(tc.data[:i]); err == nil {
				t.Errorf("%s cut to %d of %d bytes decoded without error", tc.name, i, len(tc.data))
			}
		}
		if err := tc.decode(tc.data[:tc.serverEnd]); err != nil {
			t.Errorf("%s without its optional fields: %v", tc.name, err)
		}
	}
}

func TestDecodeMetaRegionServer(t *testing.T) {
	sn := serverNameMsg("rs1.example.org", 16020, 1_700_000_000_123)
	tests := []struct {
		name string
		data []byte
		want MetaLocation
		err  bool
	}{
		{"with metadata, no state", withMeta("regionserver:16020", cat(field(1, sn), varintField(2, 0))),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpen}, false},
		{"explicit open", withMeta("x", cat(field(1, sn), varintField(3, 3))),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpen}, false},
		{"opening", withMeta("x", cat(field(1, sn), varintField(3, 2))),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpening}, false},
		{"old style without metadata", cat([]byte("PBUF"), field(1, sn)),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpen}, false},
		{"empty id", withMeta("", field(1, sn)),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpen}, false},
		{"unknown fields skipped", withMeta("x", cat(varintField(9, 7), field(1, cat(sn, field(7, []byte("z")))), field(10, []byte("zz")))),
			MetaLocation{Server: ServerName{"rs1.example.org", 16020, 1_700_000_000_123}, State: StateOpen}, false},
		{"empty", nil, MetaLocation{}, true},
		{"only magic byte", []byte{0xff}, MetaLocation{}, true},
		{"id length past end", []byte{0xff, 0, 0, 0, 9, 'a'}, MetaLocation{}, true},
		{"negative id length", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 'P', 'B', 'U', 'F'}, MetaLocation{}, true},
		{"no PBUF", withMeta("x", nil)[:14], MetaLocation{}, true},
		{"wrong magic", cat([]byte("PBUG"), field(1, sn)), MetaLocation{}, true},
		{"no server", withMeta("x", varintField(3, 3)), MetaLocation{}, true},
		{"server without host", withMeta("x", field(1, varintField(2, 16020))), MetaLocation{}, true},
		{"server without port", withMeta("x", field(1, field(1, []byte("h")))), MetaLocation{}, true},
		{"port out of range", withMeta("x", field(1, serverNameMsg("h", 70000, 0))), MetaLocation{}, true},
		{"truncated message", withMeta("x", field(1, sn)[:10]), MetaLocation{}, true},
		{"server with varint type", withMeta("x", varintField(1, 5)), MetaLocation{}, true},
		{"state with bytes type", withMeta("x", cat(field(1, sn), field(3, []byte{3}))), MetaLocation{}, true},
		{"host not utf8", withMeta("x", field(1, cat(field(1, []byte{0xff, 0xfe}), varintField(2, 1)))), MetaLocation{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeMetaRegionServer(tc.data)
			if tc.err {
				if err == nil {
					t.Fatalf("DecodeMetaRegionServer(%x) = %+v, want error", tc.data, got)
				}
				if !errors.Is(err, ErrMalformed) {
					t.Errorf("error %v does not wrap ErrMalformed", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeMetaRegionServer(%x): %v", tc.data, err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeMasterErrors(t *testing.T) {
	tests := map[string][]byte{
		"empty":               {},
		"no master field":     withMeta("m", varintField(3, 16010)),
		"master not a msg":    withMeta("m", varintField(1, 1)),
		"bad nested":          withMeta("m", field(1, []byte{0x0a, 0x05, 'a'})),
		"end group alone":     withMeta("m", []byte{0x0c}),
		"tag overflow":        withMeta("m", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
		"info port truncated": withMeta("m", cat(field(1, serverNameMsg("h", 1, 1)), []byte{0x18, 0x80})),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if m, err := DecodeMaster(data); err == nil {
				t.Errorf("DecodeMaster(%x) = %+v, want error", data, m)
			}
		})
	}
}

func TestRegionStateString(t *testing.T) {
	for s, want := range map[RegionState]string{StateOpen: "OPEN", StateOffline: "OFFLINE", StateAbnormallyClosed: "ABNORMALLY_CLOSED", 42: "RegionState(42)", -1: "RegionState(-1)"} {
		if got := s.String(); got != want {
			t.Errorf("RegionState(%d).String() = %q, want %q", int32(s), got, want)
		}
	}
}

func FuzzDecodeMaster(f *testing.F) {
	f.Add(withMeta("master:16000", cat(field(1, serverNameMsg("127.0.0.1", 16000, 1)), varintField(3, 16010))))
	f.Add(cat([]byte("PBUF"), field(1, serverNameMsg("h", 1, 0))))
	f.Add([]byte{0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMaster(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		checkServer(t, m.Server)
	})
}

func FuzzDecodeMetaRegionServer(f *testing.F) {
	f.Add(withMeta("regionserver:16020", cat(field(1, serverNameMsg("127.0.0.1", 16020, 1_700_000_000_000)), varintField(2, 0), varintField(3, 3))))
	f.Add(cat([]byte("PBUF"), field(1, serverNameMsg("h", 65535, 0))))
	f.Add([]byte("PBUF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		loc, err := DecodeMetaRegionServer(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		checkServer(t, loc.Server)
	})
}

func checkServer(t *testing.T, s ServerName) {
	t.Helper()
	if s.Host == "" || s.Port <= 0 || s.Port > 65535 {
		t.Fatalf("decoded invalid server %+v", s)
	}
}

// FuzzRoundTrip checks that whatever server name is encoded decodes back.
func FuzzRoundTrip(f *testing.F) {
	f.Add("127.0.0.1", uint16(16020), uint64(1), "regionserver:16020", uint8(3))
	f.Add("h", uint16(1), uint64(0), "", uint8(0))
	f.Fuzz(func(t *testing.T, host string, port uint16, startCode uint64, id string, state uint8) {
		if host == "" || port == 0 || !utf8.ValidString(host) || len(id) > 1<<16 {
			return
		}
		sn := serverNameMsg(host, uint64(port), startCode)
		loc, err := DecodeMetaRegionServer(withMeta(id, cat(field(1, sn), varintField(3, uint64(state)))))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		want := MetaLocation{Server: ServerName{host, int(port), startCode}, State: RegionState(state)}
		if loc != want {
			t.Fatalf("got %+v, want %+v", loc, want)
		}
		m, err := DecodeMaster(withMeta(id, field(1, sn)))
		if err != nil || m.Server != want.Server {
			t.Fatalf("master: got %+v, %v; want %+v", m, err, want.Server)
		}
	})
}
