package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// TestIndexVerifyRepairInverted runs hbkit index verify and repair on seed
// 001's TestTable and its inverted index, with a cell of no user written
// as the seed's Java code writes it (value 1).
func TestIndexVerifyRepairInverted(t *testing.T) {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := seeds.TestTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []schema.Definition{tbl, tbl.Indexes()[0]} {
		desc := hbase.TableDescriptor{Name: d.Name().String()}
		for _, f := range d.Families() {
			desc.Families = append(desc.Families, hbase.FamilyDescriptor{Name: f.Name, Attributes: f.Attributes()})
		}
		if err := c.CreateTable(ctx, desc, d.SplitKeys()); err != nil {
			t.Fatal(err)
		}
	}
	users, err := dao.New(c, tbl)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := users.Put(ctx, &seeds.User{UID: fmt.Sprintf("u%d", i), Province: "辽宁省", Age: 20 + int64(i%2)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := users.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	out, _, err := runIndexCmd(t, c, "verify", "--schema", "TestTable", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if rep := decodeReport(t, out); !rep.Clean() || rep.DataRows != 6 || rep.Entries != 6 {
		t.Fatalf("fresh verify: %+v", rep)
	}
	// Written a second ago (the fake's own clock runs ahead of the wall
	// clock under bursts of writes).
	p := &hbase.Put{Table: seeds.TestTableIndexName, Row: []byte("辽宁省_20"), Values: map[string]map[string][]byte{"user": {"u99": []byte("1")}},
		Timestamp: time.Now().Add(-time.Second).UnixMilli()}
	if err := c.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	out, _, err = runIndexCmd(t, c, "verify", "--schema", "TestTable", "--json")
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("verify of a diverged index: %v", err)
	}
	if rep := decodeReport(t, out); rep.Orphaned != 1 || rep.Entries != 7 {
		t.Fatalf("verify: %+v, want 1 orphaned of 7 entries", rep)
	}
	if _, _, err = runIndexCmd(t, c, "repair", "--schema", "TestTable", "--grace", "0s"); err != nil {
		t.Fatal(err)
	}
	if out, _, err = runIndexCmd(t, c, "verify", "--schema", "TestTable_province_age", "--json"); err != nil {
		t.Fatalf("verify after repair: %v\n%s", err, out)
	}
	if rep := decodeReport(t, out); rep.Entries != 6 {
		t.Fatalf("verify after repair: %+v, want 6 entries", rep)
	}
}
