package zk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed reports znode data that is not what HBase writes.
var ErrMalformed = errors.New("zk: malformed znode data")

// ServerName identifies an HBase server process.
type ServerName struct {
	Host      string
	Port      int
	StartCode uint64 // start time of the process, ms; 0 if absent
}

// Addr returns "host:port".
func (s ServerName) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

func (s ServerName) String() string {
	return s.Host + "," + strconv.Itoa(s.Port) + "," + strconv.FormatUint(s.StartCode, 10)
}

// RegionState is HBase's RegionState.State.
type RegionState int32

// Region states (ClusterStatus.proto).
const (
	StateOffline          RegionState = 0
	StatePendingOpen      RegionState = 1
	StateOpening          RegionState = 2
	StateOpen             RegionState = 3
	StatePendingClose     RegionState = 4
	StateClosing          RegionState = 5
	StateClosed           RegionState = 6
	StateSplitting        RegionState = 7
	StateSplit            RegionState = 8
	StateFailedOpen       RegionState = 9
	StateFailedClose      RegionState = 10
	StateMerging          RegionState = 11
	StateMerged           RegionState = 12
	StateSplittingNew     RegionState = 13
	StateMergingNew       RegionState = 14
	StateAbnormallyClosed RegionState = 15
)

var stateNames = [...]string{"OFFLINE", "PENDING_OPEN", "OPENING", "OPEN", "PENDING_CLOSE", "CLOSING", "CLOSED",
	"SPLITTING", "SPLIT", "FAILED_OPEN", "FAILED_CLOSE", "MERGING", "MERGED", "SPLITTING_NEW", "MERGING_NEW",
	"ABNORMALLY_CLOSED"}

func (s RegionState) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "RegionState(" + strconv.Itoa(int(s)) + ")"
}

// MetaLocation is the content of the meta-region-server znode.
type MetaLocation struct {
	Server ServerName
	// State of the meta region; StateOpen when the znode does not say.
	// Use the location only when it is StateOpen: any other state means
	// meta is moving, so back off and read the znode again.
	State RegionState
}

// Master is the content of the master znode.
type Master struct {
	Server ServerName
	// InfoPort is the web UI port: 0 if absent, -1 if the UI is off (HBase
	// writes the Java int -1 into this uint32 field).
	InfoPort int
}

const (
	metaMagic = 0xFF
	pbMagic   = "PBUF"
)

// payload strips the RecoverableZooKeeper metadata (0xFF, int32 id length,
// id) if present and checks the "PBUF" magic. It returns the protobuf
// message, which aliases data.
func payload(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrMalformed)
	}
	if data[0] == metaMagic {
		if len(data) < 5 {
			return nil, fmt.Errorf("%w: metadata header truncated (%d bytes)", ErrMalformed, len(data))
		}
		idLen := int64(int32(binary.BigEndian.Uint32(data[1:5])))
		if idLen < 0 || idLen > int64(len(data)-5) {
			return nil, fmt.Errorf("%w: metadata id length %d with %d bytes left", ErrMalformed, idLen, len(data)-5)
		}
		data = data[5+idLen:]
	}
	if len(data) < len(pbMagic) || string(data[:len(pbMagic)]) != pbMagic {
		return nil, fmt.Errorf("%w: no PBUF magic", ErrMalformed)
	}
	return data[len(pbMagic):], nil
}

// DecodeMaster decodes the data of the /hbase/master znode.
func DecodeMaster(data []byte) (Master, error) {
	msg, err := payload(data)
	if err != nil {
		return Master{}, err
	}
	var m Master
	found := false
	err = eachField(msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1: // master ServerName
			n, err := consumeServerName(typ, b, &m.Server)
			found = err == nil
			return n, err
		case 3: // info_port
			v, n, err := consumeVarint(typ, b)
			m.InfoPort = int(int32(uint32(v)))
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return Master{}, fmt.Errorf("master znode: %w", err)
	}
	if !found {
		return Master{}, fmt.Errorf("master znode: %w: no master field", ErrMalformed)
	}
	return m, nil
}

// DecodeMetaRegionServer decodes the data of the /hbase/meta-region-server
// znode.
func DecodeMetaRegionServer(data []byte) (MetaLocation, error) {
	msg, err := payload(data)
	if err != nil {
		return MetaLocation{}, err
	}
	loc := MetaLocation{State: StateOpen}
	found := false
	err = eachField(msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1: // server ServerName
			n, err := consumeServerName(typ, b, &loc.Server)
			found = err == nil
			return n, err
		case 3: // state RegionState.State
			v, n, err := consumeVarint(typ, b)
			loc.State = RegionState(int32(v))
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return MetaLocation{}, fmt.Errorf("meta-region-server znode: %w", err)
	}
	if !found {
		return MetaLocation{}, fmt.Errorf("meta-region-server znode: %w: no server field", ErrMalformed)
	}
	return loc, nil
}

// consumeServerName decodes a ServerName message field into dst.
func consumeServerName(typ protowire.Type, b []byte, dst *ServerName) (int, error) {
	v, n, err := consumeMessage(typ, b)
	if err != nil {
		return n, err
	}
	*dst, err = decodeServerName(v)
	return n, err
}

func decodeServerName(msg []byte) (ServerName, error) {
	var s ServerName
	hasHost, hasPort := false, false
	err := eachField(msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1: // host_name
			v, n, err := consumeMessage(typ, b)
			if err != nil {
				return n, err
			}
			if !utf8.Valid(v) {
				return n, fmt.Errorf("%w: host name is not UTF-8", ErrMalformed)
			}
			s.Host, hasHost = string(v), true
			return n, nil
		case 2: // port
			v, n, err := consumeVarint(typ, b)
			if err != nil {
				return n, err
			}
			if v == 0 || v > 65535 {
				return n, fmt.Errorf("%w: port %d", ErrMalformed, v)
			}
			s.Port, hasPort = int(v), true
			return n, nil
		case 3: // start_code
			v, n, err := consumeVarint(typ, b)
			s.StartCode = v
			return n, err
		}
		return skip(num, typ, b)
	})
	if err != nil {
		return ServerName{}, fmt.Errorf("server name: %w", err)
	}
	if !hasHost || s.Host == "" {
		return ServerName{}, fmt.Errorf("server name: %w: no host", ErrMalformed)
	}
	if !hasPort {
		return ServerName{}, fmt.Errorf("server name: %w: no port", ErrMalformed)
	}
	return s, nil
}

// eachField calls fn for every field of a protobuf message; fn consumes
// the field value from b and returns the number of bytes it used.
func eachField(msg []byte, fn func(num protowire.Number, typ protowire.Type, b []byte) (int, error)) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
		}
		msg = msg[n:]
		m, err := fn(num, typ, msg)
		if err != nil {
			return err
		}
		msg = msg[m:]
	}
	return nil
}

func consumeMessage(typ protowire.Type, b []byte) ([]byte, int, error) {
	if typ != protowire.BytesType {
		return nil, 0, fmt.Errorf("%w: wire type %d for a length-delimited field", ErrMalformed, typ)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, 0, fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
	}
	return v, n, nil
}

func consumeVarint(typ protowire.Type, b []byte) (uint64, int, error) {
	if typ != protowire.VarintType {
		return 0, 0, fmt.Errorf("%w: wire type %d for a varint field", ErrMalformed, typ)
	}
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(n))
	}
	return v, n, nil
}

func skip(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
	n := protowire.ConsumeFieldValue(num, typ, b)
	if n < 0 {
		return 0, fmt.Errorf("%w: field %d: %v", ErrMalformed, num, protowire.ParseError(n))
	}
	return n, nil
}
