package seedcli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/cli"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedcli"
)

// TestRegister: the commands know the seeds through cli.Env alone, and a
// team's own entry under a seed's name wins.
func TestRegister(t *testing.T) {
	var out, errw bytes.Buffer
	own, err := seeds.LogDataMD5()
	if err != nil {
		t.Fatal(err)
	}
	e := cli.Env{Stdout: &out, Stderr: &errw, Schemas: map[string]schema.Definition{"sms": own}}
	if err := seedcli.Register(&e); err != nil {
		t.Fatal(err)
	}
	if e.Schemas["sms"] != own {
		t.Error("Register replaced the Env's own schema sms")
	}
	ctx := context.Background()
	if err := cli.Run(ctx, e, []string{"table", "schemas"}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(out.String()), seeds.BuiltinNames(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("table schemas = %v, want %v", got, want)
	}
	out.Reset()
	if err := cli.Run(ctx, e, []string{"simulate", "--schema", "sms_naive", "--records", "100", "--json"}); err != nil {
		t.Fatalf("simulate sms_naive: %v\n%s", err, errw.String())
	}
}
