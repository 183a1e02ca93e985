package admin_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hbkit/hbkit/admin"
	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
	"github.com/hbkit/hbkit/seeds"
)

func ExampleAdmin_EnsureTable() {
	ctx := context.Background()
	c, err := fake.New() // or the real client from package hbase
	if err != nil {
		log.Fatal(err)
	}
	a, err := admin.New(c)
	if err != nil {
		log.Fatal(err)
	}
	sms, err := seeds.Builtin("sms")
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		outcome, err := a.EnsureTable(ctx, sms)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(outcome)
	}
	regions, err := c.TableRegions(ctx, "sms")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d regions, the second from %q\n", len(regions), regions[1].StartKey)

	// A table created by hand with other options drifts from its schema.
	err = c.CreateTable(ctx, hbase.TableDescriptor{
		Name:     "TestTable",
		Families: []hbase.FamilyDescriptor{{Name: "CF1", Attributes: map[string]string{"VERSIONS": "1"}}},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	seed, err := seeds.Builtin("TestTable")
	if err != nil {
		log.Fatal(err)
	}
	_, err = a.EnsureTable(ctx, seed)
	var drift *admin.DriftError
	if errors.As(err, &drift) {
		for _, d := range drift.Diffs {
			fmt.Println(d.Kind, "|", d)
		}
	}
	// Output:
	// created
	// unchanged
	// 20 regions, the second from "05"
	// family option | family "CF1": VERSIONS: declared 3, actual 1
	// family option | family "CF1": COMPRESSION: declared SNAPPY, actual NONE
	// family option | family "CF1": TTL: declared 3600, actual 2147483647
	// split keys | split keys: declared 16 regions, actual 1 region; missing ["1" "2" "3" "4" "5" "6" "7" "8" "9" "a" "b" "c" "d" "e" "f"] (hex 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66)
}

func ExamplePlanTable() {
	defs, err := admin.LoadSchemaFile("testdata/seed001.json")
	if err != nil {
		log.Fatal(err)
	}
	p, err := admin.PlanTable(defs[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Table, p.Regions(), "regions")
	for _, a := range p.Families[0].SortedAttributes() {
		fmt.Printf("%s=%s ", a.Name, a.Value)
	}
	fmt.Println()
	// Output:
	// seed001 16 regions
	// BLOOMFILTER=ROW VERSIONS=3 MIN_VERSIONS=0 COMPRESSION=SNAPPY TTL=3600 BLOCKSIZE=65536 IN_MEMORY=false BLOCKCACHE=true DATA_BLOCK_ENCODING=NONE
}
