package hbase_test

import (
	"errors"
	"fmt"

	"github.com/hbkit/hbkit/hbase"
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
