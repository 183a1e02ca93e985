package hbase_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hbkit/hbkit/hbase"
	"github.com/hbkit/hbkit/hbase/fake"
)

func ExampleParseTableName() {
	for _, s := range []string{"users", "default:users", "crm:contacts", "crm:-bad"} {
		tn, err := hbase.ParseTableName(s)
		if err != nil {
			fmt.Println(errors.Is(err, hbase.ErrInvalidTableName), err)
			continue
		}
		fmt.Printf("%s %s %s\n", tn.Namespace, tn.Qualifier, tn)
	}
	// Output:
	// default users users
	// default users users
	// crm contacts crm:contacts
	// true hbase: invalid table name ("crm:-bad": qualifier starts with '-')
}

func ExamplePut_Validate() {
	p := &hbase.Put{
		Table:  "users",
		Row:    []byte("u1"),
		Values: map[string]map[string][]byte{"cf": {"name": nil}},
	}
	err := p.Validate()
	var ie *hbase.InvalidRequestError
	fmt.Println(errors.Is(err, hbase.ErrNilValue), errors.As(err, &ie) && ie.Field == `Values["cf"]["name"]`)
	fmt.Println(err)
	// Output:
	// true true
	// hbase: invalid put request: Values["cf"]["name"]: nil value (use []byte{} for an empty value)
}

// newExampleClient returns an in-memory HBase with a table "users" (family
// "p", split at "m") holding three rows.
func newExampleClient(ctx context.Context) (*fake.Client, error) {
	c, err := fake.New()
	if err != nil {
		return nil, err
	}
	desc := hbase.TableDescriptor{Name: "users", Families: []hbase.FamilyDescriptor{{Name: "p"}}}
	if err := c.CreateTable(ctx, desc, [][]byte{[]byte("m")}); err != nil {
		return nil, err
	}
	for _, name := range []string{"ada", "bob", "zed"} {
		p := &hbase.Put{Table: "users", Row: []byte(name), Values: map[string]map[string][]byte{"p": {"name": []byte(name)}}}
		if err := c.Put(ctx, p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func ExampleScanAll() {
	ctx := context.Background()
	c, err := newExampleClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for r, err := range hbase.ScanAll(ctx, c, &hbase.Scan{Table: "users", StartRow: []byte("b")}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s=%s\n", r.Row(), r.Value([]byte("p"), []byte("name")))
	}
	// Output:
	// bob=bob
	// zed=zed
}

func ExampleBatchError() {
	ctx := context.Background()
	c, err := newExampleClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	results, err := c.Batch(ctx, []hbase.Action{
		&hbase.Get{Table: "users", Row: []byte("ada")},
		&hbase.Put{Table: "users", Row: []byte("eve"), Values: map[string]map[string][]byte{"nope": {"q": {}}}},
		&hbase.Delete{Table: "users"}, // no row
	})
	var be *hbase.BatchError
	if errors.As(err, &be) {
		for _, f := range be.Failed {
			fmt.Printf("action %d failed; no such family: %v, empty row: %v\n",
				f.Index, errors.Is(f.Err, hbase.ErrNoSuchFamily), errors.Is(f.Err, hbase.ErrEmptyRow))
		}
	}
	fmt.Printf("%s\n", results[0].Result.Value([]byte("p"), []byte("name")))
	// Output:
	// action 1 failed; no such family: true, empty row: false
	// action 2 failed; no such family: false, empty row: true
	// ada
}

func ExampleCheckAndMutate() {
	ctx := context.Background()
	c, err := newExampleClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// Claim the e-mail address only if nobody has it yet.
	claim := &hbase.CheckAndMutate{
		Table: "users", Row: []byte("bob"),
		Family: []byte("p"), Qualifier: []byte("email"), // empty Value: "absent"
		Mutations: []hbase.Mutation{&hbase.Put{Values: map[string]map[string][]byte{"p": {"email": []byte("bob@example.org")}}}},
	}
	for range 2 {
		ok, err := c.CheckAndMutate(ctx, claim)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ok)
	}
	// Output:
	// true
	// false
}
