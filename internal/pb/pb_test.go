package pb

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestWireNumbers pins a few field numbers that the server depends on, by
// comparing marshalled bytes against hand-encoded ones.
func TestWireNumbers(t *testing.T) {
	tests := []struct {
		name string
		msg  proto.Message
		want []byte
	}{
		{
			name: "RequestHeader",
			msg: &RequestHeader{
				CallId:       proto.Uint32(1),
				MethodName:   proto.String("Get"),
				RequestParam: proto.Bool(true),
				Timeout:      proto.Uint32(5),
			},
			// 08 01 | 1a 03 "Get" | 20 01 | 38 05
			want: []byte{0x08, 0x01, 0x1a, 0x03, 'G', 'e', 't', 0x20, 0x01, 0x38, 0x05},
		},
		{
			name: "ResponseHeader call_id -1",
			msg:  &ResponseHeader{CallId: proto.Uint32(0xffffffff)},
			want: []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0x0f},
		},
		{
			name: "ExceptionResponse server_overloaded",
			msg:  &ExceptionResponse{ServerOverloaded: proto.Bool(true)},
			want: []byte{0x30, 0x01},
		},
		{
			name: "TableName",
			msg:  &TableName{Namespace: []byte("default"), Qualifier: []byte("t")},
			want: append(append([]byte{0x0a, 0x07}, "default"...), 0x12, 0x01, 't'),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := proto.MarshalOptions{Deterministic: true}.Marshal(tt.msg)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("got %x, want %x", got, tt.want)
			}
		})
	}
}

// TestRequiredFields checks that proto2 required fields are enforced, which
// is how a missing field is caught before the server rejects the message.
func TestRequiredFields(t *testing.T) {
	if _, err := proto.Marshal(&UserInformation{}); err == nil {
		t.Error("Marshal(UserInformation{}) succeeded, want missing effective_user error")
	}
	if _, err := proto.Marshal(&VersionInfo{Version: proto.String("2.6.4")}); err == nil {
		t.Error("Marshal(partial VersionInfo) succeeded, want missing required fields error")
	}
}

func TestDefaults(t *testing.T) {
	if got := (&RegionInfo{}).GetReplicaId(); got != 0 {
		t.Errorf("RegionInfo.replica_id default = %d, want 0", got)
	}
}
