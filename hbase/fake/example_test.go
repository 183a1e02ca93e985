package fake_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

func Example() {
	ctx := context.Background()
	c, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	err = c.CreateTable(ctx, hbase.TableDescriptor{
		Name:     "users",
		Families: []hbase.FamilyDescriptor{{Name: "p", Attributes: map[string]string{"VERSIONS": "2"}}},
	}, [][]byte{[]byte("m")})
	if err != nil {
		log.Fatal(err)
	}
	var data hbase.DataClient = c // what application code depends on
	for _, name := range []string{"zoe", "adam", "mia"} {
		err := data.Put(ctx, &hbase.Put{
			Table:  "users",
			Row:    []byte(name),
			Values: map[string]map[string][]byte{"p": {"name": []byte(name)}},
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	for r, err := range hbase.ScanAll(ctx, data, &hbase.Scan{Table: "users", Reversed: true}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s ", r.Row())
	}
	fmt.Println()
	// Output:
	// zoe mia adam
}
