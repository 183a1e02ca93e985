package fake

import (
	"context"
	"testing"

	"github.com/hbkit/hbkit/hbase"
)

// TestApplyEmptyQualifierIsAColumn: apply, below the validation that
// refuses a non-nil empty qualifier, deletes the column with the empty
// qualifier, as HBase's server does, never the family.
func TestApplyEmptyQualifierIsAColumn(t *testing.T) {
	ctx := context.Background()
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: "t", Families: []hbase.FamilyDescriptor{{Name: "cf"}}}, nil); err != nil {
		t.Fatal(err)
	}
	row := []byte("r")
	if err := c.Put(ctx, &hbase.Put{Table: "t", Row: row, Values: map[string]map[string][]byte{"cf": {"": []byte("e"), "q": []byte("q")}}}); err != nil {
		t.Fatal(err)
	}
	tb, err := c.dataTable("t")
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	tb.apply(&hbase.Delete{Table: "t", Row: row, Family: []byte("cf"), Qualifier: []byte{}, AllVersions: true}, row, c.nextTS(), c.nowMs())
	c.mu.Unlock()
	r, err := c.Get(ctx, &hbase.Get{Table: "t", Row: row})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 1 || string(r.Cells[0].Qualifier) != "q" {
		t.Fatalf("after deleting cf: (empty qualifier): %v, want cf:q alone", r.Cells)
	}
}
