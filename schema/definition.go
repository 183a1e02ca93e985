package schema

import (
	"github.com/hbkit/hbkit/hbase/hbapi"
	"github.com/hbkit/hbkit/keys"
)

// Definition is the view of a table declaration that does not depend on
// the record type: what admin needs to create and check a table, and what
// the CLI prints. *Table[T], *Index[T] and *WideTable[T] implement it.
type Definition interface {
	Name() hbapi.TableName
	Families() []Family
	KeySegments() []keys.Segment
	SplitKeys() [][]byte
	Columns() []ColumnInfo
	// KeyParts cuts an encoded row key into its segments.
	KeyParts(key []byte) ([]KeyPart, error)
}

var (
	_ Definition = (*Table[struct{}])(nil)
	_ Definition = (*Index[struct{}])(nil)
)
