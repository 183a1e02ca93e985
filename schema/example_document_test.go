package schema_test

import (
	"fmt"
	"time"

	"github.com/hbkit/hbkit/schema"
)

// A table declared by a document alone, opened over Values: the row key
// and cells of a record given by field name.
func ExampleOpen() {
	doc, err := schema.ParseDocument([]byte(`{
	  "version": 1,
	  "name": "readings",
	  "families": [{"name": "r", "versions": 1}],
	  "fields": [{"name": "sensor", "type": "string"}, {"name": "at", "type": "time"},
	             {"name": "celsius", "type": "float64"}],
	  "key": [
	    {"name": "bucket", "kind": "hash_bucket", "buckets": 4, "from": "sensor"},
	    {"name": "sensor", "kind": "fixed", "width": 6, "pad": 32},
	    {"name": "at", "kind": "reversed_timestamp"}
	  ],
	  "columns": [{"name": "celsius", "family": "r", "qualifier": "c", "type": "float64"}],
	  "splits": {"regions": 4}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := schema.Open(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	var row schema.Row
	v := schema.Values{"sensor": "s-17", "at": time.UnixMilli(1700000000000).UTC(), "celsius": 21.5}
	if err := t.EncodeRow(&row, &v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(schema.QuoteKey(row.Key))
	fmt.Printf("%s:%s = %x\n", row.Cells[0].Family, row.Cells[0].Qualifier, row.Cells[0].Value)
	fmt.Printf("%q\n", t.SplitKeys())
	// Output:
	// "1s-17  9223370336854775807"
	// r:c = 4035800000000000
	// ["1" "2" "3"]
}
