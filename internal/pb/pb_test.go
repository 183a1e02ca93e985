package pb

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
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

// TestProto2Defaults pins the non-zero proto2 defaults that change server
// behaviour when a field is left unset.
func TestProto2Defaults(t *testing.T) {
	get := &Get{}
	scan := &Scan{}
	tests := []struct {
		name      string
		got, want any
	}{
		{"Get.max_versions", get.GetMaxVersions(), uint32(1)},
		{"Get.cache_blocks", get.GetCacheBlocks(), true},
		{"Scan.max_versions", scan.GetMaxVersions(), uint32(1)},
		{"Scan.cache_blocks", scan.GetCacheBlocks(), true},
		{"Scan.include_start_row", scan.GetIncludeStartRow(), true},
		{"Scan.include_stop_row", scan.GetIncludeStopRow(), false},
		{"ModifyTableRequest.reopen_regions", (&ModifyTableRequest{}).GetReopenRegions(), true},
		{"ClusterStatus.master_info_port", (&ClusterStatus{}).GetMasterInfoPort(), int32(-1)},
		{"SingleColumnValueFilter.latest_version_only", (&SingleColumnValueFilter{}).GetLatestVersionOnly(), false},
		{"QualifierValue.delete_type", (&MutationProto_ColumnValue_QualifierValue{}).GetDeleteType(), MutationProto_DELETE_ONE_VERSION},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s default = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// Defaults must not be marshalled when unset.
	b, err := proto.Marshal(&Scan{})
	if err != nil {
		t.Fatalf("Marshal(Scan{}): %v", err)
	}
	if len(b) != 0 {
		t.Errorf("Marshal(Scan{}) = %x, want empty", b)
	}
}

// TestServiceMethods checks the exact, case-sensitive method names that go
// into RequestHeader.method_name.
func TestServiceMethods(t *testing.T) {
	tests := []struct {
		file    protoreflect.FileDescriptor
		service string
		methods []string
	}{
		{File_hbkit_Master_proto, "MasterService", []string{"truncateTable", "getProcedureResult", "IsMasterRunning", "CreateTable", "SplitRegion"}},
		{File_hbkit_Client_proto, "ClientService", []string{"Get", "Mutate", "Scan", "Multi"}},
		{File_hbkit_Admin_proto, "AdminService", []string{"GetRegionLoad"}},
		{File_hbkit_Registry_proto, "ClientMetaService", []string{"GetActiveMaster", "GetMetaRegionLocations"}},
	}
	for _, tt := range tests {
		sd := tt.file.Services().ByName(protoreflect.Name(tt.service))
		if sd == nil {
			t.Errorf("%s: no service %s", tt.file.Path(), tt.service)
			continue
		}
		for _, m := range tt.methods {
			if sd.Methods().ByName(protoreflect.Name(m)) == nil {
				t.Errorf("%s has no method %q", tt.service, m)
			}
		}
	}
}
