package cli

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/hbase"
)

// TestTableLs: table ls lists the live tables of the cluster (ListTables),
// as lines or a JSON array, of one namespace with --namespace; table list
// is the same, and table schemas the built-in schema names.
func TestTableLs(t *testing.T) {
	h := newTableHarness(t)
	ctx := context.Background()
	out, _, err := h.run(nil, "ls", "--json")
	if err != nil || out != "[]\n" {
		t.Fatalf("ls --json of an empty cluster: %q, %v; want []", out, err)
	}
	if err := h.c.CreateNamespace(ctx, "ns1"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"users", "events", "ns1:things"} {
		desc := hbase.TableDescriptor{Name: name, Families: []hbase.FamilyDescriptor{{Name: "f"}}}
		if err := h.c.CreateTable(ctx, desc, nil); err != nil {
			t.Fatal(err)
		}
	}
	want, err := h.c.ListTables(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(want, "users") || !slices.Contains(want, "ns1:things") {
		t.Fatalf("fake lists %v", want)
	}
	for _, sub := range []string{"ls", "list"} {
		out, _, err := h.run(nil, sub)
		if wantOut := strings.Join(want, "\n") + "\n"; err != nil || out != wantOut {
			t.Errorf("%s: %q, %v; want %q", sub, out, err, wantOut)
		}
	}
	out, _, err = h.run(nil, "ls", "--json", "--namespace", "ns1")
	var got []string
	if err != nil || json.Unmarshal([]byte(out), &got) != nil || !slices.Equal(got, []string{"ns1:things"}) {
		t.Errorf("ls --json --namespace ns1: %q, %v; want [\"ns1:things\"]", out, err)
	}
	if _, _, err := h.run(nil, "ls", "--table", "users"); !errors.Is(err, ErrUsage) {
		t.Errorf("ls --table: %v, want ErrUsage", err)
	}
	out, _, err = h.run(nil, "schemas")
	if err != nil || out == "" || slices.Contains(strings.Split(out, "\n"), "users") {
		t.Errorf("schemas: %q, %v; want the built-in schema names", out, err)
	}
}
