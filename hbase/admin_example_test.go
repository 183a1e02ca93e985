package hbase_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/hbkit/hbkit/hbase"
)

// Creating a pre-split table with family options, as the HBase shell's
// create 'crm:calls', {NAME => 'd', VERSIONS => 3, ...}, SPLITS => [...]
// would. The call returns once the master's procedure has finished and
// every region is open. (Needs a running HBase, so it has no output
// check.)
func ExampleClient_CreateTable() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, "127.0.0.1:2181")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.CreateNamespace(ctx, "crm"); err != nil && !errors.Is(err, hbase.ErrNamespaceExists) {
		log.Fatal(err)
	}
	desc := hbase.TableDescriptor{
		Name: "crm:calls",
		Families: []hbase.FamilyDescriptor{{
			Name: "d",
			Attributes: map[string]string{
				"VERSIONS":    "3",
				"BLOOMFILTER": "ROW",
				"COMPRESSION": "SNAPPY",
				"TTL":         "3600", // seconds
			},
		}},
	}
	splits := [][]byte{[]byte("4"), []byte("8"), []byte("c")}
	err = c.CreateTable(ctx, desc, splits)
	switch {
	case errors.Is(err, hbase.ErrTableExists):
		fmt.Println("already there")
	case err != nil:
		log.Fatal(err)
	}
	regions, err := c.TableRegions(ctx, "crm:calls")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range regions {
		fmt.Printf("[%q, %q) on %s\n", r.StartKey, r.EndKey, r.Server)
	}
}

// Dropping a table: HBase deletes only disabled tables.
func ExampleClient_DeleteTable() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := hbase.New(ctx, "127.0.0.1:2181")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	err = c.DisableTable(ctx, "crm:calls")
	if err != nil && !errors.Is(err, hbase.ErrTableDisabled) {
		log.Fatal(err)
	}
	if err := c.DeleteTable(ctx, "crm:calls"); err != nil {
		log.Fatal(err)
	}
}
