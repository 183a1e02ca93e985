package seeds

import (
	"bytes"
	"errors"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hbkit/hbkit/schema"
)

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	want := []string{"TestTable", "TestTable_province_age", "customer_order", "log_data_bucketed", "log_data_by_host", "log_data_md5", "log_data_wide", "order_md5", "sms", "sms_index"}
	if !slices.Equal(names, want) {
		t.Fatalf("BuiltinNames() = %v, want %v", names, want)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			d, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name().String() != name {
				t.Errorf("Builtin(%q).Name() = %s", name, d.Name())
			}
			if err := d.Name().Validate(); err != nil {
				t.Error(err)
			}
			for _, f := range d.Families() {
				if err := f.Validate(); err != nil {
					t.Error(err)
				}
				back, err := schema.ParseFamily(f.Name, f.Attributes())
				if err != nil || f.Diff(back) != nil {
					t.Errorf("family %s does not survive Attributes/ParseFamily: %v %v", f.Name, err, f.Diff(back))
				}
			}
			if err := validateSplitOrder(d.SplitKeys()); err != nil {
				t.Error(err)
			}
			// Built fresh per call: changing one result does not change the next.
			d2, _ := Builtin(name)
			if d2 == d {
				t.Error("Builtin returned the same value twice")
			}
			if _, err := Builtin("default:" + name); err != nil {
				t.Errorf("lookup by full name: %v", err)
			}
		})
	}
	_, err := Builtin("nope")
	if se := assertUnknown(t, err); se.Table != "nope" {
		t.Errorf("Table = %q, want nope", se.Table)
	}
}

func validateSplitOrder(ks [][]byte) error {
	for i := 1; i < len(ks); i++ {
		if bytes.Compare(ks[i-1], ks[i]) >= 0 {
			return errors.New("splits not ascending: " + schema.QuoteKeys(ks))
		}
	}
	return nil
}

func TestSeed001TestTable(t *testing.T) {
	tbl, err := TestTable()
	if err != nil {
		t.Fatal(err)
	}
	fams := tbl.Families()
	if len(fams) != 1 || fams[0].Name != "CF1" {
		t.Fatalf("families = %+v, want CF1 only", fams)
	}
	// seed 001's create statement: {NAME=>'CF1', BLOOMFILTER=>'ROW',
	// BLOCKSIZE=>'65536', VERSIONS=>'3', COMPRESSION=>'SNAPPY',
	// BLOCKCACHE=>'true', IN_MEMORY=>'false', TTL=>'3600'}.
	want := map[string]string{
		"BLOOMFILTER": "ROW", "BLOCKSIZE": "65536", "VERSIONS": "3", "COMPRESSION": "SNAPPY",
		"BLOCKCACHE": "true", "IN_MEMORY": "false", "TTL": "3600", "MIN_VERSIONS": "0",
		"DATA_BLOCK_ENCODING": "NONE",
	}
	if got := fams[0].Attributes(); !maps.Equal(got, want) {
		t.Errorf("CF1 attributes = %v, want %v", got, want)
	}
}

// assertUnknown fails t unless err is a *schema.Error of kind
// schema.ErrUnknownSchema, and returns it.
func assertUnknown(t *testing.T, err error) *schema.Error {
	t.Helper()
	var se *schema.Error
	if !errors.Is(err, schema.ErrUnknownSchema) || !errors.As(err, &se) {
		t.Fatalf("error = %v, want a *schema.Error of kind %v", err, schema.ErrUnknownSchema)
	}
	if se.Field != "" {
		t.Errorf("Field = %q, want none (error: %v)", se.Field, err)
	}
	if se.Reason == "" {
		t.Errorf("no Reason in %v", err)
	}
	return se
}

// TestForbiddenImports keeps the seeds ordinary users of the library:
// the schemas build on keys and schema (and the client's vocabulary that
// schema names tables with) only, so that the tests of every package
// above schema can use them.
func TestForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	allowed := map[string]bool{
		"github.com/hbkit/hbkit/seeds":  true,
		"github.com/hbkit/hbkit/schema": true,
		"github.com/hbkit/hbkit/keys":   true,
		// schema's vocabulary of the client (TableName), standard library only
		"github.com/hbkit/hbkit/hbase/hbapi":         true,
		"github.com/hbkit/hbkit/hbase/internal/flat": true,
	}
	for _, dep := range strings.Fields(string(out)) {
		if !allowed[dep] {
			t.Errorf("seeds depends on %s; it may only import the standard library, keys, schema and hbase/hbapi", dep)
		}
	}
}
