// Package pb holds the Go code generated from hbkit's HBase 2.6 protobuf
// definitions in proto/ (package hbase.pb, proto2).
//
// It is for hbkit's own wire code: internal/rpc frames these messages, and
// the native client in hbase builds requests from them. Nothing outside
// hbkit should import it, and hbkit's public API never exposes its types.
//
// The .proto files declare only the subset of HBase's messages that hbkit
// uses, but every declared message keeps HBase 2.6's field numbers, types,
// labels (required/optional) and defaults, so that presence-sensitive server
// code (hasX() checks, non-zero defaults such as Get.max_versions = 1) sees
// exactly what the Java client would send. Setting a required field is the
// caller's job: proto.Marshal fails on a missing one.
//
// Do not edit the *.pb.go files. Change proto/hbkit/*.proto and run
//
//	tools/genproto.sh          # regenerate
//	tools/genproto.sh --check  # verify the committed code is current (CI)
//
// The script pins protoc 3.21.12 and protoc-gen-go v1.36.12 so the output
// is reproducible.
package pb
