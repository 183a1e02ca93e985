package schema

import "github.com/hbkit/hbkit/hbase/hbapi"

// IndexStateAttribute is the table attribute (HBase descriptor value) of
// an index table that holds its IndexState, where every client, the CLI
// and the HBase shell see it. See docs/index-state.md.
const IndexStateAttribute = "hbkit.index.state"

// IndexState is whether an index table holds an entry for every record of
// its data table.
type IndexState string

// Index states. An index table without the attribute is active: tables
// created before it existed, and by other tools, keep working as they did.
const (
	// IndexActive: writers maintain the index and every record has its
	// entry; readers answer from it.
	IndexActive IndexState = "active"
	// IndexBuilding: writers maintain the index, but records written
	// before it existed may have no entry until it is built; readers
	// refuse to answer from it.
	IndexBuilding IndexState = "building"
)

// IndexStateOf reads the state from a table's attributes: IndexBuilding
// when the attribute says so, IndexActive otherwise.
func IndexStateOf(attrs map[string]string) IndexState {
	if IndexState(attrs[IndexStateAttribute]) == IndexBuilding {
		return IndexBuilding
	}
	return IndexActive
}

// IndexDefinition is the definition of an index table: it names its data
// table. *Index[T] implements it, and so does RenamedIndex.
type IndexDefinition interface {
	Definition
	DataTable() hbapi.TableName
}

// DataTable returns the name of the data table the index belongs to.
func (ix *Index[T]) DataTable() hbapi.TableName { return ix.table.name }

// IndexDefinitions returns the definitions of the table's index tables,
// in declaration order: what an admin job creates, checks and drops with
// the data table.
func (t *Table[T]) IndexDefinitions() []Definition {
	out := make([]Definition, len(t.indexes))
	for i, ix := range t.indexes {
		out[i] = ix
	}
	return out
}

// RenamedIndex is Renamed for an index table whose data table is served
// under the name data.
func RenamedIndex(d IndexDefinition, name, data hbapi.TableName) IndexDefinition {
	return renamedIndex{renamed: renamed{Definition: d, name: name}, data: data}
}

type renamedIndex struct {
	renamed
	data hbapi.TableName
}

func (r renamedIndex) DataTable() hbapi.TableName { return r.data }

var _ IndexDefinition = (*Index[struct{}])(nil)
