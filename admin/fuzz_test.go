package admin_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/hbkit/hbkit/admin"
)

// FuzzParseSchemaFile checks that arbitrary input never panics, that every
// failure wraps ErrInvalidSchema, and that whatever parses also plans:
// ParseSchemaFile never lets through a table that PlanTable rejects.
func FuzzParseSchemaFile(f *testing.F) {
	for _, name := range []string{"testdata/seed001.json", "testdata/sms.json", "testdata/hexsplit.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tables": [{"name": "t", "families": [{"name": "cf"}], "splits": {"hex_keys": ["00"]}}]}`))
	f.Add([]byte(`{"tables": [{"name": "t", "families": [{"name": "cf"}], "splits": {"algorithm": "UniformSplit", "regions": 3}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := admin.ParseSchemaFile(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, admin.ErrInvalidSchema) {
				t.Fatalf("error %v does not wrap ErrInvalidSchema", err)
			}
			return
		}
		for _, d := range defs {
			if _, err := admin.PlanTable(d); err != nil {
				t.Fatalf("parsed but does not plan: %v", err)
			}
		}
	})
}
