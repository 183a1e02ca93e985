package schema_test

import (
	"fmt"
	"time"

	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
)

// A table read without its record type, as hbkit get and scan read it: a
// row key from field values given as text, the row cut into named,
// decoded segments and typed cells, and the key ranges of a query by
// field value, where the index's leading hash(mobile) % 10 is computed
// from the mobile given.
func ExampleViewer() {
	d, err := seeds.Builtin("sms")
	if err != nil {
		panic(err)
	}
	v, _ := schema.AsViewer(d)
	keys, err := v.RowKeys([]schema.FieldText{
		{Field: "mobile", Text: "13812345678"}, {Field: "sent", Text: "2026-11-23T10:00:00Z"}, {Field: "unique", Text: "1"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.QuoteKey(keys[0]))
	row, err := v.ViewRow(keys[0], []schema.Cell{{Family: "cf", Qualifier: "a", Value: []byte("acme")}, {Family: "cf", Qualifier: "d", Value: []byte{0xff}}})
	if err != nil {
		panic(err)
	}
	for _, s := range row.Segments {
		if t, ok := s.Value.(time.Time); ok {
			fmt.Println(s.Name, t.Format(time.RFC3339))
			continue
		}
		fmt.Println(s.Name, s.Value)
	}
	for _, c := range row.Cells {
		fmt.Println(c.Column.Name, c.Column.Type, c.Value)
	}

	ix, _ := seeds.Builtin("sms_index")
	iv, _ := schema.AsViewer(ix)
	rs, err := iv.KeyRanges(schema.TextQuery{Eq: []schema.FieldText{{Field: "mobile", Text: "13812345678"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rs), schema.QuoteKey(rs[0].Start), schema.QuoteKey(rs[0].Stop))
	// Output:
	// "8765432183192233702414267758070001"
	// mobile 13812345678
	// sent 2026-11-23T10:00:00Z
	// unique 1
	// account string acme
	// delivered bool true
	// 1 "5" "6"
}
