package gohbase_test

import (
	"os"
	"testing"

	_ "github.com/tsuna/gohbase"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/hbkit/hbkit/hbase"
)

// protobufConflictEnv is the variable that makes the protobuf runtime
// tolerate two registrations of one name; before hbkit's protos moved to
// a package of their own, a program linking hbkit and gohbase needed it
// (and then hung). This test binary links both and must start without it.
const protobufConflictEnv = "GOLANG_PROTOBUF_REGISTRATION_CONFLICT"

// TestLinksWithGohbase: hbkit's native client and gohbase in one binary,
// their protobuf files and messages registered side by side, with no
// environment variable set (a conflict would have panicked at init).
func TestLinksWithGohbase(t *testing.T) {
	if v, ok := os.LookupEnv(protobufConflictEnv); ok {
		t.Fatalf("%s=%q is set; this test proves the binary starts without it", protobufConflictEnv, v)
	}
	for _, tc := range []struct{ path, pkg, msg string }{
		{"Client.proto", "pb", "pb.MultiRequest"},                                     // gohbase's
		{"hbkit/Client.proto", "hbkit.internal.pb", "hbkit.internal.pb.MultiRequest"}, // hbkit's
	} {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(tc.path)
		if err != nil {
			t.Errorf("file %s: %v", tc.path, err)
			continue
		}
		if string(fd.Package()) != tc.pkg {
			t.Errorf("file %s: package %s, want %s", tc.path, fd.Package(), tc.pkg)
		}
		if _, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(tc.msg)); err != nil {
			t.Errorf("message %s: %v", tc.msg, err)
		}
	}
}
