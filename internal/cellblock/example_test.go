package cellblock_test

import (
	"fmt"

	"github.com/hbkit/hbkit/internal/cellblock"
)

func ExampleDecodeCell() {
	block, err := cellblock.AppendCell(nil, cellblock.Cell{
		Row: []byte("row1"), Family: []byte("d"), Qualifier: []byte("name"),
		Timestamp: 1700000000000, Type: 4, Value: []byte("Ada"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, rest, err := cellblock.DecodeCell(block)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s/%s:%s@%d type %d = %s, %d bytes left\n", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value, len(rest))
	// Output:
	// row1/d:name@1700000000000 type 4 = Ada, 0 bytes left
}
