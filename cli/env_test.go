package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/schema"
)

// TestEnvSchemas: a team's own binary names its schemas in Env.Schemas,
// and --schema finds them by that name, before the built-ins.
func TestEnvSchemas(t *testing.T) {
	defs, err := admin.LoadSchemaFile("../admin/testdata/seed001.json")
	if err != nil || len(defs) != 1 {
		t.Fatalf("LoadSchemaFile: %d definitions, %v", len(defs), err)
	}
	h := newTableHarness(t)
	var out, errw bytes.Buffer
	e := &Env{Stdout: &out, Stderr: &errw, Schemas: map[string]schema.Definition{"readings": defs[0], "sms": defs[0]}}
	for _, name := range []string{"readings", "sms"} {
		out.Reset()
		if err := runTableWith(context.Background(), e, []string{"create", "--schema", name, "--dry-run"}, h.connect); err != nil {
			t.Fatalf("table create --schema %s: %v (%s)", name, err, errw.String())
		}
		if want := "would create table seed001 (16 regions)"; !strings.Contains(out.String(), want) {
			t.Errorf("--schema %s: output lacks %q:\n%s", name, want, out.String())
		}
	}
}

// TestNativeEnv: the Env of the hbkit binary writes where it is told and
// connects with the native client, secured when flags ask for it.
func TestNativeEnv(t *testing.T) {
	var out, errw bytes.Buffer
	e := NativeEnv(&out, &errw, func(string) string { return "" })
	if e.Stdout != &out || e.Stderr != &errw || e.Connect == nil || e.ConnectSecure == nil || e.Getenv == nil {
		t.Fatalf("NativeEnv = %+v", e)
	}
	if code := Main(context.Background(), e, []string{"version"}); code != 0 || out.Len() == 0 {
		t.Errorf("version: exit %d, printed %q, stderr %q", code, out.String(), errw.String())
	}
}
